"""Every difficulty axis changes what an agent experiences: one test per axis, comparing
episodes at a low and a high value."""

from __future__ import annotations

import re

from mcp import Client

from verishop.mcp_server.tools import create_server
from verishop.scenarios.envs import generate
from verishop.scenarios.stock import EpisodeStock
from verishop.scenarios.taxonomy import CATEGORIES

SEEDS = range(30)


def pd(reader, d: int, seeds=SEEDS):
    return [generate("pd", d, s, reader) for s in seeds]


def test_constraints_grow_with_difficulty(reader):
    low = max(len(s.goal.constraints) for s in pd(reader, 0))
    high = sum(len(s.goal.constraints) for s in pd(reader, 12)) / len(SEEDS)
    assert low == 2 and high >= 6


def test_items_to_recommend_grow_with_difficulty(reader):
    assert {s.goal.items_to_recommend for s in pd(reader, 0, range(3))} == {3}
    assert {s.goal.items_to_recommend for s in pd(reader, 12, range(3))} == {7}
    assert {len(s.goal.items) for s in (generate("cart", 12, k, reader) for k in range(3))} == {5}


async def _talk_until_closed(hub, scenario, limit: int = 20) -> int:
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        for turn in range(1, limit + 1):
            reply = (await client.call_tool("respond_to_customer", {"message": "Let me think."})).structured_content
            if reply["status"] == "closed":
                assert reply["close_reason"] == "turn_budget"
                return turn
    return limit


async def test_turn_budget_grows_with_difficulty(hub):
    assert await _talk_until_closed(hub, hub.generate("pd", 0, 1)) == 4
    assert await _talk_until_closed(hub, hub.generate("pd", 12, 1)) == 10


def test_slot_omission_hides_more_requirements_at_high_difficulty(reader):
    def unstated_share(d):
        cs = [c for s in pd(reader, d) for c in s.goal.constraints if c.kind != "category"]
        return sum(not c.stated for c in cs) / len(cs)

    assert unstated_share(0) < 0.2 < 0.6 < unstated_share(12)


def _vocabulary() -> set[str]:
    words = set()
    for c in CATEGORIES:
        text = " ".join([c.name, c.department, *c.nouns, *c.brands, *(v for a in c.attributes for v in a.values),
                         *(a.name.replace("_", " ") for a in c.attributes)])
        words |= {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return words


def test_typo_noise_appears_only_at_high_difficulty(reader):
    known = _vocabulary()
    from verishop.envs.pd import generator as env

    template_text = " ".join(env._GREETINGS + env._ASKS + tuple(env.PRIORITY_WORDS.values())) + (
        " i'm shopping for made by under rated at least stars delivered within days by tomorrow and")
    known |= {w.lower() for w in re.findall(r"[A-Za-z]+", template_text)}

    def unknown_words(d):
        return [w for s in pd(reader, d) for w in re.findall(r"[A-Za-z]+", s.opening_message.lower())
                if w not in known]

    assert unknown_words(0) == []
    assert len(unknown_words(12)) >= 5


def test_out_of_stock_rate_sells_out_feasible_products(reader):
    assert not any(s.stock_changes or s.sell_outs for s in pd(reader, 0))
    assert all(s.sell_outs for s in pd(reader, 12))
    # the customer's anchor product is never the one sold out
    for s in pd(reader, 12):
        assert EpisodeStock.of_scenario(s).units(reader.product(s.goal.anchor_product_id)) > 0


def test_order_history_depth_follows_difficulty(reader):
    assert {len(s.orders) for s in pd(reader, 0, range(3))} == {1}
    assert {len(s.orders) for s in pd(reader, 12, range(3))} == {7}


def _with_axes(scenario, **axes):
    return scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 50, **axes})})


async def _search(hub, scenario, **arguments) -> list[str]:
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        result = await client.call_tool("search_catalog", arguments)
    assert not result.is_error, result.content
    return [p["product_id"] for p in result.structured_content["results"]]


async def test_search_depth_limits_what_a_search_looks_at(hub):
    base = hub.generate("pd", 0, 1)
    query = {"category_id": "chargers", "min_rating": 4.3, "limit": 50}
    deep = await _search(hub, _with_axes(base, search_top_k=200), **query)
    shallow = await _search(hub, _with_axes(base, search_top_k=80), **query)
    assert len(shallow) < len(deep)
    assert shallow == deep[:len(shallow)]


async def test_retrieval_noise_perturbs_the_ranking_deterministically(hub):
    base = hub.generate("pd", 0, 1)
    query = {"category_id": "chargers", "limit": 30}
    # A page is a prefix of a longer one: noise may swap the page's last result with the next.
    clean = await _search(hub, _with_axes(base, retrieval_noise=0.0), **{**query, "limit": 31})
    noisy = await _search(hub, _with_axes(base, retrieval_noise=0.24), **query)
    again = await _search(hub, _with_axes(base, retrieval_noise=0.24), **query)
    assert len(noisy) == 30 and set(noisy) <= set(clean) and set(clean[:29]) <= set(noisy)
    assert noisy != clean[:30]
    assert noisy == again


async def test_tool_budget_limits_lookups_per_turn(hub):
    async def lookups_until_refused(d: int) -> tuple[int, str]:
        episode = await hub.open(hub.generate("pd", d, 2))
        async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
            for n in range(1, 20):
                result = await client.call_tool("get_current_date", {})
                if result.is_error:
                    return n - 1, result.content[0].text
        return 20, ""

    assert (await lookups_until_refused(0))[0] == 1
    allowed, error = await lookups_until_refused(12)
    assert allowed == 7 and "tool budget spent: at most 7 lookups per turn" in error


async def test_a_new_turn_restores_the_tool_budget_and_writes_are_free(hub):
    episode = await hub.open(hub.generate("pd", 0, 3))
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        found = await client.call_tool("search_catalog", {"in_stock_only": True, "limit": 2})
        ids = [p["product_id"] for p in found.structured_content["results"]]
        assert (await client.call_tool("view_cart", {})).is_error
        for pid in ids:  # writes are not lookups
            assert not (await client.call_tool("add_to_cart", {"product_id": pid})).is_error
        await client.call_tool("respond_to_customer", {"message": "Anything else I should know?"})
        assert not (await client.call_tool("view_cart", {})).is_error
