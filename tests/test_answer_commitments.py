"""Unsure is not wrong, and exact when the agent wants it (issue 19, points 2 and 3), played
through the real MCP server with the in-memory client and scored by the verifier.

A turn that states no single definite value (nothing readable, or a hedge) commits nothing: the
customer asks back the way a person would and the turn is paid. A hedge never passes and never
scores above a plain guess; a hedge followed by the right answer scores below the right answer
at once. A status turn naming the right order without a status commits nothing. A typed answer
(answer_yes_no, answer_number, answer_status, answer_refund_method) is read exactly and wins
over the words; the transcript records it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.tools import create_server
from verishop.scenarios.models import Scenario
from verishop.verifier.models import Reward
from verishop.verifier.runner import Verifier

DIFFICULTY = 0  # T_max = 4, no typos in the customer's replies


def find(hub: EpisodeHub, env: str, fits: Callable[[Scenario], bool], difficulty: int = DIFFICULTY) -> Scenario:
    for seed in range(400):
        scenario = hub.generate(env, difficulty, seed)
        if fits(scenario):
            return scenario
    raise AssertionError(f"no {env} scenario fits in 400 seeds")


async def play(hub: EpisodeHub, verifier: Verifier, scenario: Scenario, lookup: tuple[str, dict],
               turns: list[dict[str, Any]]) -> tuple[list[dict], Reward, Path]:
    """One episode: a lookup, then each turn's respond_to_customer arguments; closed if left open."""
    episode = await hub.open(scenario, default=True)
    replies = []
    async with Client(create_server(hub)) as client:
        await client.call_tool("get_conversation", {})
        result = await client.call_tool(*lookup)
        assert not result.is_error, result.content[0].text
        for arguments in turns:
            result = await client.call_tool("respond_to_customer", arguments)
            assert not result.is_error, result.content[0].text
            replies.append(result.structured_content)
            if result.structured_content["status"] == "closed":
                break
    if episode.is_open:
        await hub.close(episode.episode_id, "agent_done")
    directory = hub.runs_dir / episode.episode_id
    reward = verifier.verify(directory)
    assert reward.verdict == "scored", reward.detail
    return replies, reward, directory


def policy_lookup(scenario: Scenario) -> tuple[str, dict]:
    return "search_policies", {"query": scenario.goal.question, "limit": 5}


def yes_no(scenario: Scenario) -> bool:
    return scenario.goal.answer in ("yes", "no") and scenario.axes.max_turns >= 3 and not scenario.goal.unstated


def days(scenario: Scenario) -> bool:
    return (scenario.goal.answer_kind == "numeric" and "days" in scenario.goal.question
            and not scenario.goal.unstated)


def opposite(answer: str) -> str:
    return "Yes, you can." if answer == "no" else "No, I'm afraid not."


def said(answer: str) -> str:
    return "Yes, you can." if answer == "yes" else "No, I'm afraid not."


# --- unsure is not wrong: policy --------------------------------------------------------------


async def test_a_hedged_yes_no_answer_is_asked_back_and_the_right_answer_after_it_still_counts(hub, verifier):
    scenario = find(hub, "policy", yes_no)
    replies, reward, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": "It could be yes or no, it depends.", "answer": "yes or no"},
        {"message": said(scenario.goal.answer), "answer": said(scenario.goal.answer)}])
    assert replies[0]["status"] == "open" and "yes or a no" in replies[0]["customer_message"]
    assert replies[1]["status"] == "closed"
    assert (reward.r_task, reward.is_correct) == (1.0, True)


async def test_a_hedge_then_the_right_answer_scores_below_the_right_answer_at_once(hub, verifier):
    scenario = find(hub, "policy", yes_no)
    right = said(scenario.goal.answer)
    _, at_once, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [{"message": right, "answer": right}])
    _, hedged, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": "Maybe.", "answer": "maybe yes, maybe no"}, {"message": right, "answer": right}])
    assert at_once.is_correct and hedged.is_correct
    assert hedged.total < at_once.total and hedged.r_eff < at_once.r_eff


async def test_a_hedge_and_nothing_more_scores_no_better_than_a_wrong_answer(hub, verifier):
    scenario = find(hub, "policy", yes_no)
    wrong = opposite(scenario.goal.answer)
    _, guessed, _ = await play(hub, verifier, scenario, policy_lookup(scenario),
                               [{"message": wrong, "answer": wrong, "done": True}])
    replies, hedged, _ = await play(hub, verifier, scenario, policy_lookup(scenario),
                                    [{"message": "Yes or no.", "answer": "yes or no", "done": True}])
    assert replies[0]["close_reason"] is not None and not hedged.is_correct
    assert hedged.total <= guessed.total and hedged.r_task == -1.0


async def test_a_number_hedge_is_asked_back_in_the_questions_unit(hub, verifier):
    scenario = find(hub, "policy", days)
    answer = int(float(scenario.goal.answer))
    replies, reward, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": f"Either {answer} or {answer + 15} days.", "answer": f"{answer} or {answer + 15} days"},
        {"message": "Let me double-check that.", "answer": "I'm not sure"},
        {"message": f"It's {answer} days.", "answer": f"{answer} days"}])
    assert "how many days" in replies[0]["customer_message"].lower()
    assert "how many days" in replies[1]["customer_message"].lower()
    assert [r["status"] for r in replies] == ["open", "open", "closed"]
    assert (reward.r_task, reward.is_correct) == (1.0, True)
    commitments = next(c for c in reward.breakdown if c.name == "numeric_answer").found
    assert len(commitments) == 1  # only the definite answer is a commitment


# --- unsure is not wrong: order status --------------------------------------------------------


def status_lookup(scenario: Scenario) -> tuple[str, dict]:
    return "check_order", {"order_id": scenario.goal.order_id}


async def test_naming_the_right_order_before_its_status_is_no_commitment(hub, verifier):
    scenario = find(hub, "status", lambda s: s.axes.max_turns >= 3)
    order_id = scenario.goal.order_id
    status = scenario.goal.status
    replies, reward, _ = await play(hub, verifier, scenario, status_lookup(scenario), [
        {"message": f"I found your order {order_id}; one moment while I check where it is.", "order_id": order_id},
        {"message": f"Your order {order_id} is {status.replace('_', ' ')}.", "order_id": order_id,
         "answer": status.replace("_", " "), "done": True}])
    assert "where is my order now" in replies[0]["customer_message"].lower() and replies[0]["status"] == "open"
    assert (reward.r_task, reward.is_correct) == (1.0, True)


async def test_a_hedged_status_is_asked_back_and_scores_below_a_plain_wrong_status(hub, verifier):
    scenario = find(hub, "status", lambda s: s.axes.max_turns >= 3 and s.goal.status != "cancelled")
    order_id = scenario.goal.order_id
    wrong = "cancelled"
    replies, hedged, _ = await play(hub, verifier, scenario, status_lookup(scenario), [
        {"message": "Delivered or not, I can't say.", "order_id": order_id, "answer": "delivered or in transit"}])
    assert "where is my order now" in replies[0]["customer_message"].lower()
    _, guessed, _ = await play(hub, verifier, scenario, status_lookup(scenario), [
        {"message": "It was cancelled.", "order_id": order_id, "answer": wrong, "done": True}])
    assert not hedged.is_correct and hedged.total < guessed.total


# --- exact when the agent wants it --------------------------------------------------------------


async def test_the_typed_answers_are_in_the_tools_schema(hub):
    await hub.open(hub.generate("policy", 0, 0), default=True)
    async with Client(create_server(hub)) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "respond_to_customer")
    props = tool.input_schema["properties"]
    assert {"boolean"} <= {o.get("type") for o in props["answer_yes_no"]["anyOf"]}
    assert {"number"} <= {o.get("type") for o in props["answer_number"]["anyOf"]}
    statuses = next(o["enum"] for o in props["answer_status"]["anyOf"] if "enum" in o)
    assert set(statuses) == {"processing", "shipped", "in_transit", "delivered", "cancelled"}
    methods = next(o["enum"] for o in props["answer_refund_method"]["anyOf"] if "enum" in o)
    assert set(methods) == {"store credit", "original payment method"}
    assert "typed value" in tool.description and "exactly" in props["answer_number"]["description"]


async def test_a_typed_yes_no_is_read_exactly_and_wins_over_the_words(hub, verifier):
    scenario = find(hub, "policy", yes_no)
    right = scenario.goal.answer == "yes"
    _, reward, directory = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": opposite(scenario.goal.answer), "answer": opposite(scenario.goal.answer),
         "answer_yes_no": right}])
    assert (reward.r_task, reward.is_correct) == (1.0, True)
    events = [json.loads(line) for line in (directory / "transcript.jsonl").read_text().splitlines()]
    submission = next(e["submission"] for e in events if e["event"] == "assistant_message")
    assert submission["answer_yes_no"] is right


async def test_a_typed_number_is_read_exactly_even_with_no_words(hub, verifier):
    scenario = find(hub, "policy", lambda s: s.goal.answer_kind == "numeric" and not s.goal.unstated)
    _, reward, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": "Here is the figure.", "answer_number": float(scenario.goal.answer)}])
    assert (reward.r_task, reward.is_correct) == (1.0, True)


async def test_a_typed_status_wins_over_a_sentence_that_hedges(hub, verifier):
    scenario = find(hub, "status", lambda s: True)
    order_id = scenario.goal.order_id
    replies, reward, _ = await play(hub, verifier, scenario, status_lookup(scenario), [
        {"message": f"Order {order_id}: shipped or delivered, the carrier is vague.", "order_id": order_id,
         "answer_status": scenario.goal.status}])
    assert replies[0]["status"] == "closed"
    assert (reward.r_task, reward.is_correct) == (1.0, True)


async def test_a_typed_value_of_another_kind_answers_nothing(hub, verifier):
    scenario = find(hub, "policy", yes_no)
    replies, reward, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": "Here you go.", "answer_number": 1.0, "answer_status": "delivered"}])
    assert replies[0]["status"] == "open"


async def test_a_typed_refund_method_is_read_exactly(hub, verifier):
    scenario = find(hub, "policy", lambda s: s.goal.answer in ("store credit", "original payment method"),
                    difficulty=1)
    _, reward, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": "Here is how.", "answer_refund_method": scenario.goal.answer}])
    assert (reward.r_task, reward.is_correct) == (1.0, True)


@pytest.mark.parametrize("arguments, problem", [
    ({"answer_status": "lost"}, "answer_status"),
    ({"answer_refund_method": "cash"}, "answer_refund_method"),
    ({"answer_number": 1e12}, "answer_number"),
    ({"answer_yes_no": "maybe"}, "answer_yes_no"),
])
async def test_a_typed_value_out_of_range_is_refused_and_uses_no_turn(hub, arguments, problem):
    episode = await hub.open(hub.generate("status", 0, 0), default=True)
    async with Client(create_server(hub)) as client:
        result = await client.call_tool("respond_to_customer", {"message": "Here.", **arguments})
        conversation = await client.call_tool("get_conversation", {})
    assert result.is_error and problem in result.content[0].text
    assert episode.turns_used == 0 and conversation.structured_content["turns_used"] == 0
