"""Feeds the curriculum from the sidecar: every scored episode the curriculum chose is recorded
in the shared curriculum file. Only the verifier feeds it, never the client: the solved verdict
comes from the files, recomputed here, so an agent cannot talk its way up the difficulty ladder.

The curriculum learns only from its own episodes (`counts_for_curriculum`): one it chose (the
server wrote `chosen_by: curriculum` in the transcript's opening event) in which the agent made
at least one move. An IDE's default episode, an evaluation's fixed (env, difficulty, seed), a
Gymnasium `check_env` reset that is never stepped and the TRL factory's tool-list probe say
nothing about how hard the curriculum's episodes are for the agent being trained; counted, they
are failures at the window's top that keep it from ever moving up. A chosen episode the agent
played and then abandoned (a disconnect, a reset mid-episode) still counts, as a failure.
"""

from __future__ import annotations

import logging

import anyio

from typing import Any

from verishop.scenarios.curriculum_store import CurriculumStore
from verishop.verifier.models import Reward

log = logging.getLogger("verishop.verifier.curriculum")


def counts_for_curriculum(reward: Reward | dict[str, Any]) -> bool:
    """Whether a reward (or a reward.json's content) is evidence for the curriculum."""
    get = reward.get if isinstance(reward, dict) else lambda key: getattr(reward, key, None)
    if get("verdict") != "scored" or get("env_id") is None or get("difficulty") is None:
        return False  # an incomplete episode is no evidence either way
    played = bool(get("turns")) or bool(get("tool_calls"))
    return get("chosen_by_curriculum") is True and played


class CurriculumFeed:
    """An `on_scored` subscriber of `VerifierService`."""

    def __init__(self, store: CurriculumStore):
        self.store = store

    async def __call__(self, reward: Reward) -> None:
        if not counts_for_curriculum(reward):
            return
        state = await anyio.to_thread.run_sync(self.store.record, reward.episode_id, reward.env_id,
                                               reward.difficulty, bool(reward.is_correct))
        if state is not None:
            log.info("curriculum %s: [%d, %d] %d/%d", state.env_id, state.window.low, state.window.high,
                     state.window.solved, state.window.attempts)
