"""Charging every failed check to the requirements it failed (issue 22).

`explain` reads each failed check of the task breakdown with the goal and the files and names
the requirements behind it (`verishop.verifier.requirements`): a recommended product that
misses "made by Nike" charges that constraint, a wrong order charges "the order with the
blender", a wrong policy number charges the policy's answer. A check that fails only because
of other failures (the ranking of a list holding a misfit, the commitments) charges theirs, so
breaking one requirement charges exactly that one. The check carries the first requirement;
`failed_requirements` lists each distinct one with every check that shows it.
"""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType

from verishop.scenarios.models import Submission
from verishop.verifier.checks import check_of
from verishop.verifier.files import Episode
from verishop.verifier.models import Check, FailedRequirement
from verishop.verifier.requirements import SHOWN, Requirement, shop

Charged = list[tuple[Check, list[Requirement]]]


def explain(ep: Episode, checks: list[Check], check_module: ModuleType | None = None) -> Charged:
    """Each check with the requirements it failed (none for a passed check). `check_module`: the
    episode's check (`check_of`), when the caller has looked it up already."""
    check_module = check_module or check_of(ep.scenario)
    if hasattr(check_module, "explain"):  # an environment of several requests (a journey)
        return check_module.explain(ep, checks)
    return charge_all(ep, ep.scenario.goal, checks, check_module)


def annotate(charged: Charged) -> tuple[list[Check], list[FailedRequirement]]:
    """The checks with their first requirement written in, and every distinct requirement."""
    checks: list[Check] = []
    failed: dict[tuple[str, str, str], FailedRequirement] = {}
    for check, reqs in charged:
        if reqs:
            first = reqs[0]
            check = check.model_copy(update={"requirement": first.words, "source": first.source, "actor": first.actor})
        checks.append(check)
        for r in reqs:
            key = (r.words, r.source, r.actor)
            entry = failed.get(key)
            if entry is None:  # built once, not once per check that shows it
                entry = failed[key] = FailedRequirement(requirement=r.words, source=r.source, actor=r.actor)
            if check.name not in entry.checks:
                entry.checks.append(check.name)
    return checks, list(failed.values())


def general(name: str, max_turns: int) -> Requirement:
    """The requirement behind the checks every environment shares."""
    words = {"efficiency": f"no wasted turns (of {max_turns} at most; a question the customer answers is free)",
             "hallucination": SHOWN, "safety": "nothing unsafe said or done",
             "identity": "the customer identified (find_customer) before any order tool is called"}
    return shop(words.get(name, name))


def charge_all(ep: Episode, goal: object, checks: list[Check], check_module: ModuleType | None = None) -> Charged:
    check_module = check_module or check_of(ep.scenario)
    charge = check_module.charges
    broken = check_module.contradiction(ep, goal) is not None
    ep = _as_committed(ep, getattr(check_module, "COMMITTED_BY_TOOLS", None))
    out: Charged = []
    for check in checks:
        if check.passed is not False:
            out.append((check, []))
            continue
        reqs = unique(charge(ep, goal, check, checks)) or [shop(check.name)]
        if broken:
            reqs = [replace(r, actor="environment") for r in reqs]
        out.append((check, reqs))
    return out


def _as_committed(ep: Episode, committing_tools: frozenset[str] | None) -> Episode:
    """The conversation as it stood when the agent committed its last answer: a requirement the
    customer told only afterwards could not have shaped it, so it counts as withheld. A cart is
    judged as it ends: it sees the conversation up to the last change the agent made to it (a
    correction of the finished cart that the agent never acted on told the agent nothing in time):
    an environment whose answer is its writes names their tools (`COMMITTED_BY_TOOLS` in its check)."""
    if committing_tools:
        seqs = [c["seq"] for c in ep.transcript.tool_calls if c.get("tool") in committing_tools]
    else:
        seqs = [m["seq"] for m, s in zip(ep.transcript.assistant, ep.transcript.submissions) if _commits(s)]
    if not seqs:
        return ep
    customer = [e for e in ep.transcript.customer if e["seq"] < seqs[-1]]
    return replace(ep, transcript=replace(ep.transcript, customer=customer))


def _commits(sub: Submission) -> bool:
    return bool(sub.recommended_product_ids or (sub.answer or "").strip() or (sub.order_id or "").strip()
                or (sub.line_id or "").strip())


def unique(reqs: list[Requirement]) -> list[Requirement]:
    return list(dict.fromkeys(reqs))
