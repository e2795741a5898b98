"""Journeys holding compensation requests (issue 34 point 4): the shared world carries what a
compensation request needs (the store's compensation rules and clause on the one policy, the
membership tier and a store-credit balance on the one account, its orders merged into the one
history, described unambiguously), and each compensation request is played and judged on its own
footprint like an order change."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from mutants import play_scored

from verishop.envs.journey.generator import generate as generate_journey
from verishop.envs.journey.oracle import play as journey_oracle
from test_journey_orders import assert_well_formed, journey  # (its folder is on the path: a test module, no package)
from verishop.minefields.identity.overlay import applies as identity_applies
from verishop.minefields.privacy.overlay import applies as privacy_applies
from verishop.scenarios.compensation import (CLAUSE_ID, damage_credit_cents, late_credit_cents,
                                             price_adjustment_cents)
from verishop.scenarios.envs import generate
from verishop.scenarios.household import noun, say_date
from verishop.scenarios.models import CompensationGoal, Scenario
from verishop.scenarios.tool_names import ISSUE_STORE_CREDIT


def _compensations(s: Scenario) -> list[CompensationGoal]:
    return [t for t in s.goal.tasks if isinstance(t, CompensationGoal)]


def _recomputed_cents(s: Scenario, goal: CompensationGoal, reader) -> int:
    """The amount due, recomputed from the journey's own policy and account (not the request's)."""
    rules = s.policy.compensation
    order = next(o for o in s.orders if o.order_id == goal.order_id)
    if goal.complaint == "late":
        return late_credit_cents(rules, order, s.account.membership_tier)
    line = next(li for li in order.lines if li.line_id == goal.line_id)
    if goal.complaint == "damaged":
        return damage_credit_cents(rules, order, line, s.today)
    return price_adjustment_cents(rules, order, line, reader.product(line.product_id).price_cents, s.today)


def _fits(s: Scenario, goal: CompensationGoal) -> list[str]:
    """Which orders (late: the order; else its lines) of the whole history the request's words fit."""
    target = next(o for o in s.orders if o.order_id == goal.order_id)
    item = goal.description.rsplit(" with the ", 1)[-1] if goal.complaint == "late" else \
        goal.description.removeprefix("the ").split(" from my order of ")[0]
    assert say_date(target.placed_on) in goal.description
    if goal.complaint == "late":
        return [o.order_id for o in s.orders if o.placed_on == target.placed_on and any(noun(li) == item
                                                                                         for li in o.lines)]
    return [f"{o.order_id}/{li.line_id}" for o in s.orders for li in o.lines
            if o.placed_on == target.placed_on and noun(li) == item]


def test_the_journey_pool_draws_compensation_requests(reader):
    kinds = Counter(t.kind for d in (4, 8, 12) for seed in range(14)
                    for t in generate_journey(d, seed, reader).goal.tasks)
    assert kinds["compensation"] >= 2, kinds


@pytest.mark.parametrize("kinds", [("compensation", "change"), ("exchange", "compensation", "status"),
                                   ("return", "compensation", "compensation")])
def test_a_journeys_compensation_request_is_owed_what_the_journeys_own_policy_and_account_give(reader, kinds):
    for d in (2, 8, 12):
        s = journey(reader, d, kinds)
        assert_well_formed(s, reader)
        assert s.account is not None and any(m.kind == "store_credit" for m in s.account.payment_methods)
        assert s.policy.compensation is not None
        assert [c.policy_id for c in s.policy.clauses].count(CLAUSE_ID) == 1
        for goal in _compensations(s):
            assert _recomputed_cents(s, goal, reader) == goal.amount_cents
            target = goal.order_id if goal.complaint == "late" else f"{goal.order_id}/{goal.line_id}"
            assert _fits(s, goal) == [target], goal.description


def test_a_journey_without_compensation_keeps_its_policy_free_of_the_compensation_clause(reader):
    s = journey(reader, 4, ("cart", "status"))
    assert s.policy.compensation is None and CLAUSE_ID not in {c.policy_id for c in s.policy.clauses}


def test_the_minefields_of_orders_apply_to_a_journey_holding_a_compensation_request(reader):
    s = journey(reader, 8, ("cart", "compensation"))
    assert identity_applies(s) and privacy_applies(s)
    carried = [generate("journey", 12, seed, reader) for seed in range(30)]
    with_compensation = [c for c in carried if _compensations(c)]
    assert with_compensation and all(c.minefields is not None and c.minefields.identity is not None
                                      for c in with_compensation)


# --- played through the real server and scored from the files ---------------------------------


def _widen(s: Scenario) -> Scenario:
    return s.model_copy(update={"axes": s.axes.model_copy(update={"tool_calls_per_turn": 20})})


@pytest.mark.parametrize("difficulty", [1, 6, 12])
async def test_the_oracle_solves_journeys_holding_compensation_requests(hub, verifier, reader, difficulty):
    for due in (True, False):
        s = journey(reader, difficulty, ("compensation", "change") if difficulty < 6 else
                    ("status", "compensation", "exchange"),
                    lambda s: (_compensations(s)[0].amount_cents > 0) == due)
        reward = await play_scored(hub, verifier, _widen(s), journey_oracle)
        assert (reward.is_correct, reward.r_task) == (True, 1.0), reward.failed_requirements


class _OneCentMore:
    """A session that tells and credits one cent more than the oracle would."""

    def __init__(self, shop):
        self.shop = shop

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        if arguments.get("answer_number") is not None:
            arguments["answer_number"] = round(arguments["answer_number"] + 0.01, 2)
        if tool == ISSUE_STORE_CREDIT:
            arguments["amount"] = round(arguments["amount"] + 0.01, 2)
        return await self.shop.call(tool, **arguments)


async def test_a_wrong_cent_compensation_inside_a_journey_fails_that_request_alone(hub, verifier, reader):
    from verishop.agents.oracles import play_for
    from verishop.agents.session import KeepOpen

    s = _widen(journey(reader, 6, ("change", "compensation"),
                       lambda s: s.goal.tasks[1].amount_cents > 0 and s.goal.tasks[1].complaint != "price_drop"))

    async def off_by_a_cent(shop, goal):
        first, second = goal.tasks
        await play_for(first)(KeepOpen(shop), first)
        await play_for(second)(_OneCentMore(shop), second)

    reward = await play_scored(hub, verifier, s, off_by_a_cent)
    found = {c.name: c.passed for c in reward.breakdown}
    assert found["request 1: order_change"] is True
    assert found["request 2: compensation"] is False
    assert found["request 2 · compensation"] is False and found["request 2 · amount"] is False
    assert found["request 2 · nothing_else_changed"] is True and not reward.is_correct


# --- on an imported shop: the policy file's rules, or no compensation request at all ----------


def _imported(tmp_path, text: str):
    from verishop.scenarios.catalog.feeds.run import run_import

    shop = Path(__file__).parents[4] / "examples" / "shop"
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "policy.yaml").write_text(text)
    run_import([shop / "merchant.tsv"], tmp_path / "shop.db", policy=tmp_path / "policy.yaml")
    return tmp_path / "shop.db"


_BASE = "returns:\n  return_window_days: 30\nshipping: {standard_cents: 650}\n"
_RULES = ("compensation:\n  late_after_days: 4\n  late_credit_percent: 7\n  plus_late_credit_percent: 11\n"
          "  premier_late_credit_percent: 13\n  late_credit_cap_cents: 1234\n  damage_report_days: 5\n"
          "  damage_credit_percent: 17\n  damage_credit_cap_cents: 2345\n  price_adjustment_days: 9\n")


def test_an_imported_shops_journey_judges_compensation_by_its_policy_file_or_draws_none(tmp_path):
    from verishop.scenarios.catalog.reader import CatalogReader

    with CatalogReader(_imported(tmp_path / "with", _BASE + _RULES)) as catalog:
        s = next(s for s in (generate_journey(6, seed, catalog, kinds=("compensation", "status"))
                             for seed in range(20)) if _compensations(s))
        assert (s.policy.compensation.late_after_days, s.policy.compensation.damage_credit_percent) == (4, 17)
        for goal in _compensations(s):
            assert _recomputed_cents(s, goal, catalog) == goal.amount_cents
    with CatalogReader(_imported(tmp_path / "without", _BASE)) as catalog:
        for seed in range(4):
            s = generate_journey(6, seed, catalog, kinds=("compensation", "status"))
            assert not _compensations(s) and s.policy.compensation is None
            assert CLAUSE_ID not in {c.policy_id for c in s.policy.clauses}


# --- each request on its own footprint ---------------------------------------------------------


def test_the_compensation_customer_does_not_see_another_requests_write_but_objects_to_a_stray_one(reader):
    from verishop.scenarios.customers import SimulatedCustomer
    from verishop.scenarios.customers.base import OrderWrite, WorldView
    from verishop.scenarios.models import Submission
    from verishop.scenarios.tool_names import CANCEL_ORDER

    s = journey(reader, 6, ("change", "compensation"))
    first, second = s.goal.tasks
    stray = next(o for o in s.orders if o.order_id not in {first.order_id, second.order_id})
    customer = SimulatedCustomer(s, reader.product)
    customer.state.memory["task"] = 1  # the customer is on its compensation request now
    theirs = OrderWrite(CANCEL_ORDER, first.order_id, {"reason": "other"})
    turn = customer.reply("Let me look into it.", Submission(), WorldView(order_writes=(theirs,)))
    assert turn.task == 1 and turn.tag not in ("correct", "quit") and first.order_id not in turn.text
    stray_write = OrderWrite(CANCEL_ORDER, stray.order_id, {"reason": "other"})
    turn = customer.reply("Done.", Submission(), WorldView(order_writes=(theirs, stray_write)))
    assert turn.tag == "correct"  # it objects to a change it had not agreed to


class _StrayCreditFirst:
    """A session that, before the compensation request's own write, credits an order no request owns."""

    def __init__(self, shop, stray: str):
        self.shop, self.stray = shop, stray

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        if tool == ISSUE_STORE_CREDIT and self.stray:
            await self.shop.call(ISSUE_STORE_CREDIT, order_id=self.stray, amount=1.0, reason="goodwill")
            self.stray = ""
        return await self.shop.call(tool, **arguments)


async def test_a_credit_on_an_order_no_request_owns_fails_the_compensation_requests_footprint(hub, verifier, reader):
    from verishop.agents.oracles import play_for
    from verishop.agents.session import KeepOpen

    s = _widen(journey(reader, 6, ("change", "compensation"),
                       lambda s: s.goal.tasks[1].amount_cents > 0 and s.goal.tasks[1].complaint != "price_drop"))
    owned = {t.order_id for t in s.goal.tasks}
    stray = next(o.order_id for o in s.orders if o.order_id not in owned)

    async def play(shop, goal):
        first, second = goal.tasks
        await play_for(first)(KeepOpen(shop), first)
        await play_for(second)(_StrayCreditFirst(shop, stray), second)

    reward = await play_scored(hub, verifier, s, play)
    found = {c.name: c.passed for c in reward.breakdown}
    # the stray credit is collateral damage, and a credit beside the one wanted (its check lists every credit)
    assert found["request 2 · nothing_else_changed"] is False and found["request 2 · compensation"] is False
    assert found["request 1 · nothing_else_changed"] is False  # an order no request changes: in every footprint
    assert not reward.is_correct
