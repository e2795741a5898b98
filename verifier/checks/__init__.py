"""Task checks, one per goal kind (`scenario.goal.kind`). A new environment adds a module
with a `score(episode, options) -> TaskScore` function and one line here."""

from __future__ import annotations

from verifier.checks import cart, pd
from verifier.checks.base import Options, TaskCheck, TaskScore

TASK_CHECKS: dict[str, TaskCheck] = {
    "product_discovery": pd.score,
    "cart": cart.score,
}

__all__ = ["TASK_CHECKS", "Options", "TaskCheck", "TaskScore"]
