"""A Gymnasium-style text environment: one verishop episode per Gymnasium episode.

    env = ShopTextEnv(env="pd", difficulty=3)       # in this process: no server, no sidecar
    observation, info = env.reset(seed=7)
    observation, reward, terminated, truncated, info = env.step(
        {"tool": "search_catalog", "arguments": {"query": "desk lamp"}})
    observation, reward, terminated, truncated, info = env.step("Here are three lamps ...")

Without a `base_url` (the default, one machine) the episodes are played in this process on the
shared `LocalShop` of its catalog (`verishop.agents.local_shops`) and scored in process; with
one (many machines) on a running `verishop serve --transport http`:
`ShopTextEnv("http://127.0.0.1:8000", env="pd", difficulty=3)`. Observations, rewards and
`info` are the same in both.

The API is Gymnasium's (`reset(seed=, options=) -> (obs, info)`, `step(action) -> (obs, reward,
terminated, truncated, info)`). Gymnasium is optional: when it is installed the class is a
`gymnasium.Env` that passes `gymnasium.utils.env_checker.check_env`, with text spaces
(`action_space`: a message to the customer; `observation_space`: any text), and
`register_envs()` registers it for `gymnasium.make`:

    register_envs()
    env = gymnasium.make("verishop/ShopText-v0", env="pd", difficulty=3, max_episode_steps=20)
    # or, on a server: gymnasium.make(..., base_url="http://127.0.0.1:8000", ...)

`reset()` without a seed draws the episode's seed from the env's own generator (seeded by the
last `reset(seed=...)`), as Gymnasium expects; without gymnasium the shop picks it.

- An action is a tool call, `{"tool": name, "arguments": {...}}`, or a message to the customer:
  a string, or `{"message": text, ...respond_to_customer fields}` (e.g. `done`,
  `recommended_product_ids`).
- The observation is text: the customer's opening message after `reset`, then each tool's result
  as JSON, or its error message (`info["is_error"]`), or the customer's reply to a message.
- The reward is 0 until the episode ends, then the verifier's `total` (`info["reward"]` holds the
  whole reward.json).
- `terminated`: the task ended (the agent said done, the customer was satisfied or left).
  `truncated`: the turn budget was spent (close reason `turn_budget`), or this wrapper's own
  `max_steps` ran out (it then closes the episode). The two are never both true. Made through
  `gymnasium.make(..., max_episode_steps=N)`, the step where `TimeLimit` truncates closes and
  scores the episode (close reason `time_limit`; `verishop.agents.gym_wrappers.ScoreOnTruncation`).
- A script that raises without calling `close()` still exits: its open episode is closed at
  interpreter exit (over HTTP as `closed_by_client`; in process the shop closes it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verishop.agents.local_shops import shared_shop
from verishop.agents.sync_client import SyncShopClient

try:  # optional: be a real gymnasium.Env when gymnasium is present
    import gymnasium
    from gymnasium import spaces

    _Base: type = gymnasium.Env
except ImportError:  # pragma: no cover - depends on the environment
    gymnasium = spaces = None
    _Base = object

TRUNCATING_REASONS = frozenset({"turn_budget"})
"""Close reasons reported as `truncated` (the others are `terminated`)."""
ENV_ID = "verishop/ShopText-v0"
"""The id `register_envs` registers for `gymnasium.make`."""
MESSAGE_MAX_CHARS = 2000  # respond_to_customer's message limit
OBSERVATION_MAX_CHARS = 1_000_000
SEED_BOUND = 2**31


def _spaces() -> tuple[Any, Any]:
    """(action space, observation space), or (None, None) without gymnasium."""
    if spaces is None:
        return None, None

    class AnyText(spaces.Text):
        """Text of any characters (JSON, prices, names with accents): Text checks a charset."""

        def contains(self, x: Any) -> bool:
            return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    return (spaces.Text(MESSAGE_MAX_CHARS, min_length=1),
            AnyText(OBSERVATION_MAX_CHARS, min_length=0))


def register_envs() -> None:
    """Register `verishop/ShopText-v0` with gymnasium (idempotent; needs gymnasium)."""
    from gymnasium.envs.registration import WrapperSpec

    if ENV_ID not in gymnasium.registry:
        # Applied outside TimeLimit: the truncated episode is closed and scored on that very step.
        scoring = WrapperSpec("ScoreOnTruncation", "verishop.agents.gym_wrappers:ScoreOnTruncation", {})
        gymnasium.register(ENV_ID, entry_point="verishop.agents.gym_env:ShopTextEnv", additional_wrappers=(scoring,))


class ShopTextEnv(_Base):  # type: ignore[misc, valid-type]
    """One verishop episode per Gymnasium episode, in this process or on a server (see the
    module docstring).

    Args:
        base_url: a server's control API (`verishop serve --transport http`), to play there;
            None (the default) plays in this process.
        verifier_url: with `base_url`, the verifier sidecar to read rewards from; without it
            each reward is scored in this process (sharing the server's file system).
        max_steps: close and score the episode after this many steps (None: the episode's own
            turn budget decides).
        reward_timeout_s: with `base_url`, how long the final step waits for the verifier.
        token: with `base_url`, the server's control token, if it has one.
        catalog: in process, the catalog file to play on (default: the cached default catalog).
        runs_dir: in process, write each episode's run folder there when it is scored (the
            folder `verishop verify` re-scores identically); default: none.
        **episode_spec: what each `reset` opens: env or collection, difficulty (none: the
            curriculum chooses); `reset(options=...)` overrides it for one episode.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, base_url: str | None = None, *, verifier_url: str | None = None,
                 max_steps: int | None = None, reward_timeout_s: float = 60.0, token: str | None = None,
                 catalog: str | Path | None = None, runs_dir: str | Path | None = None, **episode_spec: Any):
        if base_url is None:
            if verifier_url is not None or token is not None:
                raise ValueError("verifier_url and token are for a server (base_url): in process there is neither")
            # Shared with the process's other envs: close() ends this env's episode, not the shop.
            self.shop: Any = shared_shop(catalog)
        else:
            if catalog is not None or runs_dir is not None:
                raise ValueError("catalog and runs_dir are for the in-process shop: a server (base_url) has its own")
            self.shop = SyncShopClient(base_url, verifier_url=verifier_url, token=token)
        self.in_process = base_url is None
        self.runs_dir = None if runs_dir is None else Path(runs_dir)
        self._written: Any = None  # the last episode whose run folder was written
        self.episode_spec = episode_spec
        self.max_steps = max_steps
        self.reward_timeout_s = reward_timeout_s
        self._cm: Any = None
        self.episode: Any = None
        self.steps = 0
        self.action_space, self.observation_space = _spaces()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Open a new episode (closing any previous one). `options` override the episode spec
        (env, collection, difficulty, split, scenario); `seed` is the episode's seed, or with a
        `split` (train, dev, test: docs/scores.md) its index in that split."""
        self._end()
        spec = {**self.episode_spec, **(options or {})}
        if gymnasium is not None:
            super().reset(seed=seed)
            if seed is None and "seed" not in spec:
                seed = int(self.np_random.integers(SEED_BOUND))
        if seed is not None:
            spec["seed"] = seed
        self._cm = self.shop.open_episode(**spec)
        self.episode = self._cm.__enter__()
        self.steps = 0
        info = self.episode.info
        return info.opening_message, {"episode_id": info.episode_id, "env_id": info.env_id,
                                      "difficulty": info.difficulty, "seed": info.seed,
                                      "system_prompt": info.system_prompt, "max_turns": info.max_turns,
                                      "tools": self.episode.openai_tools()}

    def step(self, action: str | dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one action: a tool call `{"tool": name, "arguments": {...}}`, or a message to the
        customer (a string, or `{"message": text, ...}` with `respond_to_customer`'s fields).

        Returns:
            `(observation, reward, terminated, truncated, info)`: the tool's result as JSON, its
            error or the customer's reply; 0.0 until the episode ends, then the verifier's total;
            `info` holds `tool`, `is_error`, `data`, and at the end `close_reason` and `reward`.
        """
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        if self.episode.close_reason is not None:
            raise RuntimeError(f"the episode ended ({self.episode.close_reason}); call reset()")
        name, arguments = _as_call(action)
        result = self.episode.call(name, arguments)
        self.steps += 1
        if result.is_error:
            observation = result.error or ""
        elif name == "respond_to_customer":
            observation = (result.data or {}).get("customer_message", "")
        else:
            observation = json.dumps(result.data, ensure_ascii=False)
        info: dict[str, Any] = {"tool": name, "is_error": result.is_error, "data": result.data}
        reason = self.episode.close_reason
        out_of_steps = reason is None and self.max_steps is not None and self.steps >= self.max_steps
        if reason is None and not out_of_steps:
            return observation, 0.0, False, False, info
        reward = self.finish("max_steps", info)
        truncated = out_of_steps or info["close_reason"] in TRUNCATING_REASONS
        return observation, reward, not truncated, truncated, info

    def finish(self, reason: str, info: dict[str, Any]) -> float:
        """Close the episode if still open (`reason` then names why, in `info`), wait for the
        verifier, and return the total reward (`info["reward"]` holds reward.json)."""
        if self.episode.close_reason is None:
            self.episode.close()
        else:
            reason = self.episode.close_reason
        reward = self.episode.reward(self.reward_timeout_s)
        self._keep_run(self.episode)
        info.update(close_reason=reason, reward=reward)
        return float(reward.get("total") or 0.0)

    def _end(self) -> None:
        if self._cm is not None:
            cm, episode, self._cm, self.episode = self._cm, self.episode, None, None
            cm.__exit__(None, None, None)
            self._keep_run(episode)

    def _keep_run(self, episode: Any) -> None:
        """In process with a `runs_dir`: write the ended episode's folder, once."""
        if self.runs_dir is not None and self.in_process and episode is not self._written:
            self._written = episode
            episode.write_run(self.runs_dir)

    def close(self) -> None:
        """Close the open episode (if any) and the client (in process, the shared shop stays open
        for the process's other envs; it is closed at exit)."""
        self._end()
        if not self.in_process:
            self.shop.close()


def _as_call(action: str | dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if isinstance(action, str):
        return "respond_to_customer", {"message": action}
    if "tool" in action:
        return str(action["tool"]), dict(action.get("arguments") or {})
    if "message" in action:
        return "respond_to_customer", dict(action)
    raise ValueError("an action is a message (str or {'message': ...}) or a tool call ({'tool': ..., 'arguments': ...})")
