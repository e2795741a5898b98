"""`verishop catalog import` (issue 21): a shop's own feed becomes a catalog with its own taxonomy;
bad rows are named with their line, id and reason; --strict and failures write nothing; malformed
encodings, truncated files, header-only files and a 100 MB field are refused, not crashed on."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from verishop.scenarios.catalog.feeds import ImportFailed, MappingError, PolicyFileError
from verishop.scenarios.catalog.feeds.run import run_import
from verishop.scenarios.catalog.integrity import CatalogMismatch, verify_catalog
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.taxonomy import CATEGORY_BY_ID

SHOP = Path(__file__).parent.parent / "examples" / "shop"
SAMPLES = {"merchant-tsv": SHOP / "merchant.tsv", "merchant-xml": SHOP / "merchant.xml",
           "shopify": SHOP / "shopify.csv"}
SAMPLE_PRODUCTS = 315
HEADER = "id\ttitle\tavailability\tprice\tbrand\tproduct_type\tcolor\n"


def tsv_row(n: int, **change: str) -> str:
    row = {"id": f"SKU-{n}", "title": f"Walnut Spoon {n}", "availability": "in_stock", "price": "12.50 USD",
           "brand": "Grainwood", "product_type": "Kitchen > Wooden Spoons", "color": "Oak"} | change
    return "\t".join(row.values()) + "\n"


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def partials(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(".partial")]


@pytest.mark.parametrize("feed_format", SAMPLES)
def test_each_sample_feed_imports_with_its_own_taxonomy(tmp_path: Path, feed_format: str):
    out = tmp_path / "shop.db"
    report = run_import([SAMPLES[feed_format]], out, policy=SHOP / "policy.yaml")  # format detected
    assert (report.imported, report.refused) == (SAMPLE_PRODUCTS, 0)
    assert report.merged == (218 if feed_format == "shopify" else 0)  # Shopify's image-only rows
    with CatalogReader(out) as catalog:
        assert catalog.meta["format"] == feed_format and catalog.size == SAMPLE_PRODUCTS
        ids = {c.id for c in catalog.taxonomy}
        assert len(ids) == 8 and not ids & set(CATEGORY_BY_ID)
        pens = next(c for c in catalog.taxonomy if c.name == "Fountain Pens")
        assert {a.name for a in pens.attributes} == {"nib_size", "barrel_finish", "filling_system"}
        assert pens.variant_attribute == "nib_size" and pens.nouns == ("Fountain Pen",)
        assert catalog.denied_category_ids == {"shop_craft_knives"}  # restricted by the policy file
        assert "rating" in catalog.absent_fields
        grouped = catalog.db.execute("SELECT count(*) FROM products WHERE group_id != product_id").fetchone()[0]
        assert grouped > 20  # variants share their group's first product
        first = catalog.product_at(0)
        assert "<" not in first.title
    assert verify_catalog(out, trust_stamp=False).content_hash == report.content_hash


def test_merchant_tsv_and_xml_of_the_same_products_give_the_same_products(tmp_path: Path):
    rows = []
    for name in ("merchant-tsv", "merchant-xml"):
        run_import([SAMPLES[name]], tmp_path / f"{name}.db")
        rows.append(sqlite3.connect(tmp_path / f"{name}.db").execute("SELECT * FROM products ORDER BY rowid").fetchall())
    assert rows[0] == rows[1]


def test_the_same_feed_gives_the_same_content_hash_and_a_changed_price_another(tmp_path: Path):
    feed = write(tmp_path / "a.tsv", HEADER + tsv_row(1) + tsv_row(2))
    first = run_import([feed], tmp_path / "1.db").content_hash
    assert run_import([feed], tmp_path / "2.db").content_hash == first
    changed = write(tmp_path / "b.tsv", HEADER + tsv_row(1) + tsv_row(2, price="12.60 USD"))
    assert run_import([changed], tmp_path / "3.db").content_hash != first


def test_an_edited_taxonomy_or_policy_breaks_the_content_hash(tmp_path: Path):
    out = tmp_path / "shop.db"
    run_import([SAMPLES["merchant-tsv"]], out, policy=SHOP / "policy.yaml")
    db = sqlite3.connect(out)
    policy = json.loads(db.execute("SELECT value FROM meta WHERE key = 'policy'").fetchone()[0])
    policy["returns"]["window_days"] = 365  # the stored form keeps the file's first key names
    db.execute("UPDATE meta SET value = ? WHERE key = 'policy'", (json.dumps(policy),))
    db.commit()
    db.close()
    with pytest.raises(CatalogMismatch, match="damaged or was changed"):
        verify_catalog(out, trust_stamp=False)


def test_bad_rows_are_named_by_line_id_and_reason_and_the_rest_is_imported(tmp_path: Path):
    report = run_import([SHOP / "bad_rows.tsv"], tmp_path / "shop.db")
    assert (report.imported, report.merged, report.refused) == (2, 0, 6)
    source = str(SHOP / "bad_rows.tsv")
    assert report.refusals == [
        f"{source}:3: no id: missing id",
        f"{source}:4: id 'IW-BAD-2': unparseable price 'twelve dollars' (expected like '15.00 USD')",
        f"{source}:5: id 'IW-OK-1': duplicate id (first at {source}:2)",
        f"{source}:6: id 'IW-BAD-4': empty title",
        f"{source}:7: id 'IW-BAD-5': unknown availability 'perhaps' (known: available, backorder, discontinued, "
        "in_stock, instock, out_of_stock, outofstock, preorder)",
        f"{source}:8: id 'IW-BAD-6': currency EUR differs from the feed's USD",
    ]


def test_strict_refuses_the_whole_import_on_the_first_bad_row_and_writes_nothing(tmp_path: Path):
    out = tmp_path / "shop.db"
    with pytest.raises(ImportFailed, match=r"bad_rows.tsv:3: no id: missing id; nothing was written"):
        run_import([SHOP / "bad_rows.tsv"], out, strict=True)
    assert not out.exists() and partials(tmp_path) == []


def test_the_cli_exit_status_says_whether_rows_were_refused_or_nothing_was_written(tmp_path: Path):
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "verishop", "catalog", "import", *args], capture_output=True,
                              text=True, timeout=120, env={**os.environ, "VERISHOP_HOME": str(tmp_path)})

    clean = run(str(SAMPLES["merchant-tsv"]), "--out", str(tmp_path / "clean.db"))
    assert clean.returncode == 0, clean.stderr
    assert "imported 315, merged 0, refused 0" in clean.stderr
    bad = run(str(SHOP / "bad_rows.tsv"), "--out", str(tmp_path / "bad.db"), "--report", str(tmp_path / "r.json"))
    assert bad.returncode == 3 and (tmp_path / "bad.db").is_file()
    assert "bad_rows.tsv:4: id 'IW-BAD-2': unparseable price" in bad.stderr
    assert json.loads((tmp_path / "r.json").read_text())["refused"] == 6
    strict = run(str(SHOP / "bad_rows.tsv"), "--out", str(tmp_path / "strict.db"), "--strict")
    assert strict.returncode == 2 and not (tmp_path / "strict.db").exists()


def test_a_row_with_bytes_that_are_not_utf8_is_refused_and_the_others_imported(tmp_path: Path):
    bad = tsv_row(2, title="Caf\udce9 Spoon").encode("utf-8", "surrogateescape")  # a Latin-1 é
    feed = write(tmp_path / "mixed.tsv", HEADER.encode() + tsv_row(1).encode() + bad + tsv_row(3).encode())
    report = run_import([feed], tmp_path / "shop.db")
    assert (report.imported, report.refused) == (2, 1)
    assert "mixed.tsv:3: id 'SKU-2': text is not valid UTF-8 (byte 0xe9" in report.refusals[0]


def test_a_utf8_byte_order_mark_is_not_part_of_the_first_column(tmp_path: Path):
    feed = write(tmp_path / "bom.tsv", b"\xef\xbb\xbf" + (HEADER + tsv_row(1)).encode())
    assert run_import([feed], tmp_path / "shop.db", feed_format="merchant-tsv").imported == 1


def test_a_truncated_tsv_refuses_its_cut_row(tmp_path: Path):
    text = HEADER + tsv_row(1) + tsv_row(2)
    feed = write(tmp_path / "cut.tsv", text[:-25])
    report = run_import([feed], tmp_path / "shop.db")
    assert (report.imported, report.refused) == (1, 1)
    assert "cut.tsv:3: id 'SKU-2': the record has 6 fields but the header has 7" in report.refusals[0]


def test_a_truncated_xml_feed_keeps_the_items_before_the_cut_and_says_where(tmp_path: Path):
    text = SAMPLES["merchant-xml"].read_text()
    cut = text.index("<item>", len(text) // 2) + 40
    report = run_import([write(tmp_path / "cut.xml", text[:cut])], tmp_path / "shop.db")
    assert 100 < report.imported < SAMPLE_PRODUCTS and report.refused == 1
    assert "the XML document is cut off or malformed at line" in report.refusals[0]
    with pytest.raises(ImportFailed, match="cut off or malformed"):
        run_import([tmp_path / "cut.xml"], tmp_path / "strict.db", strict=True)


def test_a_header_only_file_writes_nothing_and_says_so(tmp_path: Path):
    feed = write(tmp_path / "empty.tsv", HEADER)
    with pytest.raises(ImportFailed, match="the source has a header and no rows"):
        run_import([feed], tmp_path / "shop.db")
    assert not (tmp_path / "shop.db").exists() and partials(tmp_path) == []
    with pytest.raises(ImportFailed, match="is empty: no header row"):
        run_import([write(tmp_path / "nothing.tsv", "")], tmp_path / "shop.db", feed_format="merchant-tsv")


def test_a_100_mb_field_is_refused_without_holding_it_and_the_other_rows_imported(tmp_path: Path):
    feed = tmp_path / "huge.tsv"
    with open(feed, "w") as f:  # written in 1 MiB pieces: this process never holds 100 MB either
        f.write(HEADER + tsv_row(1) + "SKU-2\t")
        for _ in range(100):
            f.write("x" * (1 << 20))
        f.write(tsv_row(2)[len("SKU-2\tWalnut Spoon 2"):] + tsv_row(3))
    # VmHWM: the import's own peak resident memory (reset by exec, unlike ru_maxrss).
    code = ("import re; from pathlib import Path; from verishop.scenarios.catalog.feeds.run import run_import; "
            f"r = run_import([{str(feed)!r}], {str(tmp_path / 'shop.db')!r}); "
            "print(r.imported, r.refused, r.refusals[0]); "
            "print(re.search(r'VmHWM:\\s+(\\d+)', Path('/proc/self/status').read_text()).group(1))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    summary, peak_kib = out.stdout.strip().splitlines()
    assert summary.startswith("2 1 ") and "huge.tsv:3: no id: a line is longer than 4,194,304 bytes" in summary
    assert int(peak_kib) < 100 * 1024  # the 100 MB line was never held whole


def test_a_100_mb_quoted_field_in_a_shopify_export_is_refused(tmp_path: Path):
    lines = SAMPLES["shopify"].read_text().splitlines(keepends=True)
    huge = '"' + "y" * (100 << 20) + '"'
    row = lines[1].split(",")
    row[2] = huge
    feed = write(tmp_path / "huge.csv", "".join([lines[0], ",".join(row), *lines[3:]]))
    report = run_import([feed], tmp_path / "shop.db")
    assert report.refused >= 1 and report.imported > 300
    assert "huge.csv:2:" in report.refusals[0] and "longer than" in report.refusals[0]


def test_generic_csv_jsonl_and_parquet_import_through_a_mapping(tmp_path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    mapping = write(tmp_path / "mapping.yaml", "id: sku\ntitle: name\nprice: usd\ncurrency: USD\nbrand: maker\n"
                                               "category: aisle\ncategory_separator: /\nstock: qty\nrating: stars\n"
                                               "rating_count: reviews\nship_days: days\nattributes: [wood, finish]\n")
    rows = [{"sku": f"W{i}", "name": f"Board {i}", "usd": f"{20 + i}.00", "maker": "Grainwood",
             "aisle": "Kitchen / Boards", "qty": str(i % 3), "stars": "4.5", "reviews": "12", "days": "2",
             "wood": ("Oak", "Maple")[i % 2], "finish": "Oiled"} for i in range(6)]
    header = list(rows[0])
    write(tmp_path / "f.csv", ",".join(header) + "\n" + "".join(",".join(r.values()) + "\n" for r in rows))
    write(tmp_path / "f.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "f.parquet")
    hashes = set()
    for name in ("f.csv", "f.jsonl", "f.parquet"):
        report = run_import([tmp_path / name], tmp_path / f"{name}.db", mapping=mapping)
        assert (report.imported, report.refused, report.absent_fields) == (6, 0, [])
        with CatalogReader(tmp_path / f"{name}.db") as catalog:
            row = catalog.db.execute("SELECT rowid FROM source_ids WHERE source_id = 'W1'").fetchone()[0]
            board = catalog.product_at(row)
            assert (board.price_cents, board.rating, board.ship_days, board.stock) == (2100, 4.5, 2, 1)
            assert board.attrs == {"wood": "Maple", "finish": "Oiled"}
            hashes.add(tuple(catalog.db.execute("SELECT * FROM products ORDER BY rowid")))
    assert len(hashes) == 1  # the same products whichever of the three forms they came in


def test_a_mapping_naming_a_missing_column_or_an_unknown_key_is_refused_by_name(tmp_path: Path):
    write(tmp_path / "f.csv", "sku,name,usd\nA,Board,3.00\n")
    with pytest.raises(MappingError, match="mapping.yaml: colour: unknown key"):
        run_import([tmp_path / "f.csv"], tmp_path / "x.db",
                   mapping=write(tmp_path / "mapping.yaml", "id: sku\ntitle: name\nprice: usd\ncolour: c\n"))
    with pytest.raises(ImportFailed, match="the mapping names columns the source lacks: maker"):
        run_import([tmp_path / "f.csv"], tmp_path / "x.db",
                   mapping=write(tmp_path / "m2.yaml", "id: sku\ntitle: name\nprice: usd\nbrand: maker\n"))
    with pytest.raises(MappingError, match="needs --mapping"):
        run_import([tmp_path / "f.csv"], tmp_path / "x.db", feed_format="csv")
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize(("text", "message"), [
    ("returns: {return_window_days: 30}\nshipping: {standard_cents: 500}\nrefunds: {}\n", "refunds: unknown key"),
    ("returns: {return_window_days: thirty}\nshipping: {standard_cents: 500}\n", "returns.return_window_days: Input should be"),
    ("returns: {return_window_days: 30, restocking_fee_percent: 120}\nshipping: {standard_cents: 500}\n",
     "returns.restocking_fee_percent: Input should be less than or equal to 100"),
    ("returns: {return_window_days: 30}\n", "shipping: Field required"),
    ("returns: {return_window_days: 30, refund_method: cash}\nshipping: {standard_cents: 1}\n", "returns.refund_method"),
    ("returns: {return_window_days: 30, final_sale_categories: [Hats]}\nshipping: {standard_cents: 1}\n",
     "returns.final_sale_categories[0]: unknown category 'Hats'"),
    ("- a list\n", "expected a mapping with returns and shipping"),
    ("returns: [\n", "not valid YAML"),
])
def test_a_bad_policy_file_is_refused_naming_the_key_and_nothing_is_written(tmp_path: Path, text: str, message: str):
    policy = write(tmp_path / "policy.yaml", text)
    out = tmp_path / "shop.db"
    with pytest.raises(PolicyFileError, match=message.replace("[", r"\[").replace("(", r"\(")):
        run_import([SAMPLES["merchant-tsv"]], out, policy=policy)
    assert not out.exists() and partials(tmp_path) == []


def test_format_detection_names_what_it_cannot_tell(tmp_path: Path):
    with pytest.raises(ImportFailed, match="cannot tell its format; pass --format"):
        run_import([write(tmp_path / "feed.dat", "just some words\n")], tmp_path / "x.db")
    with pytest.raises(ImportFailed, match="different formats"):
        run_import([SAMPLES["merchant-tsv"], SAMPLES["shopify"]], tmp_path / "x.db")
