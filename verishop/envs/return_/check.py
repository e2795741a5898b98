"""Returns: the right line selected, returned, and (if asked for) a fitting replacement.

    r_select      the selections committed, each +1 when it names the target line (the line ID
                  submitted, and the order ID too if one is), else −1, composed by
                  the commitment rule (`verishop.verifier.checks.base`). An agent that named nothing
                  selected what it returned: the returns started, read from world.db, are its
                  selections (no ID needs restating after the action).
    r_return      +1 if world.db holds a return for the target line and for no other line, and
                  every selection committed was right, else −1 (a return the customer steered the
                  agent to, after a wrong line was named, is not the agent's own)
    r_replacement +1 if no replacement was asked for; else each list of replacements offered is
                  +1 when a tool showed every product in it and each is in stock and meets every
                  replacement constraint (every offer must fit), else −1, composed by the
                  commitment rule
    r_task        = 0.45·r_select + 0.45·r_return + 0.10·r_replacement,  solved when all three pass

Returning a wrong line costs r_return even when the right one is returned too.
"""

from __future__ import annotations

from verishop.scenarios.constraints import describe, satisfies
from verishop.scenarios.models import ReturnGoal
from verishop.verifier.charges import product_misses, shown_flag
from verishop.verifier.requirements import Requirement, hidden_or_stated, told
from verishop.verifier.checks.base import Options, Scored, TaskScore, compose, messages, recommendation_lists, seen_products
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check

W_SELECT, W_RETURN, W_REPLACEMENT = 0.45, 0.45, 0.10


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, ReturnGoal)
    target = {"order_id": goal.order_id, "line_id": goal.line_id}
    returned = [{"order_id": o, "line_id": line} for o, line in ep.world.returns]
    r_select, select_ok, selected = _selection(ep, goal, returned)
    r_return = 1.0 if returned == [target] and select_ok else -1.0
    r_replacement, replacement_ok, replacement = _replacement(ep, goal)
    checks = [selected,
              Check(name="returned_lines", expected=[target], found=returned, passed=r_return > 0, score=r_return),
              replacement]
    r_task = W_SELECT * r_select + W_RETURN * r_return + W_REPLACEMENT * r_replacement
    attempted = bool(returned) or any(s.order_id or s.line_id or s.recommended_product_ids for _, s in messages(ep))
    return TaskScore(r_task=r_task, is_correct=select_ok and r_return > 0 and replacement_ok, checks=checks,
                     attempted=attempted)


def _selection(ep: Episode, goal: ReturnGoal, returned: list[dict[str, str]]) -> tuple[float, bool, Check]:
    named = [{"order_id": (s.order_id or "").strip() or None, "line_id": (s.line_id or "").strip() or None}
             for _, s in messages(ep) if (s.order_id or "").strip() or (s.line_id or "").strip()]
    selections = named or returned
    if not selections:
        return -1.0, False, Check(name="selected_line", expected={"order_id": goal.order_id, "line_id": goal.line_id},
                                  found=None, passed=False, score=-1.0)
    scored = [Scored(1.0 if _names_target(s, goal) else -1.0, _names_target(s, goal), s) for s in selections]
    r_select, ok, check = compose(scored, name="selected_line")
    return r_select, ok, check.model_copy(update={"expected": {"order_id": goal.order_id, "line_id": goal.line_id}})


def _names_target(selection: dict[str, str | None], goal: ReturnGoal) -> bool:
    return selection["order_id"] in (None, goal.order_id) and selection["line_id"] == goal.line_id


def _replacement(ep: Episode, goal: ReturnGoal) -> tuple[float, bool, Check]:
    if goal.replacement is None:
        return 1.0, True, Check(name="replacement", expected=None, found=None, passed=True, score=1.0)
    expected = [describe(c) for c in goal.replacement]
    lists = recommendation_lists(ep, None, [])
    if not lists:
        return -1.0, False, Check(name="replacement", expected=expected, found=[], passed=False, score=-1.0)
    seen = exposure(ep.transcript)
    scored = []
    for seq, ids, _ in lists:
        found = []
        for pid, p in zip(ids, seen_products(ep, ids, seq, seen)):
            missed = [] if p is None else [describe(c) for c in goal.replacement if not satisfies(p, c)]
            found.append({"product_id": pid, "exists_and_shown": p is not None,
                          "in_stock": p is not None and p.stock > 0, "constraints_missed": missed})
        fits = all(f["exists_and_shown"] and f["in_stock"] and not f["constraints_missed"] for f in found)
        scored.append(Scored(1.0 if fits else -1.0, fits, found))
    r, ok, check = compose(scored, name="replacement")
    return r, ok, check.model_copy(update={"expected": expected})


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def _the_line(ep: Episode, goal: ReturnGoal) -> Requirement:
    words = f"return {goal.description}"
    if not goal.details:
        return Requirement(words, "stated")
    if told(ep, goal.description) or all(told(ep, d) for d in goal.details):
        return Requirement(words, "revealed")
    return hidden_or_stated(ep, words, False, said=next(d for d in goal.details if not told(ep, d)))


def charges(ep: Episode, goal: ReturnGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if check.name in ("selected_line", "returned_lines"):
        return [_the_line(ep, goal)]
    constraints = goal.replacement or ()
    if not check.found:
        return [Requirement("a replacement", "stated")]
    found = check.found if isinstance(check.found, list) else []
    lists = [[p for p in c.get("found", [])] for c in found if isinstance(c, dict) and not c.get("passed")]
    return [r for offers in lists for offer in offers if isinstance(offer, dict)
            for r in product_misses(ep, str(offer.get("product_id")), constraints, shown_flag(offer))]


def contradiction(ep: Episode, goal: ReturnGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    if order is None or goal.line_id not in {line.line_id for line in order.lines}:
        return f"the order line {goal.order_id}/{goal.line_id} to return is not among the customer's orders"
    return None
