"""The out-of-stock axis as a rule (`verishop.scenarios.stock`): its SQL and Python forms agree on every
product, it sells out the axis's share of a category at any size, and the server, the generator's
rankings and the verifier all see the same sold-out products."""

from __future__ import annotations

import random
import sqlite3
import statistics

import pytest
from mcp import Client

from verishop.mcp_server.http.admission import InvalidScenario, check_scenario
from verishop.mcp_server.tools import create_server
from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.constraints import satisfies
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.envs import generate
from verishop.scenarios.models import StockChange
from verishop.scenarios.stock import CATALOG_NUMBER_SQL, HASH_MODULUS, EpisodeStock, sell_out_rule
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES
from test_verifier import Script, write_episode
from verishop.verifier.checks.base import Options
from verishop.verifier.runner import Settings, Verifier


def _stock_by_sql(reader: CatalogReader, stock: EpisodeStock) -> dict[str, int]:
    """Every catalog product's units as the server's SQL computes them (a world's stock_changes
    table left-joined to the catalog, as in mcp_server/shop/catalog.py)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE stock_changes (product_id TEXT PRIMARY KEY, stock INTEGER NOT NULL)")
    db.executemany("INSERT INTO stock_changes VALUES (?, ?)", list(stock.changes.items()))
    db.execute("ATTACH DATABASE ? AS cat", (f"file:{reader.path}?mode=ro",))
    units, args = stock.units_sql('p.', 's.stock')
    sql = (f"SELECT p.product_id, {units} FROM cat.products p "
           "LEFT JOIN main.stock_changes s ON s.product_id = p.product_id")
    try:
        return dict(db.execute(sql, args))
    finally:
        db.close()


def test_the_sql_rule_and_the_python_rule_agree_on_every_product(reader):
    rng = random.Random(11)
    products = [reader.product(pid) for (pid,) in reader.db.execute("SELECT product_id FROM products")]
    categories = [c.id for c in SHOPPABLE_CATEGORIES]
    for trial in range(12):
        chosen = rng.sample(categories, rng.choice((1, 2, 3)))
        some = rng.sample(products, 30)
        rules = tuple(sell_out_rule(rng, c, rng.choice((0.0, 0.1, 0.5, 0.97, 1.0)),
                                    keep=[p.product_id for p in some[:3]])
                      for c in chosen)
        # Explicit changes, some on products a rule sells out: the change wins.
        changes = {p.product_id: rng.choice((0, 4)) for p in some[3:]}
        stock = EpisodeStock(changes, rules)
        by_sql = _stock_by_sql(reader, stock)
        assert by_sql == {p.product_id: stock.units(p) for p in products}, trial
    assert EpisodeStock().units_sql("p.", "s.stock") == ("COALESCE(s.stock, p.stock)", [])


def test_a_rule_sells_out_its_share_and_nothing_outside_its_category(reader):
    rng = random.Random(2)
    for share in (0.1, 0.5, 0.9):
        rule = sell_out_rule(rng, "chargers", share)
        stock = EpisodeStock(rules=(rule,))
        in_category = [p for p in reader.in_category("chargers") if p.stock > 0]
        sold = sum(stock.units(p) == 0 for p in in_category)
        assert abs(sold / len(in_category) - share) < 0.08, (share, sold, len(in_category))
        assert not any(stock.sold_by_rule(p) for p in reader.in_category("laptops"))
    assert sell_out_rule(rng, "chargers", 1.0).below == HASH_MODULUS


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> CatalogReader:
    """A catalog whose categories hold several hundred products each: pd-v4's bounded sample of
    128 rows sold out only a fraction of such a category."""
    path = tmp_path_factory.mktemp("wide") / "catalog.db"
    build_catalog(path, size=20_000, seed=4)
    with CatalogReader(path) as reader:
        yield reader


@pytest.mark.parametrize("env", ["pd", "sub", "return"])
def test_the_axis_sells_out_its_share_of_a_large_category(wide, env):
    shares = []
    for seed in range(30):
        scenario = generate(env, 12, seed, wide)
        if not scenario.sell_outs:
            assert env == "return" and scenario.goal.replacement is None
            continue
        stock = EpisodeStock.of_scenario(scenario)
        category_id = scenario.sell_outs[0].category_id
        in_stock = [p for p in wide.in_category(category_id) if p.stock > 0]
        assert len(in_stock) > 200
        shares.append(sum(stock.units(p) <= 0 for p in in_stock) / len(in_stock))
    assert len(shares) >= 10
    assert abs(statistics.median(shares) - axes_for(12).p_out_of_stock) < 0.05, shares


def _pd_with_rule(reader: CatalogReader):
    """A PD scenario at the hardest level, and a product of its category the rule sells out that
    meets every constraint but the stock (found among the first seeds)."""
    for seed in range(60):
        scenario = generate("pd", 12, seed, reader)
        stock = EpisodeStock.of_scenario(scenario)
        fitting = [p for p in reader.in_category(scenario.goal.category_id)
                   if p.stock > 0 and stock.sold_by_rule(p) and all(satisfies(p, c) for c in scenario.goal.constraints)]
        if fitting:
            return scenario, stock, fitting[0]
    raise AssertionError("no PD scenario with a fitting product sold out by its rule")


async def test_the_server_shows_rule_sold_products_as_sold_out_and_will_not_sell_them(hub, reader):
    scenario, stock, sold = _pd_with_rule(reader)
    scenario = scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 50,
                                                                                     "search_top_k": 100_000})})
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        search = {"category_id": scenario.goal.category_id, "limit": 50, "sort_by": "price"}
        every = (await client.call_tool("search_catalog", search)).structured_content["results"]
        assert every and all(card["in_stock"] == (stock.units(reader.product(card["product_id"])) > 0)
                             for card in every)
        assert any(not card["in_stock"] for card in every)  # half the category is sold out
        in_stock = (await client.call_tool("search_catalog", {**search, "in_stock_only": True})).structured_content
        assert in_stock["results"] and all(card["in_stock"] for card in in_stock["results"])
        details = (await client.call_tool("get_product", {"product_id": sold.product_id})).structured_content
        assert details["in_stock"] is False and details["stock_units"] == 0
        refused = await client.call_tool("add_to_cart", {"product_id": sold.product_id, "quantity": 1})
        assert refused.is_error and "stock" in refused.content[0].text
        cart = (await client.call_tool("view_cart", {})).structured_content
        assert cart["lines"] == []
    assert episode.product(sold.product_id).stock == 0


def test_the_verifier_counts_a_rule_sold_recommendation_as_out_of_stock(reader, catalog_path, tmp_path):
    scenario, _, sold = _pd_with_rule(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    offered = [sold, *ideal[1:]]
    script = (Script(scenario, "ep_test").search(offered)
              .say("These.", recommend=[p.product_id for p in offered], done=True).close())
    # Recomputing the ideal list from the catalog and the world: the same rule applies there.
    with Verifier(Settings(options=Options(recompute_ideal=True))) as verifier:
        reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    assert next(c for c in reward.breakdown if c.name == "out_of_stock").found == {"sold_out": 1, "beyond_asked": 0}
    assert next(c for c in reward.breakdown if c.name == "item_1").found["in_stock"] is False
    assert next(c for c in reward.breakdown if c.name == "ideal_recomputed").passed


@pytest.mark.parametrize(("change", "problem"), [
    ({"category_id": "no-such-category"}, "sell_outs[0].category_id"),
    ({"multiplier": 0}, "sell_outs[0].multiplier"),
    ({"offset": HASH_MODULUS}, "sell_outs[0].offset"),
    ({"below": -1}, "sell_outs[0].below"),
    ({"keep": ("chargers",)}, "sell_outs[0].keep names 'chargers'"),
])
def test_a_bad_rule_is_refused_by_name(reader, change, problem):
    scenario = generate("pd", 12, 0, reader)
    bad = scenario.model_copy(update={"sell_outs": (scenario.sell_outs[0].model_copy(update=change),)})
    with pytest.raises(InvalidScenario, match=problem.replace("[", r"\[").replace("]", r"\]")):
        check_scenario(bad, reader)


def test_a_scenario_without_rules_keeps_its_bytes(reader):
    cart = generate("cart", 5, 1, reader)
    assert not cart.sell_outs and "sell_outs" not in cart.to_json()
    pd = generate("pd", 12, 1, reader)
    assert '"sell_outs"' in pd.to_json()
    assert type(pd).model_validate_json(pd.to_json()) == pd
    with_change = pd.model_copy(update={"stock_changes": (StockChange(product_id="P00000001", stock=0),)})
    assert EpisodeStock.of_scenario(with_change).changes == {"P00000001": 0}



def test_a_catalog_row_number_is_its_product_number(reader, wide):
    """Rankings test the rule on an index entry's rowid (`CATALOG_NUMBER_SQL`), the server and the
    verifier on the product ID: the two agree because the catalog names row r `product_id(r)`."""
    for catalog in (reader, wide):
        sql = f"SELECT count(*) FROM products WHERE {CATALOG_NUMBER_SQL} != CAST(substr(product_id, 2) AS INTEGER)"
        assert catalog.db.execute(sql).fetchone()[0] == 0
        assert catalog.db.execute("SELECT count(*) FROM products").fetchone()[0] == catalog.size


def test_episodes_with_different_rules_share_the_stock_sql_text_so_a_connection_compiles_it_once():
    rng = random.Random(5)
    first = EpisodeStock({}, (sell_out_rule(rng, "chargers", 0.5, keep=["P00000001"]),))
    second = EpisodeStock({"P00000002": 3}, (sell_out_rule(rng, "t_shirts", 0.2, keep=["P00000009"]),))
    (sql_a, args_a), (sql_b, args_b) = first.units_sql("p.", "s.stock"), second.units_sql("p.", "s.stock")
    assert sql_a == sql_b and args_a != args_b
    assert "chargers" not in sql_a and "t_shirts" not in sql_b  # figures are bound, never written in
