"""Returns: the right line selected, returned, and (if asked for) a fitting replacement.

    r_select      = +1 if the agent's final selection is the target (order ID and line ID), else −1
    r_return      = +1 if world.db holds a return for the target line and for no other line, else −1
    r_replacement = +1 if no replacement was asked for; else +1 if a product of the last
                    recommendation is in stock in the episode and meets every replacement
                    constraint, else −1
    r_task        = 0.45·r_select + 0.45·r_return + 0.10·r_replacement,  solved when all three are +1

The final selection is the last submission that names an order or a line. Returning a wrong
line costs r_return even when the right one is returned too. Returns are read from world.db,
never from what a tool reported.
"""

from __future__ import annotations

from scenarios.constraints import describe, satisfies
from scenarios.models import ReturnGoal
from verifier.checks.base import Options, TaskScore, final_recommendations
from verifier.files import Episode
from verifier.models import Check

W_SELECT, W_RETURN, W_REPLACEMENT = 0.45, 0.45, 0.10


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, ReturnGoal)
    target = {"order_id": goal.order_id, "line_id": goal.line_id}
    chosen = next(({"order_id": (s.order_id or "").strip(), "line_id": (s.line_id or "").strip()}
                   for s in reversed(ep.transcript.submissions) if s.order_id or s.line_id), None)
    r_select = 1.0 if chosen == target else -1.0
    returned = [{"order_id": o, "line_id": line} for o, line in ep.world.returns]
    r_return = 1.0 if returned == [target] else -1.0
    checks = [
        Check(name="selected_line", expected=target, found=chosen, passed=r_select > 0, score=r_select),
        Check(name="returned_lines", expected=[target], found=returned, passed=r_return > 0, score=r_return),
        _replacement(ep, goal),
    ]
    r_replacement = checks[-1].score or 0.0
    r_task = W_SELECT * r_select + W_RETURN * r_return + W_REPLACEMENT * r_replacement
    return TaskScore(r_task=r_task, is_correct=all(c.passed for c in checks), checks=checks)


def _replacement(ep: Episode, goal: ReturnGoal) -> Check:
    if goal.replacement is None:
        return Check(name="replacement", expected=None, found=None, passed=True, score=1.0)
    expected = [describe(c) for c in goal.replacement]
    found = []
    for pid in final_recommendations(ep, None, []):
        p = ep.shop.product(pid)
        missed = [] if p is None else [describe(c) for c in goal.replacement if not satisfies(p, c)]
        found.append({"product_id": pid, "exists": p is not None, "in_stock": p is not None and p.stock > 0,
                      "constraints_missed": missed})
    passed = any(f["exists"] and f["in_stock"] and not f["constraints_missed"] for f in found)
    return Check(name="replacement", expected=expected, found=found, passed=passed, score=1.0 if passed else -1.0)
