"""How one verishop task becomes one verifiers episode: open a fresh shop episode, let the agent
play it, and make sure it is closed.

The episode is opened in this process (the default: local.py) or on the shop at `base_url`.
Either way the shop keeps an episode's state, named by the episode's URL, so each rollout
(each member of a GRPO group too) gets its own episode: the task it plays is a copy of the
drawn task carrying that episode's ID, prompts and MCP URL (taskset.py takes it from there).
"""

from __future__ import annotations

import contextlib

import httpx
import verifiers.v1 as vf

from verishop_verifiers.shop import ShopError, close_episode, episode_spec, open_episode
from verishop_verifiers.taskset import HTTP_TIMEOUT_S, VerishopTask

MAX_TURNS = 40
"""Model turns per rollout by default (`--env.agent.max-turns`): more than any episode needs
(d = 12 allows 10 customer turns and 7 lookups between two of them), few enough that a model
looping on tool errors stops."""


class VerishopEnvConfig(vf.EnvConfig):
    # Verifiers' minimal chat loop with MCP tools, on this machine: the shop is reached over HTTP,
    # so the agent needs no sandbox (the default runtime is a remote Prime sandbox).
    agent: vf.AgentConfig = vf.AgentConfig(harness=vf.HarnessConfig(id="null"), runtime=vf.SubprocessConfig(),
                                           max_turns=MAX_TURNS)


class VerishopEnv(vf.Env[VerishopEnvConfig]):
    async def run(self, task: VerishopTask, agents: vf.Agents) -> None:
        if task.config.base_url is None:
            await self._run_in_process(task, agents)
            return
        config = task.config
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as http:
            episode = await open_episode(http, config.base_url,
                                         episode_spec(task.data.env, task.data.difficulty, task.data.seed),
                                         config.control_token)
        played = task.with_data(system_prompt=episode.system_prompt,
                                prompt=f"The customer says:\n{episode.opening_message}",
                                episode_id=episode.episode_id, env_id=episode.env_id,
                                episode_difficulty=episode.difficulty)
        played.config = config.model_copy(update={"mcp_url": episode.mcp_url})
        trace = await agents.agent.run(played)
        if not trace.ok:  # finalize closes a played episode; one whose rollout failed must not stay open
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as http:
                with contextlib.suppress(ShopError, httpx.HTTPError):
                    await close_episode(http, config.base_url, episode.episode_id, config.control_token)

    async def _run_in_process(self, task: VerishopTask, agents: vf.Agents) -> None:
        from verishop_verifiers import local

        config = task.config
        endpoint = await local.endpoint(config.catalog)
        try:
            episode = await endpoint.open(episode_spec(task.data.env, task.data.difficulty, task.data.seed))
        except ValueError as exc:  # the shop's refusal (an unknown env, a bad difficulty): the rollout's error
            raise ShopError(str(exc)) from None
        info = episode.info
        played = task.with_data(system_prompt=info.system_prompt,
                                prompt=f"The customer says:\n{info.opening_message}",
                                episode_id=info.episode_id, env_id=info.env_id, episode_difficulty=info.difficulty)
        played.config = config.model_copy(update={"mcp_url": endpoint.url(info.episode_id)})
        try:
            trace = await agents.agent.run(played)
        except BaseException:
            await _abandon(endpoint, info.episode_id, config.runs_dir)
            raise
        if not trace.ok:  # finalize scores a played episode; one whose rollout failed must not stay open
            await _abandon(endpoint, info.episode_id, config.runs_dir)


async def _abandon(endpoint: object, episode_id: str, runs_dir: str | None) -> None:
    """Close and score an in-process episode its rollout left open (finalize may have done it)."""
    with contextlib.suppress(Exception):
        await endpoint.finish(episode_id, runs_dir)  # type: ignore[attr-defined]
