"""Policy questions: the agent's answer against the one the policy base gives (reference §3).

    numeric      ρ = (min(|x|,|y|) / max(|x|,|y|))^4,  s = 2ρ − 1
                 x = the one number the answer states, y = the expected one
    categorical  s = +1 when the answer says the expected yes, no or option, else −1

A typed value that fits the question (`answer_yes_no`, `answer_number`, `answer_refund_method`)
is read exactly and wins over the words; else the answer is read the way a person reads it
(`verishop.envs.policy.answers.read_answer`, built on `verishop.scenarios.answers`): "No, I'm afraid
not.", "thirty days", "$1,250.00", "It is refunded as store credit." The question sets a
number's unit and what a yes/no answers; figures the question or the policy states are
restatements next to another figure. An answer that states several values (a hedge) or none
commits nothing: the customer asks back (a paid turn), and an episode with no definite answer
scores −1 with no hallucination credit, below any plain guess
(`verishop.envs.policy.answers`). Each definite answer is a commitment, composed by the rule
of `verishop.verifier.checks.base` (the customer takes
the first answer and leaves, so a second one only comes in a journey's later turns). Solved
when every answer scores ≥ 0.95 (numerically: within about 0.6% of the expected value).
"""

from __future__ import annotations

from verishop.envs.policy.answers import policy_commitment
from verishop.scenarios.models import PolicyGoal
from verishop.envs.policy.answers import policy_figures, reward_of
from verishop.verifier.requirements import Requirement, hidden_or_stated, shop
from verishop.verifier.checks.base import Options, Scored, TaskScore, compose, messages
from verishop.verifier.files import Episode
from verishop.verifier.models import Check

SOLVED_AT = 0.95


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, PolicyGoal)
    given = policy_figures(ep.scenario.policy)  # restated, not hedged
    scored = []
    for _, sub in messages(ep):
        said = policy_commitment(goal, sub, given)
        if said is not None:
            r = reward_of(goal, said)
            typed = [v for v in (sub.answer_yes_no, sub.answer_number, sub.answer_refund_method) if v is not None]
            scored.append(Scored(r, round(r, 6) >= SOLVED_AT,
                                 {"answer": sub.answer, "typed": typed or None, "read_as": said}))
    expected = goal.answer if goal.answer_kind == "numeric" else [goal.answer, *goal.accepted]
    name = f"{goal.answer_kind}_answer"
    if not scored:
        return TaskScore(r_task=-1.0, is_correct=False, attempted=False,
                         checks=[Check(name=name, expected=expected, found=None, passed=False, score=-1.0)])
    r_task, is_correct, check = compose(scored, name=name)
    return TaskScore(r_task=r_task, is_correct=is_correct, checks=[check.model_copy(update={"expected": expected})])


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def charges(ep: Episode, goal: PolicyGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if check.found is None:
        return [Requirement("an answer to the question", "stated")]
    # An answer given before every detail was told is charged to the details never asked for.
    untold = [hidden_or_stated(ep, detail, False) for detail in goal.unstated]
    withheld = [r for r in untold if r.source == "withheld"]
    return withheld or [shop(f"the policy's answer: {goal.answer}")]


def contradiction(ep: Episode, goal: PolicyGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    clauses = {c.policy_id for c in ep.scenario.policy.clauses}
    if not set(goal.clause_ids) <= clauses:
        return f"the policy lacks the clauses {sorted(set(goal.clause_ids) - clauses)} the answer rests on"
    return None
