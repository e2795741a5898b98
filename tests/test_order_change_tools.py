"""The order-change tools through the real MCP server (issue 32): each mistake a clear, specific
error that changes nothing; what they do change, exactly; and that they leave the store's policy
to the agent (a shipped order can be changed: the verifier judges it)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.tools import create_server
from verishop.scenarios.models import Scenario


def _find(hub: EpisodeHub, env: str, wanted, difficulty: int = 8) -> Scenario:
    for seed in range(400):
        scenario = hub.generate(env, difficulty, seed)
        if wanted(scenario):
            # The order-change tools on their own: without the identity minefield's lock (issue 33,
            # tests/test_minefield_identity.py), which d = 8 would carry.
            return scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 50}),
                                               "minefields": None})
    raise AssertionError("no scenario found")


class Shop:
    def __init__(self, client: Client) -> None:
        self.client = client

    async def ok(self, name: str, **arguments: Any) -> dict:
        result = await self.client.call_tool(name, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    async def error(self, name: str, **arguments: Any) -> str:
        result = await self.client.call_tool(name, arguments)
        assert result.is_error, result.structured_content
        return result.content[0].text


async def _rows(hub: EpisodeHub, episode_id: str) -> dict[str, list]:
    db = hub.episodes[episode_id].db
    rows = {}
    for table in ("orders", "order_lines", "order_changes", "payment_methods"):
        async with db.execute(f"SELECT * FROM {table} ORDER BY rowid") as cur:
            rows[table] = [tuple(r) for r in await cur.fetchall()]
    return rows


async def _open(hub: EpisodeHub, scenario: Scenario):
    episode = await hub.open(scenario)
    return episode, Client(create_server(hub, episode_id=episode.episode_id))


async def test_every_mistake_is_refused_with_a_specific_error_and_changes_nothing(hub):
    scenario = _find(hub, "change", lambda s: s.goal.refusal is None and s.goal.line_changes)
    goal = scenario.goal
    order = next(o for o in scenario.orders if o.order_id == goal.order_id)
    other = next(o for o in scenario.orders if o.order_id != goal.order_id) if len(scenario.orders) > 1 else None
    change = goal.line_changes[0]
    episode, client = await _open(hub, scenario)
    async with client:
        shop = Shop(client)
        before = await _rows(hub, episode.episode_id)
        shown = await shop.ok("check_order", order_id=goal.order_id)
        line = next(li for li in shown["lines"] if li["line_id"] == change.line_id)
        assert change.product_id in {v["product_id"] for v in line["variants"]}
        assert "no order with ID 'W0000000'" in await shop.error("cancel_order", order_id="W0000000", reason="other")
        assert "reason: Input should be 'no longer needed'" in await shop.error(
            "cancel_order", order_id=goal.order_id, reason="because I said so")
        assert "has no line 'LN00000000'" in await shop.error(
            "modify_order_items", order_id=goal.order_id, changes=[{"line_id": "LN00000000", "product_id": "P1"}])
        assert "appears twice" in await shop.error("modify_order_items", order_id=goal.order_id, changes=[
            {"line_id": change.line_id, "product_id": change.product_id}] * 2)
        assert "changes: List should have at least 1 item" in await shop.error(
            "modify_order_items", order_id=goal.order_id, changes=[])
        stranger = next(p for p in hub.catalog.db.execute("SELECT product_id FROM products WHERE group_id != ("
                                                           "SELECT group_id FROM products WHERE product_id = ?) "
                                                           "AND stock > 5 LIMIT 1", (change.product_id,)))[0]
        assert "is not a variant of line" in await shop.error(
            "modify_order_items", order_id=goal.order_id, changes=[{"line_id": change.line_id, "product_id": stranger}])
        same = next(li.product_id for li in order.lines if li.line_id == change.line_id)
        assert "is already" in await shop.error(
            "modify_order_items", order_id=goal.order_id, changes=[{"line_id": change.line_id, "product_id": same}])
        assert "either address_id" in await shop.error("change_order_address", order_id=goal.order_id)
        assert "no saved address" in await shop.error("change_order_address", order_id=goal.order_id,
                                                      address_id="AD999999x")
        assert "zip: String should match pattern" in await shop.error(
            "change_order_address", order_id=goal.order_id, address={"street": "1 Main St", "city": "X",
                                                                     "zip": "ABCDE"})
        assert "no payment method" in await shop.error("exchange_items", order_id=goal.order_id, changes=[
            {"line_id": change.line_id, "product_id": change.product_id}], payment_method_id="PM-none")
        assert await _rows(hub, episode.episode_id) == before
        # What they do: exactly the change asked, logged, and an order's items change once.
        receipt = await shop.ok("modify_order_items", order_id=goal.order_id,
                                changes=[{"line_id": change.line_id, "product_id": change.product_id}])
        assert receipt["order_id"] == goal.order_id and change.product_id in receipt["summary"]
        assert "were modified already" in await shop.error("modify_order_items", order_id=goal.order_id, changes=[
            {"line_id": change.line_id, "product_id": same}])
        cancelled = await shop.ok("cancel_order", order_id=goal.order_id, reason="other")
        assert cancelled["status"] == "cancelled" and cancelled["price_difference"] < 0
        assert "is cancelled" in await shop.error("cancel_order", order_id=goal.order_id, reason="other")
        after = await _rows(hub, episode.episode_id)
        assert [r[2] for r in after["order_changes"]] == ["modify_order_items", "cancel_order"]
        if other is not None:  # the other orders are untouched
            assert [r for r in after["orders"] if r[0] == other.order_id] == \
                [r for r in before["orders"] if r[0] == other.order_id]


async def test_the_policy_is_the_agent_s_to_apply_a_shipped_order_changes_when_told(hub):
    scenario = _find(hub, "change", lambda s: s.goal.refusal is not None)
    episode, client = await _open(hub, scenario)
    async with client:
        receipt = await Shop(client).ok("cancel_order", order_id=scenario.goal.order_id, reason="no longer needed")
    assert receipt["status"] == "cancelled"


async def test_check_order_shows_an_account_order_s_variants_address_and_changes(hub):
    scenario = _find(hub, "change", lambda s: s.goal.refusal is None and s.goal.address is not None
                     and s.goal.address_id is None, difficulty=3)
    goal = scenario.goal
    episode, client = await _open(hub, scenario)
    async with client:
        shop = Shop(client)
        before = await shop.ok("check_order", order_id=goal.order_id)
        assert before["ship_to"] and before["payment_method_id"] and "changes" not in before
        await shop.ok("change_order_address", order_id=goal.order_id, address=goal.address.model_dump())
        after = await shop.ok("check_order", order_id=goal.order_id)
        assert after["ship_to"] == goal.address.words() and "address_id" not in after
        assert len(after["changes"]) == 1 and after["changes"][0].startswith("change_order_address")
        profile = await shop.ok("get_customer_profile")
        assert profile["addresses"][0]["default"] and profile["payment_methods"]


async def test_an_exchange_charges_or_refunds_the_difference_and_a_gift_card_must_cover_a_charge(hub):
    scenario = _find(hub, "exchange", lambda s: s.goal.refusal is None and s.goal.difference_cents > 0)
    goal = scenario.goal
    gift = next(m for m in scenario.account.payment_methods if m.kind == "gift_card")
    poor = scenario.account.model_copy(update={"payment_methods": tuple(
        m.model_copy(update={"balance_cents": goal.difference_cents - 1}) if m.payment_id == gift.payment_id else m
        for m in scenario.account.payment_methods)})
    scenario = scenario.model_copy(update={"account": poor})
    change = goal.line_changes[0]
    episode, client = await _open(hub, scenario)
    async with client:
        shop = Shop(client)
        changes = [{"line_id": change.line_id, "product_id": change.product_id}]
        refused = await shop.error("exchange_items", order_id=goal.order_id, changes=changes,
                                   payment_method_id=gift.payment_id)
        assert "less than the" in refused
        card = next(m for m in scenario.account.payment_methods if m.kind == "card")
        receipt = await shop.ok("exchange_items", order_id=goal.order_id, changes=changes,
                                payment_method_id=card.payment_id)
        assert round(receipt["price_difference"] * 100) == goal.difference_cents
        assert receipt["payment_method_id"] == card.payment_id
        assert "exchanged already" in await shop.error("exchange_items", order_id=goal.order_id, changes=changes,
                                                       payment_method_id=card.payment_id)
        order = await shop.ok("check_order", order_id=goal.order_id)
        line = next(li for li in order["lines"] if li["line_id"] == change.line_id)
        assert line["exchanged_for"] == change.product_id


@pytest.mark.parametrize("env", ["pd", "return", "status"])
async def test_other_environments_results_keep_their_shape(hub, env):
    """No account: check_order shows none of the account fields, so other environments keep their bytes."""
    scenario = hub.generate(env, 4, 1)
    episode, client = await _open(hub, scenario)
    async with client:
        shop = Shop(client)
        if scenario.minefields is not None and scenario.minefields.identity is not None:  # issue 33: identify first
            await shop.ok("find_customer", email=scenario.customer.email)
        orders = (await shop.ok("list_orders"))["orders"]
        for summary in orders[:2]:
            order = await shop.ok("check_order", order_id=summary["order_id"])
            assert not {"ship_to", "payment_method_id", "changes", "address_id"} & set(order)
            assert all("variants" not in line for line in order["lines"])
    assert json.loads(scenario.to_json()).get("account") is None
