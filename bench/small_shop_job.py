"""The job of `bench/small_shop.py`, one round of it: verishop's side (in-memory protocol calls,
scripted episodes, HTTP server CPU) and the peer's (through `bench/peer_ecomrlve.py`), timed in CPU
(`time.process_time`, every thread of this process) and wall, step by step."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from episode_create import bare_world
from peer_ecomrlve import Peer

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.inprocess import InProcessClient
from verishop.mcp_server.shop import catalog as shop_catalog
from verishop.mcp_server.tools import create_server
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.models import Scenario
from verishop.verifier.runner import Settings, Verifier

ENV, EPISODE_SEED, WARMUP = "pd", 24_000, 3


class Laps:
    """CPU and wall time of consecutive steps: `lap(name)` closes the step that began at the last lap."""

    def __init__(self, samples: dict[str, dict[str, list[float]]]):
        self.samples = samples
        self.restart()

    def restart(self) -> None:
        self.cpu_s, self.wall_s = time.process_time(), time.perf_counter()

    def lap(self, name: str) -> None:
        cpu_s, wall_s = time.process_time(), time.perf_counter()
        self.samples["cpu"][name].append(cpu_s - self.cpu_s)
        self.samples["wall"][name].append(wall_s - self.wall_s)
        self.cpu_s, self.wall_s = cpu_s, wall_s


def new_samples() -> dict[str, dict[str, list[float]]]:
    return {"cpu": defaultdict(list), "wall": defaultdict(list)}


def tool_arguments(query: dict) -> dict:
    """The shop function's arguments as an agent sends them (attribute filters as name/value pairs)."""
    arguments = dict(query)
    arguments["attributes"] = [{"name": k, "value": v} for k, v in query["attributes"].items()] or None
    return arguments


def unlimited(scenario: Scenario) -> Scenario:
    """The same scenario with a lookup budget the timed calls cannot exhaust (this measures speed)."""
    axes = scenario.axes.model_copy(update={"tool_calls_per_turn": 1_000_000, "max_turns": 1_000})
    return scenario.model_copy(update={"axes": axes})


def floor_server():
    """The SDK's own floor: a bare MCPServer with one trivial tool."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("floor", log_level="WARNING")

    @server.tool()
    async def ping() -> str:
        """Answers pong."""
        return "pong"

    return server


async def protocol_round(hub: EpisodeHub, queries: list[dict], calls: int, samples: dict) -> None:
    """Search and no-op calls on one long episode, through both in-memory clients, and the floors."""
    from mcp import Client

    episode = await hub.open(unlimited(hub.generate(ENV, 3, EPISODE_SEED)))
    server, laps = create_server(hub, episode_id=episode.episode_id), Laps(samples)
    async with Client(server) as sdk, InProcessClient(server) as own, Client(floor_server()) as floor:
        for client in (sdk, own):  # warm-up: the SDK client lists the tools and compiles validators
            for query in queries[:20]:
                assert not (await client.call_tool("search_catalog", tool_arguments(query))).is_error
            await client.call_tool("get_current_date", {})
        await floor.call_tool("ping", {})
        steps: list[tuple[str, Callable[[dict], Awaitable[object]]]] = [
            ("search_direct", lambda query: shop_catalog.search_catalog(episode, **query)),
            ("search_step", lambda query: own.call_tool("search_catalog", tool_arguments(query))),
            ("search_step_sdk", lambda query: sdk.call_tool("search_catalog", tool_arguments(query))),
            ("noop", lambda query: own.call_tool("get_current_date", {})),
            ("noop_sdk", lambda query: sdk.call_tool("get_current_date", {})),
            ("noop_floor", lambda query: floor.call_tool("ping", {}))]
        for i in range(calls):
            query = queries[i % len(queries)]
            shift = i % len(steps)  # each step follows each other one in turn: no step always runs warm
            for name, step in steps[shift:] + steps[:shift]:
                laps.restart()
                await step(query)
                laps.lap(name)
    await hub.close(episode.episode_id, "bench")


async def episodes_round(hub: EpisodeHub, verifier: Verifier, scratch: Path, episodes: int, samples: dict) -> dict:
    """Scripted episodes one after another; returns their count, scored count and wall seconds."""
    laps, scored, wall_s = Laps(new_samples()), 0, 0.0
    for i in range(WARMUP + episodes):
        if i == WARMUP:
            laps = Laps(samples)
        laps.restart()
        started_s = time.perf_counter()
        scenario = hub.generate(ENV, i % (MAX_DIFFICULTY + 1), EPISODE_SEED + i)
        laps.lap("generate")
        episode = await hub.open(scenario)
        laps.lap("open")
        async with InProcessClient(create_server(hub, episode_id=episode.episode_id)) as client:
            laps.lap("connect")
            found = await client.call_tool("search_catalog", {"category_id": scenario.goal.category_id,
                                                              "limit": scenario.goal.items_to_recommend})
            laps.lap("episode_search")
            ids = [card["product_id"] for card in (found.structured_content or {}).get("results", [])]
            await client.call_tool("respond_to_customer", {"message": "These fit what you asked for.",
                                                           "recommended_product_ids": ids, "done": True})
            if episode.episode_id in hub.episodes:
                await hub.close(episode.episode_id, "agent_stopped")
            laps.lap("answer_close")
        laps.lap("disconnect")
        reward = verifier.verify(episode.directory)
        laps.lap("verify")
        if i >= WARMUP:
            wall_s += time.perf_counter() - started_s
            scored += reward.verdict == "scored"
        bare_world(scratch / f"bare-{i}.db")  # the floor, interleaved with the opens
        laps.lap("bare_sqlite")
    return {"episodes": episodes, "scored": scored, "wall_s": wall_s}


def _scripted_local(episode: Any) -> Any:
    """The scripted job on one in-process episode: search the goal's category, answer, close, score."""
    goal = episode.scenario.goal
    found = episode.call("search_catalog", {"category_id": goal.category_id, "limit": goal.items_to_recommend})
    ids = [card["product_id"] for card in (found.data or {}).get("results", [])]
    episode.call("respond_to_customer", {"message": "These fit what you asked for.", "recommended_product_ids": ids,
                                         "done": True})
    return episode.reward_model()


def local_round(shop: Any, episodes: int, samples: dict) -> dict:
    """The scripted episode in the trainer's process (`verishop.local.LocalShop`): open from (env, d,
    seed), one search, the answer, close and the verifier's reward; no protocol, no files."""
    laps, scored, wall_s = Laps(new_samples()), 0, 0.0
    for i in range(WARMUP + episodes):
        if i == WARMUP:
            laps = Laps(samples)
        laps.restart()
        started_s = time.perf_counter()
        episode = shop.open(env=ENV, difficulty=i % (MAX_DIFFICULTY + 1), seed=EPISODE_SEED + i)
        laps.lap("local_open")
        reward = _scripted_local(episode)
        laps.lap("local_play_score")
        if i >= WARMUP:
            wall_s += time.perf_counter() - started_s
            scored += reward.verdict == "scored"
    return {"episodes": episodes, "scored": scored, "wall_s": wall_s}


async def local_mcp_round(shop: Any, episodes: int, samples: dict) -> None:
    """The same in-process episodes played through the MCP SDK's in-memory client (the shop's
    `InProcessClient` over a server built on the LocalShop): the protocol's cost over `local_round`."""
    laps = Laps(new_samples())
    for i in range(WARMUP + episodes):
        if i == WARMUP:
            laps = Laps(samples)
        laps.restart()
        episode = await shop.aopen(env=ENV, difficulty=i % (MAX_DIFFICULTY + 1), seed=EPISODE_SEED + i)
        goal = episode.scenario.goal
        async with InProcessClient(create_server(shop, episode_id=episode.episode_id)) as client:
            found = await client.call_tool("search_catalog", {"category_id": goal.category_id,
                                                              "limit": goal.items_to_recommend})
            ids = [card["product_id"] for card in (found.structured_content or {}).get("results", [])]
            await client.call_tool("respond_to_customer", {"message": "These fit what you asked for.",
                                                           "recommended_product_ids": ids, "done": True})
        await episode.areward()
        laps.lap("local_mcp_scripted")


async def verishop_round(catalog: Path, runs: Path, queries: list[dict], calls: int, episodes: int,
                         samples: dict) -> dict:
    runs.mkdir(parents=True)
    hub = EpisodeHub(catalog, runs / "episodes")
    try:
        with Verifier(Settings()) as verifier:
            await protocol_round(hub, queries, calls, samples)
            return await episodes_round(hub, verifier, runs, episodes, samples)
    finally:
        await hub.aclose()


async def http_round(catalog: Path, runs: Path, queries: list[dict], calls: int) -> dict[str, float]:
    """Server CPU per call (ms) over Streamable HTTP: no-op and search, one client, sequential calls."""
    import httpx2
    from _common import start_http_server
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from server_cpu import cpu_s, new_turn

    from verishop.agents.evaluate import _wait_healthy

    port, server = start_http_server(catalog, runs)
    try:
        async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=httpx2.Timeout(120)) as http:
            await _wait_healthy(http, server)
            scenario = http_scenario(catalog)
            created = await http.post("/episodes", json={"scenario": scenario.model_dump(mode="json")})
            created.raise_for_status()
            async with Client(streamable_http_client(created.json()["mcp_url"], http_client=http)) as client:
                result = {}
                for name, tool, arguments in (("noop_http", "get_current_date", lambda i: {}),
                                              ("search_http", "search_catalog",
                                               lambda i: tool_arguments(queries[i % len(queries)]))):
                    for i in range(20):
                        await client.call_tool(tool, arguments(i))
                    spent_s = 0.0
                    for start in range(0, calls, 500):  # a new turn now and then: the budget is per turn
                        await new_turn(client)
                        before_s = cpu_s(server.pid)
                        for i in range(start, min(calls, start + 500)):
                            assert not (await client.call_tool(tool, arguments(i))).is_error
                        spent_s += cpu_s(server.pid) - before_s
                    result[name] = spent_s / calls * 1000
                return result
    finally:
        server.terminate()
        server.wait(timeout=30)


def http_scenario(catalog: Path) -> Scenario:
    """The protocol round's scenario for the server in another process, sent whole (POST /episodes):
    the largest lookup budget that the control API admits."""
    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.envs import generate

    with CatalogReader(catalog) as reader:
        scenario = generate(ENV, 3, EPISODE_SEED, reader)
    axes = scenario.axes.model_copy(update={"tool_calls_per_turn": 1_000, "max_turns": 500})
    return scenario.model_copy(update={"axes": axes})


def peer_round(peer: Peer, env: Any, queries: list[dict], episodes: int, samples: dict) -> dict:
    """The peer's job: reset, a search step, the answer step; the direct search beside it."""
    laps, wall_s = Laps(new_samples()), 0.0
    for i in range(WARMUP + episodes):
        if i == WARMUP:
            laps = Laps(samples)
        query = queries[i % len(queries)]
        laps.restart()
        started_s = time.perf_counter()
        peer.create(env, EPISODE_SEED + i)
        laps.lap("creation")
        step = peer.search_step(env, query)
        laps.lap("search_step")
        peer.answer_step(env, step[0] if isinstance(step, tuple) else step)
        laps.lap("answer")
        if i >= WARMUP:
            wall_s += time.perf_counter() - started_s
        peer.search(env, query)
        laps.lap("search_direct")
    return {"episodes": episodes, "wall_s": wall_s}
