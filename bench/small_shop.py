"""Small shops against the peer (issue 24): verishop's CPU per step at 1k/10k/100k products, beside
EcomRLVE-Gym on the same job, or beside its own floors when no checkout of the peer is given.

The job, per catalog size, interleaved in --rounds rounds (medians over every round's samples; CPU
is `time.process_time`, all of this process's threads; wall beside it):
- creation: generate a product-discovery scenario and open its episode (`hub.generate` + `hub.open`);
- a search step through the in-memory MCP client (the shop's `InProcessClient`), the same through
  the SDK's default `mcp.Client` (what the project used before), and the same search called directly
  (`shop.catalog.search_catalog`), over bench/search.py's seeded query mix;
- a no-op tool (`get_current_date`) through both in-memory clients and, with --http-calls, search
  and no-op over Streamable HTTP against a `verishop serve` subprocess (its CPU read from /proc);
- a scripted episode: create, connect (a server bound to the episode + an in-memory client, as
  `verishop eval --transport memory` does), search the goal's category, answer with the results
  (respond_to_customer, done: the episode closes), disconnect, verify (`Verifier.verify`, what the
  sidecar and `verishop eval` run on a closed episode); episodes/s is in-process wall time.
Floors measured in the same run: generation alone, a bare SQLite world file (connect, WAL, the
world's tables, close), the SDK's in-memory no-op on a bare `MCPServer` with one trivial tool, and
the search called directly.

With `--peer PATH`, the EcomRLVE-Gym checkout at PATH plays the same job through
bench/peer_ecomrlve.py (its LLM calls stubbed; read that module for what it calls and how to adapt
it). Without it, the issue's published peer figures (1k only) are printed as a fixed reference
column, labelled as not measured in this run.

    python bench/small_shop.py --sizes 1000,10000,100000 --rounds 3 [--peer ~/src/EcomRLVE-Gym]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, environment, parse_sizes, print_table, write_json
from peer_ecomrlve import PeerContractError, load_peer

from verishop.local import LocalShop
from search import QUERY_SEED, query_mix
from small_shop_job import (EPISODE_SEED, WARMUP, http_round, local_mcp_round, local_round, new_samples, peer_round,
                            verishop_round)

__all__ = ["WARMUP", "main"]  # WARMUP: scripted episodes per round left out of the figures

PEER_LABEL_PUBLISHED = "EcomRLVE, issue 24's measurement, not this run"
# Issue 24's side-by-side run at 1,000 products (CPU time medians, three interleaved rounds).
PUBLISHED_PEER_1K = {"creation": 3.80, "search_step": 1.45, "search_direct": 1.01, "scripted": 5.64,
                     "episodes_per_s": 56.4}
LABELS = {
    "creation": "creation (generate + open)",
    "generate": "  generation alone (floor)",
    "bare_sqlite": "  a bare SQLite world file (floor)",
    "search_step": "one search step, in-memory MCP (InProcessClient)",
    "search_step_sdk": "  the same, SDK default mcp.Client (before)",
    "search_direct": "the same search called directly",
    "noop": "no-op tool, in-memory (InProcessClient)",
    "noop_sdk": "  the same, SDK default mcp.Client (before)",
    "noop_floor": "  SDK floor: bare MCPServer, one trivial tool",
    "noop_http": "no-op tool over HTTP, server CPU",
    "search_http": "one search over HTTP, server CPU",
    "connect": "connect (server + in-memory client)",
    "answer_close": "answer + close (respond_to_customer, done)",
    "verify": "verify (Verifier.verify)",
    "scripted": "scripted episode (all of the above)",
    "episodes_per_s": "episodes/s in-process (wall)",
    "local_scripted": "IN-PROCESS scripted episode (verishop.local: open, search, answer, close, reward)",
    "local_open": "  of which opening (generate + world in memory)",
    "local_play_score": "  of which playing and scoring",
    "local_mcp_scripted": "the same through the in-memory MCP client (InProcessClient over LocalShop)",
    "local_episodes_per_s": "episodes/s in-process, verishop.local (wall)",
}
# Each verishop figure's counterpart in the peer's job (by default, the figure of the same name).
PEER_FIGURE = {"local_scripted": "scripted", "local_mcp_scripted": "scripted", "local_episodes_per_s": "episodes_per_s"}
OUR_SUMS = {"creation": ("generate", "open"),
            "scripted": ("generate", "open", "connect", "episode_search", "answer_close", "disconnect", "verify"),
            "local_scripted": ("local_open", "local_play_score")}
PEER_SUMS = {"scripted": ("creation", "search_step", "answer")}


def median_ms(values: Sequence[float]) -> float:
    return round(statistics.median(values) * 1000, 3)


def summarise(samples: dict, episode_rounds: list[dict], sums: dict[str, Sequence[str]]) -> dict[str, dict]:
    """Median CPU and wall (ms) per figure; a figure in `sums` is the sum of its laps, per episode."""
    figures: dict[str, dict] = {}
    for name in samples["cpu"]:
        figures[name] = {"cpu_ms": median_ms(samples["cpu"][name]), "wall_ms": median_ms(samples["wall"][name]),
                         "n": len(samples["cpu"][name])}
    for name, laps in sums.items():
        totals = {kind: [sum(parts) for parts in zip(*(samples[kind][lap] for lap in laps))] for kind in samples}
        figures[name] = {"cpu_ms": median_ms(totals["cpu"]), "wall_ms": median_ms(totals["wall"]),
                         "n": len(totals["cpu"])}
    rates = [r["episodes"] / r["wall_s"] for r in episode_rounds if not r.get("local") and r["wall_s"] > 0]
    figures["episodes_per_s"] = {"value": round(statistics.median(rates), 1) if rates else 0.0}
    local = [r["episodes"] / r["wall_s"] for r in episode_rounds if r.get("local") and r["wall_s"] > 0]
    if local:
        figures["local_episodes_per_s"] = {"value": round(statistics.median(local), 1)}
    return figures


def parse_entries(pairs: list[str]) -> dict[str, str]:
    entries = {}
    for pair in pairs:
        name, sep, dotted = pair.partition("=")
        if not sep or not name or not dotted:
            raise SystemExit(f"--peer-entry {pair!r}: write NAME=module:attribute")
        entries[name.strip()] = dotted.strip()
    return entries


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=100, help="scripted episodes per size and round")
    parser.add_argument("--calls", type=int, default=300, help="timed in-memory calls of each kind per size and round")
    parser.add_argument("--http-calls", type=int, default=300, help="per tool, size and round; 0: no HTTP")
    parser.add_argument("--peer", type=Path, help="a checkout of EcomRLVE-Gym (see bench/peer_ecomrlve.py)")
    parser.add_argument("--peer-entry", action="append", default=[], metavar="NAME=module:attribute",
                        help="override one of bench/peer_ecomrlve.py's entry points")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--json", type=Path, help="write the results here instead of bench/results/")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.episodes < 1 or args.calls < 1 or args.http_calls < 0:
        parser.error("--rounds, --episodes and --calls must be at least 1, --http-calls at least 0")
    return args


async def run(args: argparse.Namespace) -> dict:
    sizes = parse_sizes(args.sizes)
    peer = load_peer(args.peer, parse_entries(args.peer_entry)) if args.peer else None
    _, queries = query_mix(240, QUERY_SEED)
    catalogs = {size: cached_catalog(args.cache_dir, size)[0] for size in sizes}
    samples = {size: new_samples() for size in sizes}
    peer_samples = {size: new_samples() for size in sizes}
    rounds: dict[int, list[dict]] = defaultdict(list)
    peer_rounds: dict[int, list[dict]] = defaultdict(list)
    http: dict[int, list[dict[str, float]]] = defaultdict(list)
    peer_envs: dict[int, Any] = {}
    # The in-process shops live across rounds, as the peer's environments do (each keeps its catalog).
    local_shops = {size: LocalShop(catalogs[size], seal=True) for size in sizes}
    local_mcp_shops = {size: LocalShop(catalogs[size], seal=True) for size in sizes}
    local_rounds: dict[int, list[dict]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="verishop-bench-small-") as tmp:
        for r in range(args.rounds):
            for size in sizes:
                console.print(f"[dim]round {r + 1}/{args.rounds}, {size:,} products[/dim]")
                order = ["verishop", "peer"] if r % 2 == 0 else ["peer", "verishop"]  # neither always first
                for subject in order:
                    if subject == "verishop":
                        rounds[size].append(await verishop_round(catalogs[size], Path(tmp) / f"r{r}-{size}", queries,
                                                                 args.calls, args.episodes, samples[size]))
                        # The blocking in-process API runs where no event loop runs (a trainer's thread).
                        played = await anyio.to_thread.run_sync(local_round, local_shops[size], args.episodes,
                                                                samples[size])
                        local_rounds[size].append({**played, "local": True})
                        await local_mcp_round(local_mcp_shops[size], args.episodes, samples[size])
                    elif peer is not None:
                        with peer.stubbed():
                            if size not in peer_envs:
                                peer_envs[size] = peer.env(size, EPISODE_SEED)
                            peer_rounds[size].append(peer_round(peer, peer_envs[size], queries, args.episodes,
                                                                peer_samples[size]))
                if args.http_calls:
                    http[size].append(await http_round(catalogs[size], Path(tmp) / f"http-{r}-{size}", queries,
                                                       args.http_calls))
    for shop in (*local_shops.values(), *local_mcp_shops.values()):
        await shop.aclose()
    results = {}
    for size in sizes:
        figures = summarise(samples[size], rounds[size] + local_rounds[size], OUR_SUMS)
        for name in ("noop_http", "search_http"):
            if http[size]:
                figures[name] = {"cpu_ms": round(statistics.median(h[name] for h in http[size]), 3),
                                 "rounds": len(http[size])}
        figures["episodes_scored"] = {"value": sum(r["scored"] for r in rounds[size]),
                                      "of": sum(r["episodes"] for r in rounds[size])}
        figures["local_episodes_scored"] = {"value": sum(r["scored"] for r in local_rounds[size]),
                                            "of": sum(r["episodes"] for r in local_rounds[size])}
        results[size] = figures
    peer_results = ({size: summarise(peer_samples[size], peer_rounds[size], PEER_SUMS) for size in sizes}
                    if peer else {1000: {k: ({"value": v} if k == "episodes_per_s" else {"cpu_ms": v})
                                         for k, v in PUBLISHED_PEER_1K.items()}})
    return {"sizes": sizes, "rounds": args.rounds, "episodes": args.episodes, "calls": args.calls,
            "http_calls": args.http_calls, "results": results,
            "peer": {"source": f"this run: {args.peer}" if peer else PEER_LABEL_PUBLISHED,
                     "llm_calls_stubbed": peer.stub.calls if peer else None, "results": peer_results}}


def value(figure: dict | None) -> float | None:
    if not figure:
        return None
    return figure.get("value", figure.get("cpu_ms"))


def report(payload: dict) -> None:
    peer_title = "EcomRLVE (this run)" if payload["peer"]["source"].startswith("this run") else \
        "EcomRLVE (issue 24, not this run)"
    for size in payload["sizes"]:
        ours_, theirs = payload["results"][size], payload["peer"]["results"].get(size, {})
        rows = []
        for name, label in LABELS.items():
            figure = ours_.get(name)
            if figure is None:
                continue
            mine, peer_value = value(figure), value(theirs.get(PEER_FIGURE.get(name, name)))
            ratio = "" if not peer_value or not mine else f"{mine / peer_value:.2f}x"
            rows.append([label, mine, figure.get("wall_ms", ""), "" if peer_value is None else peer_value, ratio])
        print_table(f"{size:,} products: CPU ms per step (medians; episodes/s is wall, and there above 1x is ahead)",
                    ["figure", "verishop CPU ms", "wall ms", peer_title, "verishop / EcomRLVE"], rows)
        floors = [("creation over its floor (generation + a bare SQLite file)", ours_["creation"]["cpu_ms"],
                   ours_["generate"]["cpu_ms"] + ours_["bare_sqlite"]["cpu_ms"]),
                  ("search step over direct search + the SDK's no-op floor", ours_["search_step"]["cpu_ms"],
                   ours_["search_direct"]["cpu_ms"] + ours_["noop_floor"]["cpu_ms"]),
                  ("no-op over the SDK's no-op floor", ours_["noop"]["cpu_ms"], ours_["noop_floor"]["cpu_ms"]),
                  ("search step: SDK default client over InProcessClient", ours_["search_step_sdk"]["cpu_ms"],
                   ours_["search_step"]["cpu_ms"]),
                  ("no-op: SDK default client over InProcessClient", ours_["noop_sdk"]["cpu_ms"],
                   ours_["noop"]["cpu_ms"])]
        console.print("\n".join(f"  {label}: {a:.3f} / {b:.3f} ms = {a / b:.2f}x" for label, a, b in floors if b))
        scored, local = ours_["episodes_scored"], ours_["local_episodes_scored"]
        console.print(f"  scripted episodes scored by the verifier: {scored['value']}/{scored['of']} through the "
                      f"server's path, {local['value']}/{local['of']} in-process")
    source = payload["peer"]["source"]
    console.print(f"[dim]peer column: {source}"
                  + (f"; LLM calls stubbed: {payload['peer']['llm_calls_stubbed']}" if source.startswith("this run")
                     else " (1,000 products only; CPU medians of three interleaved rounds on a loaded machine)")
                  + "[/dim]")


async def main(argv: Sequence[str] | None = None) -> dict:
    args = parse_args(argv)
    try:
        payload = await run(args)
    except PeerContractError as exc:
        raise SystemExit(f"peer: {exc}") from None
    report(payload)
    if args.json:
        args.json.write_text(json.dumps({"benchmark": "small_shop", "environment": environment(), **payload},
                                        indent=2) + "\n")
    else:
        write_json("small_shop", payload)
    return payload


if __name__ == "__main__":
    anyio.run(main)
