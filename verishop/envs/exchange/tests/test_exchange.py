"""EXCHANGE (exchange-v3): generation by the store's rules, the price difference as a typed
answer, refusals, the sold-out variant and its fallback, each played through the real MCP
server and scored from the files."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta

from mutants import charged, play_scored

from verishop.minefields.privacy.overlay import task_words
from verishop.envs.exchange.oracle import play as oracle_play
from verishop.scenarios.customers import SimulatedCustomer
from verishop.scenarios.envs import generate
from verishop.scenarios.models import ExchangeGoal, Scenario, Submission
from verishop.scenarios.policy import return_window_days
from verishop.scenarios.tool_names import (CHECK_ORDER, EXCHANGE_ITEMS, GET_CUSTOMER_PROFILE, LIST_ORDERS,
                                           RESPOND_TO_CUSTOMER)

ID_IN_TEXT = re.compile(r"\b(?:W\d{7}|LN\d{8}|P\d{8}|AD\d{6}|PM\d{6})\b")


def find(reader, difficulty: int, wanted, seeds=range(400)) -> Scenario:
    return next(s for s in (generate("exchange", difficulty, seed, reader) for seed in seeds) if wanted(s))


def _widen(scenario: Scenario) -> Scenario:
    return scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 20})})


def eligible(s: Scenario) -> bool:
    return s.goal.refusal is None


def test_same_inputs_give_byte_identical_scenarios(reader):
    for d in (0, 6, 12):
        a = generate("exchange-v3", d, 3, reader).to_json()
        assert a == generate("exchange", d, 3, reader).to_json()
        assert Scenario.model_validate_json(a).to_json() == a


def test_the_goal_follows_the_store_s_rules(reader):
    kinds: Counter[str] = Counter()
    for d in range(13):
        for seed in range(8):
            s = generate("exchange", d, seed, reader)
            goal = s.goal
            assert isinstance(goal, ExchangeGoal) and not ID_IN_TEXT.search(task_words(s))
            order = next(o for o in s.orders if o.order_id == goal.order_id)
            line = next(li for li in order.lines if li.line_id == goal.line_id)
            window = return_window_days(s.policy, line.category_id)
            in_window = s.today <= order.delivered_on + timedelta(days=window)
            final_sale = line.category_id in s.policy.final_sale_categories
            sold_out = {c.product_id for c in s.stock_changes if c.stock == 0}
            assert order.status == "delivered"
            if goal.refusal == "not_eligible":
                assert not in_window or final_sale
            else:
                assert in_window and not final_sale
            if goal.refusal == "out_of_stock":
                assert goal.wanted.product_id in sold_out and goal.fallback is None
            if goal.line_changes:
                (change,) = goal.line_changes
                new = reader.product(change.product_id)
                assert change.product_id not in sold_out and new.group_id == reader.product(line.product_id).group_id
                assert goal.difference_cents == (new.price_cents - line.unit_price_cents) * line.quantity
                kinds["fallback" if change.product_id != goal.wanted.product_id else "wanted"] += 1
            kinds[goal.refusal or "exchange"] += 1
    assert kinds["not_eligible"] >= 10 and kinds["fallback"] >= 2 and kinds["out_of_stock"] >= 1


async def _named(shop, goal: ExchangeGoal, **answer) -> dict:
    """List and check the order, then name the exchange the goal wants with `answer`'s amount."""
    await shop.call(LIST_ORDERS)
    await shop.call(CHECK_ORDER, order_id=goal.order_id)
    change = goal.line_changes[0]
    return await shop.call(RESPOND_TO_CUSTOMER, message=(
        f"For order {goal.order_id}, I'll exchange it for {change.product_id} ({change.value}) using your "
        f"{goal.payment_label}."), order_id=goal.order_id, **answer)


async def _exchange(shop, goal: ExchangeGoal, payment_id: str | None = None) -> None:
    await shop.call(GET_CUSTOMER_PROFILE)
    await shop.call(EXCHANGE_ITEMS, order_id=goal.order_id,
                    changes=[{"line_id": c.line_id, "product_id": c.product_id} for c in goal.line_changes],
                    payment_method_id=payment_id or goal.payment_id)


def _failed(reward) -> set[str]:
    return {c.name for c in reward.breakdown if c.passed is False}


async def test_the_price_difference_is_read_from_the_typed_answer(hub, verifier, reader):
    scenario = _widen(find(reader, 4, lambda s: eligible(s) and s.goal.difference_cents != 0))
    goal = scenario.goal
    exact = goal.difference_cents / 100

    async def in_words_only(shop, goal):  # the amount in the message, never typed
        reply = await _named(shop, goal)
        assert reply["customer_message"].startswith("And how much")  # it asks for the amount again
        await shop.call(RESPOND_TO_CUSTOMER, message=f"The difference is {exact:.2f}.", order_id=goal.order_id,
                        answer=f"{exact:.2f}")
        await _exchange(shop, goal)
        await shop.call(RESPOND_TO_CUSTOMER, message="Done.", done=True)

    async def typed_with_the_wrong_sign(shop, goal):
        await _named(shop, goal, answer_number=-exact)
        await shop.call(RESPOND_TO_CUSTOMER, message="Sorry, it is this.", order_id=goal.order_id,
                        answer_number=exact)
        await _exchange(shop, goal)
        await shop.call(RESPOND_TO_CUSTOMER, message="Done.", done=True)

    async def typed(shop, goal):
        reply = await _named(shop, goal, answer_number=exact)
        assert "go ahead" in reply["customer_message"].lower()
        await _exchange(shop, goal)
        await shop.call(RESPOND_TO_CUSTOMER, message="Done.", done=True)

    words = await play_scored(hub, verifier, scenario, in_words_only)
    assert "difference" in _failed(words) and "approved_first" in _failed(words) and not words.is_correct
    assert any(r.startswith("the price difference, exactly") for r, _, _ in charged(words))
    wrong = await play_scored(hub, verifier, scenario, typed_with_the_wrong_sign)
    assert "difference" in _failed(wrong) and not wrong.is_correct
    right = await play_scored(hub, verifier, scenario, typed)
    assert right.is_correct and right.r_task == 1.0, right.failed_requirements


async def test_refusing_an_ineligible_item_solves_and_exchanging_it_fails(hub, verifier, reader):
    scenario = _widen(find(reader, 6, lambda s: s.goal.refusal == "not_eligible"))
    solved = await play_scored(hub, verifier, scenario, oracle_play)
    assert solved.is_correct and solved.total == 1.0

    async def obliging(shop, goal):
        await shop.call(LIST_ORDERS)
        order = await shop.call(CHECK_ORDER, order_id=goal.order_id)
        line = next(li for li in order["lines"] if li["line_id"] == goal.line_id)
        new = next(v for v in line["variants"] if v["in_stock"] and v["product_id"] != line["product_id"])
        await shop.call(RESPOND_TO_CUSTOMER, message=f"For order {goal.order_id} I'll exchange it for "
                        f"{new['product_id']} ({new['value']}) with your {goal.payment_label}.",
                        order_id=goal.order_id, answer_number=round(new["price"] - line["unit_price"], 2))
        profile = await shop.call(GET_CUSTOMER_PROFILE)
        await shop.call(EXCHANGE_ITEMS, order_id=goal.order_id,
                        changes=[{"line_id": goal.line_id, "product_id": new["product_id"]}],
                        payment_method_id=profile["payment_methods"][0]["payment_method_id"])
        await shop.call(RESPOND_TO_CUSTOMER, message="Done.", done=True)

    reward = await play_scored(hub, verifier, scenario, obliging)
    assert {"exchange", "orders_as_wanted", "refusal"} <= _failed(reward) and reward.r_task == -1.0
    assert ("only eligible items are exchanged: within the return window, not final sale", "shop", "agent") \
        in charged(reward)


async def test_a_sold_out_first_choice_is_exchanged_for_the_fallback_not_refused(hub, verifier, reader):
    scenario = _widen(find(reader, 11, lambda s: eligible(s) and s.goal.fallback is not None))
    goal = scenario.goal
    customer = SimulatedCustomer(scenario, reader.product)
    told = customer.reply("I'm sorry, that one is sold out.", Submission())
    assert goal.fallback.value in told.text and not ID_IN_TEXT.search(told.text)
    solved = await play_scored(hub, verifier, scenario, oracle_play)
    assert solved.is_correct

    async def refuser(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await shop.call(RESPOND_TO_CUSTOMER, message="That size is sold out.", order_id=goal.order_id,
                        answer_refusal="out_of_stock", done=True)

    refused = await play_scored(hub, verifier, scenario, refuser)
    assert {"exchange", "refusal"} <= _failed(refused)


async def test_the_difference_on_another_payment_method_fails(hub, verifier, reader):
    scenario = _widen(find(reader, 2, lambda s: eligible(s) and len(s.account.payment_methods) > 2))
    goal = scenario.goal
    other = next(m for m in scenario.account.payment_methods
                 if m.payment_id != goal.payment_id and (m.kind == "card" or goal.difference_cents <= 0))

    async def wrong_method(shop, goal):
        await _named(shop, goal, answer_number=goal.difference_cents / 100)
        await _exchange(shop, goal, payment_id=other.payment_id)
        await shop.call(RESPOND_TO_CUSTOMER, message="Done.", done=True)

    reward = await play_scored(hub, verifier, scenario, wrong_method)
    assert _failed(reward) == {"exchange"} and not reward.is_correct


def test_a_proposal_naming_every_variant_or_payment_method_wins_no_agreement(reader):
    scenario = find(reader, 4, lambda s: eligible(s) and s.goal.wanted.others and len(s.account.payment_methods) > 2)
    goal = scenario.goal
    change = goal.line_changes[0]
    every_method = ", ".join(m.label for m in scenario.account.payment_methods)
    customer = SimulatedCustomer(scenario, reader.product)
    base = f"For order {goal.order_id}, I'll exchange it for {change.product_id} ({change.value})"
    amount = goal.difference_cents / 100
    turn = customer.reply(f"{base} or {', '.join(change.others)}, with your {goal.payment_label}.",
                          Submission(answer_number=amount))
    assert turn.tag == "correct"
    turn = customer.reply(f"{base}, with any of: {every_method}.", Submission(answer_number=amount))
    assert turn.tag == "correct" and goal.payment_label in turn.text
    agreed = customer.reply(f"{base}, with your {goal.payment_label}.", Submission(answer_number=amount))
    assert agreed.tag == "approve"


def test_a_charge_goes_to_a_card_and_a_refund_anywhere(reader):
    for d in range(13):
        for seed in range(12):
            s = generate("exchange", d, seed, reader)
            if s.goal.difference_cents > 0:
                assert s.account.payment(s.goal.payment_id).kind == "card", (d, seed)


def test_a_proposal_worded_as_a_person_would_is_agreed_to(reader):
    scenario = find(reader, 3, lambda s: eligible(s) and s.goal.line_changes[0].product_id == s.goal.wanted.product_id)
    goal = scenario.goal
    change = goal.line_changes[0]
    said = (f"Happy to help! I'll send you the {change.value} one in place of what you got from order "
            f"{goal.order_id}, and settle the difference on your {goal.payment_label}. Shall I do that?")
    turn = SimulatedCustomer(scenario, reader.product).reply(said, Submission(answer_number=goal.difference_cents / 100))
    assert turn.tag == "approve", turn.text
