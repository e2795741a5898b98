"""Real shop exports (issue 30): attributes that cover part of a category, option names that differ
between products, variants on one or two options, products without brand, a category of equal
prices. Every generator either generates or raises the documented CatalogError saying what it
needs; the import report says beforehand which environments can run, and those do."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from verishop.scenarios.catalog.feeds.run import run_import
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader
from verishop.scenarios.envs import REGISTRY, generate
from verishop.scenarios.taxonomy import imported_categories_apart
from shopify_exports import write_shopify_export
from support import play_and_verify

SHOP = Path(__file__).parent.parent / "examples" / "shop"
SHORT = tuple(spec.short_name for spec in REGISTRY.values())


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, object]]:
    """name -> (catalog path, import report), over the samples and several realistic exports."""
    folder = tmp_path_factory.mktemp("exports")
    sources = {"merchant-tsv": SHOP / "merchant.tsv", "merchant-xml": SHOP / "merchant.xml",
               "shopify-sample": SHOP / "shopify.csv", "two-rows": SHOP / "bad_rows.tsv"}
    for seed in (1, 2, 3):
        sources[f"export-{seed}"] = write_shopify_export(folder / f"export{seed}.csv", seed)
    sources["export-small"] = write_shopify_export(folder / "small.csv", 7, products=14)
    sources["export-simple-type"] = write_shopify_export(folder / "simple.csv", 4, useless_type="simple")
    found = {}
    for name, source in sources.items():
        found[name] = (folder / f"{name}.db", run_import([source], folder / f"{name}.db", environments=True))
    return found


def _taxonomy(path: Path) -> dict[str, dict]:
    with imported_categories_apart(), CatalogReader(path) as catalog:
        return {c["id"]: c for c in json.loads(catalog.meta["taxonomy"])}


def test_a_realistic_shopify_export_keeps_the_options_most_products_of_a_category_state(catalogs):
    path, report = catalogs["export-1"]
    taxonomy = _taxonomy(path)
    names = {cid: [a["name"] for a in c["attributes"]] for cid, c in taxonomy.items()}
    assert "size" in names["shop_t_shirts"] and "color" in names["shop_t_shirts"]
    assert names["shop_sneakers"] == ["size"]  # "Shoe size" and "Size" are one attribute
    assert names["shop_hats"] == ["color"]  # "Colour" and "Color" are one attribute
    assert taxonomy["shop_sneakers"]["variant_attribute"] == "size"
    assert names["shop_mugs"] == [] and names["shop_posters"] == []
    merged = " ".join(report.merged_attributes)
    assert "shoe_size" in merged and "colour" in merged and "-> size" in merged and "-> color" in merged
    coverage = {(c["category"], c["attribute"]): c for c in report.attribute_coverage}
    hats = coverage[("shop_hats", "color")]
    assert 0 < hats["products"] < taxonomy["shop_hats"]["products"] and hats["kept"]


def test_an_attribute_only_a_few_products_state_stays_out_of_the_schema(tmp_path):
    rows = ["id\ttitle\tprice\tproduct_type\tcolor\tmaterial"]
    for i in range(20):
        material = "Oak" if i == 0 else ""
        rows.append(f"M{i}\tMug {i}\t{10 + i}.00 USD\tKitchen > Mugs\t{('Blue', 'Red')[i % 2]}\t{material}")
    (tmp_path / "mugs.tsv").write_text("\n".join(rows) + "\n")
    report = run_import([tmp_path / "mugs.tsv"], tmp_path / "mugs.db")
    taxonomy = _taxonomy(tmp_path / "mugs.db")
    assert [a["name"] for a in taxonomy["shop_mugs"]["attributes"]] == ["color"]
    coverage = {c["attribute"]: c for c in report.attribute_coverage}
    assert coverage["material"] == {"category": "shop_mugs", "attribute": "material", "products": 1,
                                    "of": 20, "kept": False}


def test_no_generator_raises_anything_but_a_catalog_error_on_any_imported_catalog(catalogs):
    """On the server's reader (`CatalogReader`); the import report's table has run every generator
    on the in-process shop's reader (`CachedCatalogReader`), at other seeds."""
    for name, (path, report) in catalogs.items():
        runs = {row["env"]: row for row in report.environments}
        with imported_categories_apart(), CatalogReader(path) as catalog:
            for env in SHORT:
                for d in range(13):
                    for seed in (0, 1, 2):
                        try:
                            generate(env, d, 900 + seed, catalog)
                        except CatalogError as exc:
                            assert not runs[env]["can_run"], (name, env, d, seed, str(exc))
                            assert runs[env]["env_id"] in str(exc), (name, env, str(exc))
                            assert "need" in str(exc) or "too small" in str(exc), (name, env, str(exc))


def test_the_import_report_says_which_environments_can_run_and_why_the_others_cannot(catalogs):
    for name, (_, report) in catalogs.items():
        assert [row["env"] for row in report.environments] == list(SHORT), name
        for row in report.environments:
            assert row["can_run"] or (row["env_id"] in row["reason"] and "need" in row["reason"]), (name, row)
            assert "a bug of verishop" not in row["reason"], (name, row)
    assert all(row["can_run"] for row in catalogs["export-1"][1].environments)
    small = {row["env"]: row for row in catalogs["export-small"][1].environments}
    assert not small["sub"]["can_run"] and "sub-v9" in small["sub"]["reason"]


def test_every_environment_the_report_says_can_run_is_solved_by_the_oracle_and_not_by_doing_nothing(
        catalogs, tmp_path):
    path, report = catalogs["export-1"]
    can_run = tuple(spec.env_id for spec in REGISTRY.values()
                    if {r["env"]: r["can_run"] for r in report.environments}[spec.short_name])
    assert len(can_run) == len(REGISTRY)
    with imported_categories_apart():  # other exports of this module define the same ids differently
        oracle = play_and_verify("oracle", can_run, (0, 3, 6, 9, 12), 5, 4100, path, tmp_path / "oracle",
                                 transport="local")
        null = play_and_verify("null", can_run, (0, 6, 12), 3, 4100, path, tmp_path / "null")
    assert [(r["env_id"], r["difficulty"]) for r in oracle if not r["is_correct"]] == []
    assert not any(r["is_correct"] for r in null)


def test_the_demo_on_a_shop_that_cannot_run_an_environment_says_so_and_plays_the_rest(tmp_path):
    import os
    import subprocess
    import sys

    feed = tmp_path / "mugs.tsv"
    feed.write_text("id\ttitle\tavailability\tprice\tbrand\tproduct_type\tcolor\n" + "".join(
        f"T{i}\tMug {i}\tin_stock\t{9 + i}.00 USD\tClayworks\tKitchen > Mugs\t{('Blue', 'Red')[i % 2]}\n"
        for i in range(12)))
    run_import([feed], tmp_path / "mugs.db")
    done = subprocess.run([sys.executable, "-m", "verishop", "demo", "--catalog", str(tmp_path / "mugs.db")],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200", "VERISHOP_HOME": str(tmp_path / "home")})
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
    assert "skipped cart-v7: cart-v7 needs a category whose products come in variants" in done.stdout
    assert "reward: total" in done.stdout


def test_catalog_import_prints_the_environment_table_and_writes_it_in_the_report(tmp_path):
    import os
    import subprocess
    import sys

    source = write_shopify_export(tmp_path / "small.csv", 7, products=14)
    done = subprocess.run([sys.executable, "-m", "verishop", "catalog", "import", str(source), "--out",
                           str(tmp_path / "small.db"), "--report", str(tmp_path / "report.json")],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "250", "VERISHOP_HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    table = lines[lines.index("environments:") + 1:][:len(REGISTRY)]
    assert [line.split()[0] for line in table] == [spec.env_id for spec in REGISTRY.values()]
    assert any(line.split()[0] == "pd-v10" and line.endswith("can run") for line in table)
    assert any(line.split()[0] == "sub-v9" and "cannot run: " in line and "in-stock products" in line for line in table)
    report = json.loads((tmp_path / "report.json").read_text())
    assert [row["env_id"] for row in report["environments"]] == [spec.env_id for spec in REGISTRY.values()]
    assert {row["env"] for row in report["environments"] if not row["can_run"]} >= {"sub"}
    assert "colour -> color" in report["merged_attributes"] and report["attribute_coverage"]
    groups = report["variant_groups"]
    line = next(line for line in lines if line.startswith("variant groups: "))
    assert line.startswith(f"variant groups: {sum(r['one_option'] for r in groups)} differ on one option, "
                           f"{sum(r['two_options'] for r in groups)} on two"), line


def test_a_return_of_a_brandless_product_never_says_from_nobody_and_names_one_item_in_the_singular(catalogs):
    path, _ = catalogs["export-1"]
    brandless = 0
    with imported_categories_apart(), CatalogReader(path) as catalog:
        for seed in range(80):
            goal = generate("return", 12, seed, catalog).goal
            text = " ".join((goal.description, *goal.details))
            assert " from  " not in text + " " and "made by ." not in text, text
            assert "t-shirts" not in goal.description and "sneakers" not in goal.description, goal.description
            brandless += "doesn't say who makes it" in text or " from " not in goal.description
    assert brandless  # the export has brandless products, and some are returned


def _groups_by_options(source: Path) -> dict[str, Counter]:
    """From the export itself: per Type, how many products vary on one option and how many on two."""
    import csv

    values: dict[str, dict[int, set[str]]] = {}
    kind: dict[str, str] = {}
    with open(source, newline="", encoding="utf-8") as stream:
        for row in csv.DictReader(stream):
            if row["Title"]:
                kind[row["Handle"]] = row["Type"]
            for k in (1, 2, 3):
                if row[f"Option{k} Value"] and row[f"Option{k} Value"] != "Default Title":
                    values.setdefault(row["Handle"], {}).setdefault(k, set()).add(row[f"Option{k} Value"])
    found: dict[str, Counter] = {}
    for handle, options in values.items():
        varying = sum(len(v) > 1 for v in options.values())
        if varying:
            found.setdefault(kind[handle], Counter())[varying] += 1
    return found


def test_the_import_report_counts_the_variant_groups_that_differ_on_two_options(catalogs, tmp_path):
    path, report = catalogs["export-1"]
    truth = _groups_by_options(write_shopify_export(tmp_path / "export1.csv", 1))
    assert truth["T-Shirts"][2] > 0 and truth["T-Shirts"][1] > 0  # the export has both kinds
    rows = {row["category"]: row for row in report.variant_groups}
    assert rows["shop_t_shirts"] == {"category": "shop_t_shirts", "options": ["size", "color"],
                                     "one_option": truth["T-Shirts"][1], "two_options": truth["T-Shirts"][2],
                                     "more_options": 0}
    assert rows["shop_hats"]["options"] == ["color"] and rows["shop_hats"]["two_options"] == 0
    assert rows["shop_hats"]["one_option"] == truth["Hats"][1]
    assert "shop_mugs" not in rows  # no variants at all
    taxonomy = _taxonomy(path)
    assert taxonomy["shop_t_shirts"]["variant_attribute"] == "size"
    assert taxonomy["shop_t_shirts"]["variant_attributes"] == ["size", "color"]
    assert "variant_attributes" not in taxonomy["shop_hats"]  # one option: recorded as before
    with imported_categories_apart(), CatalogReader(path) as catalog:
        tees = next(c for c in catalog.taxonomy if c.id == "shop_t_shirts")
        hats = next(c for c in catalog.taxonomy if c.id == "shop_hats")
        assert tees.variant_options == ("size", "color") and hats.variant_options == ("color",)
