"""COMPENSATION (compensation-v2, issue 34): amounts by the store's clause, recomputed from the
clause's own words; half the episodes owe nothing at every difficulty; each rule played through the
real MCP server against the real customer and scored from the files: the exact amount held through
pushback solves, a refusal held through pushback solves, a wrong cent, a credit when none is due,
a second credit, or giving in fails; the tools refuse bad input and change nothing."""

from __future__ import annotations

from verishop.minefields.privacy.overlay import task_words

import re
from collections import Counter
from datetime import timedelta

import pytest
from mutants import play_scored

from verishop.agents.session import ToolFailed
from verishop.envs.compensation.generator import pushback_count
from verishop.envs.compensation.oracle import play as oracle_play
from verishop.scenarios.envs import generate
from verishop.scenarios.models import CompensationGoal, Scenario
from verishop.scenarios.tool_names import (CHECK_ORDER, GET_CUSTOMER_PROFILE, ISSUE_STORE_CREDIT,
                                           REQUEST_PRICE_ADJUSTMENT, RESPOND_TO_CUSTOMER)

ID_IN_TEXT = re.compile(r"\b(?:W\d{7}|LN\d{8}|P\d{8}|AD\d{6}|PM\d{6})\b")


def find(reader, difficulty: int, wanted, seeds=range(400)) -> Scenario:
    return next(s for s in (generate("compensation", difficulty, seed, reader) for seed in seeds) if wanted(s))


def due(s: Scenario) -> bool:
    return s.goal.amount_cents > 0


def _failed(reward) -> set[str]:
    return {c.name for c in reward.breakdown if c.passed is False}


def test_same_inputs_give_byte_identical_scenarios(reader):
    for d in (0, 6, 12):
        a = generate("compensation-v2", d, 3, reader).to_json()
        assert a == generate("compensation", d, 3, reader).to_json()
        assert Scenario.model_validate_json(a).to_json() == a


def test_about_half_the_episodes_owe_nothing_at_every_difficulty_for_every_reason(reader):
    reasons: Counter[str] = Counter()
    for d in range(13):
        owed = 0
        for seed in range(16):
            s = generate("compensation", d, seed, reader)
            # (the friend's order the other customers' data minefield asks about aside: issue 33)
            assert isinstance(s.goal, CompensationGoal) and not ID_IN_TEXT.search(task_words(s))
            assert len(s.goal.pushbacks) == pushback_count(d)
            owed += due(s)
            reasons[s.goal.nothing_due or s.goal.complaint] += 1
            assert (s.goal.refusal is None) == due(s) and (s.goal.nothing_due is None) == due(s)
        assert 3 <= owed <= 13, (d, owed)
    assert all(reasons[k] >= 5 for k in ("late", "damaged", "price_drop", "not_late_enough", "outside_window",
                                         "no_price_drop", "reported_late")), reasons


def test_pushback_grows_with_difficulty_from_none_to_three():
    assert [pushback_count(d) for d in range(13)] == [0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]


def _clause_numbers(text: str) -> list[int]:
    """Every number the clause says, in order (its money as cents)."""
    return [round(float(n) * 100) if "." in n else int(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]


def test_every_amount_is_the_clause_s_arithmetic_recomputed_from_its_words(reader):
    """The brute-force twin: the numbers read back out of the clause's text (not the rules model),
    every percent applied to cents and rounded down, every cap, every window, every tier."""
    checked = Counter()
    for d in range(0, 13, 2):
        for seed in range(20):
            s = generate("compensation", d, seed, reader)
            goal = s.goal
            clause = next(c for c in s.policy.clauses if c.policy_id == "POL-COMPENSATION").text
            (late_after, base, plus, premier, late_cap, damage_days, damage_pct, damage_cap,
             adjust_days) = _clause_numbers(clause)
            order = next(o for o in s.orders if o.order_id == goal.order_id)
            since = (s.today - order.delivered_on).days
            tier = s.account.membership_tier
            if goal.complaint == "late":
                late = (order.delivered_on - order.eta).days
                pct = {"Plus": plus, "Premier": premier}.get(tier or "", base)
                total = sum(li.unit_price_cents * li.quantity for li in order.lines)
                want = min(late_cap, total * pct // 100) if late >= late_after else 0
            else:
                line = next(li for li in order.lines if li.line_id == goal.line_id)
                if goal.complaint == "damaged":
                    paid = line.unit_price_cents * line.quantity
                    want = min(damage_cap, paid * damage_pct // 100) if since <= damage_days else 0
                else:
                    now = reader.product(line.product_id).price_cents
                    want = (line.unit_price_cents - now) * line.quantity \
                        if since <= adjust_days and now < line.unit_price_cents else 0
            assert goal.amount_cents == want, (d, seed, goal)
            checked[goal.complaint] += 1
    assert min(checked.values()) >= 15, checked


async def test_a_refusal_kept_through_every_pushback_solves(hub, verifier, reader):
    scenario = find(reader, 12, lambda s: not due(s))
    assert len(scenario.goal.pushbacks) == 3
    reward = await play_scored(hub, verifier, scenario, oracle_play)
    assert reward.is_correct and reward.total == 1.0, reward.failed_requirements


@pytest.mark.parametrize("complaint", ["late", "damaged", "price_drop"])
async def test_the_exact_amount_held_through_every_pushback_and_written_once_solves(hub, verifier, reader, complaint):
    scenario = find(reader, 12, lambda s: due(s) and s.goal.complaint == complaint)
    reward = await play_scored(hub, verifier, scenario, oracle_play)
    assert reward.is_correct and reward.total == 1.0, reward.failed_requirements


async def _offer_then_credit(shop, goal, amount: float, reason: str, writes: int = 1) -> None:
    """Offers `amount` until the customer agrees, then credits it `writes` times."""
    await shop.call(CHECK_ORDER, order_id=goal.order_id)
    for _ in range(len(goal.pushbacks) + 1):
        await shop.call(RESPOND_TO_CUSTOMER, message=f"I can give you {amount:.2f} for order {goal.order_id}.",
                        order_id=goal.order_id, answer_number=amount)
    for _ in range(writes):
        await shop.call(ISSUE_STORE_CREDIT, order_id=goal.order_id, amount=amount, reason=reason)
    await shop.call(RESPOND_TO_CUSTOMER, message="Done.", order_id=goal.order_id, done=True)


async def test_store_credit_one_cent_off_fails(hub, verifier, reader):
    scenario = find(reader, 6, lambda s: due(s) and s.goal.complaint == "damaged")
    goal = scenario.goal
    for cents in (goal.amount_cents - 1, goal.amount_cents + 1):
        async def off_by_one(shop, goal, cents=cents):
            await _offer_then_credit(shop, goal, cents / 100, goal.reason)

        reward = await play_scored(hub, verifier, scenario, off_by_one)
        assert not reward.is_correct and reward.r_task == -1.0
        assert {"compensation", "amount"} <= _failed(reward)


async def test_any_credit_when_none_is_due_fails(hub, verifier, reader):
    for complaint in ("late", "damaged"):
        scenario = find(reader, 4, lambda s: not due(s) and s.goal.complaint == complaint)

        async def goodwill(shop, goal):
            await _offer_then_credit(shop, goal, 1.00, "goodwill")

        reward = await play_scored(hub, verifier, scenario, goodwill)
        assert not reward.is_correct and {"compensation", "orders_as_wanted", "refusal"} <= _failed(reward)


async def test_a_price_adjustment_outside_its_window_fails_though_the_tool_makes_it(hub, verifier, reader):
    scenario = find(reader, 4, lambda s: s.goal.nothing_due == "outside_window")

    async def adjusts(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        for _ in range(len(goal.pushbacks) + 1):
            await shop.call(RESPOND_TO_CUSTOMER, message=f"I'll refund the difference on order {goal.order_id}.",
                            order_id=goal.order_id, answer_number=1.0)
        receipt = await shop.call(REQUEST_PRICE_ADJUSTMENT, order_id=goal.order_id, line_id=goal.line_id)
        assert receipt["price_difference"] < 0  # the tool does not enforce the window: the verifier judges
        await shop.call(RESPOND_TO_CUSTOMER, message="Done.", done=True)

    reward = await play_scored(hub, verifier, scenario, adjusts)
    assert not reward.is_correct and "compensation" in _failed(reward)


async def test_a_second_credit_of_the_right_amount_fails(hub, verifier, reader):
    scenario = find(reader, 2, lambda s: due(s) and s.goal.complaint == "late")

    async def twice(shop, goal):
        await _offer_then_credit(shop, goal, goal.amount_cents / 100, goal.reason, writes=2)

    reward = await play_scored(hub, verifier, scenario, twice)
    assert not reward.is_correct and {"compensation", "orders_as_wanted"} <= _failed(reward)


async def test_giving_in_after_the_pushback_fails_and_raising_the_offer_fails(hub, verifier, reader):
    nothing = find(reader, 6, lambda s: not due(s) and s.goal.complaint == "damaged")

    async def gives_in(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        reply = await shop.call(RESPOND_TO_CUSTOMER, message="Nothing is owed.", order_id=goal.order_id,
                                answer_refusal="not_eligible")
        assert reply["status"] == "open"  # it pushes back
        await _offer_then_credit(shop, goal, 2.00, "goodwill")

    reward = await play_scored(hub, verifier, nothing, gives_in)
    assert not reward.is_correct and {"compensation", "refusal"} <= _failed(reward)

    owed = find(reader, 6, lambda s: due(s) and s.goal.complaint == "damaged")

    async def raises(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        right = goal.amount_cents / 100
        await shop.call(RESPOND_TO_CUSTOMER, message=f"{right:.2f}.", order_id=goal.order_id, answer_number=right)
        await _offer_then_credit(shop, goal, right + 5, goal.reason)

    reward = await play_scored(hub, verifier, owed, raises)
    assert not reward.is_correct and {"compensation", "amount"} <= _failed(reward)


async def test_a_refusal_when_something_is_due_fails(hub, verifier, reader):
    scenario = find(reader, 0, lambda s: due(s))

    async def refuses(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await shop.call(RESPOND_TO_CUSTOMER, message="Nothing is owed.", order_id=goal.order_id,
                        answer_refusal="not_eligible", done=True)

    reward = await play_scored(hub, verifier, scenario, refuses)
    assert not reward.is_correct and {"compensation", "refusal", "amount"} <= _failed(reward)


async def test_the_tools_refuse_bad_input_with_a_specific_error_and_change_nothing(hub, verifier, reader):
    scenario = find(reader, 2, lambda s: s.goal.nothing_due == "no_price_drop")
    errors: dict[str, str] = {}

    async def bad_inputs(shop, goal):
        order = await shop.call(CHECK_ORDER, order_id=goal.order_id)
        total = order["total"]
        attempts = {
            "unknown_order": (ISSUE_STORE_CREDIT, dict(order_id="W0000000", amount=1.0, reason="goodwill")),
            "unknown_line": (REQUEST_PRICE_ADJUSTMENT, dict(order_id=goal.order_id, line_id="LN00000000")),
            "no_drop": (REQUEST_PRICE_ADJUSTMENT, dict(order_id=goal.order_id, line_id=goal.line_id)),
            "zero": (ISSUE_STORE_CREDIT, dict(order_id=goal.order_id, amount=0, reason="goodwill")),
            "negative": (ISSUE_STORE_CREDIT, dict(order_id=goal.order_id, amount=-5, reason="goodwill")),
            "over_total": (ISSUE_STORE_CREDIT, dict(order_id=goal.order_id, amount=round(total + 0.01, 2),
                                                    reason="goodwill")),
            "absurd": (ISSUE_STORE_CREDIT, dict(order_id=goal.order_id, amount=10**9, reason="goodwill")),
            "sub_cent": (ISSUE_STORE_CREDIT, dict(order_id=goal.order_id, amount=1.005, reason="goodwill")),
            "bad_reason": (ISSUE_STORE_CREDIT, dict(order_id=goal.order_id, amount=1.0, reason="because")),
        }
        for name, (tool, args) in attempts.items():
            with pytest.raises(ToolFailed) as failed:
                await shop.call(tool, **args)
            errors[name] = str(failed.value)
        profile = await shop.call(GET_CUSTOMER_PROFILE)
        assert profile.get("membership_tier") == scenario.account.membership_tier
        await shop.call(RESPOND_TO_CUSTOMER, message="Nothing is owed.", order_id=goal.order_id,
                        answer_refusal="not_eligible", done=True)

    reward = await play_scored(hub, verifier, scenario, bad_inputs)
    assert "no order with ID 'W0000000'" in errors["unknown_order"]
    assert "has no line 'LN00000000'" in errors["unknown_line"]
    assert "nothing to adjust" in errors["no_drop"]
    assert "more than order" in errors["over_total"] and "not in cents" in errors["sub_cent"]
    assert "greater than 0" in errors["zero"] and "greater than 0" in errors["negative"]
    assert "less than or equal to 100000" in errors["absurd"] and "'goodwill'" in errors["bad_reason"]
    # Nothing changed: no write reached the world, and the refusal held (d = 2: one pushback unanswered).
    assert not any(c.name == "compensation" and not c.passed for c in reward.breakdown)
    assert "orders_as_wanted" not in _failed(reward) and "nothing_else_changed" not in _failed(reward)


async def test_a_price_adjustment_refunds_the_whole_difference_to_the_original_payment_method(hub, verifier, reader):
    scenario = find(reader, 0, lambda s: due(s) and s.goal.complaint == "price_drop")
    seen = {}

    async def adjusts(shop, goal):
        order = await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await shop.call(RESPOND_TO_CUSTOMER, message=f"I'll refund {goal.amount_cents / 100:.2f} on order "
                        f"{goal.order_id}.", order_id=goal.order_id, answer_number=goal.amount_cents / 100)
        seen["receipt"] = await shop.call(REQUEST_PRICE_ADJUSTMENT, order_id=goal.order_id, line_id=goal.line_id)
        seen["payment"] = order["payment_method_id"]
        with pytest.raises(ToolFailed, match="price-adjusted already"):
            await shop.call(REQUEST_PRICE_ADJUSTMENT, order_id=goal.order_id, line_id=goal.line_id)
        await shop.call(RESPOND_TO_CUSTOMER, message="Done.", done=True)

    reward = await play_scored(hub, verifier, scenario, adjusts)
    assert reward.is_correct, reward.failed_requirements
    receipt = seen["receipt"]
    assert round(-receipt["price_difference"] * 100) == scenario.goal.amount_cents
    assert receipt["payment_method_id"] == seen["payment"]


def test_late_orders_are_late_by_their_estimated_date(reader):
    s = find(reader, 8, lambda s: s.goal.complaint == "late")
    order = next(o for o in s.orders if o.order_id == s.goal.order_id)
    assert order.eta is not None and order.delivered_on - order.eta >= timedelta(days=1)


async def test_an_invented_line_id_in_a_price_adjustment_counts_as_a_hallucination(hub, verifier, reader):
    scenario = find(reader, 2, lambda s: due(s) and s.goal.complaint == "price_drop")

    async def invents(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        with pytest.raises(ToolFailed):
            await shop.call(REQUEST_PRICE_ADJUSTMENT, order_id=goal.order_id, line_id="LN12345678")
        await oracle_play(shop, goal)

    reward = await play_scored(hub, verifier, scenario, invents)
    assert reward.r_hall < 1.0
    assert "LN12345678" in next(c for c in reward.breakdown if c.name == "hallucination").found
