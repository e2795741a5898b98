"""Shared helpers for the benchmarks: timing, percentiles, catalog cache, table and JSON output."""

from __future__ import annotations

import json
import math
import os
import platform
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from rich.console import Console
from rich.table import Table

BENCH_DIR = Path(__file__).resolve().parent
# `python bench/x.py` runs this checkout's code; with PYTHONPATH set, the code it names (another
# checkout, to compare two versions: `PYTHONPATH=/other/checkout python bench/fingerprint.py`).
if str(BENCH_DIR.parent) not in sys.path and not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(BENCH_DIR.parent))
RESULTS_DIR = BENCH_DIR / "results"
DEFAULT_CACHE = Path.home() / ".cache" / "verishop" / "bench"
CATALOG_SEED = 7

console = Console()
if not console.is_terminal:  # piped output: don't squeeze the tables to 80 columns
    console = Console(width=150)
now = time.perf_counter


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def percentile(samples: list[float], p: float) -> float:
    """Nearest-rank percentile of `samples` (p in 0..100)."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary_ms(samples_s: list[float]) -> dict[str, float]:
    """p50/p95/p99/max/mean in milliseconds of samples given in seconds."""
    return {"n": len(samples_s), "p50": ms(percentile(samples_s, 50)), "p95": ms(percentile(samples_s, 95)),
            "p99": ms(percentile(samples_s, 99)), "max": ms(max(samples_s)),
            "mean": ms(sum(samples_s) / len(samples_s))}


def parse_sizes(text: str) -> list[int]:
    return [int(s.replace("_", "")) for s in text.split(",") if s.strip()]


def cached_catalog(cache_dir: Path, size: int, seed: int = CATALOG_SEED) -> tuple[Path, float | None]:
    """The catalog of (size, seed) in `cache_dir`, built if missing. Returns (path, build seconds or None)."""
    from verishop.scenarios.catalog.build import CATALOG_SCHEMA_VERSION, build_catalog
    from verishop.scenarios.catalog.reader import CatalogError, CatalogReader

    path = Path(cache_dir).expanduser() / f"catalog-{size}-{seed}.db"
    if path.exists():
        try:
            with CatalogReader(path) as reader:
                if (reader.size == size and int(reader.meta["seed"]) == seed
                        and reader.meta.get("schema_version") == str(CATALOG_SCHEMA_VERSION)):
                    return path, None
        except (CatalogError, KeyError, ValueError):
            pass
    console.print(f"[dim]building catalog size={size:,} seed={seed} into {path} ...[/dim]")
    return path, build_catalog(path, size=size, seed=seed).seconds


def environment() -> dict[str, object]:
    return {"python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version, "cpus": os.cpu_count(),
            "platform": platform.platform(), "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def write_json(name: str, payload: dict) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = RESULTS_DIR / f"{name}-{stamp}.json"
    path.write_text(json.dumps({"benchmark": name, "environment": environment(), **payload}, indent=2) + "\n")
    console.print(f"[dim]results written to {path.relative_to(BENCH_DIR.parent)}[/dim]")
    return path


def print_table(title: str, columns: list[str], rows: list[list[object]]) -> None:
    table = Table(title=title)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*(f"{v:,}" if isinstance(v, int) else f"{v:,.2f}" if isinstance(v, float) else str(v)
                        for v in row))
    console.print(table)


def verdict(value: float, target: float) -> str:
    return f"[green]met[/green] ({value:.2f} <= {target:g})" if value <= target else \
        f"[red]MISSED[/red] ({value:.2f} > {target:g})"


def start_http_server(catalog: Path, runs: Path, workers: int = 1) -> tuple[int, subprocess.Popen]:
    """`verishop serve --transport http` on a free port over `catalog`, episodes under `runs`
    (the caller waits for /health and terminates it). One process by default: the benchmarks
    that read the server's pid (CPU, memory) mean that process."""
    from verishop.agents.evaluate import _free_port, _serve_command

    port = _free_port()
    server = subprocess.Popen(
        _serve_command("--transport", "http", "--workers", str(workers), "--no-default-episode", "--port",
                       str(port), "--catalog", str(catalog), "--runs-dir", str(runs)),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return port, server
