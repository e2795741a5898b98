"""Scripted episodes per second over HTTP: one real `verishop serve --transport http` with
--workers 1 (a single process, today's server), then with --workers 2 (a supervisor and two
worker processes), in the same run; the ratio is printed.

A scripted episode is: POST /episodes (to the server's port), one search_catalog call and one
respond_to_customer call recommending what the search found (to the episode's mcp_url, i.e.
the worker's own port), DELETE /episodes/{id} (the server's port again).

The client runs in its own process (this script started again with --drive), so the server's
processes and the client compete for the cores the way an RL trainer's would. It is kept cheap:
raw JSON-RPC `tools/call` POSTs, which the stateless Streamable HTTP transport accepts without
an MCP session (no initialize, no tools/list, no schema validation), written by a minimal
HTTP/1.1 client over keep-alive asyncio connections (`Connection`, a fifth of httpx's CPU per
request), so nearly all CPU goes to the server. Its CPU time is reported.

    python bench/workers.py                      # 100k-product catalog, 3 rounds of 300 episodes, 16 in flight
    python bench/workers.py --size 10000 --episodes 200 --rounds 1

Both servers run from the start and are driven in turn, round after round (an idle server costs
nothing), so that other load on a shared machine falls on each alike; the median round is shown,
and the ratio of each round.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, now, print_table, start_http_server, write_json

ENV, DIFFICULTY, SEED = "pd", 2, 9000  # pd: the heaviest creation (stock-outs), the commonest env
RPC_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-11-25"}
TARGET_RATIO = 1.6


class Connection:
    """One keep-alive HTTP/1.1 connection, just enough of the protocol for this benchmark (JSON
    bodies, Content-Length or chunked answers). httpx costs about 1 ms of CPU per request, as
    much as the shop's own work on a tool call, and the client shares the machine's cores."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: dict | None = None,
                      headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        payload = json.dumps(body).encode() if body is not None else b""
        lines = [f"{method} {path} HTTP/1.1", f"host: {self.host}:{self.port}", f"content-length: {len(payload)}"]
        lines += [f"{k}: {v}" for k, v in (headers or {"content-type": "application/json"}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
        if "content-length" in fields:
            data = await self.reader.readexactly(int(fields["content-length"]))
        else:  # chunked
            chunks = []
            while size := int((await self.reader.readline()).strip(), 16):
                chunks.append(await self.reader.readexactly(size))
                await self.reader.readline()
            await self.reader.readline()
            data = b"".join(chunks)
        if fields.get("connection", "").lower() == "close":
            await self.close()
        return status, data

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


class Player:
    """Plays scripted episodes one after another over its own connections (one per port)."""

    def __init__(self, base: str):
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port
        self.connections: dict[tuple[str, int], Connection] = {}

    def connection(self, host: str, port: int) -> Connection:
        key = (host, port)
        if key not in self.connections:
            self.connections[key] = Connection(host, port)
        return self.connections[key]

    async def control(self, method: str, path: str, body: dict | None = None) -> dict:
        status, data = await self.connection(self.host, self.port).request(method, path, body)
        if status not in (200, 201):
            raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
        return json.loads(data)

    async def call_tool(self, url: str, name: str, arguments: dict) -> dict:
        parts = urlsplit(url)
        status, data = await self.connection(parts.hostname, parts.port).request(
            "POST", parts.path, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                 "params": {"name": name, "arguments": arguments}}, RPC_HEADERS)
        if status != 200:
            raise RuntimeError(f"{name}: {status} {data[:200]!r}")
        line = next(line for line in data.decode().splitlines() if line.startswith("data:"))
        result = json.loads(line[5:])["result"]
        if result["isError"]:
            raise RuntimeError(f"{name}: {result['content'][0]['text']}")
        return result["structuredContent"]

    async def episode(self, env: str, difficulty: int, seed: int) -> None:
        episode = await self.control("POST", "/episodes", {"env": env, "difficulty": difficulty, "seed": seed})
        found = await self.call_tool(episode["mcp_url"], "search_catalog", {
            "query": "", "category_id": "headphones", "in_stock_only": True, "limit": 5})
        picks = [p["product_id"] for p in found["results"][:3]]
        await self.call_tool(episode["mcp_url"], "respond_to_customer", {
            "message": "These fit what you asked for.", "recommended_product_ids": picks})
        await self.control("DELETE", f"/episodes/{episode['episode_id']}")

    async def aclose(self) -> None:
        for connection in self.connections.values():
            await connection.close()


async def drive(base: str, env: str, difficulty: int, episodes: int, concurrency: int, first_seed: int) -> dict:
    """The client process: play `episodes` scripted episodes, at most `concurrency` at once."""
    errors: list[str] = []
    seeds = iter(range(first_seed, first_seed + episodes))

    async def play() -> None:
        player = Player(base)
        try:
            for seed in seeds:  # one shared iterator: each seed is played once
                try:
                    await player.episode(env, difficulty, seed)
                except Exception as exc:  # noqa: BLE001 - counted and reported, the run goes on
                    errors.append(f"{type(exc).__name__}: {exc}"[:200])
                    await player.aclose()  # a connection may be half-read: start afresh
                    player = Player(base)
        finally:
            await player.aclose()

    started = now()
    cpu_started = resource.getrusage(resource.RUSAGE_SELF)
    await asyncio.gather(*(play() for _ in range(concurrency)))
    wall_s = now() - started
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu_s = (cpu.ru_utime - cpu_started.ru_utime) + (cpu.ru_stime - cpu_started.ru_stime)
    return {"episodes": episodes - len(errors), "errors": len(errors), "first_errors": errors[:3],
            "wall_s": round(wall_s, 3), "episodes_per_s": round((episodes - len(errors)) / wall_s, 2),
            "client_cpu_s": round(client_cpu_s, 2)}


def run_client(base: str, env: str, difficulty: int, episodes: int, concurrency: int, first_seed: int) -> dict:
    """This script with --drive, in a process of its own; its JSON answer."""
    out = subprocess.run([sys.executable, __file__, "--drive", base, "--env", env, "--difficulty", str(difficulty),
                          "--episodes", str(episodes), "--concurrency", str(concurrency), "--first-seed",
                          str(first_seed)], capture_output=True, text=True, check=True, timeout=3600)
    return json.loads(out.stdout)


def process_tree_cpu_s(pid: int) -> float:
    """CPU seconds of `pid` and its live children (the workers of a supervisor)."""
    total = 0.0
    pids = [pid, *(int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]
    for p in pids:
        ticks = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[11:13]  # utime, stime
        total += sum(int(t) for t in ticks) / os.sysconf("SC_CLK_TCK")
    return total


@contextlib.contextmanager
def servers(catalog: Path, root: Path, counts: list[int]) -> Iterator[dict[int, tuple[str, subprocess.Popen]]]:
    """One server per worker count, all healthy; stopped on exit. A server nobody drives is idle."""
    import httpx2

    from verishop.agents.evaluate import _wait_healthy

    started: dict[int, tuple[str, subprocess.Popen]] = {}
    try:
        for n in counts:
            port, server = start_http_server(catalog, root / f"w{n}", workers=n)
            started[n] = (f"http://127.0.0.1:{port}", server)

            async def healthy(base: str = started[n][0], server: subprocess.Popen = server) -> None:
                async with httpx2.AsyncClient(base_url=base, timeout=httpx2.Timeout(10)) as http:
                    await _wait_healthy(http, server)

            anyio.run(healthy)
        yield started
    finally:
        for _, server in started.values():
            server.terminate()
        for _, server in started.values():
            server.wait(timeout=60)


def measure(base: str, server: subprocess.Popen, env: str, difficulty: int, episodes: int, concurrency: int,
            first_seed: int) -> dict:
    cpu_before = process_tree_cpu_s(server.pid)
    result = run_client(base, env, difficulty, episodes, concurrency, first_seed)
    result["server_cpu_ms_per_episode"] = round(
        (process_tree_cpu_s(server.pid) - cpu_before) / max(1, result["episodes"]) * 1000, 2)
    result["client_cpu_ms_per_episode"] = round(result["client_cpu_s"] / max(1, result["episodes"]) * 1000, 2)
    # A single process may use more than one core: generation runs in threads, and SQLite lets go of the GIL.
    result["server_cores_used"] = round(result["episodes_per_s"] * result["server_cpu_ms_per_episode"] / 1000, 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000, help="catalog size (products)")
    parser.add_argument("--episodes", type=int, default=300, help="timed episodes per server and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each drives every server in turn")
    parser.add_argument("--warmup", type=int, default=48, help="untimed episodes per server first")
    parser.add_argument("--concurrency", type=int, default=16, help="episodes in flight")
    parser.add_argument("--env", default=ENV, help="environment of every episode")
    parser.add_argument("--difficulty", type=int, default=DIFFICULTY)
    parser.add_argument("--workers", default="1,2", help="worker counts to compare, the first is the baseline")
    parser.add_argument("--check", action="store_true", help="exit with code 1 when the last count's ratio is "
                                                            "below the target or any episode failed")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--drive", metavar="URL", help=argparse.SUPPRESS)  # the client process
    parser.add_argument("--first-seed", type=int, default=SEED, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        print(json.dumps(asyncio.run(drive(args.drive, args.env, args.difficulty, args.episodes, args.concurrency,
                                           args.first_seed))))
        return

    counts = [int(n) for n in args.workers.split(",")]
    catalog, _ = cached_catalog(args.cache_dir, args.size)
    console.print(f"[dim]{os.cpu_count()} cores; catalog of {args.size:,} products; {args.rounds} rounds of "
                  f"{args.episodes} scripted {args.env} d={args.difficulty} episodes per server, {args.concurrency} in flight, client in its own "
                  f"process[/dim]")
    # Servers are driven in turn, round after round, so that other load on the machine falls on
    # each alike; the median round counts.
    rounds: dict[int, list[dict]] = {n: [] for n in counts}
    with tempfile.TemporaryDirectory(prefix="verishop-bench-workers-") as tmp, \
            servers(catalog, Path(tmp), counts) as running:
        for n, (base, _) in running.items():
            # imports, first connections, SQLite caches
            run_client(base, args.env, args.difficulty, args.warmup, args.concurrency, SEED)
        for r in range(args.rounds):
            for n, (base, server) in running.items():
                first_seed = SEED + args.warmup + r * args.episodes
                rounds[n].append(measure(base, server, args.env, args.difficulty, args.episodes, args.concurrency,
                                         first_seed))
                console.print(f"[dim]round {r + 1}, --workers {n}: {rounds[n][-1]['episodes_per_s']} episodes/s, "
                              f"load average {os.getloadavg()[0]:.1f}[/dim]")
    results = [{"workers": n, **median_round(rounds[n]), "rounds": rounds[n]} for n in counts]
    baseline = results[0]["episodes_per_s"]
    for r in results:
        r["ratio"] = round(r["episodes_per_s"] / baseline, 2)
    print_table("Scripted episodes over HTTP (create, search, answer, close); the median round",
                ["--workers", "episodes", "errors", "wall s", "episodes/s", "vs first", "server CPU ms/episode",
                 "server cores used", "client CPU ms/episode"],
                [[r["workers"], r["episodes"], r["errors"], r["wall_s"], r["episodes_per_s"], r["ratio"],
                  r["server_cpu_ms_per_episode"], r["server_cores_used"], r["client_cpu_ms_per_episode"]]
                 for r in results])
    for r in results:
        errors = sum(x["errors"] for x in r["rounds"])
        if errors:
            console.print(f"[red]--workers {r['workers']}: {errors} errors, e.g. {r['first_errors']}[/red]")
    per_round = [round(b["episodes_per_s"] / a["episodes_per_s"], 2) for a, b in zip(rounds[counts[0]],
                                                                                     rounds[counts[-1]])]
    # What the CPU spent per episode allows, whatever else the machine runs: one worker is bound
    # by its own core, N workers by the N cores that they, the supervisor and the client share.
    first, last = results[0], results[-1]
    cores = min(last["workers"], os.cpu_count() or 1)
    cpu_bound = (cores / (last["server_cpu_ms_per_episode"] + last["client_cpu_ms_per_episode"])) / (
        1 / first["server_cpu_ms_per_episode"])
    best = results[-1]["ratio"]
    mark = "[green]met[/green]" if best >= TARGET_RATIO else "[red]MISSED[/red]"
    console.print(f"--workers {counts[-1]} vs --workers {counts[0]}: {best:.2f}x ({mark}, target >= {TARGET_RATIO}x "
                  f"on 2 cores); round by round {per_round}; bound by the CPU per episode (server and client): "
                  f"{cpu_bound:.2f}x")
    write_json("workers", {"size": args.size, "env": args.env, "difficulty": args.difficulty, "episodes": args.episodes, "rounds": args.rounds,
                           "concurrency": args.concurrency, "cores": os.cpu_count(),
                           "ratio_per_round": per_round, "cpu_bound_ratio": round(cpu_bound, 2), "results": results})
    if args.check and (best < TARGET_RATIO or any(x["errors"] for r in results for x in r["rounds"])):
        raise SystemExit(1)


def median_round(runs: list[dict]) -> dict:
    ordered = sorted(runs, key=lambda r: r["episodes_per_s"])
    return {k: v for k, v in ordered[len(ordered) // 2].items()}


if __name__ == "__main__":
    main()
