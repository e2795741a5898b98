"""--max-episodes holds under any concurrency: 100 creations at once, half of them sending their
body slowly (the check used to run before the body was read and the count after it), against
one process and against a supervisor with two workers (whose total is the supervisor's)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx2
import pytest
from servers import started

LIMIT = 10
CREATIONS = 100
SLOW = 50
DEADLINE_S = 120.0


def serve(catalog_path: Path, root: Path, workers: int):
    return started(["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
                    "--runs-dir", str(root / "runs"), "--max-episodes", str(LIMIT), "--workers", str(workers),
                    "--idle-timeout-s", "0"], root / "server.log", {"VERISHOP_HOME": str(root / "home")})


async def burst(base: str) -> list[int]:
    """Statuses of CREATIONS concurrent POST /episodes: SLOW of them send the first half of their
    body, wait until every fast one has its answer, then send the rest. 0: the server hung up."""
    statuses: list[int] = []
    sent_first_half = 0
    all_slow_started = anyio.Event()
    fast_done = anyio.Event()

    async def slow_body(body: bytes) -> AsyncIterator[bytes]:
        nonlocal sent_first_half
        yield body[: len(body) // 2]
        sent_first_half += 1
        if sent_first_half == SLOW:
            all_slow_started.set()
        await fast_done.wait()
        yield body[len(body) // 2:]

    async def create(http: httpx2.AsyncClient, seed: int, slow: bool) -> None:
        body = json.dumps({"env": "pd", "difficulty": 1, "seed": seed}).encode()
        try:
            content = slow_body(body) if slow else body
            r = await http.post("/episodes", content=content, headers={"content-type": "application/json",
                                                                       "content-length": str(len(body))})
            statuses.append(r.status_code)
        except httpx2.TransportError:
            statuses.append(0)

    limits = httpx2.Limits(max_connections=CREATIONS + 10, max_keepalive_connections=0)
    async with httpx2.AsyncClient(base_url=base, timeout=DEADLINE_S, limits=limits) as http:
        with anyio.fail_after(DEADLINE_S):
            async with anyio.create_task_group() as slow_group:
                for seed in range(SLOW):
                    slow_group.start_soon(create, http, seed, True)
                await all_slow_started.wait()
                async with anyio.create_task_group() as fast_group:
                    for seed in range(SLOW, CREATIONS):
                        fast_group.start_soon(create, http, seed, False)
                fast_done.set()
    return statuses


@pytest.mark.parametrize("workers", [1, 2])
def test_concurrent_creations_never_open_more_than_max_episodes(catalog_path: Path, tmp_path: Path,
                                                                 workers: int) -> None:
    with serve(catalog_path, tmp_path, workers) as server:
        statuses = anyio.run(burst, server.base)
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            health = http.get("/health").json()
    assert len(statuses) == CREATIONS
    assert set(statuses) <= {201, 503, 0}, statuses
    assert statuses.count(201) == LIMIT, statuses  # the limit is reached, never passed
    assert health["open_episodes"] == LIMIT, health
    folders = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    assert len(folders) == LIMIT, sorted(p.name for p in folders)
