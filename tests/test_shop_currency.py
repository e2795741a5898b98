"""The shop's currency end to end (issue 30, point 5): an imported shop whose feed is in euros or
dirhams stores, shows and speaks its own currency (the tools' `currency` and amounts, the
customer's words, the policy's clauses, the money answers the verifier reads); the generated shop
stays in US dollars, with the `*_usd` names it always had."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from test_tools import error_text, ok
from mcp import Client

from verishop.envs import REGISTRY, spec_for
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.errors import ShopError
from verishop.mcp_server.tools import create_server
from verishop.scenarios.catalog.feeds.run import run_import
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.envs import generate
from verishop.scenarios.models import CatalogRef, Order, OrderLine, Submission
from support import play_and_verify

SHOP = Path(__file__).parent.parent / "examples" / "shop"
SHORT = tuple(spec.short_name for spec in REGISTRY.values())
ENV_IDS = tuple(REGISTRY)
# The sign or code each shop's money is written with, and the other currencies' signs it never shows.
WRITTEN = {"EUR": "€", "AED": "AED"}
FOREIGN_SIGNS = ("$", "£", "¥", "USD", "dollar")


def _feed_in(folder: Path, currency: str) -> Path:
    """The sample Merchant feed with every price in `currency` (the same figures)."""
    text = (SHOP / "merchant.tsv").read_text()
    assert text.count(" USD\t") >= 300
    feed = folder / f"merchant-{currency.lower()}.tsv"
    feed.write_text(text.replace(" USD\t", f" {currency}\t"))
    return feed


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A euro shop with its policy file, and a dirham shop without one (the drawn policy)."""
    folder = tmp_path_factory.mktemp("currency-shops")
    run_import([_feed_in(folder, "EUR")], folder / "eur.db", policy=SHOP / "policy.yaml")
    run_import([_feed_in(folder, "AED")], folder / "aed.db")
    return {"EUR": folder / "eur.db", "AED": folder / "aed.db"}


def test_the_catalog_records_the_feeds_currency_and_the_generated_shop_is_in_dollars(shops, reader):
    for code, path in shops.items():
        with CatalogReader(path) as catalog:
            assert catalog.meta["currency"] == code and catalog.currency == code
            assert generate("pd", 3, 1, catalog).catalog.currency == code
    assert reader.currency == "USD" and "currency" not in reader.meta


def test_the_currency_of_bare_prices_is_a_code_in_any_case_and_a_word_is_refused(tmp_path):
    from verishop.scenarios.catalog.feeds import ImportFailed

    run_import([SHOP / "shopify.csv"], tmp_path / "eur.db", currency="eur")
    with CatalogReader(tmp_path / "eur.db") as catalog:
        assert catalog.currency == "EUR"
    with pytest.raises(ImportFailed, match="'EURO' is not a three-letter currency code"):
        run_import([SHOP / "shopify.csv"], tmp_path / "euro.db", currency="euro")
    assert not (tmp_path / "euro.db").exists()


def _money_words(scenario) -> list[str]:
    """Everything the customer and the policy say in an episode's world before the agent acts."""
    customer = spec_for(scenario).role("customer")
    words = [scenario.system_prompt, scenario.opening_message, *(c.text for c in scenario.policy.clauses)]
    words += [d.words for d in (customer.details(scenario.goal) if hasattr(customer, "details") else [])]
    return words


@pytest.mark.parametrize("code", WRITTEN)
def test_the_customer_and_the_policy_speak_the_shops_currency_and_never_dollars(shops, code):
    said_money = 0
    with CatalogReader(shops[code]) as catalog:
        for env in SHORT:
            for d in (0, 4, 8, 12):
                for seed in range(3):
                    scenario = generate(env, d, 70 + seed, catalog)
                    for text in _money_words(scenario):
                        assert not any(sign in text for sign in FOREIGN_SIGNS), (env, d, seed, text)
                        said_money += WRITTEN[code] in text
    assert said_money > 50  # budgets, prices and the shipping clause are said, in the shop's currency


def test_a_euro_budget_and_the_policy_amounts_are_written_the_way_the_currency_is(shops):
    with CatalogReader(shops["EUR"]) as catalog:
        clause = {c.policy_id: c.text for c in generate("policy", 6, 1, catalog).policy.clauses}
        assert clause["POL-SHIPPING"] == "Standard shipping costs €6.50. Orders of €60.00 or more ship free."
        budgets = [m for seed in range(30) for m in re.findall(r"under \S+", generate("pd", 12, seed, catalog)
                                                               .opening_message)]
    assert budgets and all(re.fullmatch(r"under €\d+[.,]?", b) for b in budgets), budgets
    with CatalogReader(shops["AED"]) as catalog:
        clause = {c.policy_id: c.text for c in generate("policy", 6, 1, catalog).policy.clauses}
        assert re.fullmatch(r"Standard shipping costs \d+\.\d\d AED\. Orders of \d+\.\d\d AED or more ship free\.",
                            clause["POL-SHIPPING"])


def test_the_customer_objects_to_a_price_in_the_shops_currency(shops):
    from verishop.scenarios.customers import SimulatedCustomer

    with CatalogReader(shops["EUR"]) as catalog:
        for seed in range(200):
            scenario = generate("pd", 12, seed, catalog)
            cap = next((c for c in scenario.goal.constraints if c.kind == "price_max" and c.stated), None)
            pick = None if cap is None else _dearer_but_otherwise_fitting(catalog, scenario.goal, cap)
            if pick is not None:
                break
        assert pick is not None
        customer = SimulatedCustomer(scenario, catalog.product)
        turn = customer.reply("How about this one?", Submission(recommended_product_ids=(pick,)))
    said = turn.said or turn.text
    assert re.search(r"that's €\d+\.\d\d, I want to stay under €\d+", said), said


def _dearer_but_otherwise_fitting(catalog: CatalogReader, goal, cap) -> str | None:
    """An in-stock product of the goal's category over the price cap that meets every other constraint."""
    from verishop.scenarios.constraints import satisfies

    rows = catalog.db.execute("SELECT product_id FROM products WHERE category_id = ? AND price_cents > ? AND stock > 0",
                              (goal.category_id, cap.value)).fetchall()
    return next((pid for (pid,) in rows
                 if all(c is cap or satisfies(catalog.product(pid), c) for c in goal.constraints)), None)


# --- the tools ------------------------------------------------------------------------------




def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _orders(catalog: CatalogReader, category_id: str) -> tuple[Order, ...]:
    """One delivered order of two products of a returnable category, inside any return window."""
    rows = catalog.db.execute("SELECT product_id, title, category_id, price_cents FROM products "
                              "WHERE category_id = ? LIMIT 2", (category_id,)).fetchall()
    lines = tuple(OrderLine(line_id=f"LN0000000{i}", product_id=r[0], title=r[1], category_id=r[2], quantity=i,
                            unit_price_cents=r[3]) for i, r in enumerate(rows, 1))
    return (Order(order_id="W0000001", placed_on=date(2026, 3, 1), status="delivered", carrier="UPS",
                  tracking_number="1Z1", eta=date(2026, 3, 4), delivered_on=date(2026, 3, 4), lines=lines),)


async def _every_money_result(hub: EpisodeHub, catalog: CatalogReader, category_id: str) -> dict[str, dict]:
    """The result of every tool that shows an amount, in an episode with one returnable order."""
    scenario = generate("pd", 2, 1, catalog)
    axes = scenario.axes.model_copy(update={"tool_calls_per_turn": 100})
    scenario = scenario.model_copy(update={"axes": axes, "today": date(2026, 3, 10),
                                           "orders": _orders(catalog, category_id)})
    await hub.open(scenario, default=True)
    results = {}
    async with Client(create_server(hub)) as client:
        search = ok(await client.call_tool("search_catalog", {"category_id": category_id, "in_stock_only": True,
                                                               "limit": 5}))
        first = search["results"][0]["product_id"]
        results["search_catalog"] = search
        results["get_product"] = ok(await client.call_tool("get_product", {"product_id": first}))
        results["compare_products"] = ok(await client.call_tool("compare_products", {"product_ids": [first]}))
        results["add_to_cart"] = ok(await client.call_tool("add_to_cart", {"product_id": first, "quantity": 2}))
        results["list_orders"] = ok(await client.call_tool("list_orders", {}))
        results["check_order"] = ok(await client.call_tool("check_order", {"order_id": "W0000001"}))
        results["check_return_eligibility"] = ok(await client.call_tool(
            "check_return_eligibility", {"order_id": "W0000001", "line_id": "LN00000001"}))
        results["initiate_return"] = ok(await client.call_tool(
            "initiate_return", {"order_id": "W0000001", "line_id": "LN00000001", "reason": "chipped"}))
        results["get_browsing_history"] = ok(await client.call_tool("get_browsing_history", {}))
    return results


async def test_every_amount_a_tool_shows_is_in_the_shops_currency_and_says_so(shops, tmp_path):
    hub = EpisodeHub(shops["EUR"], tmp_path / "runs")
    try:
        with CatalogReader(shops["EUR"]) as catalog:
            results = await _every_money_result(hub, catalog, "shop_teapots")
            card = results["search_catalog"]["results"][0]
            product = catalog.product(card["product_id"])
            line = catalog.product(results["check_order"]["lines"][0]["product_id"])
    finally:
        await hub.aclose()
    for name, result in results.items():
        keys = _keys(result)
        assert not {k for k in keys if k.endswith("_usd")}, (name, keys)  # no euro amount under a dollar name
    assert card["currency"] == "EUR" and card["price"] == product.price_cents / 100
    details = results["get_product"]
    assert details["currency"] == "EUR" and details["price"] == card["price"]
    assert all("price" in v for v in details["variants"])
    assert results["compare_products"]["products"][0]["currency"] == "EUR"
    cart = results["add_to_cart"]
    assert cart["currency"] == "EUR" and cart["subtotal"] == pytest.approx(2 * card["price"])
    assert cart["lines"][0]["unit_price"] == card["price"] and cart["lines"][0]["line_total"] == cart["subtotal"]
    summary = results["list_orders"]["orders"][0]
    order = results["check_order"]
    assert summary["currency"] == order["currency"] == "EUR" and summary["total"] == order["total"]
    assert order["lines"][0]["unit_price"] == line.price_cents / 100
    eligibility, receipt = results["check_return_eligibility"], results["initiate_return"]
    assert eligibility["currency"] == receipt["currency"] == "EUR"
    assert eligibility["refund"] == receipt["refund"] == line.price_cents / 100
    assert all(c["currency"] == "EUR" for c in results["get_browsing_history"]["viewed"])


async def test_the_generated_shop_keeps_its_dollar_names_beside_the_neutral_ones(hub, reader):
    results = await _every_money_result(hub, reader, "chargers")
    card = results["search_catalog"]["results"][0]
    assert card["currency"] == "USD" and card["price_usd"] == card["price"]
    cart = results["add_to_cart"]
    line = cart["lines"][0]
    assert cart["subtotal_usd"] == cart["subtotal"] and line["unit_price_usd"] == line["unit_price"]
    assert results["list_orders"]["orders"][0]["total_usd"] == results["list_orders"]["orders"][0]["total"]
    assert results["check_order"]["total_usd"] == results["check_order"]["total"]
    assert results["initiate_return"]["refund_usd"] == results["initiate_return"]["refund"] > 0
    assert results["check_return_eligibility"]["refund_usd"] == results["check_return_eligibility"]["refund"]
    assert all(v["price_usd"] == v["price"] for v in results["get_product"]["variants"])


async def test_price_filters_take_the_shops_currency_and_a_dollar_filter_is_refused_in_euros(shops, tmp_path):
    hub = EpisodeHub(shops["EUR"], tmp_path / "runs")
    try:
        with CatalogReader(shops["EUR"]) as catalog:
            scenario = generate("pd", 2, 1, catalog)
        episode = await hub.open(scenario.model_copy(update={"axes": scenario.axes.model_copy(
            update={"tool_calls_per_turn": 100})}), default=True)
        async with Client(create_server(hub)) as client:
            cheap = ok(await client.call_tool("search_catalog", {"category_id": "shop_teapots", "max_price": 40,
                                                                 "min_price": 20, "limit": 50}))["results"]
            assert cheap and all(20 <= c["price"] <= 40 for c in cheap)
            refused = error_text(await client.call_tool("search_catalog", {"category_id": "shop_teapots",
                                                                           "max_price_usd": 40}))
            assert "EUR" in refused and "max_price" in refused and "max_price_usd" in refused
            assert "above max_price" in error_text(await client.call_tool("search_catalog", {
                "min_price": 50, "max_price": 10}))
        calls = [json.loads(line) for line in (episode.directory / "transcript.jsonl").read_text().splitlines()]
        searches = [c["arguments"] for c in calls if c.get("event") == "tool_call"]
        assert searches[0]["max_price"] == 40 and searches[0]["min_price"] == 20  # the transcript keeps the name
    finally:
        await hub.aclose()


async def test_on_the_generated_shop_max_price_and_max_price_usd_are_the_same_filter(hub):
    scenario = hub.generate("pd", 2, 1)
    await hub.open(scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 100})}),
                   default=True)
    async with Client(create_server(hub)) as client:
        neutral = ok(await client.call_tool("search_catalog", {"category_id": "chargers", "max_price": 25}))
        dollars = ok(await client.call_tool("search_catalog", {"category_id": "chargers", "max_price_usd": 25}))
        assert neutral == dollars and neutral["results"]
        assert "max_price" in error_text(await client.call_tool("search_catalog", {
            "category_id": "chargers", "max_price": 25, "max_price_usd": 30}))
        assert ok(await client.call_tool("search_catalog", {"category_id": "chargers", "max_price": 25,
                                                            "max_price_usd": 25})) == neutral


async def test_a_scenario_claiming_another_currency_than_its_catalog_is_refused(shops, tmp_path):
    hub = EpisodeHub(shops["EUR"], tmp_path / "runs")
    try:
        with CatalogReader(shops["EUR"]) as catalog:
            scenario = generate("pd", 2, 1, catalog)
        ref = CatalogRef(**{**scenario.catalog.model_dump(), "currency": "USD"})
        with pytest.raises(ShopError, match="EUR"):
            await hub.open(scenario.model_copy(update={"catalog": ref}))
        assert not any((tmp_path / "runs").glob("ep_*"))
    finally:
        await hub.aclose()


# --- whole episodes -------------------------------------------------------------------------

ALL_DIFFICULTIES = tuple(range(13))


@pytest.mark.parametrize("code", WRITTEN)
def test_the_oracle_solves_every_environment_in_the_shops_currency(shops, code, tmp_path):
    rewards = play_and_verify("oracle", ENV_IDS, ALL_DIFFICULTIES, 13, 900, shops[code], tmp_path)
    unsolved = [(r["env_id"], r["difficulty"], r["seed"]) for r in rewards if not r["is_correct"]]
    assert unsolved == [] and len(rewards) == len(ENV_IDS) * 13


@pytest.mark.parametrize("code", WRITTEN)
def test_doing_nothing_solves_nothing_in_the_shops_currency(shops, code, tmp_path):
    rewards = play_and_verify("null", ENV_IDS, (0, 4, 8, 12), 4, 900, shops[code], tmp_path, transport="local")
    assert not any(r["is_correct"] for r in rewards) and all(r["total"] < 0 for r in rewards)


def test_the_greedy_baseline_scores_the_same_on_the_shop_in_euros_as_in_dollars_and_filters_in_euros(
        shops, tmp_path):
    in_dollars = tmp_path / "usd.db"
    run_import([SHOP / "merchant.tsv"], in_dollars, policy=SHOP / "policy.yaml")  # the same shop, in USD
    scores = {}
    for code, path in (("USD", in_dollars), ("EUR", shops["EUR"])):
        rewards = play_and_verify("greedy", ENV_IDS, (0, 6, 12), 6, 900, path, tmp_path / code, transport="local")
        scores[code] = {(r["env_id"], r["difficulty"], r["seed"]): (r["is_correct"], r["total"]) for r in rewards}
    assert scores["EUR"] == scores["USD"] and any(solved for solved, _ in scores["EUR"].values())
    searches = [event["arguments"] for t in (tmp_path / "EUR" / "runs").rglob("transcript.jsonl")
                for event in map(json.loads, t.read_text().splitlines())
                if event.get("event") == "tool_call" and event.get("tool") == "search_catalog"]
    assert any("max_price" in s for s in searches)  # the customer's euro budgets, filtered in euros
    assert all(s.get("min_price_usd") is None and s.get("max_price_usd") is None for s in searches)


@pytest.mark.parametrize("code", WRITTEN)
def test_a_correct_agent_answering_in_words_is_read_right_in_the_shops_currency(shops, code, tmp_path):
    """The red team's natural speakers ("It comes to €7.99.", "seven dirhams ninety-nine") on the
    policy questions: money in the shop's currency is read as the answer it is."""
    policy = next(env_id for env_id, spec in REGISTRY.items() if spec.short_name == "policy")
    for agent in ("natural", "natural-idioms"):
        rewards = play_and_verify(agent, (policy,), ALL_DIFFICULTIES, 26, 900, shops[code], tmp_path / agent,
                                  transport="local")
        assert sum(r["is_correct"] for r in rewards) >= 0.95 * len(rewards), agent


# --- money answers --------------------------------------------------------------------------


def _money_question(catalog: CatalogReader):
    """A policy episode whose answer is an amount of money."""
    for seed in range(200):
        scenario = generate("policy", 0, seed, catalog)
        if scenario.goal.answer_kind == "numeric" and "how much" in scenario.goal.question.lower():
            return scenario
    raise AssertionError("no money question in 200 seeds")


@pytest.mark.parametrize(("code", "written", "foreign"), [
    ("EUR", ("€{x}", "{x} euros", "EUR {x}", "{x} EUR", "That comes to €{x}."), ("${x}", "{x} dollars", "£{x}")),
    ("AED", ("{x} AED", "AED {x}", "{x} dirhams", "It's {x} AED."), ("${x}", "€{x}", "{x} USD")),
])
def test_a_money_answer_is_read_in_the_shops_currency_and_another_currencys_figure_is_never_right(
        shops, code, written, foreign):
    from verishop.envs.policy.answers import policy_commitment, policy_figures, reward_of

    with CatalogReader(shops[code]) as catalog:
        scenario = _money_question(catalog)
    goal, given = scenario.goal, policy_figures(scenario.policy)
    x = f"{float(goal.answer):.2f}"
    for form in written:
        said = policy_commitment(goal, Submission(answer=form.format(x=x)), given)
        assert said == float(goal.answer) and reward_of(goal, said) == 1.0, form
    for form in foreign:
        said = policy_commitment(goal, Submission(answer=form.format(x=x)), given)
        assert said is None, form  # not this shop's money: the customer asks back, nothing scores
