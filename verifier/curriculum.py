"""Feeds the curriculum from the sidecar: every scored episode the curriculum chose is recorded
in the shared curriculum file. Only the verifier feeds it, never the client: the solved verdict
comes from the files, recomputed here, so an agent cannot talk its way up the difficulty ladder.

The curriculum learns only from its own episodes (`counts_for_curriculum`): one it chose (the
server wrote `chosen_by: curriculum` in the transcript's opening event, which it does only when
it drew the difficulty itself, whatever the client's request says) in which the agent made at
least one move; and the store counts it only if its own record holds that it assigned the
episode's (env, difficulty, seed), each once. An IDE's default episode, an evaluation's fixed (env, difficulty, seed), a
Gymnasium `check_env` reset that is never stepped and the TRL factory's tool-list probe say
nothing about how hard the curriculum's episodes are for the agent being trained; counted, they
are failures at the window's top that keep it from ever moving up. A chosen episode the agent
played and then abandoned (a disconnect, a reset mid-episode) still counts, as a failure.
"""

from __future__ import annotations

import functools
import logging

import anyio

from typing import Any

from verishop.scenarios.curriculum_store import CurriculumStore
from verishop.verifier.models import Reward

log = logging.getLogger("verishop.verifier.curriculum")


def counts_for_curriculum(reward: Reward | dict[str, Any], *, marked_by_server: bool = True) -> bool:
    """Whether a reward (or a reward.json's content) may be evidence for the curriculum. The
    curriculum store then counts it only if it assigned its (env, d, seed) itself, once.
    `marked_by_server=False` (a Ray cluster, whose curriculum actor assigns before the server
    opens the episode) leaves that check to the store alone."""
    get = reward.get if isinstance(reward, dict) else lambda key: getattr(reward, key, None)
    if get("verdict") != "scored" or get("env_id") is None or get("difficulty") is None or get("seed") is None:
        return False  # an incomplete episode is no evidence either way
    played = bool(get("turns")) or bool(get("tool_calls"))
    return played and (get("chosen_by_curriculum") is True or not marked_by_server)


class CurriculumFeed:
    """An `on_scored` subscriber of `VerifierService`."""

    def __init__(self, store: CurriculumStore, *, marked_by_server: bool = True):
        self.store = store
        self.marked_by_server = marked_by_server

    async def __call__(self, reward: Reward) -> None:
        if not counts_for_curriculum(reward, marked_by_server=self.marked_by_server):
            return
        state = await anyio.to_thread.run_sync(functools.partial(
            self.store.record, reward.episode_id, reward.env_id, reward.difficulty, bool(reward.is_correct),
            seed=reward.seed))
        if state is not None:
            log.info("curriculum %s: [%d, %d] %d/%d", state.env_id, state.window.low, state.window.high,
                     state.window.solved, state.window.attempts)
