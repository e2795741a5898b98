"""Policy questions: the agent's answer against the one the policy base gives (reference §3).

    numeric      ρ = (min(|x|,|y|) / max(|x|,|y|))^4,  s = 2ρ − 1
                 x = the one number the answer states, y = the expected one
    categorical  s = +1 when the answer says the expected yes, no or option, else −1

The answer is read the way a person reads it (`verishop.scenarios.policy.read_answer`, built on
`verishop.scenarios.answers`): "No, I'm afraid not.", "thirty days", "$1,250.00", "It is refunded as
store credit." The question sets a number's unit and what a yes/no answers; figures the question
or the policy states are restatements next to another figure. An answer that states several
values (a hedge) or none scores −1. Each answer
submitted is a commitment, composed by the rule of `verishop.verifier.checks.base` (the customer takes
the first answer and leaves, so a second one only comes in a journey's later turns). Solved
when every answer scores ≥ 0.95 (numerically: within about 0.6% of the expected value).
"""

from __future__ import annotations

from verishop.scenarios.answers import AMBIGUOUS
from verishop.scenarios.models import PolicyGoal
from verishop.scenarios.policy import answer_reward, policy_figures, read_answer
from verishop.verifier.checks.base import Options, Scored, TaskScore, compose, messages
from verishop.verifier.files import Episode
from verishop.verifier.models import Check

SOLVED_AT = 0.95


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, PolicyGoal)
    given = policy_figures(ep.scenario.policy)
    scored = []
    for _, sub in messages(ep):
        if sub.answer and sub.answer.strip():
            said = read_answer(goal, sub.answer, given)
            r = answer_reward(goal, sub.answer, given)
            scored.append(Scored(r, round(r, 6) >= SOLVED_AT,
                                 {"answer": sub.answer, "read_as": "a hedge" if said is AMBIGUOUS else said}))
    expected = goal.answer if goal.answer_kind == "numeric" else [goal.answer, *goal.accepted]
    name = f"{goal.answer_kind}_answer"
    if not scored:
        return TaskScore(r_task=-1.0, is_correct=False, attempted=False,
                         checks=[Check(name=name, expected=expected, found=None, passed=False, score=-1.0)])
    r_task, is_correct, check = compose(scored, name=name)
    return TaskScore(r_task=r_task, is_correct=is_correct, checks=[check.model_copy(update={"expected": expected})])
