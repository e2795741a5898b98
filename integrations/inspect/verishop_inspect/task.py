"""verishop as an Inspect AI task: each sample is one shop episode, played through Inspect's own
MCP client, scored by verishop's verifier.

    verishop serve --transport http --no-default-episode --port 8000 --runs-dir runs &
    verishop verifier serve --runs-dir runs --port 8100 &
    inspect eval verishop_inspect/verishop -T env=pd -T difficulty=3 -T seeds=20 --model openai/gpt-4o-mini

- The solver opens the sample's episode (`POST /episodes` with its env, difficulty and seed),
  puts the episode's system prompt and the customer's opening message in the conversation, and
  lets the model call the sixteen shop tools at the episode's MCP URL (Inspect's
  `mcp_server_http`) until it answers without a tool call (or the message limit).
- The scorer closes the episode if the model left it open and waits (bounded) for the verifier
  sidecar's `reward.json` (`GET /rewards/{id}`): the score is its `total` in [-1, 1], with
  `solved` (is_correct) beside it and the whole reward in the score's metadata.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import mcp_connection, mcp_server_http

EPISODE_KEY = "verishop_episode_id"
POLL_INTERVAL_S = 0.1
INSTRUCTION = "A customer of the shop is waiting. Serve them with the shop's tools."


@task
def verishop(server_url: str = "http://127.0.0.1:8000", verifier_url: str = "http://127.0.0.1:8100",
             env: str = "pd", difficulty: int = 0, seeds: int = 10, first_seed: int = 0,
             message_limit: int = 60) -> Task:
    """`seeds` episodes of one environment at one difficulty (`env` may also be a collection: C1 ... C8)."""
    samples = [Sample(input=INSTRUCTION, id=f"{env}-d{difficulty}-s{seed}",
                      metadata={"env": env, "difficulty": difficulty, "seed": seed})
               for seed in range(first_seed, first_seed + seeds)]
    return Task(dataset=MemoryDataset(samples), solver=shop_agent(server_url),
                scorer=verishop_scorer(server_url, verifier_url), message_limit=message_limit)


@solver
def shop_agent(server_url: str):
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        spec = {k: state.metadata[k] for k in ("difficulty", "seed")}
        spec["collection" if str(state.metadata["env"]).upper().startswith("C") else "env"] = state.metadata["env"]
        async with httpx.AsyncClient(timeout=60) as http:
            response = await http.post(f"{server_url.rstrip('/')}/episodes", json=spec)
            response.raise_for_status()
            episode = response.json()
        state.metadata[EPISODE_KEY] = episode["episode_id"]
        state.messages = [ChatMessageSystem(content=episode["system_prompt"]),
                          ChatMessageUser(content=f"The customer says:\n{episode['opening_message']}")]
        shop = mcp_server_http(name="verishop", url=episode["mcp_url"], timeout=60)
        async with mcp_connection([shop]):
            state.tools = await shop.tools()
            return await generate(state, tool_calls="loop")

    return solve


@scorer(metrics={"total": [mean()], "solved": [mean()]})
def verishop_scorer(server_url: str, verifier_url: str, timeout_s: float = 60.0):
    async def score(state: TaskState, target: Target) -> Score:
        episode_id = state.metadata[EPISODE_KEY]
        async with httpx.AsyncClient(timeout=60) as http:
            closed = await http.delete(f"{server_url.rstrip('/')}/episodes/{episode_id}")
            closed.raise_for_status()
            reward = await _reward(http, verifier_url.rstrip("/"), episode_id, timeout_s)
        failed = [c["name"] for c in reward.get("breakdown") or [] if c.get("passed") is False]
        return Score(value={"total": float(reward.get("total") or 0.0), "solved": float(bool(reward.get("is_correct")))},
                     answer=closed.json().get("close_reason"),
                     explanation=f"verdict {reward.get('verdict')}; failed checks: {', '.join(failed) or 'none'}",
                     metadata={"episode_id": episode_id, "reward": reward})

    return score


async def _reward(http: httpx.AsyncClient, verifier_url: str, episode_id: str, timeout_s: float) -> dict[str, Any]:
    """The sidecar's reward.json, polled until it is written (it scores an episode once it closes)."""
    deadline = time.monotonic() + timeout_s
    while True:
        response = await http.get(f"{verifier_url}/rewards/{episode_id}")
        if response.status_code == 200:
            return response.json()
        if response.status_code != 404 or time.monotonic() > deadline:
            raise RuntimeError(f"no reward for {episode_id}: HTTP {response.status_code} {response.text[:200]}")
        await anyio.sleep(POLL_INTERVAL_S)
