"""verishop's episodes as a verifiers (v1) taskset: one task per `(env, difficulty, seed)`.

A task names an episode; it does not hold one. `VerishopEnv` (env.py) opens a fresh shop
episode for every rollout and hands the agent a copy of the task that carries it (its ID, its
system prompt and opening message, its MCP URL). The shop is either in the env's own process
(the default, one machine: `base_url` unset; local.py) or a running `verishop serve` with its
verifier sidecar (`base_url`, `verifier_url`: many machines). From there this module owns the
rollout:

- tools: the episode's own MCP endpoint, offered to the harness as a remote tool server
  (`ToolsetConfig(url=...)`), unprefixed, so the model sees the shop's sixteen tools with their
  JSON schemas and every call goes straight to that episode;
- stop: the rollout ends when the conversation tool (`respond_to_customer`) answers that the
  episode is closed (the customer was served, left, or its turn budget ran out); a harness turn
  limit (`--env.agent.max-turns`) ends it otherwise;
- finalize: close the episode (a no-op when it closed itself) and score it: in process with the
  verifier's own checks, or over HTTP (`DELETE /episodes/{id}`, then a bounded wait for the
  sidecar's reward.json); its verdict, parts, close reason and failed checks go in
  `trace.info["verishop"]`;
- reward: its `total`; metrics: `r_task`, `r_eff`, `r_hall`, `is_correct`.
"""

from __future__ import annotations

import json
import os
from typing import Any

import httpx
import verifiers.v1 as vf
from verifiers.v1.task import task_key

from verishop_verifiers.shop import close_episode, episode_reward

HTTP_TIMEOUT_S = 60.0
CONVERSATION_TOOL = "respond_to_customer"
REWARD_PARTS = ("r_task", "r_eff", "r_hall")
INFO_KEY = "verishop"


class VerishopData(vf.TaskData):
    env: str = "C1"
    """An environment (`pd`, `status`, `cart-v7` ...) or a collection (`C1` ... `C8`: the seed picks one)."""
    difficulty: int | None = 0
    """0-12; None lets the shop's curriculum choose."""
    seed: int = 0
    episode_id: str | None = None
    """Set per rollout by `VerishopEnv`: the shop episode this rollout plays."""
    env_id: str | None = None
    """Set per rollout: the versioned environment the episode belongs to (`pd-v10` ...)."""
    episode_difficulty: int | None = None
    """Set per rollout: the episode's difficulty (the curriculum's choice when `difficulty` is None)."""


class VerishopTaskConfig(vf.TaskConfig):
    base_url: str | None = None
    """A shop's control API (`verishop serve --transport http`) to play on; unset (the default),
    the episodes are played in this process (verishop installed in this venv: see the README)."""
    catalog: str | None = None
    """In process: the catalog file to play on (default: verishop's cached default catalog)."""
    runs_dir: str | None = None
    """In process: write each episode's run folder here when it is scored (the folder
    `verishop verify` re-scores identically); unset, nothing is written."""
    token: str | None = None
    """The control API's bearer token, when the shop has one (`--token`). Saved with the run's
    config; leave it unset to read it from `token_var` instead."""
    token_var: str = "VERISHOP_TOKEN"
    verifier_url: str = "http://127.0.0.1:8100"
    """With `base_url`: the verifier sidecar over the shop's runs folder (`verishop verifier serve`)."""
    verifier_token: str | None = None
    verifier_token_var: str = "VERISHOP_TOKEN"
    reward_timeout_s: float = 60.0
    """How long finalize waits for the sidecar's reward.json once the episode is closed."""
    mcp_url: str | None = None
    """Set per rollout by `VerishopEnv`: the episode's Streamable HTTP MCP endpoint."""

    @property
    def control_token(self) -> str | None:
        return self.token or os.environ.get(self.token_var) or None

    @property
    def sidecar_token(self) -> str | None:
        return self.verifier_token or os.environ.get(self.verifier_token_var) or None


class ShopTools(vf.Toolset[vf.ToolsetConfig]):
    """The episode's MCP server, reached at its URL; nothing is launched."""

    TOOL_PREFIX = None  # the model sees `search_catalog`, as the system prompt names it


class VerishopTask(vf.Task[VerishopData, vf.State, VerishopTaskConfig]):
    @property
    def key(self) -> str:
        # Every rollout plays its own episode; the task is the (env, difficulty, seed) it was drawn from.
        return task_key({"env": self.data.env, "difficulty": self.data.difficulty, "seed": self.data.seed})

    @classmethod
    def toolsets(cls, config: VerishopTaskConfig) -> list[vf.Toolset]:
        return [ShopTools(vf.ToolsetConfig(url=config.mcp_url))] if config.mcp_url else []

    async def setup(self, trace: vf.Trace) -> None:
        if self.data.episode_id is None or self.config.mcp_url is None:
            raise vf.TaskError("a verishop task is played through VerishopEnv, which opens its episode "
                               "(run it with the taskset id `verishop-verifiers`, not another env id)")

    @vf.stop
    async def episode_closed(self, request: vf.Request) -> bool:
        """The conversation tool's latest answer says the episode is closed: nothing is left to do."""
        return any(_says_closed(message.content) for message in _latest_tool_results(request.messages))

    async def finalize(self, trace: vf.Trace) -> None:
        config = self.config
        if config.base_url is None:
            from verishop_verifiers import local

            endpoint = local.find(self.data.episode_id)
            if endpoint is None:
                raise vf.TaskError(f"episode {self.data.episode_id} is not open in this process")
            reward, reason = await endpoint.finish(self.data.episode_id, config.runs_dir)
            closed = {"close_reason": reason}
        else:
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as http:
                closed = await close_episode(http, config.base_url, self.data.episode_id, config.control_token)
                reward = await episode_reward(http, config.verifier_url, self.data.episode_id,
                                              config.reward_timeout_s, config.sidecar_token)
        failed = [c.get("name") for c in reward.get("breakdown") or [] if c.get("passed") is False]
        # the verdict rides on the trace (traces.jsonl), beside the reward and metrics drawn from it
        trace.info[INFO_KEY] = {
            "verdict": reward.get("verdict"), "total": reward.get("total"),
            **{part: reward.get(part) for part in REWARD_PARTS}, "is_correct": bool(reward.get("is_correct")),
            "close_reason": reward.get("close_reason") or closed.get("close_reason"), "failed_checks": failed,
        }

    @vf.reward
    async def verishop_reward(self, trace: vf.Trace) -> float:
        """The verifier's total in [-1, 1]; an episode it could not score fails the rollout instead."""
        reward = trace.info.get(INFO_KEY)
        if reward is None or reward["verdict"] != "scored":
            raise vf.TaskError(f"episode {self.data.episode_id} was not scored: {reward}")
        return float(reward["total"])

    @vf.metric
    async def verishop(self, trace: vf.Trace) -> dict[str, float]:
        reward = trace.info.get(INFO_KEY) or {}
        parts = {part: float(reward[part]) for part in REWARD_PARTS if reward.get(part) is not None}
        return {**parts, "is_correct": float(bool(reward.get("is_correct")))}


class VerishopTasksetConfig(vf.TasksetConfig):
    id: str = "verishop-verifiers"
    env: str = "C1"
    """An environment or a collection (C1 = product discovery; C8 = all eight)."""
    difficulty: int | None = 0
    num_examples: int = 100
    """Tasks: seeds `first_seed` ... `first_seed + num_examples - 1`."""
    first_seed: int = 0
    task: VerishopTaskConfig = VerishopTaskConfig()


class VerishopTaskset(vf.Taskset[VerishopTask, VerishopTasksetConfig]):
    def load(self) -> list[VerishopTask]:
        config = self.config
        return [VerishopTask(VerishopData(name=f"{config.env}-d{config.difficulty}-s{seed}", env=config.env,
                                          difficulty=config.difficulty, seed=seed), config.task)
                for seed in range(config.first_seed, config.first_seed + config.num_examples)]


def _latest_tool_results(messages: list[Any]) -> list[Any]:
    """The tool results after the last assistant message, each with the name of the tool that made it."""
    calls: dict[str, str] = {}
    results = []
    for message in messages:
        if message.role == "assistant":
            calls = {call.id: call.name for call in message.tool_calls or []}
            results = []
        elif message.role == "tool" and (message.name or calls.get(message.tool_call_id)) == CONVERSATION_TOOL:
            results.append(message)
    return results


def _says_closed(content: Any) -> bool:
    text = content if isinstance(content, str) else " ".join(
        part.text for part in content or [] if getattr(part, "type", None) == "text")
    try:
        reply = json.loads(text)
    except ValueError:
        return False
    return isinstance(reply, dict) and reply.get("status") == "closed"
