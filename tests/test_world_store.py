"""An open episode's world lives in memory on a kept connection, its durable copy in the process's
world store; world.db is written whole at close. (Killed processes: tests/test_crash.py and
tests/test_workers.py; a full disk: tests/test_full_disk.py.)"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from mcp import Client

from support import reseal

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.episodes.lifecycle import is_episode_id
from verishop.mcp_server.episodes.recovery import lock_directory, recover, release
from verishop.mcp_server.tools import create_server
from verishop.verifier.runner import Verifier


def image_rows(image: bytes, sql: str) -> list[tuple]:
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(image)
        return db.execute(sql).fetchall()
    finally:
        db.close()


def file_rows(path: Path, sql: str) -> list[tuple]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def stores(runs: Path) -> list[str]:
    return sorted(p.name for p in runs.iterdir() if p.name.startswith(".worlds-") and p.name.endswith(".db"))


async def add_first_in_stock(client: Client, category_id: str = "cookware") -> str:
    found = await client.call_tool("search_catalog", {"category_id": category_id, "in_stock_only": True})
    product_id = found.structured_content["results"][0]["product_id"]
    added = await client.call_tool("add_to_cart", {"product_id": product_id})
    assert not added.is_error, added.content[0].text
    return product_id


async def test_an_answered_write_is_in_the_store_and_world_db_is_written_whole_at_close(hub: EpisodeHub) -> None:
    episode = await hub.open(hub.generate("cart", 2, 5), default=True)
    async with Client(create_server(hub)) as client:
        product_id = await add_first_in_stock(client)
    assert not (episode.directory / "world.db").exists()
    kept = hub.store.get(episode.episode_id)
    assert kept is not None and image_rows(kept, "SELECT product_id, quantity FROM cart") == [(product_id, 1)]

    await hub.close(episode.episode_id, "closed_by_client")
    world = episode.directory / "world.db"
    assert [p.name for p in episode.directory.iterdir() if p.name.startswith("world")] == ["world.db"]  # no WAL
    assert file_rows(world, "SELECT product_id, quantity FROM cart") == [(product_id, 1)]
    assert file_rows(world, "PRAGMA quick_check") == [("ok",)]
    assert dict(file_rows(world, "SELECT key, value FROM meta"))["episode_id"] == episode.episode_id
    assert hub.store.get(episode.episode_id) is None and hub.store.pending() == []
    last = json.loads((episode.directory / "transcript.jsonl").read_text().splitlines()[-1])
    assert (last["event"], last["reason"]) == ("episode_closed", "closed_by_client")
    with Verifier() as verifier:
        assert verifier.verify(episode.directory).verdict == "scored"


async def test_a_kept_connection_gives_the_next_episode_a_world_of_its_own(hub: EpisodeHub) -> None:
    first = await hub.open(hub.generate("cart", 2, 5), default=True)
    async with Client(create_server(hub)) as client:
        await add_first_in_stock(client)
    await hub.close(first.episode_id, "closed_by_client")
    assert hub.worlds.idle == 1  # the first episode's connection, kept

    second = await hub.open(hub.generate("pd", 3, 6), default=True)
    assert hub.worlds.idle == 0  # taken again
    async with second.db.execute("SELECT count(*) FROM cart") as cur:
        assert (await cur.fetchone())[0] == 0
    async with second.db.execute("SELECT value FROM meta WHERE key = 'episode_id'") as cur:
        assert (await cur.fetchone())[0] == second.episode_id
    async with second.db.execute("SELECT count(*) FROM meta") as cur:
        assert (await cur.fetchone())[0] == len(file_rows(first.directory / "world.db", "SELECT * FROM meta"))
    async with second.db.execute("SELECT count(*) FROM temp.shop_products") as cur:
        assert (await cur.fetchone())[0] >= hub.catalog.size  # the catalog is still attached


async def test_a_hub_that_closes_everything_removes_its_store(catalog_path: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    hub = EpisodeHub(catalog_path, runs)
    episodes = [await hub.open(hub.generate("pd", 1, seed)) for seed in range(3)]
    assert len(stores(runs)) == 1
    await hub.aclose()
    assert stores(runs) == []
    assert all((e.directory / "world.db").is_file() for e in episodes)
    assert recover(runs, is_episode_id).crashed == []


async def test_recovery_writes_each_world_of_a_store_left_without_its_process(catalog_path: Path,
                                                                             tmp_path: Path) -> None:
    """The kernel drops a dead process's locks; here the hub's are dropped by hand, its store and
    episode folders left as they were (tests/test_crash.py does it with kill -9)."""
    runs = tmp_path / "runs"
    hub = EpisodeHub(catalog_path, runs)
    episode = await hub.open(hub.generate("cart", 2, 5), default=True)
    async with Client(create_server(hub)) as client:
        product_id = await add_first_in_stock(client)
    other = EpisodeHub(catalog_path, runs)  # a live process on the same runs dir
    alive = await other.open(other.generate("pd", 1, 1))
    try:
        assert recover(runs, is_episode_id).crashed == []  # both owners alive: nothing touched
        assert len(stores(runs)) == 2

        release(hub._locks.pop(episode.episode_id))
        hub.store._db.close()
        release(hub.store._lock_fd)
        found = recover(runs, is_episode_id)
        assert found.crashed == [episode.episode_id]
        assert file_rows(episode.directory / "world.db", "SELECT product_id, quantity FROM cart") == [(product_id, 1)]
        assert stores(runs) == [other.store.path.name]  # the live one's store stays
        assert not (alive.directory / "world.db").exists()
        with Verifier() as verifier:
            assert verifier.verify(episode.directory).verdict == "scored"
        fd = lock_directory(alive.directory)
        assert fd is None  # still its process's
    finally:
        await other.aclose()


def test_a_kept_verifier_reads_a_catalog_rebuilt_at_the_same_path(catalog_path: Path, tmp_path: Path) -> None:
    """The in-process scorer keeps its verifier (and so its catalog) from episode to episode; a
    catalog rebuilt or replaced at the same path is read anew, never from the old file."""
    import shutil

    from verishop.scenarios.catalog.build import build_catalog
    from verishop.verifier.catalogs import CatalogCache

    path = tmp_path / "catalog.db"
    shutil.copyfile(catalog_path, path)
    other = build_catalog(tmp_path / "other.db", size=300, seed=11, workers=1)
    cache = CatalogCache()
    try:
        first = cache.open(path, cache_hash(catalog_path))
        assert cache.open(path, cache_hash(catalog_path)) is first  # kept while the file is the same
        (tmp_path / "other.db").replace(path)
        second = cache.open(path, other.content_hash)
        assert second is not first and second.size == 300
    finally:
        cache.close()


def cache_hash(path: Path) -> str:
    from verishop.scenarios.catalog.reader import CatalogReader

    with CatalogReader(path) as reader:
        return reader.meta["content_hash"]


async def test_the_verifier_reads_a_world_held_in_memory_and_a_large_one_by_path_alike(hub: EpisodeHub,
                                                                                     tmp_path: Path) -> None:
    """world.db is read once into memory; one over IN_MEMORY_WORLD_BYTES (only a hand-made file
    is) is opened by path instead, never held in memory whole: the same world either way."""
    import shutil

    from verishop.verifier.world import IN_MEMORY_WORLD_BYTES, read_world

    episode = await hub.open(hub.generate("cart", 2, 5), default=True)
    async with Client(create_server(hub)) as client:
        product_id = await add_first_in_stock(client)
    await hub.close(episode.episode_id, "closed_by_client")
    padded = tmp_path / episode.episode_id
    shutil.copytree(episode.directory, padded)
    db = sqlite3.connect(padded / "world.db")
    db.execute("CREATE TABLE padding (blob BLOB)")
    db.execute("INSERT INTO padding VALUES (zeroblob(?))", (IN_MEMORY_WORLD_BYTES + 1,))
    db.commit()
    db.close()
    reseal(padded, hub.seal_key)  # made by hand, sealed as its server would have (else: modified_after_close)
    assert (padded / "world.db").stat().st_size > IN_MEMORY_WORLD_BYTES
    assert not (padded / "world.db-wal").exists()

    small, large = read_world(episode.directory, "world.db"), read_world(padded, "world.db")
    assert small == large and small.cart == {product_id: 1}
    with Verifier() as verifier:
        assert verifier.score(padded).total == verifier.score(episode.directory).total
