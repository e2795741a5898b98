"""Gymnasium wrappers for `verishop.agents.gym_env.ShopTextEnv` (this module needs gymnasium)."""

from __future__ import annotations

from typing import Any

import gymnasium
from gymnasium.utils import RecordConstructorArgs


class ScoreOnTruncation(gymnasium.Wrapper, RecordConstructorArgs):
    """When an outer wrapper (TimeLimit) truncates an episode that the shop still holds open,
    close it now and return the verifier's reward, instead of leaving it open and unscored until
    the next reset. `register_envs()` puts it outside TimeLimit."""

    def __init__(self, env: gymnasium.Env):
        RecordConstructorArgs.__init__(self)
        gymnasium.Wrapper.__init__(self, env)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if truncated and not terminated and "close_reason" not in info:
            reward = self.env.unwrapped.finish("time_limit", info)
        return observation, reward, terminated, truncated, info
