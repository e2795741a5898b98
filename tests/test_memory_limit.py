"""A memory-aware episode limit (issue 37, break 9), on real `verishop serve --transport http`
subprocesses: with `--max-memory` under what the process already holds, `POST /episodes`
answers 503 with Retry-After naming the memory limit and makes nothing; the default and the
given budgets bound `max_episodes` by the measured per-episode cost."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from servers import started

from verishop.mcp_server.http.memory import DEFAULT_SHARE, EPISODE_COST_BYTES, available_bytes, parse_size

MIB = 1 << 20


def serve_args(catalog_path: Path, tmp_path: Path, *extra: str) -> list[str]:
    return ["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
            "--runs-dir", str(tmp_path / "runs"), *extra]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_server_at_its_memory_limit_answers_503_with_retry_after_and_makes_nothing(
        catalog_path: Path, tmp_path: Path, workers: str) -> None:
    runs = tmp_path / "runs"
    # Every Python process with the catalog open holds more than 40 MiB: no episode fits.
    with started(serve_args(catalog_path, tmp_path, "--max-memory", "40M", "--workers", workers),
                 tmp_path / "server.log", {"VERISHOP_HOME": str(tmp_path / "home")}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            refused = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 1})
            assert refused.status_code == 503, refused.text
            assert int(refused.headers["retry-after"]) > 0
            assert "memory" in refused.json()["error"] and "--max-memory" in refused.json()["error"], refused.text
            assert http.get("/health").status_code == 200  # the server goes on
    assert not list(runs.glob("ep_*")) and not list(runs.glob(".ep_*"))
    assert "Traceback" not in server.log()


def test_a_server_with_memory_to_spare_opens_episodes_and_bounds_them_by_its_budget(
        catalog_path: Path, tmp_path: Path) -> None:
    with started(serve_args(catalog_path, tmp_path, "--max-memory", "400M", "--workers", "1"),
                 tmp_path / "server.log", {"VERISHOP_HOME": str(tmp_path / "home")}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            created = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 1})
            assert created.status_code == 201, created.text
            limit = http.get("/health").json()["max_episodes"]
    assert 1 <= limit <= 400 * MIB // EPISODE_COST_BYTES, limit


def test_the_default_episode_limit_fits_the_memory_available(catalog_path: Path, tmp_path: Path) -> None:
    available = available_bytes()
    if available is None:
        pytest.skip("no /proc/meminfo here: no memory budget")
    with started(serve_args(catalog_path, tmp_path, "--workers", "1"), tmp_path / "server.log",
                 {"VERISHOP_HOME": str(tmp_path / "home")}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            limit = http.get("/health").json()["max_episodes"]
    # What was available when it started, give or take what other processes did meanwhile.
    assert limit <= 1.25 * available * DEFAULT_SHARE / EPISODE_COST_BYTES, limit


@pytest.mark.parametrize(("text", "size"), [("2G", 2 << 30), ("512M", 512 * MIB), ("1.5GiB", 3 << 29),
                                            ("800000000", 800_000_000), ("64m", 64 * MIB)])
def test_memory_sizes_read_as_written(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_a_memory_size_that_is_not_one_is_refused_at_start_naming_the_option(catalog_path: Path,
                                                                              tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "verishop", *serve_args(catalog_path, tmp_path, "--max-memory",
                                                                         "lots")],
                          capture_output=True, timeout=60, env={**os.environ, "VERISHOP_HOME": str(tmp_path / "h"),
                                                                "COLUMNS": "200"})
    assert done.returncode == 2, done.stderr
    assert b"--max-memory" in done.stderr and b"not a size" in done.stderr, done.stderr
    assert b"Traceback" not in done.stderr
