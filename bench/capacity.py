"""What an open episode costs a server, and how fast one curriculum takes results: the numbers
behind the sizing plan in docs/scaling.md.

A real `verishop serve --transport http` process: its resident memory (VmRSS) and open file
descriptors with no episode open (the baseline, same run), then with N episodes open, each
after one tool call; the difference divided by N is the cost of one open episode. Then
`--writers` processes record episodes into one curriculum file at once, as the verifier
sidecars of several workers do: records per second, and the counts checked exact.

    python bench/capacity.py --episodes 500 --writers 4 --records 2000
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time
from pathlib import Path

import httpx2
from _common import DEFAULT_CACHE, cached_catalog, console, print_table, start_http_server, write_json
from memory import RPC, MCP_HEADERS, rss_mib, wait_healthy

ENVS = ("pd-v3", "cart-v2", "return-v2", "status-v2")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def record_many(path: str, writer: int, records: int, start: multiprocessing.Barrier) -> float:
    from verishop.scenarios.curriculum_store import CurriculumStore

    with CurriculumStore(Path(path)) as store:
        start.wait()
        began = time.perf_counter()
        for i in range(records):
            store.record(f"ep_w{writer}_{i}", ENVS[i % len(ENVS)], i % 3, solved=i % 2 == 0)
        return time.perf_counter() - began


def curriculum_rate(writers: int, records: int) -> tuple[float, int]:
    """Records per second over all writers, and how many the store counted."""
    from verishop.scenarios.curriculum_store import CurriculumStore

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "curriculum.db")
        with CurriculumStore(Path(path)):
            pass  # created before the writers race to create it
        ctx = multiprocessing.get_context("spawn")
        barrier = ctx.Manager().Barrier(writers)
        began = time.perf_counter()
        with ctx.Pool(writers) as pool:
            pool.starmap(record_many, [(path, w, records, barrier) for w in range(writers)])
        wall = time.perf_counter() - began
        with CurriculumStore(Path(path)) as store:
            counted = sum(s.episodes for s in store.states(ENVS))
    return writers * records / wall, counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=500, help="episodes held open at once")
    parser.add_argument("--size", type=int, default=100_000, help="catalog size")
    parser.add_argument("--writers", type=int, default=4, help="processes recording into one curriculum")
    parser.add_argument("--records", type=int, default=2000, help="records per writer")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, _ = cached_catalog(args.cache, args.size)
    with tempfile.TemporaryDirectory() as tmp:
        port, proc = start_http_server(catalog, Path(tmp) / "runs")
        try:
            with httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
                wait_healthy(http, proc)
                warm = http.post("/episodes", json={"env": "pd", "difficulty": 0, "seed": 0}).json()
                http.delete(f"/episodes/{warm['episode_id']}").raise_for_status()
                rss0, fds0 = rss_mib(proc.pid), open_fds(proc.pid)
                for seed in range(args.episodes):
                    env = ENVS[seed % len(ENVS)]
                    episode = http.post("/episodes", json={"env": env, "difficulty": seed % 13, "seed": seed})
                    episode.raise_for_status()
                    http.post(f"/episodes/{episode.json()['episode_id']}/mcp", json=RPC,
                              headers=MCP_HEADERS).raise_for_status()
                rss1, fds1 = rss_mib(proc.pid), open_fds(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    per_mib, per_fd = (rss1 - rss0) / args.episodes, (fds1 - fds0) / args.episodes
    rate, counted = curriculum_rate(args.writers, args.records)
    expected = args.writers * args.records
    print_table(f"one server, catalog {args.size:,}", ["figure", "value"], [
        ["RSS, no episode open (baseline)", f"{rss0:.1f} MiB"],
        [f"RSS, {args.episodes} open", f"{rss1:.1f} MiB"],
        ["memory per open episode", f"{per_mib * 1024:.0f} KiB"],
        ["file descriptors, baseline", fds0],
        [f"file descriptors, {args.episodes} open", fds1],
        ["file descriptors per open episode", f"{per_fd:.2f}"],
        [f"curriculum records/s, {args.writers} writer processes", f"{rate:,.0f}"],
        ["curriculum counts exact", f"{counted} of {expected}" + (" ✓" if counted == expected else " ✗")],
    ])
    write_json("capacity", {"catalog_size": args.size, "episodes": args.episodes, "rss_baseline_mib": rss0,
                            "rss_open_mib": rss1, "kib_per_episode": per_mib * 1024, "fds_baseline": fds0,
                            "fds_open": fds1, "fds_per_episode": per_fd, "curriculum_writers": args.writers,
                            "curriculum_records_per_s": rate, "curriculum_counted": counted,
                            "curriculum_expected": expected})
    if counted != expected:
        console.print("[red]the curriculum lost or doubled counts[/red]")
        raise SystemExit(1)


if __name__ == "__main__":
    main()
