"""Multi-intent journeys: each request scored by its own environment's check, on its own
part of the conversation.

The transcript's customer messages carry the index of the request they belong to (`task`);
an agent turn belongs to the request the customer had last spoken about, and so do its tool
calls and its submission. Each request sees the world without what the other requests own
(their items in the shared cart, their returns, and the orders another request changes, with
their writes: each judged by that request's own gold world, so another request's changes are
neither collateral damage here nor unjudged). An order no request changes stays in every
request's footprint: a write on it fails each order-changing request's `nothing_else_changed`.
Requests never reached score −1.
r_task = mean of the requests' r_task; solved when every request is solved.
"""

from __future__ import annotations

import re
from dataclasses import replace

from verishop.envs.journey.generator import changed_by, changed_elsewhere, foreign_ids
from verishop.scenarios.models import JourneyGoal
from verishop.scenarios.tool_names import ORDER_WRITES, RESPOND_TO_CUSTOMER
from verishop.verifier.blame import Charged, charge_all, unique
from verishop.verifier.checks import check_of
from verishop.verifier.requirements import Requirement
from verishop.verifier.checks.base import Options, TaskScore
from verishop.verifier.files import Episode
from verishop.verifier.models import Check
from verishop.verifier.transcript import Transcript, turn_of


def _task_by_turn(transcript: Transcript) -> dict[int, int]:
    """For each customer message turn, the request the customer is on after saying it."""
    tasks: dict[int, int] = {}
    current = 0
    for event in transcript.customer:
        task = event.get("task")
        if type(task) is int:
            current = task
        tasks[turn_of(event)] = current
    return tasks


def _active_task(tasks: dict[int, int], before_turn: int) -> int:
    earlier = [t for t in tasks if t < before_turn]
    return tasks[max(earlier)] if earlier else 0


def _slice(transcript: Transcript, index: int) -> Transcript:
    tasks = _task_by_turn(transcript)
    pairs = [(a, s) for a, s in zip(transcript.assistant, transcript.submissions)
             if _active_task(tasks, turn_of(a)) == index]
    # A lookup made while the agent's turn t is being prepared is recorded with turn t − 1.
    calls = [c for c in transcript.tool_calls
             if _active_task(tasks, turn_of(c) + (0 if c.get("tool") == RESPOND_TO_CUSTOMER else 1)) == index]
    return replace(transcript, assistant=[a for a, _ in pairs], submissions=[s for _, s in pairs],
                   customer=[c for c in transcript.customer if tasks.get(turn_of(c)) == index], tool_calls=calls)


def reached(ep: Episode) -> int:
    """The index of the last request the customer made."""
    return max(_task_by_turn(ep.transcript).values(), default=0)


def request_view(ep: Episode, index: int) -> Episode:
    """The episode as request `index` sees it: its goal, its part of the conversation, and the
    world without what the other requests own."""
    goal = ep.scenario.goal
    assert isinstance(goal, JourneyGoal)
    foreign = foreign_ids(goal, index)
    theirs = changed_elsewhere(goal, index)
    world = replace(ep.world, cart={pid: n for pid, n in ep.world.cart.items() if pid not in foreign},
                    returns=tuple(r for r in ep.world.returns if r[1] not in foreign),
                    orders={o: s for o, s in ep.world.orders.items() if o not in theirs},
                    order_writes=tuple(w for w in ep.world.order_writes if w.order_id not in theirs))
    scenario = ep.scenario.model_copy(update={
        "goal": goal.tasks[index], "orders": tuple(o for o in ep.scenario.orders if o.order_id not in theirs)})
    transcript = _slice(ep.transcript, index)
    transcript = replace(transcript, tool_calls=_with_own_writes(ep.transcript, transcript,
                                                                 changed_by(goal, index), theirs))
    return replace(ep, scenario=scenario, transcript=transcript, world=world)


def _with_own_writes(whole: Transcript, part: Transcript, mine: set[str], theirs: set[str]) -> list[dict]:
    """A request's tool calls: its part's, where a write on an order another request changes is that
    request's (its agreement must come first), and a write on an order it changes is its own,
    whichever request the agent was serving (before its own customer agreed, it is early)."""
    def order_of(call: dict) -> str | None:
        return (call.get("arguments") or {}).get("order_id") if call.get("tool") in ORDER_WRITES else None

    kept = [c for c in part.tool_calls if order_of(c) not in theirs]
    seen = {c["seq"] for c in kept}
    kept += [c for c in whole.tool_calls if order_of(c) in mine and c["seq"] not in seen]
    return sorted(kept, key=lambda c: c["seq"])



def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, JourneyGoal)
    last = reached(ep)
    parts: list[TaskScore] = []
    checks: list[Check] = []
    for index, request in enumerate(goal.tasks):
        if index > last:
            part = TaskScore(r_task=-1.0, is_correct=False, attempted=False)
        else:
            view = request_view(ep, index)
            part = check_of(view.scenario).score(view, options)
        parts.append(part)
        checks.append(Check(name=f"request {index + 1}: {request.kind}", expected="solved",
                            found="solved" if part.is_correct else ("not reached" if index > last else "not solved"),
                            passed=part.is_correct, score=round(part.r_task, 6)))
        checks += [c.model_copy(update={"name": f"request {index + 1} · {c.name}"}) for c in part.checks]
    r_task = sum(p.r_task for p in parts) / len(parts)
    return TaskScore(r_task=r_task, is_correct=all(p.is_correct for p in parts), checks=checks,
                     notes=[n for p in parts for n in p.notes],
                     attempted=any(p.attempted for p in parts))


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------

_PART = re.compile(r"^request (\d+) · (.*)$", re.DOTALL)


def explain(ep: Episode, checks: list[Check]) -> Charged:
    """Each check with the requirements it failed: a request's checks by its own environment's
    charges (`verishop.verifier.blame`), on its own part of the episode."""
    goal = ep.scenario.goal
    assert isinstance(goal, JourneyGoal)
    last = reached(ep)
    parts: dict[int, list[Check]] = {}
    for check in checks:
        if (m := _PART.match(check.name)) is not None:
            parts.setdefault(int(m.group(1)), []).append(check.model_copy(update={"name": m.group(2)}))
    charged_parts: dict[int, Charged] = {n: charge_all(request_view(ep, n - 1), goal.tasks[n - 1], subs)
                                         for n, subs in parts.items() if n - 1 <= last}
    out: Charged = []
    for check in checks:
        if (m := _PART.match(check.name)) is not None:
            n = int(m.group(1))
            sub = next(reqs for c, reqs in charged_parts.get(n, []) if c.name == m.group(2)) \
                if n in charged_parts else []
            out.append((check, [_in_request(n, r) for r in sub]))
            continue
        n = int(check.name.split(":")[0].removeprefix("request ")) if check.name.startswith("request ") else 0
        if check.passed is not False or not n:
            out.append((check, []))
        elif n - 1 > last:
            out.append((check, [Requirement(f"request {n}: {goal.openings[n - 1]}", "withheld")]))
        else:
            reqs = [r for _, rs in charged_parts.get(n, []) for r in rs]
            out.append((check, unique([_in_request(n, r) for r in reqs])))
    return out


def _in_request(n: int, r: Requirement) -> Requirement:
    return replace(r, words=f"request {n}: {r.words}")


def contradiction(ep: Episode, goal: JourneyGoal) -> str | None:
    """A journey's requests are each checked against the world by their own environment."""
    return None
