"""One in-process shop per rollout worker, and one shop episode per verl trajectory.

verl 0.9.1's `ToolAgentLoop` creates, executes and releases a tool instance for every single tool
call, so a tool instance cannot hold an episode. The episode belongs to the trajectory instead:
`VerishopAgentLoop.run` makes a `Trajectory` and puts it in a context variable for the duration
of the trajectory; the tool calls of that trajectory run as tasks started inside it, so they see
it (asyncio copies the context into each task), and trajectories running side by side on the
worker's loop never see each other's.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from verishop.local import LocalShop
from verishop.local.shop import LocalEpisode

SPEC_FIELDS = ("env", "difficulty", "seed")
REWARD_FIELDS = ("total", "r_task", "r_eff", "r_hall", "is_correct", "verdict", "episode_id")

_shops: dict[str | None, LocalShop] = {}
_shops_lock = threading.Lock()


def shop(catalog: str | None = None) -> LocalShop:
    """This process's shop on `catalog` (default: `$VERISHOP_CATALOG`, else the default catalog),
    opened on first use and shared by every trajectory of the worker."""
    catalog = catalog or os.environ.get("VERISHOP_CATALOG") or None
    with _shops_lock:
        if catalog not in _shops:
            _shops[catalog] = LocalShop(catalog)
        return _shops[catalog]


class EpisodeSpecError(ValueError):
    """A dataset row that does not say which episode to play."""


def episode_spec(create_kwargs: dict[str, Any]) -> dict[str, Any]:
    """`{env, difficulty, seed}` from a row's `create_kwargs`, checked."""
    missing = [name for name in ("env", "difficulty", "seed") if name not in create_kwargs]
    if missing:
        raise EpisodeSpecError(f"the row's create_kwargs lack {', '.join(missing)} (got {sorted(create_kwargs)}); "
                               f"build the dataset with `python -m verishop_verl.dataset`")
    spec = {name: create_kwargs[name] for name in SPEC_FIELDS}
    spec["difficulty"], spec["seed"] = int(spec["difficulty"]), int(spec["seed"])
    return spec


def spec_from_row(tools_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The episode a dataset row asks for: every tool's `create_kwargs` carries the same spec."""
    specs = {tuple(sorted(episode_spec(kwargs.get("create_kwargs", {})).items()))
             for kwargs in (tools_kwargs or {}).values()}
    if not specs:
        raise EpisodeSpecError("the row has no tools_kwargs: build the dataset with `python -m verishop_verl.dataset`")
    if len(specs) > 1:
        raise EpisodeSpecError(f"the row's tools ask for different episodes: {sorted(specs)}")
    return dict(specs.pop())


@dataclass
class Trajectory:
    """The shop episode of one verl trajectory, opened at its first tool call."""

    spec: dict[str, Any]
    catalog: str | None = None
    episode: LocalEpisode | None = None
    reward: dict[str, Any] | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def open(self) -> LocalEpisode:
        async with self._lock:
            if self.episode is None:
                self.episode = await shop(self.catalog).aopen(**self.spec)
            return self.episode

    async def finish(self) -> dict[str, Any]:
        """Close the episode (opening it first if no tool was called: a silent model is scored
        too) and return the verifier's reward, summed up in `REWARD_FIELDS` plus the close reason."""
        episode = await self.open()
        async with self._lock:
            if self.reward is None:
                reward = (await episode.areward()).model_dump(mode="json")
                self.reward = {name: reward.get(name) for name in REWARD_FIELDS}
                self.reward["close_reason"] = episode.close_reason
            return self.reward

    async def discard(self) -> None:
        """Close the episode of a trajectory that failed (nothing is scored)."""
        if self.episode is not None and self.episode.is_open:
            await self.episode.aclose()


CURRENT: contextvars.ContextVar[Trajectory | None] = contextvars.ContextVar("verishop_trajectory", default=None)
