"""`VerishopEnvironment`: OpenEnv's `Environment` over verishop's in-process shop.

`reset(env=, difficulty=, seed=)` opens an episode (OpenEnv's `seed` is the episode's seed);
`step(ShopAction(tool=, arguments=))` calls one shop tool; when a call closes the episode (the
agent's `respond_to_customer` with `done=true`, the customer leaving, the turn budget spent) the
observation is `done` and its `reward` is the verifier's total. A new `reset` or the session's end
closes an open episode.
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata

from verishop_openenv.models import ShopAction, ShopObservation, ShopState
from verishop_openenv.shop_process import shared

REWARD_FIELDS = ("total", "r_task", "r_eff", "r_hall", "is_correct", "verdict", "reason")


class VerishopEnvironment(Environment[ShopAction, ShopObservation, ShopState]):
    SUPPORTS_CONCURRENT_SESSIONS = True  # each session has its own episode; the shop serializes calls

    def __init__(self) -> None:
        super().__init__()
        self._shop = shared()
        self._state = ShopState()
        self._episode: str | None = None
        self._done = False

    def reset(self, seed: int | None = None, episode_id: str | None = None, env: str = "pd",
              difficulty: int = 0, **kwargs: Any) -> ShopObservation:
        if kwargs:
            raise ValueError(f"unknown reset option(s) {', '.join(sorted(kwargs))}: give env, difficulty, seed")
        self._release()
        opened = self._shop.request("open", env=env, difficulty=difficulty, seed=0 if seed is None else seed)
        self._episode, self._done = opened["episode"], False
        self._state = ShopState(episode_id=episode_id or opened["episode"], step_count=0, env_id=opened["env_id"],
                                difficulty=opened["difficulty"], seed=opened["seed"], shop_episode_id=opened["episode"])
        return ShopObservation(system_prompt=opened["system_prompt"], opening_message=opened["opening_message"],
                               tools=opened["tools"], done=False, reward=0.0,
                               metadata={"max_turns": opened["max_turns"], "env_id": opened["env_id"]})

    def step(self, action: ShopAction, timeout_s: float | None = None, **kwargs: Any) -> ShopObservation:
        if self._episode is None or self._done:
            raise RuntimeError("no open episode: reset first")
        self._state.step_count += 1
        reply = self._shop.request("call", episode=self._episode, tool=action.tool, arguments=action.arguments)
        observation = ShopObservation(tool=action.tool, result=reply.get("data"), error=reply.get("error"),
                                      done=False, reward=0.0)
        if reply.get("closed"):
            scored = self._shop.request("reward", episode=self._episode)
            reward = {name: scored["reward"].get(name) for name in REWARD_FIELDS}
            self._done, self._state.close_reason = True, scored["close_reason"]
            observation.done, observation.reward = True, float(reward["total"])
            observation.metadata = {"reward": reward, "close_reason": scored["close_reason"]}
        return observation

    @property
    def state(self) -> ShopState:
        return self._state

    def close(self) -> None:
        self._release()

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name="verishop", version="0.1.0",
                                   description="A simulated shop: help a customer with the shop's tools; "
                                               "scored by verishop's code-only verifier.")

    def _release(self) -> None:
        if self._episode is not None and not self._done:
            self._shop.request("close", episode=self._episode)
        self._episode = None
