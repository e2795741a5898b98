"""Catalog quality at import (issue 30): warnings a shop owner should read, and fallbacks for what
real exports get wrong (a useless Shopify Type, HTML in titles, a category column under another
name, a price without currency, a stock that is not a count)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verishop.scenarios.catalog.feeds import ImportFailed
from verishop.scenarios.catalog.feeds.run import run_import
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.taxonomy import imported_categories_apart
from shopify_exports import write_shopify_export

HEADER = "id\ttitle\tprice\tproduct_type\tbrand\tavailability"


def _tsv(path: Path, rows: list[str], header: str = HEADER) -> Path:
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def _catalog(path: Path) -> tuple[list[dict], list[tuple[str, str]]]:
    with imported_categories_apart(), CatalogReader(path) as catalog:
        titles = catalog.db.execute("SELECT title, category_id FROM products").fetchall()
        return json.loads(catalog.meta["taxonomy"]), titles


def test_a_shopify_type_that_names_nearly_everything_falls_back_to_product_category_then_title_words(tmp_path):
    source = write_shopify_export(tmp_path / "simple.csv", 4, useless_type="simple")
    report = run_import([source], tmp_path / "simple.db")
    taxonomy, _ = _catalog(tmp_path / "simple.db")
    names = {c["name"] for c in taxonomy}
    assert "simple" not in {n.lower() for n in names}
    assert {"T-Shirts", "Sneakers", "Mugs"} <= names  # from Product Category
    assert "Tee" in names or "Runner" in names  # from the title, where Product Category is empty
    assert any("'simple'" in w and "Product Category" in w for w in report.warnings), report.warnings


def test_a_shop_of_one_real_type_keeps_it(tmp_path):
    rows = [f"T{i}\tGreen Tea {i}\t{5 + i}.00 USD\tTea\tLeafco\tin_stock" for i in range(30)]
    report = run_import([_tsv(tmp_path / "tea.tsv", rows)], tmp_path / "tea.db")
    taxonomy, _ = _catalog(tmp_path / "tea.db")
    assert [c["name"] for c in taxonomy] == ["Tea"]
    assert any("one category" in w and "30 of 30" in w for w in report.warnings), report.warnings


def test_html_is_stripped_from_shopify_titles_and_said_in_a_warning(tmp_path):
    source = write_shopify_export(tmp_path / "shop.csv", 1)
    assert "<b>" in source.read_text()
    report = run_import([source], tmp_path / "shop.db")
    _, titles = _catalog(tmp_path / "shop.db")
    assert not any("<" in t or ">" in t for t, _ in titles)
    assert any("HTML" in w and "titles" in w for w in report.warnings), report.warnings


def test_titles_that_repeat_the_brand_and_small_categories_are_warned_about(tmp_path):
    rows = [f"T{i}\tLeafco Mug {i}\t{5 + i}.00 USD\tMugs\tLeafco\tin_stock" for i in range(20)]
    rows += ["P1\tPlain Plate\t9.00 USD\tPlates\tLeafco\tin_stock"]
    report = run_import([_tsv(tmp_path / "mugs.tsv", rows)], tmp_path / "mugs.db")
    assert any("20 titles" in w and "brand" in w for w in report.warnings), report.warnings
    assert any("shop_plates" in w and "1 product" in w for w in report.warnings), report.warnings


def test_a_column_named_category_is_proposed_when_every_row_lacks_one(tmp_path):
    header = "id\ttitle\tprice\tcategory\tbrand"
    rows = [f"T{i}\tMug {i}\t{5 + i}.00 AED\tKitchen > Mugs\tClay" for i in range(3)]
    with pytest.raises(ImportFailed, match=r"the column 'category' looks like one: rename it product_type"):
        run_import([_tsv(tmp_path / "aed.tsv", rows, header)], tmp_path / "aed.db")
    csv_source = tmp_path / "mugs.csv"
    csv_source.write_text("sku,name,cost,Category\n" + "".join(f"M{i},Mug {i},{5 + i}.00 USD,Mugs\n" for i in range(3)))
    (tmp_path / "map.yaml").write_text("id: sku\ntitle: name\nprice: cost\n")
    with pytest.raises(ImportFailed, match=r"the column 'Category' looks like one: add 'category: Category' to "
                                           r"the mapping"):
        run_import([csv_source], tmp_path / "mugs.db", mapping=tmp_path / "map.yaml")


def test_a_price_without_currency_suggests_the_currency_option(tmp_path):
    rows = [f"T{i}\tMug {i}\t{5 + i}.00\tMugs\tClay\tin_stock" for i in range(3)]
    with pytest.raises(ImportFailed, match=r"has no currency .*--currency"):
        run_import([_tsv(tmp_path / "bare.tsv", rows)], tmp_path / "bare.db")
    report = run_import([tmp_path / "bare.tsv"], tmp_path / "bare.db", currency="EUR")
    assert report.imported == 3


def test_a_stock_that_is_not_a_count_is_imported_as_in_stock_and_counted(tmp_path):
    header = "id\ttitle\tprice\tproduct_type\tbrand\tquantity"
    rows = ["T1\tLotion\t5.00 USD\tCare\tClay\t100 ML", "T2\tSoap\t4.00 USD\tCare\tClay\t7",
            "T3\tOil\t6.00 USD\tCare\tClay\t-"]
    report = run_import([_tsv(tmp_path / "care.tsv", rows, header)], tmp_path / "care.db")
    assert report.imported == 3 and report.refused == 0 and report.unreadable_stock == 2
    with imported_categories_apart(), CatalogReader(tmp_path / "care.db") as catalog:
        stock = dict(catalog.db.execute("SELECT title, stock FROM products"))
    assert stock["Soap"] == 7 and stock["Lotion"] > 0 and stock["Oil"] > 0
    assert any("2 products" in w and "'100 ML'" in w and "in stock" in w for w in report.warnings), report.warnings


def test_a_stock_count_out_of_range_is_still_refused(tmp_path):
    header = "id\ttitle\tprice\tproduct_type\tbrand\tquantity"
    rows = ["T1\tLotion\t5.00 USD\tCare\tClay\t99999999999999", "T2\tSoap\t4.00 USD\tCare\tClay\t7"]
    report = run_import([_tsv(tmp_path / "care.tsv", rows, header)], tmp_path / "care.db")
    assert report.refused == 1 and "stock" in report.refusals[0]


def test_a_product_without_any_category_takes_a_word_of_its_title_that_is_not_one_of_its_options(tmp_path):
    header = "id\ttitle\tprice\tbrand\tcolor\tsize\titem_group_id\tage_group"
    rows = [f"H{s}\tHuman Beings - Black Hoodie\t75.00 USD\tHardlife\tBlack\t{s}\thoodie-1\tadult" for s in "SML"]
    rows += [f"R{n}\tSTRIDE® Nova Women\t99.99 USD\t\t\tUS {n} | EU {30 + n}\t\tadult" for n in (6, 7)]
    # who a product is for (age_group, gender) is no variant's option: "Kids" names the kind here
    rows += ["K1\tSTRIDE® Lou Kids\t59.99 USD\t\t\tUS 11 | EU 28\t\tkids"]
    rows += ["X1\t1234 - 56\t9.00 USD\t\t\t\t\t",  # no word to take: still refused, saying why
             "R6\tSTRIDE® Nova Women\t99.99 USD\t\t\tUS 6\t\t"]  # refused (a duplicate id) and not counted
    report = run_import([_tsv(tmp_path / "nocat.tsv", rows, header)], tmp_path / "nocat.db")
    taxonomy, titles = _catalog(tmp_path / "nocat.db")
    assert sorted(c["name"] for c in taxonomy) == ["Hoodie", "Kids", "Women"]
    assert report.imported == 6 and report.refused == 2 and "no category" in report.refusals[0]
    assert any("6 products state no category" in w and "title" in w for w in report.warnings), report.warnings


def test_a_shopify_export_that_never_fills_in_type_takes_categories_from_titles(tmp_path):
    header = ("Handle,Title,Body (HTML),Vendor,Type,Tags,Published,Option1 Name,Option1 Value,Variant SKU,"
              "Variant Price,Image Src\n")
    rows = ["ocean-shirt,Ocean Blue Shirt,<p>Cotton</p>,demo,,men,true,Size,Small,S1,50,\n",
            "ocean-shirt,,,,,,,,Large,S2,50,\n",
            "wool-jumper,Yellow Wool Jumper,,demo,,women,true,Title,Default Title,J1,80,\n",
            "wool-jumper,,,,,,,,,,,https://cdn.example/j.jpg\n",
            # every word of the title is also its option's: the title's last word still names it
            "glass-pot,Chic Glass Pot,,demo,,,true,Option,Chic Glass Pot,P1,20,\n",
            "glass-pot,,,,,,,,Chic Glass Pot with Lid,P2,25,\n"]
    (tmp_path / "notype.csv").write_text(header + "".join(rows))
    report = run_import([tmp_path / "notype.csv"], tmp_path / "notype.db")
    taxonomy, _ = _catalog(tmp_path / "notype.db")
    assert sorted(c["name"] for c in taxonomy) == ["Jumper", "Pot", "Shirt"]  # not "Large", the option
    assert report.imported == 5 and report.refused == 0
    assert any("5 products state no category" in w for w in report.warnings), report.warnings


def test_accented_category_and_option_names_keep_their_letters_in_ids(tmp_path):
    header = "Handle,Title,Vendor,Type,Option1 Name,Option1 Value,Variant SKU,Variant Price\n"
    rows = [f"palme-{i},Palme {i},Pousse,Plante d'extérieur,Größe,{s},P{i}{s},{40 + i}\n"
            for i in range(3) for s in ("S", "M")]
    (tmp_path / "plantes.csv").write_text(header + "".join(rows), encoding="utf-8")
    run_import([tmp_path / "plantes.csv"], tmp_path / "plantes.db", currency="EUR")
    taxonomy, _ = _catalog(tmp_path / "plantes.db")
    assert [(c["id"], c["name"]) for c in taxonomy] == [("shop_plante_d_exterieur", "Plante d'extérieur")]
    assert [a["name"] for a in taxonomy[0]["attributes"]] == ["grosse"]
