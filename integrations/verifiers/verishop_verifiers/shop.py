"""The two HTTP services a rollout talks to, outside MCP: the shop's control API (open and close an
episode) and the verifier sidecar (the episode's reward). Plain functions over one httpx client.

    ShopError
     └── RewardTimeout   the sidecar wrote no reward.json within the bounded wait
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

POLL_INTERVAL_S = 0.1


class ShopError(Exception):
    """The shop or its sidecar refused a request or answered something unexpected."""


class RewardTimeout(ShopError):
    """No reward.json appeared within the wait (the episode is not closed, or no sidecar watches its runs)."""


@dataclass(frozen=True)
class Episode:
    """What `POST /episodes` answers, as far as a rollout needs it."""

    episode_id: str
    env_id: str
    difficulty: int
    seed: int
    mcp_url: str
    system_prompt: str
    opening_message: str
    max_turns: int


def episode_spec(env: str, difficulty: int | None, seed: int) -> dict[str, Any]:
    """The control API's body: `env` may name one environment (`pd`, `cart-v7`) or a collection (C1 ... C8),
    in which case the seed picks the environment; without a difficulty the server's curriculum chooses."""
    spec: dict[str, Any] = {"seed": seed}
    spec["collection" if env.upper().startswith("C") and env[1:].isdigit() else "env"] = env
    if difficulty is not None:
        spec["difficulty"] = difficulty
    return spec


def _headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _check(response: httpx.Response, what: str) -> dict[str, Any]:
    if response.status_code >= 400:
        raise ShopError(f"{what}: HTTP {response.status_code} {response.text[:300]}")
    return response.json()


async def open_episode(http: httpx.AsyncClient, base_url: str, spec: dict[str, Any],
                       token: str | None = None) -> Episode:
    body = _check(await http.post(f"{base_url.rstrip('/')}/episodes", json=spec, headers=_headers(token)),
                  "POST /episodes")
    return Episode(episode_id=body["episode_id"], env_id=body["env_id"], difficulty=body["difficulty"],
                   seed=body["seed"], mcp_url=body["mcp_url"], system_prompt=body["system_prompt"],
                   opening_message=body["opening_message"], max_turns=body["max_turns"])


async def close_episode(http: httpx.AsyncClient, base_url: str, episode_id: str,
                        token: str | None = None) -> dict[str, Any]:
    """Close the episode (a no-op answer if it is closed already); its files become final."""
    return _check(await http.delete(f"{base_url.rstrip('/')}/episodes/{episode_id}", headers=_headers(token)),
                  f"DELETE /episodes/{episode_id}")


async def episode_reward(http: httpx.AsyncClient, verifier_url: str, episode_id: str, timeout_s: float,
                         token: str | None = None) -> dict[str, Any]:
    """The sidecar's reward.json for a closed episode, polled until it is written (the sidecar
    scores an episode about 100 ms after it closes); bounded by `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    url = f"{verifier_url.rstrip('/')}/rewards/{episode_id}"
    while True:
        response = await http.get(url, headers=_headers(token))
        if response.status_code == 200:
            return response.json()
        if response.status_code != 404:
            raise ShopError(f"GET /rewards/{episode_id}: HTTP {response.status_code} {response.text[:300]}")
        if time.monotonic() > deadline:
            raise RewardTimeout(f"no reward for {episode_id} after {timeout_s:g} s")
        await anyio.sleep(POLL_INTERVAL_S)
