"""Task checks: each environment's `check.py` (`verishop/envs/<name>/check.py`), found through
the registry (`verishop.envs`) by the scenario's env id. A check module has a
`score(episode, options) -> TaskScore`, a `charges(...)` and a `contradiction(...)`
(`verishop.verifier.blame`); `verishop.verifier.checks.base` is what they share."""

from __future__ import annotations

from types import ModuleType

from verishop.envs import spec_for
from verishop.scenarios.models import Scenario
from verishop.verifier.checks.base import Options, TaskCheck, TaskScore


def check_of(scenario: Scenario) -> ModuleType:
    """The check that scores `scenario`: its environment's, by env id (an earlier version's file by
    its name); a journey's view of one request (a goal of another environment) by the goal's."""
    return spec_for(scenario).role("check")


__all__ = ["Options", "TaskCheck", "TaskScore", "check_of"]
