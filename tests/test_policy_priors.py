"""No constant answers (issue 19, point 5): every policy question family has at least two
answers across seeds, and a family with two (yes/no, a refund method) has each within ±5
points of even, so that no answer can be guessed from the question alone. The questions are
drawn by the generator's own families on policies drawn by `make_policy` and `extend_policy`.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from datetime import date, timedelta

import pytest

from verishop.scenarios.envs import generate
from verishop.envs.policy.generator import MAX_BRANCHES, families
from verishop.scenarios.policy import extend_policy, make_policy

SEEDS = 2500


def _form(ask: str) -> str:
    """The question's form: its first words, amounts left out ("Will a # purchase")."""
    return re.sub(r"\$?\d[\d.,]*", "#", " ".join(ask.split()[:4]))


@pytest.fixture(scope="module")
def answers() -> dict[tuple[str, str, str], Counter]:
    found: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    for seed in range(SEEDS):
        rng = random.Random(seed)
        policy = extend_policy(rng, make_policy(rng))
        today = date(2026, 1, 1) + timedelta(days=rng.randrange(365))
        for branches in range(1, MAX_BRANCHES + 1):
            for family in families(branches, policy):
                q = family(rng, policy, today, rng.random() < 0.5)
                name = "window_question" if family.__name__ == "<lambda>" else family.__name__
                found[(name, q.kind, _form(q.ask))][q.answer] += 1
    return found


def test_every_question_family_has_at_least_two_answers(answers):
    constant = {key: dict(c) for key, c in answers.items() if len(c) < 2}
    assert not constant, constant
    assert ("gift_refund_question", "categorical", "How is a gift") in answers
    assert ("restocking_question", "categorical", "Is there a restocking") in answers


def test_a_family_with_two_answers_has_each_within_five_points_of_even(answers):
    uneven = {}
    for key, counts in answers.items():
        if len(counts) == 2:
            share = max(counts.values()) / sum(counts.values())
            if abs(share - 0.5) > 0.05:
                uneven[key] = dict(counts)
    assert not uneven, uneven
    assert sum(len(c) == 2 for c in answers.values()) >= 7  # the yes/no, refund-method and fee families


def test_the_policy_text_states_the_drawn_gift_refund_and_refund_delay():
    seen = set()
    for seed in range(60):
        rng = random.Random(seed)
        policy = extend_policy(rng, make_policy(rng))
        text = {c.policy_id: c.text for c in policy.clauses}
        assert f"within {policy.rules.refund_business_days} business days" in text["POL-REFUND"]
        gift = text["POL-GIFTS"]
        stated = "as store credit instead" in gift
        assert stated is (policy.rules.gift_refund_method == "store credit"), gift
        seen.add((policy.rules.gift_refund_method, policy.rules.refund_business_days))
    assert len({m for m, _ in seen}) == 2 and len({d for _, d in seen}) >= 3


def test_generated_gift_refund_questions_answer_both_ways(reader):
    methods = Counter()
    for seed in range(300):
        scenario = generate("policy", 1, seed, reader)
        if scenario.goal.question.endswith("or as store credit?"):
            methods[scenario.goal.answer] += 1
    assert set(methods) == {"store credit", "original payment method"}, methods
