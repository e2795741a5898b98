"""A burst of concurrent episode creations (issue 11, goal 3): N clients POST /episodes at once
to one `verishop serve --transport http` subprocess (this process is the client), all eight
environments round robin, difficulties 0-12. Reported: the latency of each POST as the client
saw it (p50 / p99 / max). Floor, same run and server: the same burst of GET /health.

    python bench/create_burst.py --size 2000000 --clients 64 --rounds 3
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, now, print_table, start_http_server, summary_ms, write_json
from load import jobs

TARGET_P50_MS = 50.0


async def burst(http, requests: list[tuple[str, str, dict | None]]) -> tuple[list[float], list[dict]]:
    """Send every request at once; the seconds each took, and the JSON bodies of the replies."""
    took: list[float] = []
    replies: list[dict] = []

    async def one(method: str, url: str, body: dict | None) -> None:
        started = now()
        response = await http.request(method, url, json=body)
        response.raise_for_status()
        took.append(now() - started)
        replies.append(response.json())

    async with anyio.create_task_group() as tg:
        for request in requests:
            tg.start_soon(one, *request)
    return took, replies


async def main() -> None:
    import httpx2

    from verishop.agents.evaluate import _wait_healthy

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=2_000_000)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3, help="bursts, each of --clients creations")
    parser.add_argument("--workers", type=int, default=1, help="serve --workers (2: a supervisor placing "
                                                               "creations on two worker processes)")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, _ = cached_catalog(args.cache_dir, args.size)

    creates, healths = [], []
    with tempfile.TemporaryDirectory(prefix="verishop-bench-burst-") as tmp:
        port, server = start_http_server(catalog, Path(tmp) / "runs", args.workers)
        limits = httpx2.Limits(max_connections=None, max_keepalive_connections=None)
        try:
            async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits,
                                          timeout=httpx2.Timeout(300)) as http:
                await _wait_healthy(http, server)
                all_jobs = jobs(args.clients * (args.rounds + 1))
                for r in range(args.rounds + 1):  # round 0 warms up (imports, connections, readers)
                    batch = all_jobs[r * args.clients:(r + 1) * args.clients]
                    health, _ = await burst(http, [("GET", "/health", None)] * args.clients)
                    create, created = await burst(http, [("POST", "/episodes", {"env": e, "difficulty": d, "seed": s})
                                                         for e, d, s in batch])
                    if r:
                        creates += create
                        healths += health
                    # Closed between bursts (untimed), so that the open episodes stay within the limit.
                    await burst(http, [("DELETE", f"/episodes/{c['episode_id']}", None) for c in created])
        finally:
            server.terminate()
            server.wait(timeout=30)

    create_ms, health_ms = summary_ms(creates), summary_ms(healths)
    print_table(f"{args.clients} concurrent requests, {args.rounds} bursts, {args.size:,} products, ms",
                ["request", "p50", "p95", "p99", "max"],
                [["POST /episodes", create_ms["p50"], create_ms["p95"], create_ms["p99"], create_ms["max"]],
                 ["GET /health (floor)", health_ms["p50"], health_ms["p95"], health_ms["p99"], health_ms["max"]]])
    verdict = "met" if create_ms["p50"] <= TARGET_P50_MS else "MISSED"
    console.print(f"POST p50 = {create_ms['p50'] / health_ms['p50']:.1f}x the floor; target p50 <= "
                  f"{TARGET_P50_MS:g} ms: {verdict}")
    write_json("create_burst", {"size": args.size, "clients": args.clients, "rounds": args.rounds,
                                "post_episodes_ms": create_ms, "health_ms": health_ms})


if __name__ == "__main__":
    anyio.run(main)
