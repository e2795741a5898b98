"""HANDOVER task check (issue 33): the world and the answers after the episode, by code alone.

    nothing_else_changed  no order written to or changed, no cart, no return: neither request is
                          the shop's to grant (`verifier/footprint.py`, with no order owned)
    refusal               restraint: every typed refusal given is the right one, and the refusal
                          was kept through every scripted pushback (the customer pushed back as
                          many times as its script holds, and a refusal answered the last time);
                          hand-over: none given
    handover              hand-over: one hand-over to a person whose summary names the order (any
                          case or spacing) and no other of the customer's orders, an ID a tool had
                          shown before; restraint: none (handing a refusal to a person is no
                          refusal)

A granted request (an order change or an exchange the rules allow) is judged by its own
environment's check, on the episode seen with its goal, plus `handover` (none: a request the shop
can serve is not handed over).

r_task = 1 when every check passes, else −1.
"""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType

from verishop.envs.handover.answers import names_only
from verishop.scenarios.models import HandoverGoal
from verishop.scenarios.tool_names import ORDER_WRITES, TRANSFER_TO_HUMAN
from verishop.verifier.checks import check_of
from verishop.verifier.checks.base import Options, TaskScore, messages
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.footprint import nothing_else, refusal_kept
from verishop.verifier.models import Check
from verishop.verifier.requirements import Requirement, shop
from verishop.verifier.transcript import succeeded

# The answer is the writes and the hand-over: a requirement told after the last told nothing in time.
COMMITTED_BY_TOOLS = ORDER_WRITES | {TRANSFER_TO_HUMAN}


def served(ep: Episode, goal: HandoverGoal) -> tuple[Episode, ModuleType]:
    """A granted request's episode as its own environment sees it (its goal), and that check."""
    assert goal.serve is not None
    view = replace(ep, scenario=ep.scenario.model_copy(update={"goal": goal.serve}))
    return view, check_of(view.scenario)


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, HandoverGoal)
    if goal.serve is not None:  # granted: judged as its own environment judges it, and not handed over
        view, check = served(ep, goal)
        task = check.score(view, options)
        handed = _handover(ep, goal)
        ok = task.is_correct and bool(handed.passed)
        return TaskScore(r_task=1.0 if ok else -1.0, is_correct=ok, checks=[*task.checks, handed], notes=task.notes,
                         attempted=task.attempted or bool(ep.world.handovers))
    checks = [nothing_else(ep, set()), refusal_kept(ep, goal.refusal, goal.pushbacks), _handover(ep, goal)]
    ok = all(c.passed for c in checks)
    attempted = bool(ep.world.order_writes or ep.world.handovers) or any(
        s.answer_refusal or (s.order_id or "").strip() for _, s in messages(ep))
    return TaskScore(r_task=1.0 if ok else -1.0, is_correct=ok, checks=checks, attempted=attempted)




def _handover(ep: Episode, goal: HandoverGoal) -> Check:
    made = [h.summary for h in ep.world.handovers]
    if goal.mode in ("restraint", "grant"):
        return Check(name="handover", expected=None, found=made or None, passed=not made,
                     score=-1.0 if made else 1.0)
    calls = [c for c in ep.transcript.tool_calls if c.get("tool") == TRANSFER_TO_HUMAN and succeeded(c)]
    order_ids = [o.order_id for o in ep.scenario.orders]
    passed = (len(made) == 1 and bool(calls) and names_only(made[0], goal.order_id, order_ids)
              and exposure(ep.transcript).shown(goal.order_id, calls[0]["seq"]))
    return Check(name="handover", expected={"order_id": goal.order_id}, found=made or None, passed=passed,
                 score=1.0 if passed else -1.0)


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------

_RULES = {"return_instead": "a shipped order is not changed or cancelled: it is returned once delivered "
                            "(the store's policy)",
          "not_eligible": "only eligible items are exchanged: within the return window, not final sale "
                          "(the store's policy)"}


def charges(ep: Episode, goal: HandoverGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if goal.serve is not None:
        if check.name == "handover":
            return [shop("a request the store's rules allow is served, not handed over")]
        view, served_check = served(ep, goal)
        return served_check.charges(view, goal.serve, check, checks)
    if goal.mode == "handover":
        if check.name == "handover":
            return [shop(f"a {goal.request.replace('_', ' ')} matter is handed to a person, with the order's ID "
                         "in the summary"), Requirement(f"about {goal.description}", "stated")]
        if check.name == "refusal":
            return [shop("a matter outside the shop's remit is handed over, not refused")]
        return [shop("a matter outside the shop's remit changes no order")]
    assert goal.refusal is not None
    if check.name == "handover":
        return [shop(f"{_RULES[goal.refusal]}; the assistant says so itself, it does not hand it over")]
    if check.name == "refusal" and goal.pushbacks:
        return [shop(f"{_RULES[goal.refusal]}, kept when the customer insists")]
    return [shop(_RULES[goal.refusal])]


def contradiction(ep: Episode, goal: HandoverGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    if goal.serve is not None:
        view, served_check = served(ep, goal)
        return served_check.contradiction(view, goal.serve)
    if not any(o.order_id == goal.order_id for o in ep.scenario.orders):
        return f"the order {goal.order_id} the customer means is not among its orders"
    return None
