"""Scenarios are generated in several threads at once (no hub-wide lock), and a seed still
gives the same scenario byte for byte, whichever thread makes it and whatever runs beside it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import anyio

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.scenarios.envs import REGISTRY


def jobs() -> list[tuple[str, int, int]]:
    return [(spec.short_name, (seed * 5) % 13, seed) for spec in REGISTRY.values() for seed in range(12)]


async def test_concurrent_generation_gives_each_seed_its_sequential_scenario(hub: EpisodeHub) -> None:
    sequential = [hub.generate(*job).sha256() for job in jobs()]
    with ThreadPoolExecutor(max_workers=6) as pool:
        threaded = list(pool.map(lambda job: hub.generate(*job).sha256(), reversed(jobs())))
    assert threaded[::-1] == sequential

    concurrent: dict[tuple[str, int, int], str] = {}

    async def one(job: tuple[str, int, int]) -> None:
        concurrent[job] = (await hub.generate_async(*job)).sha256()

    async with anyio.create_task_group() as tg:
        for job in jobs():
            tg.start_soon(one, job)
    assert [concurrent[job] for job in jobs()] == sequential
    assert len(hub._idle_readers) > 1  # generations really overlapped, each on its own connection
