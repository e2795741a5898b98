"""JUnit XML for CI pipelines: one testcase per episode, grouped in one testsuite per
environment; an unsolved episode is a failure (its failed checks in the message), an episode
the verifier could not score is an error, and so is one recorded as failed (its agent raised, ran
past --episode-timeout, or was stopped by a signal): one testcase, typed by that reason, with
the verifier's reward for what the agent did. Text from rewards is agent-influenced: ElementTree
escapes it, and characters XML 1.0 cannot carry are dropped."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from verishop.agents.sealed import shown_seed
from verishop.scenarios.splits import redact_seeds

_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(value: Any, indices: dict[int, int] | None = None) -> str:
    # Every text goes through here: a test-split seed in it (a message, a check) shows as its index.
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return redact_seeds(_NOT_XML.sub("", text), indices)


def _failed_checks(reward: dict[str, Any]) -> list[dict[str, Any]]:
    breakdown = reward.get("breakdown") if isinstance(reward.get("breakdown"), list) else []
    return [c for c in breakdown if isinstance(c, dict) and c.get("passed") is False]


def junit_xml(rewards: list[dict[str, Any]], name: str = "verishop eval",
              failed: list[dict[str, Any]] = (), indices: dict[int, int] | None = None) -> ET.ElementTree:
    """`failed`: episodes that failed ({env_id, difficulty, seed, episode_id, kind, message}),
    reported as errors: on their episode's testcase when it has a reward, else on their own.
    `indices` (seed -> index in its split, sealed.read_split_index) names a test-split episode by
    its index: no testcase names its seed."""
    suites: dict[str, list[dict[str, Any]]] = defaultdict(list)
    failed_by_id = {f["episode_id"]: f for f in failed if f.get("episode_id")}
    for r in rewards:
        f = failed_by_id.get(r.get("episode_id"))
        suites[str(r.get("env_id", "?"))].append(r if f is None else {**r, "failed_as": f})
    for f in failed:
        if f.get("episode_id") and any(r.get("episode_id") == f["episode_id"] for r in rewards):
            continue
        suites[str(f.get("env_id", "?"))].append({**f, "verdict": "failed to run", "reason": f.get("kind"),
                                                  "detail": f.get("message")})
    root = ET.Element("testsuites", name=_clean(name))
    totals: Counter[str] = Counter()
    for env_id, items in sorted(suites.items()):
        suite = ET.SubElement(root, "testsuite", name=_clean(env_id))
        counts: Counter[str] = Counter(tests=len(items))
        trial: Counter[tuple] = Counter()
        for r in sorted(items, key=lambda r: (str(r.get("difficulty")).zfill(4),
                                              str(shown_seed(r.get("seed"), indices)).zfill(20))):
            task = (r.get("difficulty"), r.get("seed"))
            trial[task] += 1
            shown = shown_seed(task[1], indices)
            which = f"seed {shown}" if shown == task[1] else shown
            name = f"d{task[0]} {which} trial {trial[task]} ({r.get('episode_id')})"
            case = ET.SubElement(suite, "testcase", classname=_clean(f"verishop.{env_id}"), name=_clean(name, indices))
            if r.get("failed_as"):
                counts["errors"] += 1
                cause = r["failed_as"]
                error = ET.SubElement(case, "error", type=_clean(cause.get("kind") or "failed"),
                                      message=_clean(f"{cause.get('kind')}: {cause.get('message')}", indices))
                error.text = _clean(f"reward {r.get('verdict')}: total {r.get('total')}, solved "
                                    f"{bool(r.get('is_correct'))}")
            elif r.get("verdict") != "scored":
                counts["errors"] += 1
                error = ET.SubElement(case, "error", type=_clean(r.get("verdict", "missing")),
                                      message=_clean(f"{r.get('verdict', 'missing')}: {r.get('reason') or ''}"))
                error.text = _clean(r.get("detail") or "")
            elif not r.get("is_correct"):
                counts["failures"] += 1
                failed = _failed_checks(r)
                names = ", ".join(str(c.get("name")) for c in failed)
                failure = ET.SubElement(case, "failure", type="unsolved",
                                        message=_clean(f"unsolved: total {r.get('total')}; failed checks: {names}"))
                failure.text = _clean("\n".join(f"{c.get('name')}: expected {_clean(c.get('expected'))}, "
                                                f"found {_clean(c.get('found'))}{_why(c)}" for c in failed))
            out = ET.SubElement(case, "system-out")
            out.text = _clean({k: r.get(k) for k in ("total", "r_task", "r_eff", "r_hall", "turns", "tool_calls",
                                                     "close_reason")})
        suite.attrib.update({k: str(counts[k]) for k in ("tests", "failures", "errors")})
        totals.update(counts)
    root.attrib.update({k: str(totals[k]) for k in ("tests", "failures", "errors")})
    ET.indent(root)
    return ET.ElementTree(root)


def _why(check: dict[str, Any]) -> str:
    """The requirement a failed check names, its source and who it is charged to (issue 22)."""
    if not check.get("requirement"):
        return ""
    return (f"; requirement: {_clean(check['requirement'])} ({_clean(check.get('source'))}, "
            f"charged to {_clean(check.get('actor'))})")


def write_junit(rewards: list[dict[str, Any]], path: Path, name: str = "verishop eval",
                failed: list[dict[str, Any]] = (), indices: dict[int, int] | None = None) -> None:
    junit_xml(rewards, name, failed, indices).write(path, encoding="utf-8", xml_declaration=True)
