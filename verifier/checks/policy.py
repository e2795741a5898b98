"""Policy questions: the agent's answer against the one the policy base gives (reference §3).

    numeric      ρ = (min(|x|,|y|) / max(|x|,|y|))^4,  r_task = 2ρ − 1
                 x = the first number in the submitted `answer` (none: −1), y = the expected one
    categorical  r_task = +1 for the expected answer or an accepted synonym, compared after
                 lowercasing and dropping punctuation; else −1

The answer scored is the last non-empty `answer` submitted (none at all: −1). Solved when
r_task ≥ 0.95 (numerically: within about 0.6% of the expected value).
"""

from __future__ import annotations

from scenarios.models import PolicyGoal
from scenarios.policy import answer_reward, first_number
from verifier.checks.base import Options, TaskScore
from verifier.files import Episode
from verifier.models import Check

SOLVED_AT = 0.95


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, PolicyGoal)
    answer = next((s.answer for s in reversed(ep.transcript.submissions) if s.answer and s.answer.strip()), None)
    r_task = answer_reward(goal, answer)
    found: dict[str, object] = {"answer": answer}
    if goal.answer_kind == "numeric" and answer is not None:
        found["number"] = first_number(answer)
    expected = goal.answer if goal.answer_kind == "numeric" else [goal.answer, *goal.accepted]
    check = Check(name=f"{goal.answer_kind}_answer", expected=expected, found=found,
                  passed=round(r_task, 6) >= SOLVED_AT, score=round(r_task, 6))
    return TaskScore(r_task=r_task, is_correct=round(r_task, 6) >= SOLVED_AT, checks=[check], needs_ids=False)
