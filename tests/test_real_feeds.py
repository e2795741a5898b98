"""Real public feeds (issue 30): faithful reductions of six public shop exports, of both formats, in
three currencies (tests/data/feeds/README.md says where each comes from and what was reduced).
They hold what real exports hold: attributes some products of a category state and others do not,
variants on two options, products without any category, products without brand, a category column
under another name, bare prices, a stock of "100 ML". Each imports; the import report says which
environments can run and why the others cannot; every environment that can run is solved by the
oracle and not by doing nothing; the demo runs on them; and nothing raises."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verishop.scenarios.catalog.feeds import ImportFailed
from verishop.scenarios.catalog.feeds.run import run_import
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.envs import REGISTRY, generate
from verishop.scenarios.taxonomy import imported_categories_apart
from support import play_and_verify

FEEDS_DIR = Path(__file__).parent / "data" / "feeds"
DOC = Path(__file__).parent.parent / "docs" / "bring-your-own-shop.md"
# feed file -> the currency its prices are in when the feed does not say (Shopify's bare amounts,
# the AED feed's bare prices), as `--currency` would give it.
FEEDS = {
    "shopify-homeware-usd.csv": None,
    "shopify-plants-eur.csv": "EUR",
    "merchant-streetwear-usd.xml": None,
    "merchant-barefoot-usd.xml": None,
    "shopify-jewelry-usd.csv": None,
    "merchant-gifts-aed.tsv": "AED",
}
SHORT = tuple(spec.short_name for spec in REGISTRY.values())
ENV_ID = {spec.short_name: spec.env_id for spec in REGISTRY.values()}


def _as_the_report_proposes(feed: Path, folder: Path) -> Path:
    """The gifts feed names its category column `category`; the import refuses it and proposes
    renaming it product_type, which is what its owner would do (the test below sees the refusal)."""
    if feed.name != "merchant-gifts-aed.tsv":
        return feed
    renamed = folder / feed.name
    header, rest = feed.read_text(encoding="utf-8").split("\n", 1)
    renamed.write_text(re.sub(r"(?<=\t)category(?=\t)", "product_type", header) + "\n" + rest, encoding="utf-8")
    return renamed


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, object]]:
    """feed -> (catalog path, import report with the environment table)."""
    folder = tmp_path_factory.mktemp("real_feeds")
    found = {}
    for name, currency in FEEDS.items():
        source = _as_the_report_proposes(FEEDS_DIR / name, folder)
        out = folder / f"{Path(name).stem}.db"
        found[name] = (out, run_import([source], out, currency=currency, environments=True))
    return found


def _can_run(report) -> dict[str, bool]:
    return {row["env"]: row["can_run"] for row in report.environments}


def test_the_shipped_feeds_are_small_and_described():
    readme = (FEEDS_DIR / "README.md").read_text()
    for name in FEEDS:
        assert (FEEDS_DIR / name).stat().st_size < 200_000, name
        assert f"`{name}`" in readme, name
    assert sorted(p.name for p in FEEDS_DIR.iterdir() if p.name != "README.md") == sorted(FEEDS)


def test_every_feed_imports_and_its_report_names_each_environment_it_cannot_run_with_the_reason(imported):
    for name, (_, report) in imported.items():
        assert [row["env_id"] for row in report.environments] == [ENV_ID[e] for e in SHORT], name
        for row in report.environments:
            assert "a bug of verishop" not in row["reason"], (name, row)
            if not row["can_run"]:
                assert row["reason"].startswith(row["env_id"]) or f"for {row['env_id']}" in row["reason"], row
                assert "need" in row["reason"] and "fails at difficulty" in row["reason"], (name, row)
    six_or_more = [n for n, (_, r) in imported.items() if sum(_can_run(r).values()) >= 6]
    assert len(six_or_more) >= 4, six_or_more
    assert {n.split("-")[0] for n in six_or_more} == {"shopify", "merchant"}
    assert any(not n.endswith("-usd.csv") and not n.endswith("-usd.xml") for n in six_or_more)


def _doc_table() -> dict[str, dict[str, bool]]:
    """The per-environment table of the real feeds in docs/bring-your-own-shop.md."""
    rows = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 1 + len(SHORT) and cells[0].strip("`") in FEEDS:
            rows[cells[0].strip("`")] = {env: cell == "can run" for env, cell in zip(SHORT, cells[1:])}
    return rows


def test_the_guide_shows_the_table_the_import_reports_for_each_real_feed(imported):
    table = _doc_table()
    assert set(table) == set(FEEDS)
    for name, (_, report) in imported.items():
        assert table[name] == _can_run(report), name


def _difficulties(index: int) -> tuple[int, ...]:
    """Every fourth difficulty from a feed's own offset, so that the feeds together play every
    difficulty 0-12 of each environment most of them can run (the slow test below plays all 13 of
    every runnable environment on every feed)."""
    return tuple(range(index % 4, 13, 4))


@pytest.mark.parametrize("index", range(len(FEEDS)), ids=list(FEEDS))
def test_every_environment_the_report_says_can_run_is_solved_by_the_oracle_and_not_by_doing_nothing(
        imported, index, tmp_path):
    name = list(FEEDS)[index]
    path, report = imported[name]
    envs = tuple(ENV_ID[e] for e, ok in _can_run(report).items() if ok)
    difficulties = _difficulties(index)
    with imported_categories_apart():  # the feeds define categories of the same ids differently
        oracle = play_and_verify("oracle", envs, difficulties, len(difficulties), 5300, path, tmp_path / "oracle")
        null = play_and_verify("null", envs, (12 - index,), 1, 5300, path, tmp_path / "null")
    assert [(r["env_id"], r["difficulty"]) for r in oracle if not r["is_correct"]] == []
    assert {r["env_id"] for r in oracle} == set(envs)
    assert not any(r["is_correct"] for r in null)


@pytest.mark.slow
def test_on_every_feed_the_oracle_solves_every_runnable_environment_at_every_difficulty_and_null_none(
        imported, tmp_path):
    for name, (path, report) in imported.items():
        envs = tuple(ENV_ID[e] for e, ok in _can_run(report).items() if ok)
        with imported_categories_apart():
            oracle = play_and_verify("oracle", envs, tuple(range(13)), 13, 5900, path, tmp_path / name / "oracle",
                                     transport="local")
            null = play_and_verify("null", envs, tuple(range(13)), 13, 5900, path, tmp_path / name / "null",
                                   transport="local")
        assert [(r["env_id"], r["difficulty"]) for r in oracle if not r["is_correct"]] == [], name
        assert not any(r["is_correct"] for r in null), name


def _taxonomy(path: Path) -> dict[str, dict]:
    with imported_categories_apart(), CatalogReader(path) as catalog:
        return {c["id"]: c for c in json.loads(catalog.meta["taxonomy"])}


def test_partial_attributes_are_kept_when_enough_products_state_them_and_colour_is_color(imported):
    _, report = imported["shopify-jewelry-usd.csv"]
    coverage = {(c["category"], c["attribute"]): c for c in report.attribute_coverage}
    bracelets = coverage[("shop_bracelet", "color")]
    assert 0 < bracelets["products"] < bracelets["of"] and bracelets["kept"]  # 4 of 7 bracelets say a colour
    assert not coverage[("shop_necklace", "color")]["kept"]  # 2 of 12 necklaces: noise, left out
    assert "colour -> color" in report.merged_attributes  # "Colour" on one product, "Color" on others
    path, report = imported["merchant-barefoot-usd.xml"]
    sizes = [c for c in report.attribute_coverage if c["attribute"] == "size"]
    assert sizes and all(c["kept"] for c in sizes) and any(c["products"] < c["of"] for c in sizes)


def test_variants_on_two_options_make_variant_groups_the_oracle_serves(imported):
    path, report = imported["shopify-homeware-usd.csv"]
    with imported_categories_apart(), CatalogReader(path) as catalog:
        rows = catalog.db.execute("SELECT group_id, attrs FROM products").fetchall()
    groups: dict[str, list[dict]] = {}
    for group, attrs in rows:
        groups.setdefault(group, []).append(json.loads(attrs))
    two_options = [g for g, members in groups.items()
                   if sum(len({m.get(k) for m in members}) > 1 for k in {k for m in members for k in m}) >= 2]
    assert len(two_options) >= 3  # colour x set, pattern x plate size, size x type ...
    taxonomy = _taxonomy(path)
    assert sum(1 for c in taxonomy.values() if c["variant_attribute"]) >= 3
    assert _can_run(report)["cart"]


def test_products_without_any_category_take_a_word_of_their_title(imported):
    for name in ("shopify-homeware-usd.csv", "merchant-barefoot-usd.xml"):
        path, report = imported[name]
        assert any("state no category" in w for w in report.warnings), (name, report.warnings)
        names = {c["name"] for c in _taxonomy(path).values()}
        assert names and not names & {"Rose Gold", "Black", "Small"}, names
    assert {c["name"] for c in _taxonomy(imported["merchant-barefoot-usd.xml"][0]).values()} == {"Women", "Men",
                                                                                                   "Kids"}


def test_a_feed_whose_category_column_has_another_name_is_refused_with_the_fix_and_imports_after_it(tmp_path):
    with pytest.raises(ImportFailed, match=r"the column 'category' looks like one: rename it product_type"):
        run_import([FEEDS_DIR / "merchant-gifts-aed.tsv"], tmp_path / "gifts.db", currency="AED")
    with pytest.raises(ImportFailed, match=r"has no currency .*--currency"):
        run_import([_as_the_report_proposes(FEEDS_DIR / "merchant-gifts-aed.tsv", tmp_path)], tmp_path / "gifts.db")
    assert not (tmp_path / "gifts.db").exists()


def test_products_without_brand_are_never_described_by_an_empty_brand(imported):
    path, report = imported["merchant-barefoot-usd.xml"]
    assert "brand" in report.absent_fields
    with imported_categories_apart(), CatalogReader(path) as catalog:
        for env in ("pd", "return", "sub", "status"):
            for seed in range(12):
                scenario = generate(env, 12, 700 + seed, catalog)
                text = scenario.to_json()
                assert "from ." not in text and "made by ." not in text and "from  " not in text, (env, seed)
                assert '"brand": "' not in text.replace('"brand": ""', ""), (env, seed)


def test_prices_keep_the_feeds_currency_in_the_catalog(imported):
    for name, currency in (("shopify-plants-eur.csv", "EUR"), ("merchant-gifts-aed.tsv", "AED"),
                           ("merchant-streetwear-usd.xml", "USD")):
        with imported_categories_apart(), CatalogReader(imported[name][0]) as catalog:
            assert catalog.meta["currency"] == currency, name


def _demo(path: Path, home: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verishop", "demo", "--catalog", str(path)],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200", "VERISHOP_HOME": str(home)})


@pytest.mark.parametrize("name", ["merchant-gifts-aed.tsv"])
def test_the_demo_runs_on_a_real_feed_and_names_what_it_skips(imported, name, tmp_path):
    path, report = imported[name]
    done = _demo(path, tmp_path / "home")
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
    assert "reward: total" in done.stdout
    cannot = {row["env_id"] for row in report.environments if not row["can_run"]}
    skipped = set(re.findall(r"skipped (\S+): ", done.stdout))
    assert skipped <= cannot, (skipped, cannot)  # the demo plays five episodes and skips what cannot run
    assert name != "merchant-gifts-aed.tsv" or "cart-v7" in skipped


@pytest.mark.slow
def test_the_demo_runs_on_every_real_feed(imported, tmp_path):
    for name, (path, _) in imported.items():
        done = _demo(path, tmp_path / name)
        assert "Traceback" not in done.stderr and done.returncode == 0, (name, done.stderr)


def test_the_demo_names_the_skipped_environment_by_its_id_whatever_the_reason_says(capsys):
    from verishop.agents.cli import _generated_or_skipped
    from verishop.scenarios.catalog.reader import CatalogError

    def too_small():
        raise CatalogError("the catalog is too small for sub-v9 at difficulty 0: it needs a category with at least "
                           "34 in-stock products")

    assert _generated_or_skipped("sub", too_small) is None
    assert "skipped sub-v9: the catalog is too small" in " ".join(capsys.readouterr().out.split())
