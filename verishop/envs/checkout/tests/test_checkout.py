"""CHECKOUT (checkout-v2): generation along the difficulty axes, the shop's checkout tools (each
refusal changes nothing), and the verifier's verdicts on plays broken in one way each, played
through the real MCP server against the simulated customer and scored from the files. The
scenarios come from the generator itself (no minefield overlay), so each play breaks one rule."""

from __future__ import annotations

import re
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from mcp import Client
from mutants import play_scored

from verishop.agents.session import ShopSession, ToolFailed
from verishop.envs.checkout.generator import generate
from verishop.envs.checkout.oracle import SAID_OPTION
from verishop.envs.checkout.oracle import play as oracle_play
from verishop.mcp_server.tools import create_server
from verishop.scenarios.checkout import Line, quote
from verishop.scenarios.models import CheckoutGoal, Scenario
from verishop.scenarios.tool_names import (
    ADD_TO_CART,
    APPLY_VOUCHER,
    CHECKOUT,
    COMPARE_PRODUCTS,
    GET_CUSTOMER_PROFILE,
    LIST_SHIPPING_OPTIONS,
    LIST_VOUCHERS,
    REMOVE_VOUCHER,
    RESPOND_TO_CUSTOMER,
)

ID_IN_TEXT = re.compile(r"\b(?:W\d{7}|LN\d{8}|P\d{8}|AD\d{6}|PM\d{6})\b")


def find(reader, difficulty: int, wanted, seeds=range(200)) -> Scenario:
    return next(s for s in (generate(difficulty, seed, reader) for seed in seeds) if wanted(s))


def _widen(scenario: Scenario) -> Scenario:
    """A test's scripts make several lookups in a turn: lift the per-turn budget."""
    return scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 20})})


# --- generation ----------------------------------------------------------------------------


def test_same_inputs_give_byte_identical_scenarios_and_the_opening_names_no_id(reader):
    for d in (0, 6, 12):
        a = generate(d, 3, reader).to_json()
        assert a == generate(d, 3, reader).to_json() and a != generate(d, 4, reader).to_json()
        assert Scenario.model_validate_json(a).to_json() == a
        assert not ID_IN_TEXT.search(Scenario.model_validate_json(a).opening_message)


def test_every_goal_is_reachable_within_its_budget_and_date_and_the_axes_move_with_difficulty(reader):
    low = [generate(d, s, reader) for d in (0, 1) for s in range(10)]
    high = [generate(d, s, reader) for d in (11, 12) for s in range(10)]
    for s in low + high:
        goal = s.goal
        assert isinstance(goal, CheckoutGoal) and goal.optima and goal.total_cents <= goal.budget_cents
        assert sum(c.amount_cents for c in goal.charges) == goal.total_cents
        products = [reader.product(i.product_id) for i in goal.items]
        lines = [Line(p.product_id, p.category_id, p.price_cents, i.quantity) for p, i in zip(products, goal.items)]
        by_code = {v.code: v for v in s.account.vouchers}
        for plan in goal.optima:  # each stored plan reaches the stored total
            option = next(o for o in s.policy.shipping_options if o.name == plan.shipping_option)
            assert quote(lines, [by_code[c] for c in plan.voucher_codes], option, s.policy).total_cents \
                == goal.total_cents
    def mean(xs):
        return sum(xs) / len(xs)
    assert mean([len(s.goal.items) for s in high]) > mean([len(s.goal.items) for s in low])
    assert mean([len(s.account.vouchers) for s in high]) > mean([len(s.account.vouchers) for s in low])
    assert mean([(s.goal.budget_cents - s.goal.total_cents) / s.goal.total_cents for s in high]) \
        < mean([(s.goal.budget_cents - s.goal.total_cents) / s.goal.total_cents for s in low])
    assert sum(len(s.goal.payment_ids) == 2 for s in high) > sum(len(s.goal.payment_ids) == 2 for s in low)
    assert sum(not s.goal.date_stated for s in high) > sum(not s.goal.date_stated for s in low)
    assert any(any(v.stackable for v in s.account.vouchers) for s in high)


# --- the shop's tools ------------------------------------------------------------------------


async def test_a_refused_voucher_or_checkout_changes_nothing(hub, reader):
    scenario = _widen(find(reader, 8, lambda s: any(v.expires_on < s.today for v in s.account.vouchers)))
    expired = next(v for v in scenario.account.vouchers if v.expires_on < scenario.today)
    goal = scenario.goal
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        shop = ShopSession(client)
        with pytest.raises(ToolFailed, match="the cart is empty"):
            await shop.call(CHECKOUT, address_id=goal.address_id, payment_method_ids=list(goal.payment_ids),
                            shipping_option="standard")
        await shop.call(COMPARE_PRODUCTS, product_ids=[i.product_id for i in goal.items])
        for item in goal.items:
            await shop.call(ADD_TO_CART, product_id=item.product_id, quantity=item.quantity)
        before = await shop.call(LIST_VOUCHERS)
        with pytest.raises(ToolFailed, match=f"expired on {expired.expires_on.isoformat()}"):
            await shop.call(APPLY_VOUCHER, code=expired.code)
        with pytest.raises(ToolFailed, match="no voucher"):
            await shop.call(APPLY_VOUCHER, code="NOSUCHCODE")
        with pytest.raises(ToolFailed, match="is not applied"):
            await shop.call(REMOVE_VOUCHER, code=expired.code)
        profile = await shop.call(GET_CUSTOMER_PROFILE)
        card = next(m["payment_method_id"] for m in profile["payment_methods"] if m["kind"] == "card")
        gift = next(m["payment_method_id"] for m in profile["payment_methods"] if m["kind"] == "gift_card")
        with pytest.raises(ToolFailed, match="must come last"):
            await shop.call(CHECKOUT, address_id=goal.address_id, payment_method_ids=[card, gift],
                            shipping_option="standard")
        with pytest.raises(ToolFailed, match="no shipping option"):
            await shop.call(CHECKOUT, address_id=goal.address_id, payment_method_ids=[card], shipping_option="drone")
        with pytest.raises(ToolFailed, match="no saved address"):
            await shop.call(CHECKOUT, address_id="AD000000", payment_method_ids=[card], shipping_option="standard")
        assert await shop.call(LIST_VOUCHERS) == before
        assert (await shop.call(LIST_SHIPPING_OPTIONS))["cart_after_vouchers"] == before["shipping"]["cart_after_vouchers"]
    await hub.close(episode.episode_id, "agent_stopped")
    with sqlite3.connect(Path(hub.runs_dir) / episode.episode_id / "world.db") as db:
        assert db.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == len(scenario.orders)
        assert db.execute("SELECT COUNT(*) FROM cart").fetchone()[0] == len(goal.items)
        assert db.execute("SELECT COUNT(*) FROM vouchers WHERE applied_seq IS NOT NULL").fetchone()[0] == 0


async def test_two_vouchers_that_do_not_stack_are_refused_together(hub, reader):
    def two_singles(s):
        goal = s.goal
        usable = {c for p in goal.optima for c in p.voucher_codes}
        return any(not v.stackable and v.code in usable for v in s.account.vouchers) and sum(
            not v.stackable and v.expires_on >= s.today and v.min_spend_cents == 0 and v.category_id is None
            for v in s.account.vouchers) >= 2
    scenario = _widen(find(reader, 6, two_singles, range(400)))
    singles = [v for v in scenario.account.vouchers if not v.stackable and v.expires_on >= scenario.today
               and v.min_spend_cents == 0 and v.category_id is None]
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        shop = ShopSession(client)
        await shop.call(COMPARE_PRODUCTS, product_ids=[i.product_id for i in scenario.goal.items])
        for item in scenario.goal.items:
            await shop.call(ADD_TO_CART, product_id=item.product_id, quantity=item.quantity)
        first = await shop.call(APPLY_VOUCHER, code=singles[0].code)
        with pytest.raises(ToolFailed, match="do not stack"):
            await shop.call(APPLY_VOUCHER, code=singles[1].code)
        assert [d["code"] for d in (await shop.call(REMOVE_VOUCHER, code=singles[0].code))["applied"]] == []
        assert [d["code"] for d in first["applied"]] == [singles[0].code]
    await hub.close(episode.episode_id, "agent_stopped")


# --- the verifier, through the real server ---------------------------------------------------


def _playing(total_cents_told, *, vouchers=None, option=None, payment=None, propose=True):
    """The oracle's play with one thing changed: the total told, the vouchers, the shipping
    option, the payment methods, or no proposal before the order."""
    async def play(shop: ShopSession, goal: CheckoutGoal) -> None:
        plan = goal.optima[0]
        codes = plan.voucher_codes if vouchers is None else vouchers(goal)
        shipping = option or plan.shipping_option
        await shop.call(COMPARE_PRODUCTS, product_ids=[i.product_id for i in goal.items])
        for item in goal.items:
            await shop.call(ADD_TO_CART, product_id=item.product_id, quantity=item.quantity)
        for code in codes:
            await shop.call(APPLY_VOUCHER, code=code)
        told = total_cents_told(goal) / 100
        if propose:
            await shop.call(RESPOND_TO_CUSTOMER, message=(
                f"With {SAID_OPTION[shipping]} shipping, paid with {goal.payment_words}, your total is {told:.2f}. "
                "Shall I place the order?"), answer_number=told)
        await shop.call(GET_CUSTOMER_PROFILE)
        await shop.call(CHECKOUT, address_id=goal.address_id,
                        payment_method_ids=list(payment(goal) if payment else goal.payment_ids),
                        shipping_option=shipping)
        await shop.call(RESPOND_TO_CUSTOMER, message="Your order is placed.", answer_number=None if propose else told,
                        done=True)
    return play


def _failed(reward) -> set[str]:
    return {c.name for c in reward.breakdown if c.passed is False}


async def test_the_oracle_solves_and_a_total_one_cent_off_fails(hub, verifier, reader):
    scenario = _widen(find(reader, 4, lambda s: s.goal.total_cents + 1 <= s.goal.budget_cents))
    reward = await play_scored(hub, verifier, scenario, oracle_play)
    assert (reward.is_correct, reward.r_task) == (True, 1.0), reward.failed_requirements
    reward = await play_scored(hub, verifier, scenario, _playing(lambda g: g.total_cents + 1))
    assert _failed(reward) == {"total"} and not reward.is_correct and reward.r_task == -1.0


async def test_a_plan_that_is_not_the_cheapest_fails_even_when_the_customer_agreed(hub, verifier, reader):
    def without_vouchers(s: Scenario) -> int:
        lines = [Line(i.product_id, reader.product(i.product_id).category_id, reader.product(i.product_id).price_cents,
                      i.quantity) for i in s.goal.items]
        option = next(o for o in s.policy.shipping_options if o.name == s.goal.optima[0].shipping_option)
        return quote(lines, [], option, s.policy).total_cents

    scenario = _widen(find(reader, 6, lambda s: all(p.voucher_codes for p in s.goal.optima)
                           and without_vouchers(s) <= s.goal.budget_cents, range(400)))
    told = without_vouchers(scenario)
    reward = await play_scored(hub, verifier, scenario, _playing(lambda g: told, vouchers=lambda g: ()))
    assert {"plan", "total"} <= _failed(reward) <= {"plan", "payment", "total"} and not reward.is_correct


async def test_an_order_placed_before_the_customer_agreed_fails(hub, verifier, reader):
    scenario = _widen(find(reader, 2, lambda s: True))
    reward = await play_scored(hub, verifier, scenario, _playing(lambda g: g.total_cents, propose=False))
    assert _failed(reward) == {"approved_first"} and not reward.is_correct


async def test_paying_by_card_alone_when_the_customer_asked_for_its_gift_card_first_fails(hub, verifier, reader):
    scenario = _widen(find(reader, 10, lambda s: len(s.goal.payment_ids) == 2 and s.goal.charges[1].amount_cents > 0))
    reward = await play_scored(hub, verifier, scenario,
                               _playing(lambda g: g.total_cents, payment=lambda g: g.payment_ids[1:]))
    assert "payment" in _failed(reward) and not reward.is_correct


async def test_no_other_environment_offers_a_checkout(hub, reader):
    from verishop.scenarios.envs import generate as generate_any

    for env in ("cart", "exchange"):
        episode = await hub.open(generate_any(env, 2, 1, reader))
        async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
            shop = ShopSession(client)
            for tool, args in ((LIST_VOUCHERS, {}), (APPLY_VOUCHER, {"code": "SAVE10"}),
                               (CHECKOUT, {"address_id": "AD000001", "payment_method_ids": ["PM000001"],
                                           "shipping_option": "standard"})):
                with pytest.raises(ToolFailed, match="no checkout in this conversation"):
                    await shop.call(tool, **args)
        await hub.close(episode.episode_id, "agent_stopped")


async def test_a_payment_method_id_no_tool_showed_is_a_hallucination(hub, verifier, reader):
    scenario = _widen(find(reader, 2, lambda s: True))

    async def invented(shop: ShopSession, goal: CheckoutGoal) -> None:
        await shop.call(COMPARE_PRODUCTS, product_ids=[i.product_id for i in goal.items])
        for item in goal.items:
            await shop.call(ADD_TO_CART, product_id=item.product_id, quantity=item.quantity)
        try:  # before any tool showed the account's IDs
            await shop.call(CHECKOUT, address_id=goal.address_id, payment_method_ids=["PM999999"],
                            shipping_option="standard")
        except ToolFailed:
            pass
        await shop.call(RESPOND_TO_CUSTOMER, message="Sorry, I could not place it.", done=True)

    reward = await play_scored(hub, verifier, scenario, invented)
    hallucination = next(c for c in reward.breakdown if c.name == "hallucination")
    assert {"PM999999", scenario.goal.address_id} <= set(hallucination.found) and reward.r_hall < 0


async def test_a_voucher_the_cart_no_longer_meets_is_refused_at_checkout_and_nothing_is_placed(hub, reader):
    from verishop.scenarios.checkout import voucher_problem

    def first_alone(s: Scenario) -> Line:
        p = reader.product(s.goal.items[0].product_id)
        return Line(p.product_id, p.category_id, p.price_cents, 1)

    def stale(s: Scenario):
        """A voucher of an optimal plan that the first item alone no longer meets."""
        return next((v for p in s.goal.optima for v in s.account.vouchers if v.code in p.voucher_codes
                     and voucher_problem(v, [first_alone(s)], s.today, s.policy.final_sale_categories)), None)

    scenario = _widen(find(reader, 8, lambda s: stale(s) is not None, range(400)))
    goal, voucher = scenario.goal, stale(scenario)
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        shop = ShopSession(client)
        await shop.call(COMPARE_PRODUCTS, product_ids=[i.product_id for i in goal.items])
        for item in goal.items:
            await shop.call(ADD_TO_CART, product_id=item.product_id, quantity=item.quantity)
        await shop.call(APPLY_VOUCHER, code=voucher.code)
        for item in goal.items:
            await shop.call("remove_from_cart", product_id=item.product_id)
        await shop.call(ADD_TO_CART, product_id=goal.items[0].product_id, quantity=1)
        profile = await shop.call(GET_CUSTOMER_PROFILE)
        card = next(m["payment_method_id"] for m in profile["payment_methods"] if m["kind"] == "card")
        with pytest.raises(ToolFailed, match="the cart changed since it was applied"):
            await shop.call(CHECKOUT, address_id=goal.address_id, payment_method_ids=[card], shipping_option="next_day")
        assert [d["code"] for d in (await shop.call(REMOVE_VOUCHER, code=voucher.code))["applied"]] == []
    await hub.close(episode.episode_id, "agent_stopped")
    with sqlite3.connect(Path(hub.runs_dir) / episode.episode_id / "world.db") as db:
        assert db.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == len(scenario.orders)
        assert db.execute("SELECT COUNT(*) FROM cart").fetchone()[0] == 1


# --- the customer ----------------------------------------------------------------------------


def _customer(scenario: Scenario, reader):
    from verishop.scenarios.customers import SimulatedCustomer
    return SimulatedCustomer(scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"p_noise": 0.0})}),
                             reader.product)


def test_the_customer_tells_a_withheld_date_when_asked_and_objects_to_a_late_option(reader):
    from verishop.scenarios.household import say_date
    from verishop.scenarios.models import Submission

    def late_standard(s: Scenario) -> bool:
        standard = next(o for o in s.policy.shipping_options if o.name == "standard")
        return not s.goal.date_stated and s.today + timedelta(days=standard.days) > s.goal.deliver_by
    scenario = find(reader, 10, late_standard, range(400))
    goal = scenario.goal
    asked = _customer(scenario, reader).reply("How soon do you need it delivered?", Submission())
    assert asked.tag == "clarify" and say_date(goal.deliver_by) in asked.text
    customer = _customer(scenario, reader)
    turn = customer.reply(f"With standard shipping, paid with {goal.payment_words.replace('my ', 'your ')}, the total "
                          f"is {goal.total_cents / 100:.2f}.", Submission(answer_number=goal.total_cents / 100))
    assert turn.tag == "correct" and "too late" in turn.text and say_date(goal.deliver_by) in turn.text


def test_the_customer_agrees_only_to_its_own_payment_and_a_total_within_its_budget(reader):
    from verishop.scenarios.models import Submission

    scenario = find(reader, 10, lambda s: len(s.goal.payment_ids) == 2 and s.goal.payment_stated)
    goal = scenario.goal
    option = {"standard": "standard", "express": "express", "next_day": "next-day"}[goal.optima[0].shipping_option]
    card = next(m for m in scenario.account.payment_methods if m.payment_id == goal.payment_ids[1])
    over = _customer(scenario, reader).reply(f"With {option} shipping, paid with your gift card first and the rest on "
                                             f"your {card.label}, the total is {goal.budget_cents / 100 + 1:.2f}.",
                                             Submission(answer_number=goal.budget_cents / 100 + 1))
    assert over.tag == "correct" and "budget" in over.text
    card_only = _customer(scenario, reader).reply(f"With {option} shipping, paid with your {card.label}, the total is "
                                                  f"{goal.total_cents / 100:.2f}.",
                                                  Submission(answer_number=goal.total_cents / 100))
    assert card_only.tag != "approve"
    right = _customer(scenario, reader).reply(f"With {option} shipping, paid with your gift card first and the rest on "
                                              f"your {card.label}, the total is {goal.total_cents / 100:.2f}.",
                                              Submission(answer_number=goal.total_cents / 100))
    assert right.tag == "approve"
