"""Product discovery: feasible goals with hidden IDs, and a customer who states or tells its
requirements and its priority, accepts a fitting product and corrects a wrong one."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from verishop.envs.pd.generator import PRIORITY_WORDS
from verishop.scenarios.constraints import satisfies
from verishop.scenarios.customers import SimulatedCustomer
from verishop.scenarios.customers.topics import constraint_topics, question_about
from verishop.scenarios.envs import generate
from verishop.scenarios.models import Submission


@settings(max_examples=30, deadline=None)
@given(difficulty=st.integers(0, 12), seed=st.integers(0, 10**6))
def test_product_discovery_goals_are_feasible_and_ids_stay_hidden(reader, difficulty, seed):
    scenario = generate("pd", difficulty, seed, reader)
    goal = scenario.goal
    anchor = reader.product(goal.anchor_product_id)
    assert anchor is not None and anchor.stock > 0
    assert all(satisfies(anchor, c) for c in goal.constraints)
    assert len(goal.constraints) <= scenario.axes.constraints
    assert goal.constraints[0].kind == "category" and goal.constraints[0].stated
    assert not re.search(r"\bP\d{8}\b", scenario.opening_message)
    assert goal.anchor_product_id not in scenario.opening_message
    assert scenario.today.year == 2026
    assert all(c.product_id != goal.anchor_product_id for c in scenario.stock_changes)


def test_customer_reveals_unstated_requirements_only_when_asked(reader):
    """A precise question tells its requirement, free (clarify); an open one tells one thing it
    held back, as a person would, but is paid (continue) (issue 28)."""
    scenario = next(s for s in (generate("pd", 9, seed, reader, voice="plain") for seed in range(50))
                    if any(not c.stated for c in s.goal.constraints))
    customer = SimulatedCustomer(scenario, reader.product)
    unstated = [c for c in scenario.goal.constraints if not c.stated]
    assert customer.reply("Here you go.", Submission()).tag == "continue"
    answers = [customer.reply(question_about(constraint_topics(c.kind, c.attribute)), Submission()) for c in unstated]
    assert [a.tag for a in answers] == ["clarify"] * len(unstated)
    assert all(a.text.startswith("Good question.") for a in answers)  # the requirement itself may carry typos
    again = generate("pd", 9, scenario.seed, reader, voice="plain")
    customer = SimulatedCustomer(again, reader.product)
    opened = [customer.reply("Anything else?", Submission()) for _ in unstated]
    assert [a.tag for a in opened] == ["continue"] * len(unstated)
    if not scenario.goal.persona.priority_stated:  # what matters most comes last
        assert PRIORITY_WORDS[scenario.goal.persona.priority] in customer.reply("Anything else?", Submission()).text
    assert customer.reply("Anything else?", Submission()).tag == "confirm"


def test_customer_states_its_priority_or_tells_it_when_asked(reader):
    """pd-v3: what matters most is a slot like the constraints: said in the opening, or omitted
    (more often as d rises) and then told first when the question is about what matters."""
    scenarios = [generate("pd", d, seed, reader) for d in (0, 12) for seed in range(30)]
    stated = {d: sum(s.goal.persona.priority_stated for s in scenarios if s.difficulty == d) for d in (0, 12)}
    assert stated[0] > stated[12]
    for s in scenarios:
        said = PRIORITY_WORDS[s.goal.persona.priority] in s.opening_message
        assert said == s.goal.persona.priority_stated if s.difficulty == 0 else not said or s.goal.persona.priority_stated
    # The dimension the customer names carries the most weight (almost always: it is a draw).
    heaviest = sum(max(s.goal.persona.weights, key=s.goal.persona.weights.get) == s.goal.persona.priority
                   for s in scenarios)
    assert heaviest >= 0.95 * len(scenarios)
    hidden = next(s for s in scenarios if not s.goal.persona.priority_stated
                  and any(not c.stated for c in s.goal.constraints))
    hidden = hidden.model_copy(update={"axes": hidden.axes.model_copy(update={"p_noise": 0.0})})  # words, not typos
    customer = SimulatedCustomer(hidden, reader.product)
    answer = customer.reply("What matters most to you: price, reviews or delivery time?", Submission())
    assert answer.tag == "clarify" and PRIORITY_WORDS[hidden.goal.persona.priority] in answer.text
    follow_up = customer.reply("Anything else I should know?", Submission())  # an open question: paid
    left = [c for c in hidden.goal.constraints if not c.stated and c.kind not in ("price_max", "rating_min",
                                                                                  "ship_days_max")]
    assert follow_up.tag == ("continue" if left else "confirm") and ("It should be" in follow_up.text) == bool(left)


def test_customer_accepts_a_fitting_product_and_corrects_a_wrong_one(reader):
    scenario = generate("pd", 3, 7, reader)
    goal = scenario.goal
    wrong = next(p for p in (reader.product_at(i) for i in range(500))
                 if p.category_id != goal.category_id)
    customer = SimulatedCustomer(scenario, reader.product)
    assert customer.reply("How about this?", Submission(recommended_product_ids=(wrong.product_id,))).tag == "correct"
    assert customer.reply("Or this?", Submission(recommended_product_ids=("P00000000",))).tag == "correct"
    done = customer.reply("This one?", Submission(recommended_product_ids=(goal.anchor_product_id,)))
    assert done.tag == "done" and done.ends_episode
