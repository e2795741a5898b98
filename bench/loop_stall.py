"""Does one episode's slow work stall the others? The p99 of a cheap call (`get_current_date`)
in --light episodes, with no other load and then while --heavy other episodes run the heaviest
searches back to back, in one run against one real `verishop serve --transport http` process
(one event loop) on a --size catalog.

"Heaviest" is measured, not guessed: every sorted or filtered query of bench/search.py's seeded
mix (100 of them), and the "sort by" button pressed on a common word across the whole catalog
(which ranks every match: the costliest statement an agent can send), is timed through MCP twice,
and the --heavy-queries slowest second timings are what the heavy episodes repeat (the first
timing reads pages from disk and says nothing about CPU). A server that ran those on its event
loop would show the light p99 growing by about a heavy search's time; one that runs them beside
the loop keeps it near the quiet figure, as long as the threads beside it leave the loop (and
the clients) their share of the cores. The CPU each phase cost is printed per place (the
server's event-loop thread, its other threads, this client process) to tell those apart.
With --control the other episodes repeat the cheap call instead of searching: the ratio that
twice the clients alone cost on this machine, the floor any server's figure sits on. With
--light-call sorted the cheap call is a sorted search that reads a page of one category's index
(about 1 ms): a statement that runs beside the loop too, so it shows whether a cheap statement
waits behind the heavy ones there.

    python bench/loop_stall.py --size 2000000 --light 16 --heavy 16 --calls 200
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import tempfile
from pathlib import Path

import anyio
import httpx2
from _common import (DEFAULT_CACHE, cached_catalog, console, now, percentile, print_table, start_http_server,
                     summary_ms, write_json)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from search import QUERY_SEED, query_mix

from verishop.agents.evaluate import _wait_healthy
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.envs import generate

MIX_SIZE = 240
CANDIDATES = 100
LOOKUPS_PER_TURN = 900  # the scenario allows 1,000; a new turn before the budget runs out
MAX_STALL_RATIO = 3.0  # loaded p99 / quiet p99 beyond which the loop counts as stalled
LIGHT_CALLS = {
    "date": ("get_current_date", {}),
    "sorted": ("search_catalog", {"query": "", "category_id": "chargers", "sort_by": "price", "limit": 10}),
}
# Words in thousands of titles across categories: sorting all their matches is the slowest search.
COMMON_WORDS = ("black", "white", "usb", "wireless", "pro", "steel", "cotton")


def heavy_candidates() -> list[dict]:
    _, queries = query_mix(MIX_SIZE, QUERY_SEED)
    sorted_or_filtered = [q for q in queries if q["sort_by"] != "featured" or q["category_id"] or q["min_price_usd"]
                          or q["max_price_usd"] or q["min_rating"] or q["max_ship_days"]]
    whole_catalog = [dict(query=word, category_id=None, brand=None, min_price_usd=None, max_price_usd=None,
                          min_rating=None, max_ship_days=None, attributes={}, in_stock_only=False, limit=50,
                          sort_by=sort_by)
                     for word in COMMON_WORDS for sort_by in ("price", "rating", "delivery")]
    return sorted_or_filtered[:CANDIDATES] + whole_catalog


class CpuClock:
    """CPU seconds spent so far by the server's event-loop thread (its main thread), by its
    other threads (worker threads, living or ended), and by this client process."""

    def __init__(self, server_pid: int):
        self.pid = server_pid

    def read(self) -> tuple[float, float, float]:
        server, loop = _proc_cpu_s(f"/proc/{self.pid}/stat"), _proc_cpu_s(f"/proc/{self.pid}/task/{self.pid}/stat")
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return loop, server - loop, usage.ru_utime + usage.ru_stime


def _proc_cpu_s(stat_path: str) -> float:
    fields = Path(stat_path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


async def measured(clock: CpuClock, phase):
    """`await phase`, and the wall and CPU seconds (loop, other server threads, client) it took."""
    before, t = clock.read(), now()
    result = await phase
    wall, after = now() - t, clock.read()
    return result, [round(wall, 3), *(round(a - b, 3) for a, b in zip(after, before))]


class Session:
    """One episode's MCP client, starting a new turn before its lookup budget runs out."""

    def __init__(self, client: Client):
        self.client, self.lookups = client, 0

    async def call(self, tool: str, arguments: dict) -> float:
        if self.lookups == LOOKUPS_PER_TURN:
            await self.client.call_tool("respond_to_customer", {"message": "One moment, still looking."})
            self.lookups = 0
        self.lookups += 1
        t = now()
        result = await self.client.call_tool(tool, arguments)
        spent = now() - t
        assert not result.is_error, result.content[0].text
        return spent


async def light_phase(sessions: list[Session], calls: int, light_call: tuple[str, dict]) -> list[float]:
    samples: list[float] = []

    async def run(session: Session) -> None:
        for _ in range(calls):
            samples.append(await session.call(*light_call))

    async with anyio.create_task_group() as tg:
        for session in sessions:
            tg.start_soon(run, session)
    return samples


async def loaded_phase(light: list[Session], heavy: list[Session], calls: int, queries: list[dict],
                       light_call: tuple[str, dict], control: bool) -> tuple[list[float], list[float]]:
    """The light sessions' samples, and the heavy searches' own (or, with `control`, the cheap
    calls the other sessions make instead), run until the light ones finish."""
    heavy_samples: list[float] = []
    light_done = anyio.Event()

    async def hammer(index: int, session: Session) -> None:
        i = index
        while not light_done.is_set():
            call = light_call if control else ("search_catalog", queries[i % len(queries)])
            heavy_samples.append(await session.call(*call))
            i += 1

    async with anyio.create_task_group() as tg:
        for index, session in enumerate(heavy):
            tg.start_soon(hammer, index, session)
        samples = await light_phase(light, calls, light_call)
        light_done.set()
    return samples, heavy_samples


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=2_000_000, help="catalog size")
    parser.add_argument("--light", type=int, default=16, help="episodes making cheap calls")
    parser.add_argument("--heavy", type=int, default=16, help="episodes running the heaviest searches")
    parser.add_argument("--calls", type=int, default=200, help="cheap calls per light episode and phase")
    parser.add_argument("--heavy-queries", type=int, default=8, help="how many of the slowest queries to repeat")
    parser.add_argument("--control", action="store_true",
                        help="the other episodes make the cheap call instead of searching (same-run floor)")
    parser.add_argument("--light-call", choices=sorted(LIGHT_CALLS), default="date",
                        help="the cheap call: get_current_date, or a one-category sorted search")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    loaded_label = (f"{args.heavy} episodes making the same call" if args.control
                    else f"{args.heavy} episodes searching")
    catalog, _ = cached_catalog(args.cache_dir, args.size)
    with CatalogReader(catalog) as reader:
        scenario = generate("pd", 3, 1, reader)
    axes = scenario.axes.model_copy(update={"tool_calls_per_turn": 1_000, "max_turns": 500})
    scenario = scenario.model_copy(update={"axes": axes}).model_dump(mode="json")

    with tempfile.TemporaryDirectory(prefix="verishop-bench-stall-") as tmp:
        port, server = start_http_server(catalog, Path(tmp) / "runs")
        limits = httpx2.Limits(max_connections=args.light + args.heavy + 8)
        try:
            async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=httpx2.Timeout(600),
                                          limits=limits) as http:
                await _wait_healthy(http, server)
                urls = []
                for _ in range(args.light + args.heavy):
                    created = await http.post("/episodes", json={"scenario": scenario})
                    created.raise_for_status()
                    urls.append(created.json()["mcp_url"])
                async with contextlib.AsyncExitStack() as stack:
                    sessions = [Session(await stack.enter_async_context(
                        Client(streamable_http_client(url, http_client=http)))) for url in urls]
                    light, heavy = sessions[:args.light], sessions[args.light:]
                    timed = []
                    for q in heavy_candidates():
                        await heavy[0].call("search_catalog", q)  # reads its pages from disk
                        timed.append((await heavy[0].call("search_catalog", q), q))
                    timed.sort(key=lambda pair: pair[0], reverse=True)
                    queries = [q for _, q in timed[:args.heavy_queries]]
                    light_call = LIGHT_CALLS[args.light_call]
                    await light_phase(light, 10, light_call)  # warm-up
                    clock = CpuClock(server.pid)
                    load_before = os.getloadavg()[0]
                    quiet, quiet_cpu = await measured(clock, light_phase(light, args.calls, light_call))
                    (loaded, heavy_samples), loaded_cpu = await measured(
                        clock, loaded_phase(light, heavy, args.calls, queries, light_call, args.control))
                    load_after = os.getloadavg()[0]
        finally:
            server.terminate()
            server.wait(timeout=30)

    quiet_p99, loaded_p99 = percentile(quiet, 99), percentile(loaded, 99)
    ratio = loaded_p99 / quiet_p99
    light_name = LIGHT_CALLS[args.light_call][0] + (" (sorted, one category)" if args.light_call == "sorted" else "")
    rows = [[f"{light_name}, no other load", *summary_ms(quiet).values()],
            [f"{light_name}, {loaded_label}", *summary_ms(loaded).values()],
            ["the other episodes' calls" if args.control else "the heavy searches themselves",
             *summary_ms(heavy_samples).values()]]
    print_table(f"Loop stall: {args.light} light episodes, {args.heavy} heavy ones, {args.size:,} products, one "
                f"server process", ["calls", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "mean ms"], rows)
    print_table("CPU seconds per phase", ["phase", "wall s", "server event loop", "server other threads",
                                          "client process"],
                [["no other load", *quiet_cpu], [loaded_label, *loaded_cpu]])
    console.print(f"slowest query alone (warm): {timed[0][0] * 1000:.1f} ms; repeated: {args.heavy_queries} "
                  f"slowest ({timed[args.heavy_queries - 1][0] * 1000:.1f} ms and more); "
                  f"load average {load_before:.2f} before, {load_after:.2f} after")
    console.print(f"light p99 under heavy load / without: {ratio:.2f}x "
                  f"({'[red]the loop stalls[/red]' if ratio > MAX_STALL_RATIO else '[green]no stall[/green]'}, "
                  f"threshold {MAX_STALL_RATIO:g}x)")
    write_json("loop_stall", {"size": args.size, "light": args.light, "heavy": args.heavy, "calls": args.calls,
                              "control": args.control, "light_call": args.light_call,
                              "quiet": summary_ms(quiet), "loaded": summary_ms(loaded),
                              "heavy_searches": summary_ms(heavy_samples), "p99_ratio": round(ratio, 3),
                              "cpu_s": {"columns": ["wall", "server_loop", "server_other_threads", "client"],
                                        "quiet": quiet_cpu, "loaded": loaded_cpu},
                              "load_average": [load_before, load_after],
                              "slowest_query_warm_ms": round(timed[0][0] * 1000, 3),
                              "heavy_queries": queries})


if __name__ == "__main__":
    anyio.run(main)
