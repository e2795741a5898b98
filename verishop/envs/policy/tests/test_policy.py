"""POLICY (policy-v7): a question whose answer depends on 1 + ⌊d/3⌋ policy clauses, computed by
the rules the clauses state; one policy search surfaces every clause needed; the oracle solves
every difficulty through the real server, doing nothing solves none, greedy lands in between;
numeric answers score (min/max)^4, categorical ones exactly; the customer adds held-back
details when asked."""

from __future__ import annotations

import random
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from test_verifier import Script, write_episode

from verishop.agents.evaluate import summarize
from verishop.envs.policy.oracle import policy_query
from support import play_and_verify
from verishop.envs.policy import customer as policy_customer
from verishop.scenarios.customers import CustomerState, SimulatedCustomer, WorldView
from verishop.envs.policy.customer import situation_topics
from verishop.scenarios.customers.topics import question_about
from verishop.scenarios.envs import generate
from verishop.envs.policy import generator as policy_env
from verishop.envs.policy.generator import ELECTRONICS, NON_ELECTRONICS, window_question
from verishop.scenarios.shared_world import SharedWorld
from verishop.scenarios.models import PolicyGoal, Scenario, Submission
from verishop.scenarios.policy import extend_policy, make_policy, rank_clauses, return_window, shipping_cents
from verishop.scenarios.taxonomy import category

# --- generation ----------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", [0, 6, 12])
def test_same_inputs_give_byte_identical_scenarios(reader, difficulty):
    a = generate("policy-v7", difficulty, 5, reader).to_json()
    assert a == generate("policy", difficulty, 5, reader).to_json()
    assert Scenario.model_validate_json(a).to_json() == a
    assert generate("policy", difficulty, 6, reader).to_json() != a


def test_the_answer_depends_on_as_many_clauses_as_the_axis_says_and_one_search_finds_them(reader):
    for difficulty in range(13):
        for seed in range(25):
            scenario = generate("policy", difficulty, seed, reader)
            goal = scenario.goal
            assert len(goal.clause_ids) == len(set(goal.clause_ids)) == min(5, 1 + difficulty // 3)
            found = [c.policy_id for c in rank_clauses(scenario.policy.clauses, policy_query(goal))]
            assert set(goal.clause_ids) <= set(found[:10]), (difficulty, seed, goal.question)
            if difficulty == 0:
                assert set(goal.clause_ids) <= set(found[:3])  # the tool's default limit


def test_the_opening_holds_back_details_more_often_at_high_difficulty(reader):
    def held_back(d: int) -> tuple[int, int]:
        goals = [generate("policy", d, seed, reader).goal for seed in range(40)]
        return sum(len(g.unstated) for g in goals), sum(len(g.clause_ids) - 1 for g in goals)

    low, high = held_back(3), held_back(12)
    assert low[0] / low[1] < 0.5 < high[0] / high[1]
    for seed in range(20):
        scenario = generate("policy", 12, seed, reader)
        assert all(detail not in scenario.opening_message for detail in scenario.goal.unstated)


def test_typo_noise_blurs_the_question_only_at_high_difficulty(reader):
    def clean(d: int) -> int:
        scenarios = [generate("policy", d, seed, reader) for seed in range(30)]
        return sum(s.goal.question.split(". ")[-1] in s.opening_message for s in scenarios)

    assert clean(0) == 30 and clean(12) < 25


def test_dates_are_asked_only_when_two_lookups_fit_in_a_turn(reader):
    def dated(d: int) -> int:
        return sum("left to return" in g.question or "still return" in g.question
                   for g in (generate("policy", d, seed, reader).goal for seed in range(60)))

    assert dated(0) == dated(1) == 0 and dated(2) > 0 and dated(9) > 0


def test_a_base_policy_without_conditional_clauses_still_gives_one_clause_questions(reader):
    base = generate("pd", 0, 1, reader)
    shared = SharedWorld(today=base.today, customer=base.customer, policy=base.policy)
    scenario = policy_env.generate(12, 1, reader, shared)
    assert scenario.policy == base.policy and len(scenario.goal.clause_ids) == 1


# --- the rules the clauses state -------------------------------------------------------------


@pytest.fixture
def policy():
    return extend_policy(random.Random(7), make_policy(random.Random(7)))


def test_return_windows_add_every_extension_the_clauses_give(policy):
    rules = policy.rules
    base, electronics = policy.return_window_days, policy.electronics_return_window_days
    assert return_window(policy, "blenders") == base and return_window(policy, "chargers") == electronics
    assert return_window(policy, "jeans", tier="Plus", gift=True) == base + rules.plus_extension_days + \
        rules.gift_extension_days
    assert return_window(policy, "headphones", tier="Premier", holiday=True, gift=True, defective=True) == \
        electronics + rules.premier_extension_days + rules.holiday_extension_days + rules.gift_extension_days + \
        rules.defect_extension_days
    assert return_window(policy, "socks") is None
    assert return_window(policy, "socks", defective=True) == rules.defect_extension_days
    text = " ".join(c.text for c in policy.clauses)
    for number in (rules.plus_extension_days, rules.premier_extension_days, rules.holiday_extension_days,
                   rules.gift_extension_days, rules.defect_extension_days, rules.price_adjustment_days):
        assert f" {number} " in text  # every number an answer uses is written in a clause


def test_shipping_follows_thresholds_tiers_and_the_oversize_surcharge(policy):
    rules = policy.rules
    standard, threshold = policy.standard_shipping_cents, policy.free_shipping_threshold_cents
    assert shipping_cents(policy, threshold - 1) == standard and shipping_cents(policy, threshold) == 0
    assert shipping_cents(policy, rules.plus_free_shipping_cents, tier="Plus") == 0
    assert shipping_cents(policy, rules.plus_free_shipping_cents - 1, tier="Plus") == standard
    assert shipping_cents(policy, 100, tier="Premier", oversize_items=1) == rules.oversize_surcharge_cents
    assert shipping_cents(policy, 100, oversize_items=1) == standard + rules.oversize_surcharge_cents


def test_days_left_count_from_the_delivery_date(policy):
    today = date(2026, 1, 20)
    questions = [window_question(random.Random(seed), policy, today, True, 1) for seed in range(60)]
    left = [q for q in questions if "left to return" in q.ask]
    assert left
    for q in left:
        said = " ".join(q.details)
        delivered = datetime.strptime(said.split("Delivery was on ")[1].rstrip("."), "%B %d, %Y").date()
        category_id = next(c for c in ELECTRONICS + NON_ELECTRONICS
                           if any(f"the {n.lower()}?" in q.ask.lower() for n in category(c).nouns))
        tier = next((t for t in ("Plus", "Premier") if f"Verishop {t} member" in said), None)
        window = return_window(policy, category_id, tier=tier, gift="as a gift" in said,
                               defective="arrived defective" in said,
                               holiday=date(delivered.year, 11, 1) <= delivered <= date(delivered.year, 12, 24))
        assert int(q.answer) == window - (today - delivered).days >= 1


# --- the verifier's numbers ------------------------------------------------------------------


def answer(script: Script, text: str, said: str | None, *, done: bool = False, reply_tag: str = "continue") -> Script:
    script.turn += 1
    submission = {"recommended_product_ids": [], "order_id": None, "line_id": None, "answer": said, "done": done}
    script.add("assistant_message", turn=script.turn, text=text, submission=submission)
    script.add("customer_message", turn=script.turn, text="Okay.", tag=reply_tag)
    return script.tool("respond_to_customer", {"message": text, **submission},
                       result={"customer_message": "Okay.", "status": "open", "close_reason": None,
                               "turns_used": script.turn, "turns_left": script.scenario.axes.max_turns - script.turn})


def with_goal(scenario: Scenario, **fields: Any) -> Scenario:
    goal = PolicyGoal(question="How many days?", answer_kind="numeric", answer="45", clause_ids=("POL-RETURNS",))
    return scenario.model_copy(update={"goal": goal.model_copy(update=fields)})


@pytest.fixture(scope="module")
def scenario(reader):
    """A difficulty-3 scenario: T_max = 5, two lookups a turn."""
    return generate("policy", 3, 0, reader)


@pytest.mark.parametrize("said, r_task", [
    ("45", 1.0),
    ("You have 45 days from delivery.", 1.0),
    ("$45.00", 1.0),
    ("44 days", 2 * (44 / 45) ** 4 - 1),
    ("90", 2 * (45 / 90) ** 4 - 1),
    ("-45", 1.0),  # the sign is not read: |x|
    ("forty-five days", 1.0),
    ("about a month and a half", 1.0),  # 45 days, read in the question's unit
    ("a month", 2 * (30 / 45) ** 4 - 1),
    ("30 or 45 days", -1.0),  # a hedge
    ("30, 45, 60, 90", -1.0),
    (None, -1.0),
])
def test_numeric_answers_score_the_fourth_power_of_the_ratio(verifier, tmp_path, catalog_path, scenario, said,
                                                             r_task):
    numeric = with_goal(scenario)
    script = answer(Script(numeric, "ep_test").tool("search_policies", {"query": "return"}, result={"results": []}),
                    "Here you go.", said, done=True).close()
    reward = verifier.verify(write_episode(tmp_path, numeric, script, catalog_path))
    assert reward.verdict == "scored", reward.detail
    # No definite answer (nothing, or a hedge) is no attempt: no hallucination credit.
    r_hall = 0.0 if said in (None, "30 or 45 days", "30, 45, 60, 90") else 1.0
    assert (reward.r_task, reward.r_eff, reward.r_hall) == (round(r_task, 6), 1.0, r_hall)
    assert reward.total == round(0.75 * r_task + 0.15 + 0.10 * r_hall, 6)
    assert reward.is_correct is (r_task >= 0.95)


@pytest.mark.parametrize("said, r_task", [("No.", 1.0), ("  NO  ", 1.0), ("Nope!", 1.0), ("no, you can't", 1.0),
                                          ("No, socks are final sale.", 1.0), ("No, I'm afraid not.", 1.0),
                                          ("I'm afraid you can't.", 1.0), ("Yes", -1.0), ("Yes or no", -1.0),
                                          ("yes / no", -1.0), ("", -1.0)])
def test_categorical_answers_are_read_as_a_person_reads_them(verifier, tmp_path, catalog_path, scenario, said, r_task):
    categorical = with_goal(scenario, answer_kind="categorical", answer="no", accepted=("nope", "no you can't"))
    script = answer(Script(categorical, "ep_test"), "Here you go.", said, done=True).close()
    reward = verifier.verify(write_episode(tmp_path, categorical, script, catalog_path))
    assert (reward.r_task, reward.is_correct) == (r_task, r_task == 1.0)


def test_a_wrong_answer_costs_even_when_a_right_one_follows(verifier, tmp_path, catalog_path, scenario):
    numeric = with_goal(scenario)
    script = Script(numeric, "ep_test")
    answer(script, "Are you a member?", None, reply_tag="clarify")
    answer(script, "Then 30 days.", "30", reply_tag="continue")
    answer(script, "Sorry: 45 days.", "45", done=True).close()
    reward = verifier.verify(write_episode(tmp_path, numeric, script, catalog_path))
    # T = 3, one free (clarify): T_eff = 2, T_max = 5 -> r_eff = 1 - 2/4.
    s_30 = 2 * (30 / 45) ** 4 - 1
    assert (reward.r_task, reward.r_eff, reward.r_hall, reward.is_correct) == (round(s_30, 6), 0.5,
                                                                               1.0, False)


def test_an_invented_product_id_still_counts_as_a_hallucination(verifier, tmp_path, catalog_path, scenario):
    numeric = with_goal(scenario)
    script = answer(Script(numeric, "ep_test"), "See P12345678 for details: 45 days.", "45", done=True).close()
    reward = verifier.verify(write_episode(tmp_path, numeric, script, catalog_path))
    assert (reward.r_task, reward.r_hall) == (1.0, -1.0)


# --- the customer ----------------------------------------------------------------------------


def _customer(scenario: Scenario):
    """The behaviour itself, without the typo noise SimulatedCustomer adds at high difficulty."""
    state = CustomerState(scenario, lambda pid: None, random.Random(0))

    def say(message: str, sub: Submission | None = None):
        return policy_customer.reply(state, scenario.goal, message, sub or Submission(), WorldView())

    return say


def test_the_customer_adds_held_back_details_one_question_at_a_time(reader):
    """Asked about a detail's topic, the customer tells it (free); an open question tells the
    next one, paid (issue 28)."""
    scenario = next(s for s in (generate("policy", 12, seed, reader) for seed in range(40)) if len(s.goal.unstated) >= 2)
    say = _customer(scenario)
    assert say("Let me check.").tag == "continue"
    turns = [say(question_about(situation_topics(d))) for d in scenario.goal.unstated]
    assert [t.tag for t in turns] == ["clarify"] * len(turns)
    assert all(detail in t.text for detail, t in zip(scenario.goal.unstated, turns))
    assert say("Anything else?").tag == "confirm"
    say = _customer(scenario)
    turns = [say("Anything else I should know?") for _ in scenario.goal.unstated]
    assert [t.tag for t in turns] == ["continue"] * len(turns)
    assert all(detail in t.text for detail, t in zip(scenario.goal.unstated, turns))
    assert say("Anything else?").tag == "confirm"
    assert say("Here it is.", Submission(answer=scenario.goal.answer)).tag == "done"


def test_the_customer_cannot_judge_an_answer_so_it_takes_the_first_one_and_leaves(reader):
    scenario = next(s for s in (generate("policy", 12, seed, reader) for seed in range(40))
                    if s.goal.answer_kind == "numeric" and s.goal.unstated)
    wrong = Submission(answer=str(int(float(scenario.goal.answer)) * 2))
    right = Submission(answer=scenario.goal.answer)
    assert _customer(scenario)("The answer is this.", wrong) == _customer(scenario)("The answer is this.", right)
    assert _customer(scenario)("The answer is this.", wrong).tag == "done"
    assert _customer(scenario)("Bye.", Submission(done=True)).tag == "quit"


def test_the_simulated_customer_closes_on_a_right_answer(reader):
    scenario = generate("policy", 0, 3, reader)
    customer = SimulatedCustomer(scenario, reader.product)
    assert customer.reply("Here you go.", Submission(answer=scenario.goal.answer)).tag == "done"


# --- through the real server -----------------------------------------------------------------


def evaluate(agent: str, catalog_path: Path, tmp_path: Path, difficulties: tuple[int, ...], episodes: int) -> list[dict]:
    return play_and_verify(agent, ("policy-v7",), tuple(difficulties), episodes, 500, catalog_path, tmp_path)


def test_the_oracle_solves_every_difficulty(catalog_path, tmp_path):
    rewards = evaluate("oracle", catalog_path, tmp_path, tuple(range(13)), 39)
    assert [(r["difficulty"], r["seed"]) for r in rewards if not r["is_correct"]] == []
    assert all(r["total"] == 1.0 and r["calls_over_budget"] == 0 for r in rewards)
    assert all(row["solved_share"] == 1.0 for row in summarize(rewards))


def test_doing_nothing_solves_nothing_and_greedy_lands_between(catalog_path, tmp_path):
    null = evaluate("null", catalog_path, tmp_path, (0, 4, 8, 12), 8)
    assert not any(r["is_correct"] for r in null) and all(r["r_task"] == -1 for r in null)
    greedy = evaluate("greedy", catalog_path, tmp_path, (0, 1, 2, 10, 11, 12), 48)
    solved = {d: sum(r["is_correct"] for r in greedy if r["difficulty"] == d) for d in (0, 1, 2, 10, 11, 12)}
    assert 0 < sum(solved.values()) < len(greedy)
    assert solved[10] + solved[11] + solved[12] < solved[0] + solved[1] + solved[2]
    assert max(r["total"] for r in null) < sum(r["total"] for r in greedy) / len(greedy) < 0.9
