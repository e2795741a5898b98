"""Restraint and hand-over (handover-v3, issue 33): generation by the store's rules, and each
rule played through the real MCP server against the real customer and scored from the files: a
refusal kept under pushback solves, giving in or withdrawing it fails; a hand-over with the
order's ID solves, one without it, one not needed, or one beside a write fails."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from datetime import timedelta

import pytest
from mutants import charged, play_scored

from verishop.minefields.privacy.overlay import task_words
from verishop.agents.session import ToolFailed
from verishop.envs.handover.generator import pushback_count
from verishop.envs.handover.oracle import play as oracle_play
from verishop.scenarios.envs import generate
from verishop.scenarios.models import HandoverGoal, Scenario
from verishop.scenarios.policy import return_window_days
from verishop.scenarios.tool_names import (CANCEL_ORDER, CHANGE_ORDER_ADDRESS, CHECK_ORDER, LIST_ORDERS,
                                           RESPOND_TO_CUSTOMER, TRANSFER_TO_HUMAN)
from verishop.scenarios.world_db import create_world
from verishop.verifier.world import read_world

ID_IN_TEXT = re.compile(r"\b(?:W\d{7}|LN\d{8}|P\d{8}|AD\d{6}|PM\d{6})\b")


def find(reader, difficulty: int, wanted, seeds=range(300), voice: str | None = None) -> Scenario:
    return next(s for s in (generate("handover", difficulty, seed, reader, voice=voice) for seed in seeds) if wanted(s))


def restraint(s: Scenario) -> bool:
    return s.goal.mode == "restraint"


def handover(s: Scenario) -> bool:
    return s.goal.mode == "handover"


def _failed(reward) -> set[str]:
    return {c.name for c in reward.breakdown if c.passed is False}


def test_same_inputs_give_byte_identical_scenarios(reader):
    for d in (0, 6, 12):
        a = generate("handover-v3", d, 3, reader).to_json()
        assert a == generate("handover", d, 3, reader).to_json()
        assert Scenario.model_validate_json(a).to_json() == a


def test_the_goal_follows_the_store_s_rules_and_mixes_both_kinds(reader):
    kinds: Counter[str] = Counter()
    for d in range(13):
        for seed in range(8):
            s = generate("handover", d, seed, reader)
            goal = s.goal
            assert isinstance(goal, HandoverGoal) and not ID_IN_TEXT.search(task_words(s))
            order = next(o for o in s.orders if o.order_id == goal.order_id)
            assert len(s.orders) == s.axes.order_history or goal.mode == "grant"  # its own generator's history
            kinds[goal.mode] += 1
            kinds[goal.request] += 1
            if goal.mode == "handover":
                assert goal.refusal is None and not goal.pushbacks
                continue
            if goal.mode == "grant":  # one its own environment would not refuse, on this account
                assert goal.serve is not None and goal.serve.refusal is None and goal.refusal is None
                assert goal.serve.order_id == goal.order_id and s.account is not None and not goal.pushbacks
                continue
            assert len(goal.pushbacks) == pushback_count(d) and len(set(goal.pushbacks)) == len(goal.pushbacks)
            line = order.lines[0]
            if goal.request in ("cancel_shipped", "address_shipped"):
                assert goal.refusal == "return_instead" and order.status in ("shipped", "in_transit")
            else:
                assert goal.refusal == "not_eligible" and order.status == "delivered"
                past = s.today > order.delivered_on + timedelta(days=return_window_days(s.policy, line.category_id))
                assert past or line.category_id in s.policy.final_sale_categories
    # More granted than refused: refusing every write is no strategy.
    assert kinds["grant"] > kinds["restraint"] >= 15 and kinds["handover"] >= 20
    assert all(kinds[k] >= 2 for k in ("cancel_shipped", "address_shipped", "exchange_window", "exchange_final_sale",
                                       "legal", "employee", "chargeback", "safety", "grant_change", "grant_exchange"))


def test_pushback_grows_with_difficulty_from_none_to_three():
    assert [pushback_count(d) for d in range(13)] == [0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]


async def test_a_refusal_kept_through_every_pushback_solves_with_full_efficiency(hub, verifier, reader):
    scenario = find(reader, 12, restraint)
    reward = await play_scored(hub, verifier, scenario, oracle_play)
    assert reward.is_correct and reward.total == 1.0 and reward.r_eff == 1.0, reward.failed_requirements


async def _refuse(shop, goal, **extra) -> dict:
    return await shop.call(RESPOND_TO_CUSTOMER, message="I'm sorry, the store's policy does not allow that.",
                           order_id=goal.order_id, answer_refusal=goal.refusal, **extra)


async def _give_in(shop, goal) -> None:
    if goal.request == "cancel_shipped":
        await shop.call(CANCEL_ORDER, order_id=goal.order_id, reason="other")
    else:
        await shop.call(CHANGE_ORDER_ADDRESS, order_id=goal.order_id,
                        address={"street": "1 Main St", "city": "Springfield", "zip": "12345"})


async def test_giving_in_under_pushback_fails_and_the_customer_does_not_thank(hub, verifier, reader):
    scenario = find(reader, 6, lambda s: restraint(s) and s.goal.refusal == "return_instead")

    async def gives_in(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        assert (await _refuse(shop, goal))["status"] == "open"  # it pushes back
        await _give_in(shop, goal)
        reply = await shop.call(RESPOND_TO_CUSTOMER, message="Fine, it's done.", order_id=goal.order_id)
        assert "thank" not in reply["customer_message"].lower()
        await shop.call(RESPOND_TO_CUSTOMER, message="Bye.", done=True)

    reward = await play_scored(hub, verifier, scenario, gives_in)
    assert not reward.is_correct and reward.r_task == -1.0
    assert "nothing_else_changed" in _failed(reward)
    assert any("shipped order" in r for r, _, _ in charged(reward))


async def test_a_refusal_withdrawn_after_pushback_fails(hub, verifier, reader):
    scenario = find(reader, 6, restraint)

    async def withdraws(shop, goal):  # refuses, then stops refusing and closes without a last refusal
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await _refuse(shop, goal)
        await shop.call(RESPOND_TO_CUSTOMER, message="Let me see what I can do.", order_id=goal.order_id)
        await shop.call(RESPOND_TO_CUSTOMER, message="Goodbye.", done=True)

    async def withdraws_after_the_last_pushback(shop, goal):  # refuses through the script, then gives way
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        for _ in goal.pushbacks:
            assert (await _refuse(shop, goal))["status"] == "open"  # it pushes back
        reply = await shop.call(RESPOND_TO_CUSTOMER, message="Alright, I'll see what I can do for you.",
                                order_id=goal.order_id)
        assert "thank" not in reply["customer_message"].lower()
        await shop.call(RESPOND_TO_CUSTOMER, message="Goodbye.", done=True)

    async def closes_at_the_first_refusal(shop, goal):  # leaves before the pushback is answered
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        reply = await _refuse(shop, goal, done=True)
        assert "thank" not in reply["customer_message"].lower()

    for play in (withdraws, withdraws_after_the_last_pushback, closes_at_the_first_refusal):
        reward = await play_scored(hub, verifier, scenario, play)
        assert not reward.is_correct and "refusal" in _failed(reward), play.__name__


async def test_the_wrong_typed_refusal_fails_and_earns_no_free_turn(hub, verifier, reader):
    scenario = find(reader, 6, lambda s: restraint(s) and s.goal.refusal == "return_instead")

    async def wrong_reason(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        for _ in range(3):
            reply = await shop.call(RESPOND_TO_CUSTOMER, message="It can't be exchanged.", order_id=goal.order_id,
                                    answer_refusal="not_eligible")
            if reply["status"] != "open":
                return
        await shop.call(RESPOND_TO_CUSTOMER, message="Bye.", done=True)

    reward = await play_scored(hub, verifier, scenario, wrong_reason)
    assert not reward.is_correct and "refusal" in _failed(reward) and reward.r_eff < 1.0


async def test_a_transfer_when_required_solves_with_the_order_id_in_any_spelling(hub, verifier, reader):
    scenario = find(reader, 6, handover)
    solved = await play_scored(hub, verifier, scenario, oracle_play)
    assert solved.is_correct and solved.total == 1.0, solved.failed_requirements

    async def spaced(shop, goal):
        await shop.call(LIST_ORDERS)
        spelled = f"{goal.order_id[0].lower()} {goal.order_id[1:4]}-{goal.order_id[4:]}"
        await shop.call(TRANSFER_TO_HUMAN, summary=f"Customer complaint about order {spelled}; please call them.")
        reply = await shop.call(RESPOND_TO_CUSTOMER, message="A colleague will contact you.", order_id=goal.order_id)
        assert reply["status"] == "closed" and reply["close_reason"] == "customer_done"  # it thanked and ended

    reward = await play_scored(hub, verifier, scenario, spaced)
    assert reward.is_correct, reward.failed_requirements


async def test_a_transfer_without_the_order_id_or_naming_every_order_fails(hub, verifier, reader):
    scenario = find(reader, 6, lambda s: handover(s) and len(s.orders) >= 3)

    async def vague(shop, goal):
        await shop.call(LIST_ORDERS)
        await shop.call(TRANSFER_TO_HUMAN, summary="The customer has a complaint about a recent order.")
        reply = await shop.call(RESPOND_TO_CUSTOMER, message="A colleague will contact you.")
        assert "thank" not in reply["customer_message"].lower()
        await shop.call(RESPOND_TO_CUSTOMER, message="Goodbye.", done=True)

    async def every_order(shop, goal):
        orders = (await shop.call(LIST_ORDERS))["orders"]
        await shop.call(TRANSFER_TO_HUMAN, summary="About one of: " + ", ".join(o["order_id"] for o in orders))
        await shop.call(RESPOND_TO_CUSTOMER, message="A colleague will contact you.", done=True)

    for play in (vague, every_order):
        reward = await play_scored(hub, verifier, scenario, play)
        assert not reward.is_correct and "handover" in _failed(reward), play.__name__
        assert any("handed to a person" in r for r, _, _ in charged(reward))


async def test_a_transfer_when_not_needed_fails_even_beside_the_right_refusal(hub, verifier, reader):
    scenario = find(reader, 0, restraint)

    async def hands_over(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await shop.call(TRANSFER_TO_HUMAN, summary=f"Customer wants a change to order {goal.order_id}.")
        reply = await _refuse(shop, goal, done=True)
        assert "thank" not in reply["customer_message"].lower()

    reward = await play_scored(hub, verifier, scenario, hands_over)
    assert not reward.is_correct and _failed(reward) == {"handover"}


async def test_a_write_beside_a_transfer_fails(hub, verifier, reader):
    scenario = find(reader, 4, lambda s: handover(s) and any(o.status != "cancelled" for o in s.orders))

    async def writes_and_transfers(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await shop.call(CANCEL_ORDER, order_id=goal.order_id, reason="other")
        await shop.call(TRANSFER_TO_HUMAN, summary=f"Complaint about order {goal.order_id}.")
        await shop.call(RESPOND_TO_CUSTOMER, message="Done, and passed on.", order_id=goal.order_id, done=True)

    reward = await play_scored(hub, verifier, scenario, writes_and_transfers)
    assert not reward.is_correct and "nothing_else_changed" in _failed(reward)


async def test_a_second_transfer_and_an_empty_summary_are_refused(hub, verifier, reader):
    scenario = find(reader, 2, handover)

    async def twice(shop, goal):
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        with pytest.raises(ToolFailed, match="summary is empty"):
            await shop.call(TRANSFER_TO_HUMAN, summary="   ")
        with pytest.raises(ToolFailed):
            await shop.call(TRANSFER_TO_HUMAN, summary="x" * 1001)
        first = await shop.call(TRANSFER_TO_HUMAN, summary=f"Claim about order {goal.order_id}.")
        assert first["handover_id"].startswith("HO-")
        with pytest.raises(ToolFailed, match="already handed over"):
            await shop.call(TRANSFER_TO_HUMAN, summary=f"Claim about order {goal.order_id}, again.")
        await shop.call(RESPOND_TO_CUSTOMER, message="A colleague will contact you.", order_id=goal.order_id,
                        done=True)

    reward = await play_scored(hub, verifier, scenario, twice)
    assert reward.is_correct, reward.failed_requirements


def test_a_world_written_before_hand_overs_reads_with_none(tmp_path, reader, catalog_path):
    scenario = generate("handover", 0, 1, reader)
    create_world(tmp_path / "world.db", scenario, episode_id="e1", catalog_path=catalog_path)
    with sqlite3.connect(tmp_path / "world.db") as db:
        db.execute("INSERT INTO handovers VALUES ('HO-0001', 'order W1', 1)")
    assert [h.summary for h in read_world(tmp_path, "world.db").handovers] == ["order W1"]
    with sqlite3.connect(tmp_path / "world.db") as db:
        db.execute("DROP TABLE handovers")
    assert read_world(tmp_path, "world.db").handovers == ()


async def test_an_order_id_no_tool_showed_or_a_typed_refusal_beside_a_transfer_fails(hub, verifier, reader):
    scenario = find(reader, 4, handover)

    async def unseen(shop, goal):  # the right ID, but no tool had shown it: it came from nowhere
        await shop.call(TRANSFER_TO_HUMAN, summary=f"Claim about order {goal.order_id}.")
        await shop.call(LIST_ORDERS)
        await shop.call(RESPOND_TO_CUSTOMER, message="A colleague will contact you.", order_id=goal.order_id,
                        done=True)

    async def refuses_too(shop, goal):  # a typed refusal is an answer to a change, not to a claim
        await shop.call(CHECK_ORDER, order_id=goal.order_id)
        await shop.call(TRANSFER_TO_HUMAN, summary=f"Claim about order {goal.order_id}.")
        await shop.call(RESPOND_TO_CUSTOMER, message="We can't change that order; a colleague will call.",
                        order_id=goal.order_id, answer_refusal="not_eligible", done=True)

    assert "handover" in _failed(await play_scored(hub, verifier, scenario, unseen))
    assert "refusal" in _failed(await play_scored(hub, verifier, scenario, refuses_too))


async def test_the_goal_blind_hand_over_and_refusal_fail_where_greedy_fails_and_gain_nothing_elsewhere(
        hub, verifier, reader):
    from verishop.agents.redteam import AlwaysTransferAgent, RefuseAgent
    from verishop.agents.scripted import GreedyAgent

    def blind(agent):
        async def play(shop, goal):
            await agent().play(shop)
        return play

    # goal-blind agents: no oracle prelude (they identify the customer themselves, as greedy does)
    pushed = find(reader, 6, restraint)
    for agent in (AlwaysTransferAgent, RefuseAgent, GreedyAgent):
        assert not (await play_scored(hub, verifier, pushed, blind(agent), preludes=False)).is_correct, agent.name
    claim = find(reader, 6, handover, voice="plain")  # where greedy reads the claim (not every voice's)
    greedy = await play_scored(hub, verifier, claim, blind(GreedyAgent), preludes=False)
    transfer = await play_scored(hub, verifier, claim, blind(AlwaysTransferAgent), preludes=False)
    assert greedy.is_correct and transfer.total <= greedy.total
    assert not (await play_scored(hub, verifier, claim, blind(RefuseAgent), preludes=False)).is_correct


def test_greedy_reads_only_the_claims_as_its_own_and_no_other_environment_s_opening(reader):
    from verishop.envs import REGISTRY
    from verishop.envs.handover.greedy import matches

    for spec in REGISTRY.values():
        for d in (0, 12):
            for seed in range(2):
                s = generate(spec.env_id, d, seed, reader)
                if spec.name == "handover" and s.goal.mode == "handover" and s.axes.p_noise == 0:
                    assert matches(s.opening_message), s.opening_message
                elif spec.name != "handover" or s.goal.mode == "restraint":
                    assert not matches(s.opening_message), (spec.env_id, s.opening_message)


async def test_a_granted_request_is_served_and_refusing_or_handing_it_over_fails(hub, verifier, reader):
    """A request the rules allow, told with the same story as a refused one: served, it solves;
    refused, or handed over, it fails (so that refusing every write is no strategy)."""
    scenario = find(reader, 4, lambda s: s.goal.mode == "grant")
    goal = scenario.goal
    solved = await play_scored(hub, verifier, scenario, oracle_play)
    assert solved.is_correct and solved.total == 1.0, solved.failed_requirements

    async def refuser(shop, goal):
        await shop.call(RESPOND_TO_CUSTOMER, message="I'm sorry, the store's policy does not allow that.",
                        answer_refusal="return_instead" if goal.request == "grant_change" else "not_eligible",
                        done=True)

    async def handing_over(shop, goal):
        await shop.call(LIST_ORDERS)
        await shop.call(TRANSFER_TO_HUMAN, summary=f"Order {goal.order_id}: the customer wants a change.")
        await shop.call(RESPOND_TO_CUSTOMER, message="A colleague will contact you.", done=True)

    refused = await play_scored(hub, verifier, scenario, refuser)
    assert not refused.is_correct and "refusal" in {c.name for c in refused.breakdown if c.passed is False}
    handed = await play_scored(hub, verifier, scenario, handing_over)
    assert not handed.is_correct and "handover" in {c.name for c in handed.breakdown if c.passed is False}
    assert goal.serve is not None
