"""Server CPU per tool call over Streamable HTTP: the search mix of bench/search.py against one
real `verishop serve --transport http` subprocess, the server's CPU time (utime + stime from
/proc) divided by the calls.

Same-run floor: the trivial `get_current_date` tool through the same server and client, i.e.
what the MCP SDK, Starlette and uvicorn cost per call before the shop does anything; the search
figure is printed as a multiple of it, and the difference is the shop's own work per search.
The client is this process (one MCP client, calls one after another); the episode is a client
scenario (POST /episodes {"scenario": ...}) whose lookup budget is the largest admitted.

    python bench/server_cpu.py --size 100000 --calls 3000
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, ms, now, print_table, start_http_server, verdict, write_json
from search import QUERY_SEED, query_mix

from verishop.agents.evaluate import _wait_healthy
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.envs import generate

TARGET_SEARCH_CPU_MS = 0.8  # issue 11, goal 5
WARMUP_CALLS = 100


def cpu_s(pid: int) -> float:
    ticks = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13]  # utime, stime
    return sum(int(t) for t in ticks) / os.sysconf("SC_CLK_TCK")


async def main() -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000, help="catalog size")
    parser.add_argument("--calls", type=int, default=3000, help="timed calls per tool")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, _ = cached_catalog(args.cache_dir, args.size)
    with CatalogReader(catalog) as reader:
        scenario = generate("pd", 3, 1, reader)
    budget = scenario.axes.model_copy(update={"tool_calls_per_turn": 1_000, "max_turns": 500})
    scenario = scenario.model_copy(update={"axes": budget})
    _, queries = query_mix(240, QUERY_SEED)

    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="verishop-bench-cpu-") as tmp:
        port, server = start_http_server(catalog, Path(tmp) / "runs")
        try:
            async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=httpx2.Timeout(120)) as http:
                await _wait_healthy(http, server)
                created = await http.post("/episodes", json={"scenario": scenario.model_dump(mode="json")})
                created.raise_for_status()
                info = created.json()
                async with Client(streamable_http_client(info["mcp_url"], http_client=http)) as client:
                    for tool, arguments in (("get_current_date", lambda i: {}),
                                            ("search_catalog", lambda i: queries[i % len(queries)])):
                        # The lookup budget is per turn: a new turn (respond_to_customer) every
                        # 900 calls is not timed.
                        calls = 0
                        for i in range(WARMUP_CALLS):
                            assert not (await client.call_tool(tool, arguments(i))).is_error
                        await new_turn(client)
                        spent_s = wall_s = 0.0
                        while calls < args.calls:
                            batch = min(900, args.calls - calls)
                            cpu0, t0 = cpu_s(server.pid), now()
                            for i in range(calls, calls + batch):
                                result = await client.call_tool(tool, arguments(i))
                                assert not result.is_error, result.content[0].text
                            spent_s += cpu_s(server.pid) - cpu0
                            wall_s += now() - t0
                            calls += batch
                            await new_turn(client)
                        results[tool] = {"calls": calls, "server_cpu_ms_per_call": ms(spent_s / calls),
                                         "wall_ms_per_call": ms(wall_s / calls)}
                (await http.delete(f"/episodes/{info['episode_id']}")).raise_for_status()
        finally:
            server.terminate()
            server.wait(timeout=30)

    floor = results["get_current_date"]["server_cpu_ms_per_call"]
    search = results["search_catalog"]["server_cpu_ms_per_call"]
    print_table(f"Server CPU per tool call over HTTP ({args.size:,} products, one client, sequential calls)",
                ["tool", "calls", "server CPU ms/call", "client wall ms/call", "x floor"],
                [[tool, r["calls"], r["server_cpu_ms_per_call"], r["wall_ms_per_call"],
                  f"{r['server_cpu_ms_per_call'] / floor:.2f}x"] for tool, r in results.items()])
    console.print(f"floor (get_current_date: the SDK's and the web server's own cost) {floor:.3f} ms; "
                  f"search_catalog {search:.3f} ms = {search / floor:.2f}x; the shop's own work per search "
                  f"{search - floor:.3f} ms")
    console.print(f"target: search_catalog server CPU <= {TARGET_SEARCH_CPU_MS:g} ms per call: "
                  f"{verdict(search, TARGET_SEARCH_CPU_MS)}")
    write_json("server_cpu", {"size": args.size, "results": results, "floor_ms": floor})


async def new_turn(client) -> None:
    result = await client.call_tool("respond_to_customer", {"message": "One moment, still looking."})
    assert not result.is_error, result.content[0].text


if __name__ == "__main__":
    anyio.run(main)
