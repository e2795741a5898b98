"""How a policy answer is read and scored: one rule, read the same way by the simulated
customer and by the verifier (`verishop.envs.policy.customer`, `verishop.envs.policy.check`).

Unsure is not wrong. A turn commits a policy answer only when it states one definite value:
a typed value that fits the question (`Submission.answer_yes_no`, `answer_number`,
`answer_refund_method`), which is read exactly and wins over the words, else the one value the
`answer` text states (`read_answer`). A turn whose answer states nothing readable, or hedges
across several values, commits nothing: the customer asks back ("Sorry — is that a yes or a
no?"), which costs the agent a turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from verishop.scenarios.answers import (REFUND_OPTIONS, Reading, definite, figures_in, read_choice,
                                        read_number, read_yes_no, unit_of)
from verishop.scenarios.models import PolicyGoal, StorePolicy, Submission


# --- scoring an answer (the verifier's; the customer never judges a policy answer) --------


REFUND_METHODS = tuple(REFUND_OPTIONS)


def read_answer(goal: PolicyGoal, text: str | None, given: Iterable[float] = ()) -> object:
    """What the answer says, read the way a person reads it (`verishop.scenarios.answers`): a number,
    "yes"/"no", an option, None (nothing recognisable) or AMBIGUOUS (a hedge). The question decides
    the unit of a number and what a yes/no answers; its figures and `given` (e.g. `policy_figures`)
    are restatements when the answer states another figure too. Money is the shop's (`goal.currency`):
    another currency's figure is never the answer. A free answer to any other
    question is read as its words, so that reading it never tells whether it is right."""
    if goal.answer_kind == "numeric":
        return read_number(text, given=given, question=goal.question, currency=goal.currency)
    if goal.answer in ("yes", "no"):
        return read_yes_no(text, question=goal.question, currency=goal.currency)
    if goal.answer in REFUND_OPTIONS:
        return read_choice(text, REFUND_OPTIONS)
    if not text or not normalise(text):
        return None
    return goal.answer if normalise(text) in {normalise(a) for a in (goal.answer, *goal.accepted)} else normalise(text)


def policy_figures(policy: StorePolicy) -> tuple[float, ...]:
    """The figures the policy's clauses state: an answer that restates them is not hedging."""
    return figures_in(" ".join(clause.text for clause in policy.clauses), policy.currency)


def normalise(text: str) -> str:
    """Lowercase words without punctuation: "No." and "no" read the same."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def reward_of(goal: PolicyGoal, said: object) -> float:
    """Numeric: ρ = (min(|x|,|y|)/max(|x|,|y|))^4 and r = 2ρ − 1, x the one number said (none,
    or several: −1). Categorical: +1 for the expected answer, else −1."""
    if goal.answer_kind == "categorical":
        return 1.0 if said == goal.answer else -1.0
    if not isinstance(said, float):
        return -1.0
    x, y = abs(said), abs(float(goal.answer))
    rho = 1.0 if max(x, y) == 0 else (min(x, y) / max(x, y)) ** 4
    return 2 * rho - 1


def answer_reward(goal: PolicyGoal, text: str | None, given: Iterable[float] = ()) -> float:
    """`reward_of` the words of an answer."""
    return reward_of(goal, read_answer(goal, text, given))


# --- policy --------------------------------------------------------------------------------


def policy_reading(goal: PolicyGoal, sub: Submission, given: Iterable[float] = ()) -> Reading:
    """What the turn answers to the policy question: the typed value that fits the question's
    kind, else the words of `answer` (`given`: the policy's own figures, restatements and not
    hedges). A typed value of another kind answers nothing here."""
    if goal.answer_kind == "numeric":
        if sub.answer_number is not None:
            return abs(float(sub.answer_number))
    elif goal.answer in ("yes", "no"):
        if sub.answer_yes_no is not None:
            return "yes" if sub.answer_yes_no else "no"
    elif goal.answer in REFUND_METHODS:
        if sub.answer_refund_method is not None:
            return sub.answer_refund_method
    return read_answer(goal, sub.answer, given)


def policy_commitment(goal: PolicyGoal, sub: Submission, given: Iterable[float] = ()) -> Reading:
    """The definite answer the turn commits, or None when it commits none."""
    said = policy_reading(goal, sub, given)
    return said if definite(said) else None


def policy_ask_back(goal: PolicyGoal, hedged: bool) -> str:
    """What a person says to an answer they could not pin down."""
    sorry = "Sorry, you've lost me there." if hedged else "Sorry, I didn't quite catch that."
    question = goal.question.lower()
    if goal.answer_kind == "categorical":
        if goal.answer in REFUND_METHODS:
            return f"{sorry} So how will I get my money back?"
        return "Sorry — is that a yes or a no?"
    if "percent" in question:
        return f"{sorry} So what percentage is it?"
    if "how much" in question or "$" in question or "dollars" in question or \
            unit_of(question, goal.currency) == "money":
        return f"{sorry} So how much is it, exactly?"
    if "days" in question:
        return f"{sorry} So how many days is it?"
    return f"{sorry} So what's the number?"
