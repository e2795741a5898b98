"""Feeds the curriculum from the sidecar: every scored episode is recorded in the shared
curriculum file. Only the verifier feeds it, never the client: the solved verdict comes from
the files, recomputed here, so an agent cannot talk its way up the difficulty ladder.
"""

from __future__ import annotations

import logging

import anyio

from verishop.scenarios.curriculum_store import CurriculumStore
from verishop.verifier.models import Reward

log = logging.getLogger("verishop.verifier.curriculum")


class CurriculumFeed:
    """An `on_scored` subscriber of `VerifierService`."""

    def __init__(self, store: CurriculumStore):
        self.store = store

    async def __call__(self, reward: Reward) -> None:
        # An incomplete episode is no evidence either way: it must not hold the window back.
        if reward.verdict != "scored" or reward.env_id is None or reward.difficulty is None:
            return
        state = await anyio.to_thread.run_sync(self.store.record, reward.episode_id, reward.env_id,
                                               reward.difficulty, bool(reward.is_correct))
        if state is not None:
            log.info("curriculum %s: [%d, %d] %d/%d", state.env_id, state.window.low, state.window.high,
                     state.window.solved, state.window.attempts)
