"""STATUS (status-v8): the order is described so that exactly one order fits; the oracle solves
every difficulty through the real server (the answer field reaches the verifier), doing
nothing solves none; status answers are normalised; the customer clarifies and corrects."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest
from test_verifier import Script, write_episode

from verishop.minefields.privacy.overlay import task_words
from verishop.agents.evaluate import summarize
from support import play_and_verify
from verishop.scenarios.customers import SimulatedCustomer
from verishop.envs.status import generator as order_status
from verishop.scenarios.envs import generate
from verishop.envs.status.generator import AROUND_DAYS
from verishop.scenarios.models import Order, Scenario, Submission

ID_IN_TEXT = re.compile(r"\b(?:W\d{7}|LN\d{8}|P\d{8})\b")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def fitting_orders(scenario: Scenario) -> list[str]:
    """The orders the opening's words fit, read from the words alone (no typos)."""
    text, orders, today = scenario.opening_message, scenario.orders, scenario.today
    newest_first = sorted(orders, key=lambda o: o.placed_on, reverse=True)
    if "before my most recent" in text:
        return [newest_first[1].order_id]
    if "most recent" in text:
        return [newest_first[0].order_id]
    fit = list(orders)
    if m := re.search(r"(from|around|on) (\w+) (\d+)", text):
        day = date(today.year, MONTHS.index(m.group(2)) + 1, int(m.group(3)))
        if day > today:
            day = day.replace(year=today.year - 1)
        slack = AROUND_DAYS if m.group(1) == "around" else 0
        fit = [o for o in fit if abs((o.placed_on - day).days) <= slack]
    if m := re.search(r"placed (today|yesterday|about (\d+) (days|weeks) ago)", text):
        named = {"today": 0, "yesterday": 1}
        age = named[m.group(1)] if m.group(1) in named else int(m.group(2)) * (7 if m.group(3) == "weeks" else 1)
        fit = [o for o in fit if abs((today - o.placed_on).days - age) <= AROUND_DAYS]
    if m := re.search(r"the order with the ([\w' -]+?)(?: that I placed around| is[?.]|[?.])", text):
        noun = m.group(1)
        kinds = {li.category_id for o in orders for li in o.lines if noun in li.title.lower()}
        fit = [o for o in fit if any(li.category_id in kinds or noun in li.title.lower() for li in o.lines)]
    return [o.order_id for o in fit]


# --- generation ----------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", [0, 5, 12])
def test_same_inputs_give_byte_identical_scenarios(reader, difficulty):
    a = generate("status-v8", difficulty, 3, reader).to_json()
    assert a == generate("status", difficulty, 3, reader).to_json()
    assert Scenario.model_validate_json(a).to_json() == a
    assert a != generate("status", difficulty, 4, reader).to_json()


def test_exactly_one_order_fits_the_customers_words(reader, monkeypatch):
    monkeypatch.setattr(order_status, "add_typos", lambda rng, text, p: text)
    for difficulty in range(13):
        for seed in range(8):
            # The plain voice's words (a voice may say the day relative to today: the same day).
            scenario = generate("status", difficulty, seed, reader, voice="plain")
            assert fitting_orders(scenario) == [scenario.goal.order_id], scenario.opening_message
            assert not ID_IN_TEXT.search(task_words(scenario))
            assert len(scenario.orders) == 1 + difficulty // 2
            target = next(o for o in scenario.orders if o.order_id == scenario.goal.order_id)
            assert scenario.goal.status == target.status
            assert len({o.placed_on for o in scenario.orders}) == len(scenario.orders)


def test_the_axes_change_what_the_episode_looks_like(reader):
    def scenarios(difficulty: int) -> list[Scenario]:
        return [generate("status", difficulty, seed, reader) for seed in range(40)]

    low, high = scenarios(0), scenarios(12)
    assert sum(s.goal.indirect for s in low) < 15 and sum(s.goal.indirect for s in high) == len(high)
    assert all(s.goal.indirect == (s.goal.description not in s.opening_message) for s in low if s.axes.p_noise == 0)
    assert set(Counter(s.goal.status for s in low + high)) == set(order_status.STATUSES)
    assert len(high[0].orders) > len(low[0].orders)


@pytest.mark.parametrize("difficulty", [2, 6, 12])
def test_the_target_orders_position_is_no_better_than_chance(reader, difficulty):
    """No prior such as "the newest order": at every position the target appears within five
    points of 1/H (status-v1 asked about the newest order in 63% of episodes)."""
    found = [order_status.generate(difficulty, seed, reader) for seed in range(400)]
    history = found[0].axes.order_history
    positions = Counter(sorted((o.placed_on for o in s.orders), reverse=True).index(
        next(o.placed_on for o in s.orders if o.order_id == s.goal.order_id)) for s in found)
    shares = [positions[i] / len(found) for i in range(history)]
    assert all(abs(share - 1 / history) <= 0.05 for share in shares), shares
    # Nor does its status: the target is not delivered about as often as any order.
    undelivered = lambda o: o.status != "delivered"  # noqa: E731
    target_share = sum(undelivered(next(o for o in s.orders if o.order_id == s.goal.order_id)) for s in found) / 400
    all_share = sum(undelivered(o) for s in found for o in s.orders) / (400 * history)
    assert abs(target_share - all_share) <= 0.05


# --- through the real server -----------------------------------------------------------------


def evaluate(agent: str, catalog_path: Path, tmp_path: Path, difficulties: tuple[int, ...],
             episodes: int) -> list[dict]:
    return play_and_verify(agent, ("status-v8",), tuple(difficulties), episodes, 700, catalog_path, tmp_path)


def test_the_oracle_solves_every_difficulty(catalog_path, tmp_path):
    rewards = evaluate("oracle", catalog_path, tmp_path, tuple(range(13)), 26)
    assert [(r["difficulty"], r["seed"]) for r in rewards if not r["is_correct"]] == []
    assert all(r["total"] > 0.9 for r in rewards)
    assert all(row["solved_share"] == 1.0 for row in summarize(rewards))


def test_doing_nothing_solves_nothing(catalog_path, tmp_path):
    rewards = evaluate("null", catalog_path, tmp_path, (0, 4, 8, 12), 8)
    assert not any(r["is_correct"] for r in rewards)
    assert all(r["r_task"] == -1 for r in rewards)


# --- the verifier's numbers ------------------------------------------------------------------


def answer(script: Script, text: str, *, order_id: str | None = None, status: str | None = None,
           done: bool = False, reply_tag: str = "continue") -> Script:
    """Script.say with the `answer` field (the STATUS answer)."""
    script.turn += 1
    submission = {"recommended_product_ids": [], "order_id": order_id, "line_id": None, "answer": status,
                  "done": done}
    script.add("assistant_message", turn=script.turn, text=text, submission=submission)
    script.add("customer_message", turn=script.turn, text="Okay.", tag=reply_tag)
    return script.tool("respond_to_customer", {"message": text, **submission},
                       result={"customer_message": "Okay.", "status": "open", "close_reason": None,
                               "turns_used": script.turn, "turns_left": script.scenario.axes.max_turns - script.turn})


@pytest.fixture(scope="module")
def episode(reader):
    """A difficulty-4 scenario (T_max = 6) and a wrong order with another status."""
    scenario = next(s for s in (generate("status", 4, seed, reader) for seed in range(100))
                    if s.goal.indirect and any(o.status != s.goal.status for o in s.orders))
    target = next(o for o in scenario.orders if o.order_id == scenario.goal.order_id)
    wrong = next(o for o in scenario.orders if o.status != target.status)
    return scenario, target, wrong


def listed(scenario: Scenario) -> dict:
    return {"orders": [{"order_id": o.order_id, "status": o.status} for o in scenario.orders]}


@pytest.mark.parametrize("pick, said, r_task", [
    ("target", "target", 1.0),
    ("target", "In-Transit spelled as the target", 1.0),
    ("target", "wrong", 0.0),
    ("wrong", "target", 0.0),
    ("wrong", "wrong", -1.0),
    ("target", None, -1.0),  # the right order and no status commits nothing (issue 19)
    ("wrong", None, -1.0),  # a wrong order commits, even without a status
    (None, None, -1.0),
])
def test_order_and_status_each_count_half(verifier, tmp_path, catalog_path, episode, pick, said, r_task):
    scenario, target, wrong = episode
    order_id = {"target": target.order_id, "wrong": wrong.order_id, None: None}[pick]
    status = {"target": target.status, "wrong": wrong.status, None: None}.get(said)
    if said and said.startswith("In-Transit"):
        status = target.status.replace("_", "-").title()
    script = Script(scenario, "ep_test").tool("list_orders", result=listed(scenario))
    answer(script, "Here's your order.", order_id=order_id, status=status, done=True).close()
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    assert reward.verdict == "scored", reward.detail
    committed = said is not None or pick == "wrong"  # no commitment, no attempt: no hallucination credit
    r_hall = 1.0 if committed else 0.0
    assert (reward.r_task, reward.r_eff, reward.r_hall) == (r_task, 1.0, r_hall)
    assert reward.total == round(0.75 * r_task + 0.15 * 1.0 + 0.10 * r_hall, 6)
    assert reward.is_correct is (r_task == 1.0)


def test_a_wrong_answer_costs_even_when_a_right_one_follows_and_only_a_real_question_is_free(
        verifier, tmp_path, catalog_path, episode):
    scenario, target, wrong = episode
    script = Script(scenario, "ep_test").tool("list_orders", result=listed(scenario))
    answer(script, "Which order do you mean?", reply_tag="clarify")
    answer(script, "This one?", order_id=wrong.order_id, status=wrong.status, reply_tag="correct")
    answer(script, "Sorry, this one.", order_id=target.order_id, status=target.status, done=True).close()
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    # Answers: −1 then +1, so r_task = 1 − (1 − (−1)) = −1. T = 3, one free (clarify):
    # T_eff = 2, T_max = 6 -> r_eff = 1 - 2/5.
    assert (reward.r_task, reward.r_eff, reward.is_correct) == (-1.0, 0.6, False)
    assert reward.total == round(-0.75 + 0.15 * 0.6 + 0.10, 6)


def test_a_confirmation_is_a_paid_turn(verifier, tmp_path, catalog_path, episode):
    scenario, target, _ = episode
    script = Script(scenario, "ep_test").tool("list_orders", result=listed(scenario))
    answer(script, "Anything else?", reply_tag="confirm")
    answer(script, "Here it is.", order_id=target.order_id, status=target.status, done=True).close()
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    assert (reward.r_task, reward.r_eff) == (1.0, 0.6)


SAID = {"processing": "It's still being processed.", "shipped": "It has shipped.",
        "in_transit": "It's on its way with the carrier.", "cancelled": "I'm sorry, that order was cancelled.",
        "delivered": "It was delivered on {day}."}


@pytest.mark.parametrize("structured_order", [True, False])
def test_a_status_said_in_a_sentence_and_an_order_named_in_the_message_are_read(
        verifier, tmp_path, catalog_path, episode, structured_order):
    scenario, target, _ = episode
    sentence = SAID[target.status].format(day=target.delivered_on)
    script = Script(scenario, "ep_test").tool("list_orders", result=listed(scenario))
    answer(script, f"I found your order {target.order_id}. {sentence}",
           order_id=target.order_id if structured_order else None, status=sentence, done=True).close()
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    assert (reward.r_task, reward.is_correct) == (1.0, True), reward.breakdown


def test_naming_every_status_at_once_is_a_hedge_that_commits_nothing_and_scores_below_a_wrong_status(
        verifier, tmp_path, catalog_path, episode):
    scenario, target, wrong = episode
    script = Script(scenario, "ep_test").tool("list_orders", result=listed(scenario))
    answer(script, "Here it is.", order_id=target.order_id, status="processing / shipped / in transit / delivered",
           done=True).close()
    hedged = verifier.verify(write_episode(tmp_path / "hedge", scenario, script, catalog_path))
    assert (hedged.r_task, hedged.is_correct, hedged.r_hall) == (-1.0, False, 0.0)
    script = Script(scenario, "ep_test").tool("list_orders", result=listed(scenario))
    answer(script, "Here it is.", order_id=target.order_id, status=wrong.status, done=True).close()
    guessed = verifier.verify(write_episode(tmp_path / "guess", scenario, script, catalog_path))
    assert hedged.total < guessed.total


# --- the customer ----------------------------------------------------------------------------


def test_the_customer_says_which_order_when_asked_and_corrects_a_wrong_one(reader, episode):
    scenario, target, wrong = episode
    customer = SimulatedCustomer(scenario, reader.product)
    told = customer.reply("Which order do you mean?", Submission())
    assert told.tag == "clarify" and scenario.goal.description in told.text
    assert customer.reply("Anything else about it?", Submission()).tag == "confirm"
    corrected = customer.reply("It's delivered.", Submission(order_id=wrong.order_id, answer=wrong.status))
    assert corrected.tag == "correct" and not ID_IN_TEXT.search(corrected.text)
    vague = customer.reply("Found it!", Submission(order_id=target.order_id, answer="good news"))
    assert vague.tag == "continue"
    done = customer.reply("It's on its way.", Submission(order_id=target.order_id, answer=target.status))
    assert done.tag == "done" and done.ends_episode


def test_the_customer_quits_when_the_agent_ends_without_an_answer(reader, episode):
    scenario, _, _ = episode
    assert SimulatedCustomer(scenario, reader.product).reply("Bye!", Submission(done=True)).tag == "quit"
    assert SimulatedCustomer(scenario, reader.product).reply("Let me see.", Submission()).tag == "continue"


def test_plain_descriptions_name_the_day_and_the_items(reader):
    scenario = next(s for s in (generate("status", 0, seed, reader) for seed in range(50)) if not s.goal.indirect)
    target: Order = next(o for o in scenario.orders if o.order_id == scenario.goal.order_id)
    assert f"{target.placed_on:%B} {target.placed_on.day}" in scenario.goal.description
    assert scenario.goal.description in scenario.opening_message
    assert target.placed_on <= scenario.today < target.placed_on + timedelta(days=200)
