"""CHANGE (change-v3): generation, the customer's agreement before a write, and the verifier's
gold world: each broken rule played through the real MCP server and scored from the files."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from mutants import charged, play_scored

from verishop.minefields.privacy.overlay import task_words
from verishop.envs.change.oracle import play as oracle_play
from verishop.envs.change.oracle import proposal
from verishop.scenarios.customers import SimulatedCustomer
from verishop.scenarios.customers.base import OrderWrite, WorldView
from verishop.scenarios.envs import generate
from verishop.scenarios.models import OrderChangeGoal, Scenario, Submission
from verishop.scenarios.tool_names import (CANCEL_ORDER, CHANGE_ORDER_ADDRESS, CHECK_ORDER, GET_CUSTOMER_PROFILE,
                                           LIST_ORDERS,
                                           MODIFY_ORDER_ITEMS, RESPOND_TO_CUSTOMER)

ID_IN_TEXT = re.compile(r"\b(?:W\d{7}|LN\d{8}|P\d{8}|AD\d{6}|PM\d{6})\b")


def find(reader, difficulty: int, wanted, seeds=range(300)) -> Scenario:
    return next(s for s in (generate("change", difficulty, seed, reader) for seed in seeds) if wanted(s))


def target(scenario: Scenario):
    return next(o for o in scenario.orders if o.order_id == scenario.goal.order_id)


# --- generation ----------------------------------------------------------------------------


def test_same_inputs_give_byte_identical_scenarios(reader):
    for d in (0, 6, 12):
        a = generate("change-v3", d, 3, reader).to_json()
        assert a == generate("change", d, 3, reader).to_json()
        assert Scenario.model_validate_json(a).to_json() == a
        assert a != generate("change", d, 4, reader).to_json()


def test_every_scenario_names_one_order_that_can_or_cannot_change_as_its_goal_says(reader):
    kinds: Counter[str] = Counter()
    for d in range(13):
        for seed in range(8):
            s = generate("change", d, seed, reader)
            goal = s.goal
            assert isinstance(goal, OrderChangeGoal) and s.account is not None
            order = target(s)
            assert len(s.orders) <= 1 + d // 2 and not ID_IN_TEXT.search(task_words(s))
            if goal.refusal is not None:
                assert order.status in ("shipped", "in_transit")
                kinds["refuse"] += 1
            else:
                assert order.status == "processing"
            for change in goal.line_changes:  # a sibling of the line's product, in stock
                line = next(li for li in order.lines if li.line_id == change.line_id)
                new, old = reader.product(change.product_id), reader.product(line.product_id)
                assert new.group_id == old.group_id and new.product_id != old.product_id and new.stock > 0
            if goal.address is not None:
                assert goal.address_id != order.address_id
            kinds["two" if len(goal.line_changes) + (goal.address is not None) > 1 else "one"] += 1
    assert kinds["refuse"] >= 10 and kinds["two"] >= 5


# --- the verifier, through the real server ---------------------------------------------------


async def _propose(shop, goal: OrderChangeGoal) -> dict:
    await shop.call(LIST_ORDERS)
    await shop.call(CHECK_ORDER, order_id=goal.order_id)
    amount = {"answer_number": goal.difference_cents / 100} if goal.difference_cents else {}
    return await shop.call(RESPOND_TO_CUSTOMER, message=f"For order {goal.order_id}, I will {proposal(goal)}. "
                           "Shall I go ahead?", order_id=goal.order_id, **amount)


async def _write(shop, goal: OrderChangeGoal, order_id: str | None = None) -> None:
    order_id = order_id or goal.order_id
    if goal.cancel_reason is not None:
        await shop.call(CANCEL_ORDER, order_id=order_id, reason=goal.cancel_reason)
    if goal.line_changes:
        await shop.call(MODIFY_ORDER_ITEMS, order_id=order_id,
                        changes=[{"line_id": c.line_id, "product_id": c.product_id} for c in goal.line_changes])
    if goal.address is not None:
        await shop.call(CHANGE_ORDER_ADDRESS, order_id=order_id, address=goal.address.model_dump())


def _widen(scenario: Scenario) -> Scenario:
    """A test's scripts make several lookups in a turn: lift the per-turn budget."""
    return scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 20})})


async def test_the_oracle_solves_a_change_and_a_refusal(hub, verifier, reader):
    for wanted in (lambda s: s.goal.refusal is None, lambda s: s.goal.refusal is not None):
        scenario = find(reader, 6, wanted)
        reward = await play_scored(hub, verifier, scenario, oracle_play)
        assert (reward.is_correct, reward.r_task, reward.total) == (True, 1.0, 1.0), reward.failed_requirements


async def test_a_write_before_the_customer_agreed_is_charged_to_the_agent(hub, verifier, reader):
    scenario = _widen(find(reader, 4, lambda s: s.goal.refusal is None and s.goal.cancel_reason is None))

    async def eager(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await _write(shop, goal)  # the right change, but before any proposal
        await shop.call(RESPOND_TO_CUSTOMER, message=f"Done: I will {proposal(goal)}.", order_id=goal.order_id,
                        done=True)

    reward = await play_scored(hub, verifier, scenario, eager)
    failed = {c.name for c in reward.breakdown if c.passed is False}
    assert failed == {"approved_first"} and reward.r_task == -1.0 and not reward.is_correct
    assert ("the customer's agreement before each change", "shop", "agent") in charged(reward)


async def test_a_change_to_another_order_besides_the_right_one_fails_as_collateral(hub, verifier, reader):
    scenario = _widen(find(reader, 8, lambda s: s.goal.refusal is None and any(
        o.status == "processing" for o in s.orders if o.order_id != s.goal.order_id) or (
        s.goal.refusal is None and len(s.orders) > 2)))
    other = next(o for o in scenario.orders if o.order_id != scenario.goal.order_id and o.status != "cancelled")

    async def collateral(shop, goal):
        await _propose(shop, goal)
        await _write(shop, goal)
        await shop.call(CANCEL_ORDER, order_id=other.order_id, reason="other")  # one too many
        await shop.call(RESPOND_TO_CUSTOMER, message="All done.", order_id=goal.order_id, done=True)

    reward = await play_scored(hub, verifier, scenario, collateral)
    failed = {c.name for c in reward.breakdown if c.passed is False}
    assert failed == {"nothing_else_changed"} and not reward.is_correct and reward.r_task == -1.0
    assert any(r.startswith("change only") for r, _, _ in charged(reward))


async def test_the_shipped_look_alike_changed_instead_fails(hub, verifier, reader):
    def shipped_lookalike(s):
        return s.goal.refusal is None and any(o.status in ("shipped", "in_transit") and o.order_id != s.goal.order_id
                                              for o in s.orders)
    scenario = _widen(find(reader, 6, shipped_lookalike))
    lookalike = next(o for o in scenario.orders if o.status in ("shipped", "in_transit"))

    async def wrong_order(shop, goal):
        await _propose(shop, goal)
        await shop.call(CANCEL_ORDER, order_id=lookalike.order_id, reason="other")
        await shop.call(RESPOND_TO_CUSTOMER, message="All done.", order_id=goal.order_id, done=True)

    reward = await play_scored(hub, verifier, scenario, wrong_order)
    failed = {c.name for c in reward.breakdown if c.passed is False}
    assert {"orders_as_wanted", "nothing_else_changed"} <= failed and not reward.is_correct


async def test_changing_a_shipped_order_fails_and_refusing_it_solves(hub, verifier, reader):
    scenario = _widen(find(reader, 6, lambda s: s.goal.refusal is not None))

    async def obliging(shop, goal):  # does what was asked, on an order that has shipped
        reply = await _propose(shop, goal)
        assert "go ahead" in reply["customer_message"].lower()  # the customer does not know the rule
        await _write(shop, goal)
        await shop.call(RESPOND_TO_CUSTOMER, message="All done.", order_id=goal.order_id, done=True)

    reward = await play_scored(hub, verifier, scenario, obliging)
    failed = {c.name for c in reward.breakdown if c.passed is False}
    assert {"orders_as_wanted", "refusal"} <= failed and reward.r_task == -1.0
    assert ("a shipped order is returned, not changed (the store's policy)", "shop", "agent") in charged(reward)
    solved = await play_scored(hub, verifier, scenario, oracle_play)
    assert solved.is_correct and solved.r_task == 1.0


async def test_refusing_a_change_that_could_be_made_fails(hub, verifier, reader):
    scenario = find(reader, 3, lambda s: s.goal.refusal is None)

    async def refuser(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await shop.call(RESPOND_TO_CUSTOMER, message="Sorry, that order can't be changed.", order_id=goal.order_id,
                        answer_refusal="return_instead", done=True)

    reward = await play_scored(hub, verifier, scenario, refuser)
    assert not reward.is_correct and {"orders_as_wanted", "refusal"} <= {
        c.name for c in reward.breakdown if c.passed is False}


async def test_two_line_changes_must_go_in_one_call(hub, verifier, reader):
    scenario = _widen(find(reader, 12, lambda s: s.goal.refusal is None and len(s.goal.line_changes) == 2))

    async def one_at_a_time(shop, goal):
        await _propose(shop, goal)
        for c in goal.line_changes:  # the second call is refused: an order's items change once
            try:
                await shop.call(MODIFY_ORDER_ITEMS, order_id=goal.order_id,
                                changes=[{"line_id": c.line_id, "product_id": c.product_id}])
            except Exception:
                pass
        if goal.address is not None:
            await shop.call(CHANGE_ORDER_ADDRESS, order_id=goal.order_id, address=goal.address.model_dump())
        await shop.call(RESPOND_TO_CUSTOMER, message="All done.", order_id=goal.order_id, done=True)

    reward = await play_scored(hub, verifier, scenario, one_at_a_time)
    assert not reward.is_correct and "orders_as_wanted" in {c.name for c in reward.breakdown
                                                           if not c.passed}


async def test_a_saved_address_written_out_in_full_is_the_same_place(hub, verifier, reader):
    scenario = _widen(find(reader, 2, lambda s: s.goal.refusal is None and s.goal.address_id is not None))

    async def in_full(shop, goal):
        await _propose(shop, goal)
        await shop.call(GET_CUSTOMER_PROFILE)
        street = goal.address.street.upper()  # another case, same place
        await shop.call(CHANGE_ORDER_ADDRESS, order_id=goal.order_id,
                        address={"street": street, "city": goal.address.city, "zip": goal.address.zip})
        await shop.call(RESPOND_TO_CUSTOMER, message="All done.", order_id=goal.order_id, done=True)

    reward = await play_scored(hub, verifier, scenario, in_full)
    assert reward.is_correct, reward.failed_requirements


# --- the customer ----------------------------------------------------------------------------


def test_the_customer_agrees_only_to_a_proposal_naming_every_change_and_waits_for_the_write(reader):
    scenario = find(reader, 8, lambda s: s.goal.refusal is None and len(s.goal.line_changes) >= 1
                    and s.goal.address is not None)
    goal = scenario.goal
    customer = SimulatedCustomer(scenario, reader.product)
    partial = customer.reply(f"For order {goal.order_id}, I will switch line {goal.line_changes[0].line_id} to "
                             f"{goal.line_changes[0].product_id}.", Submission(order_id=goal.order_id))
    assert partial.tag != "approve" and not ID_IN_TEXT.search(partial.text)
    other = next(o for o in scenario.orders if o.order_id != goal.order_id)
    wrong = customer.reply(f"For order {other.order_id}, I will {proposal(goal)}.", Submission())
    assert wrong.tag == "correct"
    agreed = customer.reply(f"For order {goal.order_id}, I will {proposal(goal)}.",
                            Submission(answer_number=goal.difference_cents / 100))
    assert agreed.tag == "approve"
    # Agreed, nothing written yet: it asks for the change, it does not say goodbye.
    waiting = customer.reply("Great, thanks!", Submission())
    assert waiting.tag == "continue" and not waiting.ends_episode
    half = WorldView(order_writes=(OrderWrite(MODIFY_ORDER_ITEMS, goal.order_id,
                                              {"lines": {c.line_id: c.product_id for c in goal.line_changes}}),))
    assert customer.reply("Done.", Submission(), half).tag == "continue"


def test_the_customer_tells_a_held_back_reason_address_or_variant_when_asked(reader):
    scenario = find(reader, 10, lambda s: s.goal.refusal is None and (
        not s.goal.reason_stated or not s.goal.address_stated or any(not c.stated for c in s.goal.line_changes)))
    goal = scenario.goal
    customer = SimulatedCustomer(scenario, reader.product)
    if not goal.reason_stated:
        told = customer.reply("Why would you like to cancel it?", Submission())
    elif not goal.address_stated:
        told = customer.reply("Which address should it ship to?", Submission())
    else:
        change = next(c for c in goal.line_changes if not c.stated)
        told = customer.reply(f"Which {change.attribute.replace('_', ' ')} would you like?", Submission())
        assert change.value in told.text
    assert told.tag == "clarify" and not ID_IN_TEXT.search(told.text)


@pytest.mark.parametrize("refusal", ["return_instead", "not_eligible"])
def test_a_refusal_ends_a_shipped_order_s_request_only_with_the_right_reason(reader, refusal):
    scenario = find(reader, 6, lambda s: s.goal.refusal is not None)
    turn = SimulatedCustomer(scenario, reader.product).reply("It has shipped.", Submission(answer_refusal=refusal))
    assert (turn.tag == "done") == (refusal == "return_instead")


def test_greedy_takes_a_change_request_and_no_other(reader):
    """Greedy's reading of a change request: its action words, not a product's ("Noise Cancelling"
    headphones, a "Blue Switch" keyboard) nor a return's."""
    from verishop.envs.change.greedy import matches

    for seed in range(20):  # no typo noise at d = 0
        assert matches(generate("change", 0, seed, reader).opening_message)
    assert not matches("Hello, I'd like to order 2 × Bose Lite 7 Wireless Noise Cancelling Over-Ear Headphones.")
    assert not matches("I'd like to order the Keychron Plus 9 TKL Wireless Keyboard in Brown Switch.")
    assert not matches("Please help me start a return for the wireless keyboard (switch Blue Switch) that I "
                       "ordered on March 7.")
    assert matches("Please cancel my order of March 3 with the yoga mat.")


def test_the_customer_never_says_an_id_even_when_the_agent_changed_the_wrong_order(reader):
    scenario = find(reader, 8, lambda s: s.goal.refusal is None and len(s.orders) > 1)
    other = next(o for o in scenario.orders if o.order_id != scenario.goal.order_id)
    customer = SimulatedCustomer(scenario, reader.product)
    wrong = WorldView(order_writes=(OrderWrite(CANCEL_ORDER, other.order_id, {"reason": "other"}),))
    turn = customer.reply("Done.", Submission(), wrong)
    assert turn.tag == "correct" and not ID_IN_TEXT.search(turn.text)


def test_a_proposal_naming_every_variant_or_address_wins_no_agreement(reader):
    """Listing every ID or size the agent saw names no change: the customer says which it meant
    (a person would), and agrees only to the one (issue 32's name-dropping attack)."""
    scenario = find(reader, 8, lambda s: s.goal.refusal is None and s.goal.line_changes
                    and s.goal.line_changes[0].others)
    goal = scenario.goal
    change = goal.line_changes[0]
    listing = ", ".join((change.value, *change.others))
    customer = SimulatedCustomer(scenario, reader.product)
    turn = customer.reply(f"For order {goal.order_id}, I will {proposal(goal)}; or maybe {listing}.", Submission())
    assert turn.tag == "correct" and change.value in turn.text
    sprayed = customer.reply(f"For order {goal.order_id}, I will {proposal(goal)}.",
                             Submission(recommended_product_ids=(change.product_id, "P00000001", "P00000002")))
    assert sprayed.tag == "correct"
    agreed = customer.reply(f"For order {goal.order_id}, I will {proposal(goal)}.",
                            Submission(answer_number=goal.difference_cents / 100))
    assert agreed.tag == "approve"


def test_a_switch_that_costs_or_refunds_money_is_agreed_only_with_its_exact_difference(reader):
    scenario = find(reader, 6, lambda s: s.goal.refusal is None and s.goal.difference_cents != 0)
    goal = scenario.goal
    exact = goal.difference_cents / 100
    customer = SimulatedCustomer(scenario, reader.product)
    said = f"For order {goal.order_id}, I will {proposal(goal)}."
    assert customer.reply(said, Submission()).tag == "continue"  # it asks how much
    assert customer.reply(said, Submission(answer_number=-exact)).tag == "continue"  # the wrong sign
    assert customer.reply(said, Submission(answer_number=exact)).tag == "approve"


def test_a_switch_that_costs_money_is_paid_by_a_card_that_takes_it(reader):
    """modify_order_items charges the order's payment method: a gift card's balance could not
    always take it (in a journey another request may spend it first), so such an order was paid by
    card, and the oracle's change always goes through."""
    for d in range(13):
        for seed in range(12):
            s = generate("change", d, seed, reader)
            order = next(o for o in s.orders if o.order_id == s.goal.order_id)
            if s.goal.difference_cents > 0:
                assert s.account.payment(order.payment_id).kind == "card", (d, seed)


def test_a_value_inside_another_is_read_as_the_longer_one():
    """"Light Pink" is not also "Pink", nor "Rose red" "red": a proposal of two lines whose new
    colours share a word is agreed to, and one naming a longer other value is not taken for the
    shorter one (found on a real shop's feed, whose colours read this way)."""
    from verishop.scenarios.customers.proposals import values_said

    values = ["Rose red", "Green", "Pink", "Red", "Light Pink"]
    assert values_said("switch the bouquet to Red and the hydrangea to Light Pink", values) == {"Red", "Light Pink"}
    assert values_said("exchange it for Rose red", values) == {"Rose red"}
    assert values_said("I'm switching it to Green", values) == {"Green"}


def test_a_proposal_worded_as_a_person_would_is_agreed_to(reader):
    """The agreement does not depend on the oracle's wording: a proposal in a person's words (the
    order named in the text, the new colour or size as a word, the amount typed) is agreed to."""
    scenario = find(reader, 4, lambda s: s.goal.refusal is None and len(s.goal.line_changes) == 1
                    and s.goal.address is None and s.goal.cancel_reason is None)
    goal = scenario.goal
    change = goal.line_changes[0]
    said = (f"Sure thing! I can swap that over to the {change.value} one on your order {goal.order_id} "
            f"straight away. Does that sound good?")
    turn = SimulatedCustomer(scenario, reader.product).reply(said, Submission(answer_number=goal.difference_cents / 100))
    assert turn.tag == "approve", turn.text
