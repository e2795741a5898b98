"""CART on a shop whose variants differ on two options (issue 30): an imported Shopify export of
T-shirts in sizes and colours. A wanted variant is named by both values; its episode's siblings
share one value with it (right size, wrong colour; right colour, wrong size) and none is a real
variant of the group; the customer tells each option it held back when asked and corrects the
one the cart got wrong; the check wants the exact variant and charges the option missed; the
oracle solves every difficulty, doing nothing none, and the greedy baseline stays below."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mutants import charged, play_scored
from shopify_exports import write_shopify_export
from support import play_and_verify
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.envs.cart.generator import say_item
from verishop.scenarios.catalog.feeds.run import run_import
from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.customers import SimulatedCustomer, WorldView
from verishop.scenarios.envs import generate
from verishop.scenarios.models import CartItem, Scenario, Submission
from verishop.scenarios.taxonomy import CATEGORIES, imported_categories_apart

DIFFICULTIES = tuple(range(13))


@pytest.fixture(scope="module")
def tees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tees")
    source = write_shopify_export(folder / "tees.csv", 11, products=24, kinds=("T-Shirts", "Hats"))
    with imported_categories_apart():
        run_import([source], folder / "tees.db")
    return folder / "tees.db"


@pytest.fixture
def shop(tees: Path) -> Iterator[CatalogReader]:
    # Other modules import exports defining shop_t_shirts differently: keep this one's apart.
    with imported_categories_apart(), CatalogReader(tees) as catalog:
        yield catalog


def two_option_items(catalog: CatalogReader, difficulties=(6, 9, 12),
                     seeds=range(12)) -> Iterator[tuple[Scenario, CartItem]]:
    for d in difficulties:
        for seed in seeds:
            scenario = generate("cart", d, seed, catalog)
            for item in scenario.goal.items:
                if item.more_variant_options:
                    yield scenario, item


def lookup_of(catalog: CatalogReader, scenario: Scenario):
    extras = {e.product_id: Product(**e.model_dump()) for e in scenario.extra_products}
    return lambda pid: extras.get(pid) or catalog.product(pid)


def sibling(catalog: CatalogReader, scenario: Scenario, item: CartItem, wrong: str) -> Product:
    """The episode's variant of the item's product (synthesized or real) with the same values but
    for option `wrong`."""
    wanted = {o.attribute: o.value for o in item.variant_options}
    target = lookup_of(catalog, scenario)(item.product_id)
    extras = [Product(**e.model_dump()) for e in scenario.extra_products]
    for p in extras + catalog.in_category(target.category_id):
        differ = {a for a, v in wanted.items() if p.attrs.get(a) != v}
        if p.group_id == target.group_id and differ == {wrong}:
            return p
    raise AssertionError(f"no sibling differing on {wrong} only")


def test_the_generated_shops_categories_keep_one_variant_option():
    assert all(c.variant_options == ((c.variant_attribute,) if c.variant_attribute else ()) for c in CATEGORIES)


def test_a_cart_on_a_two_option_shop_names_a_variant_by_both_values(shop):
    found = list(two_option_items(shop))
    assert len(found) >= 5
    for scenario, item in found:
        (more,) = item.more_variant_options
        assert (item.variant_attribute, more.attribute) == ("size", "color")
        target = next(e for e in scenario.extra_products if e.product_id == item.product_id)
        assert (target.attrs["size"], target.attrs["color"]) == (item.variant_value, more.value)
        # Siblings share one value with the target: naming one option is not enough.
        sibling(shop, scenario, item, "size"), sibling(shop, scenario, item, "color")
        real = {(p.attrs.get("size"), p.attrs.get("color")) for p in shop.in_category(target.category_id)
                if p.group_id == target.group_id}
        assert (item.variant_value, more.value) not in real  # the wanted variant exists in this episode only
        for value in (item.variant_value, more.value):
            assert not re.search(rf"(?<!\S){re.escape(value)}(?!\S)", item.description), item.description
        assert not re.search(r"[-/|,]\s*$", item.description), item.description
        said, everything = say_item(item), say_item(item, all_options=True)
        for option in item.variant_options:
            assert f"{option.attribute} {option.value}" in everything
            assert (f"{option.attribute} {option.value}" in said) == option.stated, said


def test_the_generated_shops_cart_items_name_one_option_and_leave_the_new_field_out_of_the_json(reader):
    for d in (6, 12):
        for seed in range(5):
            scenario = generate("cart", d, seed, reader)
            assert all(not item.more_variant_options for item in scenario.goal.items)
            assert "more_variant_options" not in scenario.to_json()


def test_the_customer_asked_for_size_and_colour_names_both_and_asked_for_one_names_that_one(shop):
    hidden = [(s, i) for s, i in two_option_items(shop, seeds=range(40))
              if not i.variant_stated and not i.more_variant_options[0].stated]
    assert hidden
    for scenario, item in hidden[:4]:
        size, colour = f"size {item.variant_value}", f"color {item.more_variant_options[0].value}"
        reply = SimulatedCustomer(scenario, lookup_of(shop, scenario)).reply(
            "Which size and colour would you like?", Submission())
        assert reply.tag == "clarify" and size in (reply.said or reply.text) and colour in (reply.said or reply.text)
        reply = SimulatedCustomer(scenario, lookup_of(shop, scenario)).reply("Which colour would you like?",
                                                                             Submission())
        assert reply.tag == "clarify" and colour in (reply.said or reply.text)
        assert size not in (reply.said or reply.text)


@pytest.mark.parametrize("wrong", ["color", "size"])
def test_the_customer_corrects_the_option_the_cart_got_wrong(shop, wrong):
    scenario, item = next(two_option_items(shop))
    other = sibling(shop, scenario, item, wrong)
    right = "size" if wrong == "color" else "color"
    wanted = {o.attribute: o.value for o in item.variant_options}
    cart = {i.product_id: i.quantity for i in scenario.goal.items}
    cart[other.product_id] = cart.pop(item.product_id)
    reply = SimulatedCustomer(scenario, lookup_of(shop, scenario)).reply(
        "Done, it's all in your cart.", Submission(), WorldView(cart=cart))
    said = reply.said or reply.text
    assert reply.tag == "correct" and f"I need {wrong} {wanted[wrong]}" in said, said
    assert f"{right} {wanted[right]}" not in said, said


async def test_a_cart_with_the_right_size_but_the_wrong_colour_fails_with_the_colour_charged(tees, tmp_path):
    from verishop.verifier.runner import Settings, Verifier

    with imported_categories_apart(), CatalogReader(tees) as catalog:
        scenario, item = next((s, i) for s, i in two_option_items(catalog)
                              if i.variant_stated and i.more_variant_options[0].stated)
        wrong = sibling(catalog, scenario, item, "color")

        async def play(session, goal) -> None:
            ids = [wrong.product_id if i is item else i.product_id for i in goal.items]
            await session.call("compare_products", product_ids=ids)
            for i, pid in zip(goal.items, ids):
                await session.call("add_to_cart", product_id=pid, quantity=i.quantity)
            await session.call("respond_to_customer", message="Everything you asked for is in your cart.")

        hub = EpisodeHub(tees, tmp_path / "runs")
        try:
            with Verifier(Settings()) as verifier:
                reward = await play_scored(hub, verifier, scenario, play)
        finally:
            await hub.aclose()
    colour = item.more_variant_options[0].value
    assert not reward.is_correct
    assert charged(reward) == {(f"the {item.description} in color {colour}", "stated", "agent")}


async def test_product_details_show_both_options_of_each_variant_of_a_two_option_group(tees, tmp_path):
    from mcp import Client

    from verishop.mcp_server.tools import create_server
    from test_tools import ok

    with imported_categories_apart(), CatalogReader(tees) as catalog:
        scenario, item = next(two_option_items(catalog))
        hub = EpisodeHub(tees, tmp_path / "runs")
        try:
            episode = await hub.open(scenario)
            async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
                details = ok(await client.call_tool("get_product", {"product_id": item.product_id}))
        finally:
            await hub.aclose()
    (more,) = item.more_variant_options
    assert details["variant_attribute"] == "size" and details["variant_attributes"] == ["size", "color"]
    mine = next(v for v in details["variants"] if v["product_id"] == item.product_id)
    assert mine["values"] == {"size": item.variant_value, "color": more.value}
    assert mine["value"] == f"{item.variant_value} / {more.value}"
    assert len({v["value"] for v in details["variants"]}) == len(details["variants"])  # each told apart


def test_the_oracle_solves_every_two_option_cart_and_doing_nothing_or_greedy_does_not(tees, tmp_path):
    with imported_categories_apart():
        with CatalogReader(tees) as catalog:  # the shop does draw two-option items over these seeds
            # episode n plays difficulty n % 13 with seed 6200 + n
            assert sum(bool(i.more_variant_options) for n in range(26)
                       for i in generate("cart", n % 13, 6200 + n, catalog).goal.items) >= 3
        oracle = play_and_verify("oracle", ("cart-v7",), DIFFICULTIES, 26, 6200, tees, tmp_path / "oracle")
        null = play_and_verify("null", ("cart-v7",), DIFFICULTIES, 13, 6200, tees, tmp_path / "null")
        greedy = play_and_verify("greedy", ("cart-v7",), DIFFICULTIES, 26, 6200, tees, tmp_path / "greedy")
    assert sorted({r["difficulty"] for r in oracle}) == list(DIFFICULTIES)
    assert [r["difficulty"] for r in oracle if not r["is_correct"]] == []
    assert not any(r["is_correct"] for r in null)
    assert sum(r["is_correct"] for r in greedy) < len(greedy)
