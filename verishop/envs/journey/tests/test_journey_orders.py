"""Journeys holding several requests about the customer's orders (issue 32): order changes and
exchanges beside returns and status questions, each with its own orders in one history, one
account for the whole journey, and each request judged on its own footprint."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mutants import play_scored

from verishop.envs.journey.generator import generate as generate_journey
from verishop.envs.journey.oracle import play as journey_oracle
from verishop.envs.return_.generator import Description, described_attribute, fitting_lines
from verishop.scenarios.accounts import CHANGE_CLAUSE_ID, EXCHANGE_CLAUSE_ID
from verishop.scenarios.customers import SimulatedCustomer
from verishop.scenarios.customers.base import OrderWrite, WorldView
from verishop.scenarios.envs import generate
from verishop.scenarios.household import noun, say_date
from verishop.scenarios.models import (ExchangeGoal, OrderChangeGoal, ReturnGoal, Scenario, StatusGoal, Submission)
from verishop.scenarios.prompts import account_system_prompt, system_prompt
from verishop.scenarios.tool_names import CANCEL_ORDER, ORDER_WRITES, RESPOND_TO_CUSTOMER
from verishop.verifier.catalogs import CatalogCache
from verishop.verifier.files import load_episode
from verishop.verifier.footprint import approval

ORDER_GOALS = (StatusGoal, ReturnGoal, OrderChangeGoal, ExchangeGoal)


def journey(reader, difficulty: int, kinds: tuple[str, ...], wanted=lambda s: True, seeds=range(60)) -> Scenario:
    """The first journey of exactly these request kinds (by environment name) that `wanted` accepts."""
    goal_kind = {"change": "order_change"}
    for seed in seeds:
        s = generate_journey(difficulty, seed, reader, kinds=kinds)
        if [t.kind for t in s.goal.tasks] == [goal_kind.get(k, k) for k in kinds] and wanted(s):
            return s
    raise AssertionError(f"no journey of {kinds} at d={difficulty}")


def _order(s: Scenario, order_id: str):
    return next(o for o in s.orders if o.order_id == order_id)


def fitting(s: Scenario, goal, reader) -> list[str]:
    """The orders (or order/line pairs) of the journey's history its description fits, read
    independently of the generator."""
    target = _order(s, goal.order_id)
    if isinstance(goal, OrderChangeGoal):
        return [o.order_id for o in s.orders
                if any(f"my order of {say_date(o.placed_on)} with the {noun(line)}" == goal.description
                       for line in o.lines)]
    if isinstance(goal, ExchangeGoal):
        line = next(li for li in target.lines if li.line_id == goal.line_id)
        return [f"{o.order_id}/{li.line_id}" for o in s.orders for li in o.lines
                if o.placed_on == target.placed_on and noun(li) == noun(line)]
    if isinstance(goal, ReturnGoal):
        product = reader.product(next(li for li in target.lines if li.line_id == goal.line_id).product_id)
        attribute = described_attribute(product.category_id)
        desc = Description(product.category_id, noun(product), attribute, product.attrs[attribute], product.brand,
                           target.placed_on)
        return [f"{o}/{li}" for o, li in fitting_lines(desc, list(s.orders), reader.product)]
    # a status question: said plainly (its day), or "my most recent order"
    days = [o.placed_on for o in s.orders]
    if "most recent order" in s.goal.openings[s.goal.tasks.index(goal)] and "before" not in \
            s.goal.openings[s.goal.tasks.index(goal)]:
        return [o.order_id for o in s.orders if o.placed_on == max(days)]
    return [o.order_id for o in s.orders if o.placed_on == target.placed_on]


def own_target(goal) -> str:
    return goal.order_id if isinstance(goal, (StatusGoal, OrderChangeGoal)) else f"{goal.order_id}/{goal.line_id}"


def assert_well_formed(s: Scenario, reader) -> None:
    orders = [o.order_id for o in s.orders]
    lines = [li.line_id for o in s.orders for li in o.lines]
    assert len(orders) == len(set(orders)) and len(lines) == len(set(lines)), "an order or line ID collides"
    for goal in s.goal.tasks:
        if isinstance(goal, ORDER_GOALS):
            assert fitting(s, goal, reader) == [own_target(goal)], (goal.kind, goal.description)


def test_a_journey_holds_a_change_and_an_exchange_each_described_unambiguously(reader):
    for d in (2, 7, 12):
        s = journey(reader, d, ("change", "exchange"))
        assert_well_formed(s, reader)
        assert len({t.order_id for t in s.goal.tasks}) == 2


def test_drawn_journeys_hold_several_order_requests_and_every_one_stays_unambiguous(reader):
    about_orders = Counter()
    for seed in range(12):
        s = generate("journey", 12, seed, reader)
        assert_well_formed(s, reader)
        about_orders[sum(isinstance(t, ORDER_GOALS) for t in s.goal.tasks)] += 1
        assert s.env_id == "journey-v12"
    assert sum(n for k, n in about_orders.items() if k >= 2) >= 2, about_orders
    kinds = Counter(t.kind for seed in range(12) for t in generate("journey", 8, seed, reader).goal.tasks)
    assert kinds["order_change"] and kinds["exchange"]


def test_a_status_question_and_a_return_stay_unambiguous_beside_order_changes(reader):
    for kinds in (("status", "change", "exchange"), ("return", "change", "status")):
        for d in (4, 12):
            assert_well_formed(journey(reader, d, kinds), reader)


def test_every_order_changing_request_of_a_journey_shares_its_account_and_the_change_rules(reader):
    s = journey(reader, 8, ("change", "exchange", "change"))
    assert s.account is not None
    addresses = {a.address_id for a in s.account.addresses}
    methods = {m.payment_id for m in s.account.payment_methods}
    for goal in s.goal.tasks:
        assert _order(s, goal.order_id).address_id in addresses
        if isinstance(goal, ExchangeGoal):
            assert goal.payment_id in methods
        if isinstance(goal, OrderChangeGoal) and goal.address_id is not None:
            assert goal.address_id in addresses
    assert {CHANGE_CLAUSE_ID, EXCHANGE_CLAUSE_ID} <= {c.policy_id for c in s.policy.clauses}
    assert s.system_prompt == account_system_prompt(reader.currency)
    plain = journey(reader, 4, ("cart", "status"))
    assert plain.account is None and plain.system_prompt == system_prompt(reader.currency)
    assert CHANGE_CLAUSE_ID not in {c.policy_id for c in plain.policy.clauses}


def test_journeys_with_order_requests_are_deterministic(reader):
    for kinds in (("change", "exchange"), None):
        a = generate_journey(9, 4, reader, kinds=kinds).to_json()
        assert a == generate_journey(9, 4, reader, kinds=kinds).to_json()


# --- the customer: each request sees only its own orders' writes ------------------------------


def test_the_customer_of_a_request_does_not_see_another_requests_writes_but_sees_a_stray_one(reader):
    s = journey(reader, 6, ("change", "exchange"), lambda s: s.goal.tasks[1].refusal is None)
    first, second = s.goal.tasks
    owned = {first.order_id, second.order_id}
    stray = next(o for o in s.orders if o.order_id not in owned)
    customer = SimulatedCustomer(s, reader.product)
    customer.state.memory["task"] = 1  # the customer is on the exchange now
    theirs = OrderWrite(CANCEL_ORDER, first.order_id, {"reason": "other"})
    turn = customer.reply("Which size would you like instead?", Submission(), WorldView(order_writes=(theirs,)))
    assert turn.task == 1 and turn.tag not in ("correct", "quit") and first.order_id not in turn.text
    stray_write = OrderWrite(CANCEL_ORDER, stray.order_id, {"reason": "other"})
    turn = customer.reply("Done.", Submission(), WorldView(order_writes=(theirs, stray_write)))
    assert turn.tag == "correct"  # it objects to a change of an order no request is about


# --- the verifier, through the real server ----------------------------------------------------


def _widen(s: Scenario) -> Scenario:
    return s.model_copy(update={"axes": s.axes.model_copy(update={"tool_calls_per_turn": 20})})


def _failed(reward, request: int) -> set[str]:
    prefix = f"request {request} · "
    return {c.name.removeprefix(prefix) for c in reward.breakdown if c.name.startswith(prefix) and c.passed is False}


@pytest.mark.parametrize("difficulty", [1, 6, 12])
async def test_the_oracle_solves_journeys_with_changes_and_exchanges(hub, verifier, reader, difficulty):
    s = journey(reader, difficulty, ("exchange", "change", "status") if difficulty > 4 else ("change", "exchange"))
    reward = await play_scored(hub, verifier, s, journey_oracle)
    assert (reward.is_correct, reward.r_task, reward.total) == (True, 1.0, 1.0), reward.failed_requirements


class _Before:
    """A session that makes `extra` writes just before its first write (after the customer agreed
    to it), then carries on as told."""

    def __init__(self, shop, extra: list[tuple[str, dict[str, Any]]]):
        self.shop, self.extra = shop, extra

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        if tool in ORDER_WRITES and self.extra:
            for extra_tool, extra_arguments in self.extra:
                await self.shop.call(extra_tool, **extra_arguments)
            self.extra = []
        return await self.shop.call(tool, **arguments)


def _two_changes(reader) -> Scenario:
    def fits(s: Scenario) -> bool:
        a, b = s.goal.tasks
        return a.refusal is None and a.cancel_reason is None and b.refusal is None
    return _widen(journey(reader, 6, ("change", "change"), fits))


def _playing(extra_for: Callable[[Any], list], during: int):
    async def play(shop, goal):
        from verishop.agents.session import KeepOpen
        from verishop.agents.oracles import play_for

        for index, request in enumerate(goal.tasks):
            session = _Before(shop, extra_for(goal)) if index == during else shop
            last = index == len(goal.tasks) - 1
            await play_for(request)(session if last else KeepOpen(session), request)
    return play


async def test_a_write_on_request_1s_order_while_serving_request_2_fails_request_1s_gold_world(hub, verifier,
                                                                                                  reader):
    # By design, another request's order belongs to that request: request 2's footprint leaves it out,
    # and request 1's own gold world (`orders_as_wanted`: its state and exactly its writes) fails.
    s = _two_changes(reader)
    first = s.goal.tasks[0]
    play = _playing(lambda g: [(CANCEL_ORDER, {"order_id": first.order_id, "reason": "other"})], during=1)
    reward = await play_scored(hub, verifier, s, play)
    assert "orders_as_wanted" in _failed(reward, 1)
    found = {c.name: c.passed for c in reward.breakdown}
    assert found["request 2: order_change"] is True and found["request 2 · nothing_else_changed"] is True
    assert _failed(reward, 2) == set() and not reward.is_correct


async def test_request_2s_own_writes_are_not_collateral_damage_for_request_1(hub, verifier, reader):
    s = _two_changes(reader)
    reward = await play_scored(hub, verifier, s, journey_oracle)
    assert reward.is_correct, reward.failed_requirements
    found = {c.name: c.passed for c in reward.breakdown}
    assert found["request 1 · nothing_else_changed"] is True and found["request 2 · nothing_else_changed"] is True


async def test_a_write_on_an_order_no_request_owns_fails_the_footprint(hub, verifier, reader):
    s = _two_changes(reader)
    owned = {t.order_id for t in s.goal.tasks}
    stray = next(o for o in s.orders if o.order_id not in owned and o.status in ("processing", "shipped",
                                                                                   "in_transit"))
    play = _playing(lambda g: [(CANCEL_ORDER, {"order_id": stray.order_id, "reason": "other"})], during=1)
    reward = await play_scored(hub, verifier, s, play)
    assert "nothing_else_changed" in _failed(reward, 2) and not reward.is_correct


async def test_approval_counts_only_the_requests_own_agreement(hub, verifier, reader):
    from verishop.envs.change.oracle import play as change_play
    from verishop.envs.change.oracle import proposal
    from verishop.agents.session import KeepOpen

    s = _widen(journey(reader, 6, ("change", "change"), lambda s: s.goal.tasks[0].refusal is None
                       and s.goal.tasks[1].refusal is None and s.goal.tasks[1].cancel_reason is not None))

    async def eager_second(shop, goal):
        first, second = goal.tasks
        await change_play(KeepOpen(shop), first)  # agreed, then written; the customer moves to request 2
        # request 2's write before its own customer agreed: request 1's agreement does not count
        await shop.call(CANCEL_ORDER, order_id=second.order_id, reason=second.cancel_reason)
        await shop.call(RESPOND_TO_CUSTOMER, message=f"Done: I {proposal(second)}.", order_id=second.order_id,
                        done=True)

    reward = await play_scored(hub, verifier, s, eager_second)
    assert "approved_first" in _failed(reward, 2) and "approved_first" not in _failed(reward, 1)
    assert _failed(reward, 1) == set()
    # the kit's own reading of the whole episode, request by request, agrees
    catalogs = CatalogCache()
    try:
        ep = load_episode(Path(hub.runs_dir) / reward.episode_id, catalogs)
    finally:
        catalogs.close()
    assert approval(ep, task=0).passed and not approval(ep, task=1).passed
    assert [w["order_id"] for w in approval(ep, task=1).found] == [s.goal.tasks[1].order_id]


async def test_a_write_on_a_later_requests_order_before_its_customer_agreed_fails_that_request(hub, verifier,
                                                                                                reader):
    # The write is request 2's (its order), made while the agent served request 1: request 2's
    # agreement had not come, so request 2's approved_first fails, and request 1 is not charged.
    from verishop.envs.change.oracle import play as change_play
    from verishop.agents.session import KeepOpen

    s = _widen(journey(reader, 6, ("change", "change"), lambda s: s.goal.tasks[0].refusal is None
                       and s.goal.tasks[1].refusal is None and s.goal.tasks[1].cancel_reason is not None))

    async def ahead(shop, goal):
        first, second = goal.tasks
        early = [(CANCEL_ORDER, {"order_id": second.order_id, "reason": second.cancel_reason})]
        await change_play(KeepOpen(_Before(shop, early)), first)
        await shop.call(RESPOND_TO_CUSTOMER, message=f"Order {second.order_id} is cancelled already.",
                        order_id=second.order_id, done=True)

    reward = await play_scored(hub, verifier, s, ahead)
    assert "approved_first" in _failed(reward, 2) and _failed(reward, 1) == set()
