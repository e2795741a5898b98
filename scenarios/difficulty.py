"""One integer difficulty `d` drives twelve axes (reference section 4)."""

from __future__ import annotations

import functools
import math

from verishop.scenarios.models import Axes

MAX_DIFFICULTY = 12


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@functools.cache  # a frozen model: every scenario of a difficulty shares one
def axes_for(d: int) -> Axes:
    if not 0 <= d <= MAX_DIFFICULTY:
        raise ValueError(f"difficulty must be between 0 and {MAX_DIFFICULTY}, got {d}")
    return Axes(
        constraints=2 + d // 2,
        items_to_recommend=min(10, 3 + d // 3),
        max_turns=4 + d // 2,
        p_missing=round(0.8 * _sigmoid((d - 3) / 1.5), 4),
        p_noise=round(min(0.125, 0.01 * d), 4),
        p_switch=round(0.6 * _sigmoid((d - 5) / 2), 4),
        search_top_k=max(20, 200 - 10 * d),
        retrieval_noise=round(min(0.4, 0.02 * d), 4),
        p_out_of_stock=round(min(0.5, 0.05 * d), 4),
        order_history=1 + d // 2,
        policy_branches=1 + d // 3,
        tool_calls_per_turn=1 + d // 2,
    )


def numeric_slack(d: int) -> float:
    """How far a numeric constraint may sit from the anchor product's value."""
    return 0.5 * math.exp(-d / 5)
