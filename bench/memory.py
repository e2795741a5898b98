"""Memory comes back: a real `verishop serve --transport http` process, its resident set size
(VmRSS) after a warm-up of episodes opened, played a little and closed, and again after many
more such cycles. The baseline is the same process after the warm-up, measured in the same
run; the target is at most 25% above it.

    python bench/memory.py --cycles 2000 --warmup 10
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
from _common import DEFAULT_CACHE, cached_catalog, console, print_table, verdict, write_json

TARGET_RATIO = 1.25
RPC = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
       "params": {"name": "search_catalog", "arguments": {"query": "charger", "limit": 5}}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def cycle(http: httpx2.Client, seed: int) -> None:
    """One episode opened, one tool call, closed."""
    created = http.post("/episodes", json={"env": "pd", "difficulty": seed % 13, "seed": seed})
    created.raise_for_status()
    episode = created.json()
    http.post(f"/episodes/{episode['episode_id']}/mcp", json=RPC, headers=MCP_HEADERS).raise_for_status()
    http.delete(f"/episodes/{episode['episode_id']}").raise_for_status()


def wait_healthy(http: httpx2.Client, proc: subprocess.Popen, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            if http.get("/health").status_code == 200:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError("the server did not become healthy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--burst", type=int, default=0, help="then open this many episodes at once and close "
                                                            "them all (the high-water mark)")
    parser.add_argument("--size", type=int, default=10_000, help="catalog size")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, _ = cached_catalog(args.cache, args.size)
    from verishop.agents.evaluate import _free_port

    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-m", "verishop", "serve", "--transport", "http",
                                 "--workers", "1", "--no-default-episode", "--port", str(port), "--catalog", str(catalog),
                                 "--runs-dir", str(Path(tmp) / "runs")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
                wait_healthy(http, proc)
                fresh = rss_mib(proc.pid)
                for seed in range(args.warmup):
                    cycle(http, seed)
                baseline = rss_mib(proc.pid)
                started = time.perf_counter()
                samples = []
                for seed in range(args.warmup, args.warmup + args.cycles):
                    cycle(http, seed)
                    if (seed - args.warmup + 1) % max(1, args.cycles // 4) == 0:
                        samples.append((seed - args.warmup + 1, rss_mib(proc.pid)))
                wall_s = time.perf_counter() - started
                after = rss_mib(proc.pid)
                burst_peak = burst_after = None
                if args.burst:
                    opened = [http.post("/episodes", json={"env": "pd", "difficulty": s % 13, "seed": s}).json()
                              for s in range(args.burst)]
                    burst_peak = rss_mib(proc.pid)
                    for episode in opened:
                        http.delete(f"/episodes/{episode['episode_id']}").raise_for_status()
                    burst_after = rss_mib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    ratio = after / baseline
    print_table(f"server RSS (MiB), catalog {args.size:,}", ["point", "RSS MiB"],
                [["fresh", fresh], [f"after {args.warmup} cycles (baseline)", baseline],
                 *[[f"after {n} more", mib] for n, mib in samples[:-1]], [f"after {args.cycles} more", after],
                 *([[f"{args.burst} open at once", burst_peak], [f"{args.burst} closed", burst_after]]
                   if args.burst else [])])
    console.print(f"{args.cycles} open/call/close cycles in {wall_s:.1f}s; RSS ratio to baseline: "
                  + verdict(ratio, TARGET_RATIO))
    write_json("memory", {"cycles": args.cycles, "warmup": args.warmup, "catalog_size": args.size,
                          "fresh_mib": fresh, "baseline_mib": baseline, "after_mib": after, "ratio": ratio,
                          "samples": samples, "wall_s": wall_s, "burst": args.burst,
                          "burst_peak_mib": burst_peak, "burst_after_mib": burst_after})


if __name__ == "__main__":
    main()
