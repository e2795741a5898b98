"""Peak memory of a stdio server at its edges: a real `verishop serve` (stdio) process, its peak
resident set size (VmHWM) (a) while a client writes `tools/list` requests for `--seconds` and
never reads an answer, (b) after one line of `--line-mib` MiB. Also how many bytes the server
accepted from the client that never reads.

    python bench/stdio_memory.py --seconds 30 --line-mib 200
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DEFAULT_CACHE, cached_catalog, console

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "1"}}}
MIB = 1 << 20


def status_mib(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field}")


def start(catalog: Path, runs: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "verishop", "serve", "--catalog", str(catalog),
                                "--runs-dir", str(runs)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    process.stdout.readline()  # the initialize answer: the server is up
    return process


def never_reads(catalog: Path, runs: Path, seconds: float) -> tuple[float, float, int]:
    process = start(catalog, runs)
    try:
        before = status_mib(process.pid, "VmHWM")
        fd = process.stdin.fileno()
        os.set_blocking(fd, False)
        request = b"".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/list"}).encode() + b"\n"
                           for i in range(1, 1001))
        accepted, pending = 0, memoryview(request)
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if select.select([], [fd], [], left)[1]:
                try:
                    accepted += (n := os.write(fd, pending))
                except BlockingIOError:
                    continue
                pending = pending[n:] or memoryview(request)
        return before, status_mib(process.pid, "VmHWM"), accepted
    finally:
        process.kill()
        process.wait()


def huge_line(catalog: Path, runs: Path, line_mib: int) -> tuple[float, float, str]:
    process = start(catalog, runs)
    try:
        before = status_mib(process.pid, "VmHWM")
        pad = b"x" * MIB
        process.stdin.write(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "')
        for _ in range(line_mib):
            process.stdin.write(pad)
        process.stdin.write(b'"}}\n')
        process.stdin.flush()
        answer = process.stdout.readline().decode().strip()
        return before, status_mib(process.pid, "VmHWM"), answer
    finally:
        process.kill()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--line-mib", type=int, default=200)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, _ = cached_catalog(args.cache, 4000)
    with tempfile.TemporaryDirectory() as tmp:
        before, peak, accepted = never_reads(catalog, Path(tmp) / "runs", args.seconds)
        console.print(f"client that never reads, {args.seconds:g} s: peak RSS {before:.0f} -> {peak:.0f} MiB; "
                      f"the server accepted {accepted / MIB:.2f} MiB of requests")
        before, peak, answer = huge_line(catalog, Path(tmp) / "runs", args.line_mib)
        console.print(f"one {args.line_mib} MiB line: peak RSS {before:.0f} -> {peak:.0f} MiB; answer {answer[:160]}")


if __name__ == "__main__":
    main()
