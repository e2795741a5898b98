"""Task checks, one per goal kind (`scenario.goal.kind`). A new environment adds a module
with a `score(episode, options) -> TaskScore` function and one line here."""

from __future__ import annotations

from verishop.verifier.checks import (
    bundle,
    cart,
    journey,
    order_status,
    pd,
    policy,
    returns,
    substitution,
)
from verishop.verifier.checks.base import Options, TaskCheck, TaskScore

TASK_CHECKS: dict[str, TaskCheck] = {
    "product_discovery": pd.score,
    "cart": cart.score,
    "substitution": substitution.score,
    "policy": policy.score,
    "return": returns.score,
    "status": order_status.score,
    "bundle": bundle.score,
    "journey": journey.score,
}

__all__ = ["TASK_CHECKS", "Options", "TaskCheck", "TaskScore"]
