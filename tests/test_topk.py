"""Generation reads the catalog through its indexes, and what it computes is what reading every
row would compute: PD's and SUB's ideal lists (also inside journeys) equal a full scan of the
catalog and the scenario's world; BUNDLE's scenarios are byte-identical to the full-category
read they replaced; a scenario's sell-outs take a few bytes at any size. The slow variant runs thousands of seeds on a
100,000-product catalog (`bench/ranking_equivalence.py` does the same at any size)."""

from __future__ import annotations

import random

import pytest

from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.reader import CatalogReader, Product, feasible_products
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.envs import generate
from verishop.envs.bundle.generator import FEATURED_HEAD
from verishop.scenarios.ranking import SUB_STEPS, ideal_ranking, pd_rank_query, substitute_rank_query
from verishop.scenarios.ranking_reference import ideal_mismatches, pd_ideal_by_full_scan
from verishop.scenarios.stock import EpisodeStock, sell_out_rule
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES
from verishop.scenarios.topk import THRESHOLD_STEPS, ensure_ln, facet_filter, fetch_sql, rows_filter, threshold_filter


def _check_ideals(reader: CatalogReader, env: str, seeds: range) -> int:
    """Every seed's ideal lists against the full scan; returns how many lists were compared."""
    problems, compared = [], 0
    for seed in seeds:
        scenario = generate(env, seed % (MAX_DIFFICULTY + 1), seed, reader)
        problems += ideal_mismatches(reader, scenario)
        goals = scenario.goal.tasks if scenario.goal.kind == "journey" else (scenario.goal,)
        compared += sum(g.kind in ("product_discovery", "substitution") for g in goals)
    assert not problems, problems[:5]
    return compared


@pytest.mark.parametrize(("env", "seeds"), [("pd", 300), ("sub", 300), ("journey", 60)])
def test_ideal_lists_equal_a_full_scan_of_catalog_and_world(reader, env, seeds):
    assert _check_ideals(reader, env, range(seeds)) >= 40


def test_the_ranking_stays_exact_with_restocked_sold_out_and_episode_products(reader):
    """The verifier ranks with the world after the episode: products restocked, sold out, added,
    over sell-out rules of any share (an explicit change overrides a rule)."""
    rng = random.Random(7)
    for seed in range(80):
        goal = generate("pd", seed % 13, seed, reader).goal
        category = reader.in_category(goal.category_id)
        changes = {p.product_id: rng.choice((0, 5)) for p in rng.sample(category, min(20, len(category)))}
        rules = (sell_out_rule(rng, goal.category_id, rng.choice((0.0, 0.3, 0.9))),)
        stock = EpisodeStock(changes, rules)
        anchor = reader.product(goal.anchor_product_id)
        # An episode product (a synthesized variant) better than the anchor on every count.
        extra = [Product(f"P9{seed:07d}", anchor.group_id, anchor.title, anchor.brand, anchor.category_id,
                         anchor.price_cents - 100, 5.0, 1, 1, 3, anchor.attrs)]
        k = goal.items_to_recommend
        assert (ideal_ranking(reader, goal.constraints, goal.persona, stock, k, extra)
                == pd_ideal_by_full_scan(reader, goal.constraints, goal.persona, stock, k, extra))


@pytest.mark.parametrize("fine_steps", [(0.0025, 0.01), (0.0001, 0.001, 0.3)])
def test_substitutes_read_near_the_original_price_first_are_the_full_scan(reader, monkeypatch, fine_steps):
    # On a catalog of 1M products or more (SUB_FINE_FROM_SIZE); here forced on the test catalog.
    monkeypatch.setattr("verishop.scenarios.ranking.SUB_FINE_FROM_SIZE", 0)
    monkeypatch.setattr("verishop.scenarios.ranking.SUB_FINE_STEPS", fine_steps)
    assert _check_ideals(reader, "sub", range(0, 300, 2)) >= 100
    assert _check_ideals(reader, "journey", range(0, 60, 3)) >= 5


def test_every_threshold_step_gives_the_full_scan_list(reader, monkeypatch):
    """Whichever threshold the walk stops at, the list is the same (the stopping rule is exact)."""
    for steps in [(None,), (0.001, None), THRESHOLD_STEPS, SUB_STEPS]:
        monkeypatch.setattr("verishop.scenarios.ranking.PD_STEPS", steps)
        monkeypatch.setattr("verishop.scenarios.ranking.SUB_STEPS", steps)
        monkeypatch.setattr("verishop.scenarios.topk.EXTRA_ROWS", 1)  # cut by the limit often: limits double
        assert _check_ideals(reader, "pd", range(0, 120, 3)) and _check_ideals(reader, "sub", range(1, 120, 3))


def test_bundle_scenarios_are_byte_identical_to_the_full_category_read(reader, monkeypatch):
    new = [generate("bundle", seed % 13, seed, reader).to_json() for seed in range(150)]
    monkeypatch.setattr(CatalogReader, "featured_in_stock",
                        lambda self, category_id, limit: [
                            (p.product_id, p.price_cents) for p in feasible_products(
                                self, "category_id = ?", [category_id], limit=limit) if p.stock > 0])
    old = [generate("bundle", seed % 13, seed, reader).to_json() for seed in range(150)]
    assert new == old


def test_the_featured_head_of_a_category_is_the_same_rows_either_way(reader):
    for cat in SHOPPABLE_CATEGORIES:
        for limit in (1, 20, 200, 10_000):
            head = feasible_products(reader, "category_id = ?", [cat.id], limit=limit)
            assert reader.featured_in_category(cat.id, limit) == head
            assert reader.featured_in_stock(cat.id, limit) == [(p.product_id, p.price_cents) for p in head
                                                               if p.stock > 0]


@pytest.mark.parametrize("env", ["pd", "sub", "return", "journey"])
def test_sell_outs_take_a_few_bytes_whatever_the_category_size(reader, env):
    for seed in range(40):
        scenario = generate(env, 12, seed, reader)
        # A bundle request sells out part of the featured head of each of its (up to 12) categories.
        assert len(scenario.stock_changes) <= 5 * (12 * FEATURED_HEAD + 1) and len(scenario.sell_outs) <= 5


def _plan(reader: CatalogReader, sql: str, args: list[object]) -> str:
    return " | ".join(row[3] for row in reader.db.execute("EXPLAIN QUERY PLAN " + sql, [*args, 10]))


def test_rankings_read_through_an_index_or_the_full_text_list(reader):
    ensure_ln(reader.db)
    goal = next(g for g in (generate("pd", 8, seed, reader).goal for seed in range(40))
                if any(c.kind in ("brand", "attribute") for c in g.constraints))
    for priority in ("price", "rating", "ship"):
        persona = goal.persona.model_copy(update={"weights": {**goal.persona.weights, priority: 0.9}})
        query = pd_rank_query(goal.constraints, persona, reader.product(goal.anchor_product_id))
        plan = _plan(reader, *fetch_sql(query, threshold_filter(query, 0.95)))
        assert plan.startswith(f"SEARCH products USING INDEX {query.index} (category_id=? AND "), plan
        # The goal's facets: one full-text lookup of each row's rowid (=: by rowid, M: MATCH), no table scan.
        assert "CORRELATED SCALAR SUBQUERY" in plan and "VIRTUAL TABLE INDEX 0:=M" in plan, plan
        assert "SCAN products " not in plan, plan
    sub = generate("sub", 2, 3, reader).goal
    query = substitute_rank_query(reader.product(sub.original_product_id), sub.constraints, sub.similarity_weight)
    plan = _plan(reader, *fetch_sql(query, threshold_filter(query, 0.99)))
    assert plan.startswith("SEARCH products USING INDEX products_by_category (category_id=? AND price_cents>? "
                           "AND price_cents<?)"), plan
    plan = _plan(reader, *fetch_sql(query, facet_filter(query.head.match)))
    assert plan.startswith("SEARCH products USING INTEGER PRIMARY KEY (rowid=?)"), plan
    # A facet list read once, its rows then looked up by rowid.
    plan = _plan(reader, *fetch_sql(query, rows_filter([1, 5, 9])))
    assert plan.startswith("SEARCH products USING INTEGER PRIMARY KEY (rowid=?)"), plan
    assert reader.schema_version >= 3
    head = _plan(reader, f"SELECT product_id, price_cents, stock FROM {reader._featured} WHERE category_id = ? "
                 "ORDER BY rowid LIMIT ?", ["chargers"])
    assert head == "SEARCH products USING COVERING INDEX products_by_category_featured (category_id=?)", head


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> CatalogReader:
    path = tmp_path_factory.mktemp("large") / "catalog.db"
    build_catalog(path, size=100_000, seed=5)
    with CatalogReader(path) as reader:
        yield reader


@pytest.mark.slow
@pytest.mark.parametrize(("env", "seeds"), [("pd", 2000), ("sub", 2000), ("journey", 300)])
def test_thousands_of_ideal_lists_equal_a_full_scan_on_a_large_catalog(large: CatalogReader, env: str,
                                                                       seeds: int) -> None:
    assert _check_ideals(large, env, range(seeds)) >= seeds / 2


@pytest.mark.slow
def test_thousands_of_bundles_are_byte_identical_on_a_large_catalog(large: CatalogReader,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    new = [generate("bundle", seed % 13, seed, large).to_json() for seed in range(2000)]
    monkeypatch.setattr(CatalogReader, "featured_in_stock",
                        lambda self, category_id, limit: [
                            (p.product_id, p.price_cents) for p in feasible_products(
                                self, "category_id = ?", [category_id], limit=limit) if p.stock > 0])
    assert new == [generate("bundle", seed % 13, seed, large).to_json() for seed in range(2000)]


def test_scenarios_are_the_same_read_as_on_a_catalog_before_schema_3(reader, monkeypatch):
    # Schema 3 added the featured index and the columns on the sort indexes that bound a ranking's
    # terms; a catalog without them reads otherwise, to the same bytes.
    jobs = [(env, seed % 13, seed) for env in ("pd", "sub", "bundle", "journey") for seed in range(0, 200, 5)]
    new = [generate(env, d, seed, reader).to_json() for env, d, seed in jobs]
    monkeypatch.setattr(reader, "schema_version", 2)
    assert new == [generate(env, d, seed, reader).to_json() for env, d, seed in jobs]
