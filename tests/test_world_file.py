"""world.db, built in memory and written at once, holds what the schema script and row inserts
on a WAL file held before (the verifier's half of the contract), and opens in WAL mode."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.envs import REGISTRY, generate
from verishop.scenarios.world_db import SCHEMA, WORLD_PAGE_SIZE, create_world


def dump(path: Path) -> dict[str, list[tuple]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        found = {"sqlite_master": db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")
                 .fetchall()}
        found |= {t: db.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
        return found
    finally:
        db.close()


def scripted_world(path: Path, reference: Path) -> None:
    """The world as the schema script made it: WAL, SCHEMA, then the rows of `reference`."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    db.execute("ATTACH DATABASE ? AS ref", (f"file:{reference}?mode=ro",))
    for table in ("meta", "orders", "order_lines", "stock_changes", "extra_products", "cart", "returns", "addresses",
                  "payment_methods", "order_changes", "customers", "vouchers"):
        db.execute(f"INSERT INTO main.{table} SELECT * FROM ref.{table} ORDER BY rowid")
    db.execute("DETACH DATABASE ref")
    db.close()


@pytest.mark.parametrize("env", [spec.short_name for spec in REGISTRY.values()])
def test_a_world_file_holds_the_schema_and_rows_and_opens_in_wal_mode(
        env: str, reader: CatalogReader, catalog_path: Path, tmp_path: Path) -> None:
    for seed in range(3):
        scenario = generate(env, 4 * seed + 2, seed, reader)
        world = tmp_path / f"{env}-{seed}.db"
        create_world(world, scenario, episode_id="ep_x", catalog_path=catalog_path)
        scripted = tmp_path / f"{env}-{seed}-scripted.db"
        scripted_world(scripted, world)
        assert dump(world) == dump(scripted)
        meta = dict(dump(world)["meta"])
        assert meta["scenario_sha256"] == scenario.sha256() and meta["episode_id"] == "ep_x"
        db = sqlite3.connect(world)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        # Small pages keep the file small: what every episode writes, and leaves on disk.
        assert db.execute("PRAGMA page_size").fetchone() == (WORLD_PAGE_SIZE,)
        assert world.stat().st_size <= 48 * 1024, world.stat().st_size
        db.close()
        with pytest.raises(FileExistsError):  # never over an existing file
            create_world(world, scenario, episode_id="ep_x", catalog_path=catalog_path)
