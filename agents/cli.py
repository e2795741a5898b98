"""`verishop demo`: scripted agents play a few seeded episodes through the real MCP server
while the terminal shows the conversation and every tool call."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
from rich.console import Console

from agents.session import ShopSession
from scenarios.models import Scenario

console = Console()

DEMO_EPISODES = (("pd", 1, 11, "oracle"), ("pd", 4, 12, "greedy"), ("pd", 8, 13, "oracle"))


class Transport(str, Enum):
    memory = "memory"
    stdio = "stdio"


def _short(value: Any, width: int = 110) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _show_call(tool: str, args: dict, result: dict | None, error: str | None) -> None:
    if tool == "respond_to_customer":
        console.print(f"  [bold green]assistant[/]: {args['message']}"
                      + (f"  [dim]recommends {args.get('recommended_product_ids')}[/]"
                         if args.get("recommended_product_ids") else ""))
        if result:
            console.print(f"  [bold cyan]customer[/]: {result['customer_message']}  "
                          f"[dim](turn {result['turns_used']}, {result['status']}"
                          f"{', ' + result['close_reason'] if result['close_reason'] else ''})[/]")
        return
    console.print(f"  [yellow]→ {tool}[/]({_short(args, 90)})")
    if error:
        console.print(f"  [red]← {error}[/]")
    elif tool == "search_catalog":
        for p in result["results"][:4]:
            console.print(f"  [dim]← {p['product_id']} {p['title']} ${p['price_usd']} ★{p['rating']}[/]")
    elif tool != "get_conversation":
        console.print(f"  [dim]← {_short(result)}[/]")


def _agent(name: str, scenario: Scenario):
    from agents.scripted import GreedyAgent, OracleAgent

    return OracleAgent(scenario) if name == "oracle" else GreedyAgent()


async def _play_memory(catalog: Path, runs: Path) -> None:
    from mcp import Client

    from mcp_server.hub import EpisodeHub
    from mcp_server.tools import create_server

    hub = EpisodeHub(catalog, runs)
    try:
        for env, difficulty, seed, agent_name in DEMO_EPISODES:
            scenario = hub.generate(env, difficulty, seed)
            episode = await hub.open(scenario, default=True)
            _header(scenario, agent_name, episode.directory)
            async with Client(create_server(hub)) as client:
                await _agent(agent_name, scenario).play(ShopSession(client, [_show_call]))
            if episode.episode_id in hub.episodes:
                await hub.close(episode.episode_id, "agent_stopped")
            _footer(episode.directory)
    finally:
        await hub.aclose()


async def _play_stdio(catalog: Path, runs: Path) -> None:
    from mcp import Client, StdioServerParameters

    from scenarios.catalog.reader import CatalogReader
    from scenarios.envs import generate

    with CatalogReader(catalog) as reader:
        scenarios = [(generate(e, d, s, reader), a) for e, d, s, a in DEMO_EPISODES]
    runs.mkdir(parents=True, exist_ok=True)
    for scenario, agent_name in scenarios:
        spec = runs / f".demo-{scenario.env_id}-{scenario.difficulty}-{scenario.seed}.json"
        spec.write_text(scenario.to_json())
        params = StdioServerParameters(command=sys.executable, args=[
            "-m", "verishop", "serve", "--transport", "stdio", "--scenario", str(spec),
            "--catalog", str(catalog), "--runs-dir", str(runs)])
        _header(scenario, agent_name, None)
        async with Client(params) as client:
            await _agent(agent_name, scenario).play(ShopSession(client, [_show_call]))
        spec.unlink()


def _header(scenario: Scenario, agent: str, directory: Path | None) -> None:
    console.rule(f"[bold]{scenario.env_id}[/] difficulty {scenario.difficulty} seed {scenario.seed} · agent {agent}")
    console.print(f"  [bold cyan]customer[/]: {scenario.opening_message}")


def _footer(directory: Path) -> None:
    closed = [json.loads(line) for line in (directory / "transcript.jsonl").read_text().splitlines()][-1]
    console.print(f"  [dim]episode closed: {closed.get('reason')} · files in {directory}[/]")


def demo(
    transport: Annotated[Transport, typer.Option(help="memory: in-process MCP; stdio: a server subprocess "
                                                      "per episode.")] = Transport.memory,
    runs_dir: Annotated[Path, typer.Option(help="Where episode folders go.")] = Path("runs"),
    catalog: Annotated[Path | None, typer.Option(help="Catalog file (default: the cached one).")] = None,
) -> None:
    """Watch scripted agents serve customers through the real MCP server."""
    from scenarios.console import resolve_catalog

    catalog_file = resolve_catalog(catalog)
    play = _play_memory if transport is Transport.memory else _play_stdio
    anyio.run(play, catalog_file, runs_dir)
