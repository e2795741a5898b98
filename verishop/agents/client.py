"""A small client for a running `verishop serve --transport http`: open an episode, list its
tools as OpenAI function schemas, call them, close it, and wait for its reward.

    async with ShopClient("http://127.0.0.1:8000", verifier_url="http://127.0.0.1:8100") as shop:
        async with shop.episode(env="pd", difficulty=3, seed=7) as ep:
            print(ep.info.opening_message)
            result = await ep.call("search_catalog", query="usb-c charger")
            ...
        reward = await shop.reward(ep.info.episode_id)

`verishop.agents.sync_client.SyncShopClient` is the same for scripts.

Tool errors are results, not exceptions: `call` returns a `ToolResult` whose `is_error` is set
and whose `error` holds the shop's message (what an agent should read and act on);
`ToolResult.unwrap()` raises `ToolCallError` for callers that prefer an exception. Everything
else raises:

    ShopClientError             the server or verifier refused or failed a control request
    ├── ToolCallError           (only from ToolResult.unwrap) the shop answered with a tool error
    └── RewardTimeout           no reward within the deadline

The reward comes from the verifier sidecar (`GET /rewards/{id}`, polled until a deadline) when a
`verifier_url` is given, else from the verifier run in this process on the episode's folder
(`run_dir` from the control API: the client must share the server's file system).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2

REWARD_POLL_INTERVAL_S = 0.1
"""How often `ShopClient.reward` asks the sidecar for a reward.json not written yet."""


class ShopClientError(Exception):
    """A control request (create, close, reward) failed."""


class ToolCallError(ShopClientError):
    """The shop answered a tool call with an error."""


class RewardTimeout(ShopClientError):
    """The verifier had not scored the episode by the deadline."""


@dataclass(frozen=True)
class EpisodeInfo:
    """What POST /episodes returned."""

    episode_id: str
    """The episode's id (`ep_` and 96 random bits): it names the episode in every URL."""
    env_id: str
    """The versioned environment id, e.g. `pd-v9`."""
    difficulty: int
    """0 to 12 (chosen by the curriculum when the request named none)."""
    seed: int | None
    """The seed the scenario was generated from; None for a private test-split episode (its seed is
    the evaluator's secret)."""
    mcp_url: str
    """The episode's Streamable HTTP MCP endpoint: connect an MCP client here to play it."""
    system_prompt: str
    """The shop assistant's instructions, for the model's system message."""
    opening_message: str
    """What the customer says first."""
    max_turns: int
    """Messages to the customer before it gives up (per request in a journey)."""
    run_dir: str
    """The episode's folder on the server's machine (scenario, world, transcript, reward)."""

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> EpisodeInfo:
        """Build it from the JSON body of `POST /episodes` (extra keys are ignored)."""
        return cls(**{name: payload.get(name) if name == "seed" else payload[name] for name in cls.__dataclass_fields__})


@dataclass(frozen=True)
class ToolSpec:
    """One shop tool: its name, description, JSON input schema and behaviour hints."""

    name: str
    """The tool's name, e.g. `search_catalog`."""
    description: str
    """What the tool does, on one line."""
    parameters: dict[str, Any]
    """The JSON schema of its arguments (closed objects, suited to OpenAI's strict mode)."""
    read_only: bool
    """A lookup: it changes nothing, and counts against the per-turn lookup budget."""
    idempotent: bool
    """Calling it twice with the same arguments has the effect of calling it once."""

    @classmethod
    def of(cls, name: str, description: str | None, schema: dict[str, Any], annotations: Any) -> ToolSpec:
        """The spec of a tool as MCP describes it (its input schema and annotations): a listed tool's,
        or one of the server's own (`verishop.local` reads them without a protocol)."""
        return cls(name, " ".join((description or "").split()), _clean_schema(schema),
                   bool(annotations and annotations.read_only_hint), bool(annotations and annotations.idempotent_hint))

    def openai_schema(self) -> dict[str, Any]:
        """The tool as an OpenAI function-calling entry: `{"type": "function", "function": {...}}`."""
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call: structured data, or the shop's error message."""

    name: str
    """The tool that was called."""
    arguments: dict[str, Any]
    """The arguments it was called with."""
    data: dict[str, Any] | None
    """The tool's structured result; None when it failed."""
    error: str | None = None
    """The shop's error message (what an agent should read and act on); None on success."""

    @property
    def is_error(self) -> bool:
        """Whether the shop answered with a tool error."""
        return self.error is not None

    def unwrap(self) -> dict[str, Any]:
        """The structured result, or `ToolCallError` with the shop's message if the call failed."""
        if self.error is not None:
            raise ToolCallError(self.error)
        return self.data or {}


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The MCP input schema as a function-calling `parameters` object (titles dropped: noise to
    a model, and some endpoints reject unknown keys at the top level)."""
    cleaned = {k: v for k, v in schema.items() if k != "title"}
    cleaned["properties"] = {name: {k: v for k, v in prop.items() if k != "title"}
                             for name, prop in schema.get("properties", {}).items()}
    cleaned.setdefault("type", "object")
    return cleaned


@dataclass
class Episode:
    """An open episode and the MCP connection to it (use through `ShopClient.episode`)."""

    info: EpisodeInfo
    """What the server said when it created the episode."""
    shop: ShopClient
    """The client that opened it."""
    mcp: Any  # mcp.Client, entered
    """The MCP client session connected to the episode's `mcp_url`."""
    close_reason: str | None = None
    """Why the episode ended (`customer_done`, `agent_done`, `turn_budget` …); None while it is open."""
    _tools: list[ToolSpec] | None = field(default=None, repr=False)

    async def tools(self) -> list[ToolSpec]:
        """The episode's tools, listed once over MCP and kept."""
        if self._tools is None:
            listed = await self.mcp.list_tools()
            self._tools = [ToolSpec.of(t.name, t.description, t.input_schema, t.annotations) for t in listed.tools]
        return self._tools

    async def openai_tools(self) -> list[dict[str, Any]]:
        """The tools as OpenAI function-calling schemas (`ToolSpec.openai_schema`)."""
        return [tool.openai_schema() for tool in await self.tools()]

    async def call(self, name: str, arguments: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        """Call a shop tool; a tool error comes back as `ToolResult.error`, never raised.

        Arguments are given as a mapping, as keywords, or both (keywords win):
        `await ep.call("search_catalog", query="desk lamp", limit=5)`. A `respond_to_customer`
        call that ends the episode sets `close_reason`."""
        arguments = {**(arguments or {}), **kwargs}
        result = await self.mcp.call_tool(name, arguments)
        text = "".join(getattr(c, "text", "") for c in result.content or [])
        if result.is_error:
            return ToolResult(name, arguments, None, text or f"{name} failed")
        data = result.structured_content or {}
        if name == "respond_to_customer" and data.get("status") == "closed":
            self.close_reason = data.get("close_reason")
        return ToolResult(name, arguments, data)

    async def close(self) -> str:
        """Close the episode (files become final); returns why it closed."""
        payload = await self.shop._request("DELETE", f"/episodes/{self.info.episode_id}")
        self.close_reason = payload.get("close_reason") or self.close_reason
        return self.close_reason or "closed"

    async def reward(self, timeout_s: float = 30.0) -> dict[str, Any]:
        """The episode's reward.json once the verifier has scored it (see `ShopClient.reward`)."""
        return await self.shop.reward(self.info.episode_id, run_dir=self.info.run_dir, timeout_s=timeout_s)


class ShopClient:
    """Async client for the control API, the per-episode MCP endpoints and the verifier."""

    def __init__(self, base_url: str, *, verifier_url: str | None = None, timeout_s: float = 60.0,
                 token: str | None = None):
        """Use it as `async with ShopClient(...) as shop:`.

        Args:
            base_url: the server's control API, e.g. `http://127.0.0.1:8000`.
            verifier_url: the verifier sidecar (`verishop verifier serve`) to read rewards from;
                without it, `reward` scores the episode's folder in this process (the client must
                then share the server's file system).
            timeout_s: the HTTP timeout of every request.
            token: the server's control token (`verishop serve --token`), sent as a bearer token
                on the control API; an episode's MCP URL needs none.
        """
        self.base_url = base_url.rstrip("/")
        self._auth = {"authorization": f"Bearer {token}"} if token else {}
        self.verifier_url = verifier_url.rstrip("/") if verifier_url else None
        self.timeout_s = timeout_s
        self._http: httpx2.AsyncClient | None = None
        self._run_dirs: dict[str, str] = {}

    async def __aenter__(self) -> ShopClient:
        self._http = httpx2.AsyncClient(timeout=httpx2.Timeout(self.timeout_s))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def _request(self, method: str, path: str, *, base: str | None = None,
                       json: dict[str, Any] | None = None) -> dict[str, Any]:
        if self._http is None:
            raise ShopClientError("use `async with ShopClient(...)` before making requests")
        try:
            response = await self._http.request(method, (base or self.base_url) + path, json=json,
                                                headers=self._auth)
        except httpx2.TransportError as exc:
            raise ShopClientError(f"{method} {path}: {exc!r}") from exc
        if response.status_code >= 400:
            raise ShopClientError(f"{method} {path}: HTTP {response.status_code}: {response.text[:500]}")
        return response.json()

    async def health(self) -> dict[str, Any]:
        """`GET /health`: liveness, open episodes and, with workers, each worker's load."""
        return await self._request("GET", "/health")

    async def create(self, *, env: str | None = None, collection: str | None = None, difficulty: int | None = None,
                     seed: int | None = None, scenario: dict[str, Any] | None = None,
                     split: str | None = None) -> EpisodeInfo:
        """POST /episodes with only what was given (the server picks the rest, e.g. the difficulty).

        Args:
            env: an environment, by short name (`pd`) or versioned id (`pd-v9`).
            collection: instead of `env`, a training collection (`C1`, `C2`, `C4`, `C8`): the seed
                picks the environment.
            difficulty: 0 to 12; leave it out to let the server's curriculum choose.
            seed: the scenario's seed; leave it out for a fresh random one. With `split`, the
                episode's index in that split.
            scenario: instead of all the above, a whole scenario to serve (checked by the server).
            split: `train`, `dev` or `test`: seeds from that split's own seed space (the test split
                needs the server's secret).
        """
        body = {k: v for k, v in dict(env=env, collection=collection, difficulty=difficulty, seed=seed,
                                       scenario=scenario, split=split).items() if v is not None}
        info = EpisodeInfo.from_payload(await self._request("POST", "/episodes", json=body))
        self._run_dirs[info.episode_id] = info.run_dir
        return info

    @contextlib.asynccontextmanager
    async def episode(self, **spec: Any) -> AsyncIterator[Episode]:
        """Open an episode and an MCP connection to it; on exit the episode is closed if still open.

        `spec` takes the arguments of `create`: `async with shop.episode(env="pd", seed=7) as ep:`."""
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        info = await self.create(**spec)
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(self.timeout_s)) as mcp_http:
            async with Client(streamable_http_client(info.mcp_url, http_client=mcp_http)) as mcp:
                episode = Episode(info, self, mcp)
                try:
                    yield episode
                finally:
                    with anyio.CancelScope(shield=True):
                        await episode.close()

    async def reward(self, episode_id: str, *, run_dir: str | None = None, timeout_s: float = 30.0) -> dict[str, Any]:
        """The episode's reward.json: from the sidecar (polled until `timeout_s`), else scored here.

        The reward's `total` is in [-1, 1]; `is_correct` says whether the task was solved, and
        `breakdown` holds each check. Raises `RewardTimeout` when the sidecar has not scored the
        episode by the deadline (an episode is scored once it is closed)."""
        if self.verifier_url is None:
            directory = run_dir or self._run_dirs.get(episode_id)
            if directory is None:
                raise ShopClientError(f"no run_dir known for {episode_id}; pass run_dir or a verifier_url")
            return await anyio.to_thread.run_sync(_score_here, Path(directory))
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                return await self._request("GET", f"/rewards/{episode_id}", base=self.verifier_url)
            except ShopClientError as exc:
                if "HTTP 404" not in str(exc):
                    raise
                if time.monotonic() > deadline:
                    raise RewardTimeout(f"no reward for {episode_id} within {timeout_s:.0f}s: {exc}") from exc
            await anyio.sleep(REWARD_POLL_INTERVAL_S)


_scorers = threading.local()


def _score_here(directory: Path) -> dict[str, Any]:
    """Score the episode in this process, with one verifier per thread kept from episode to
    episode: a new one opened its catalog again, a third of a verification's CPU at 1k products."""
    from verishop.verifier.runner import Verifier

    verifier = getattr(_scorers, "verifier", None)
    if verifier is None:
        verifier = _scorers.verifier = Verifier()
    return verifier.verify(directory).model_dump(mode="json")
