"""An in-process episode's world is read at close from the tables that hold rows only (issue 36's
speed): the verifier's view must equal the one read from every table of its world.db image."""

from __future__ import annotations

import sqlite3

import pytest

from verishop.local import LocalShop
from verishop.local.session import play_scripted
from verishop.verifier.world import world_from_connection

# Environments whose worlds fill different tables: carts, returns, order changes, payments, hand-overs.
PLAYS = [("pd", 4, 11), ("cart", 6, 2), ("return", 5, 8), ("change", 6, 4), ("compensation", 8, 1),
         ("checkout", 9, 6), ("journey", 7, 3), ("status", 3, 5)]


@pytest.fixture(scope="module")
def shop(catalog_path):
    with LocalShop(catalog_path) as local:
        yield local


async def test_the_world_read_from_its_filled_tables_is_the_world_read_from_all(shop):
    filled_tables = set()
    for env, difficulty, seed in PLAYS:
        for agent in ("oracle", "greedy", "null"):  # null writes nothing: its world is as seeded
            episode = await play_scripted(shop, agent, env=env, difficulty=difficulty, seed=seed)
            image = episode.run_files()["world.db"]
            db = sqlite3.connect(":memory:")
            try:
                db.deserialize(image[:18] + b"\x01\x01" + image[20:])
                full = world_from_connection(db)
                filled_tables |= {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                                  if db.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone()}
            finally:
                db.close()
            assert episode._episode.world == full, (env, agent)
    # the plays reach tables beyond a product discovery's four
    assert {"cart", "returns", "order_changes"} <= filled_tables


@pytest.mark.parametrize("difficulty", [0, 6, 12])
def test_seeding_names_the_tables_it_fills(shop, difficulty):
    """`seed_world` answers which tables it gave rows: closing an episode that wrote nothing trusts
    that answer instead of asking the world, so it must be the world's own, in every environment."""
    from verishop.envs import REGISTRY
    from verishop.scenarios.world_db import seed_world

    for env_id in sorted(REGISTRY):
        scenario = shop.open(env=env_id, difficulty=difficulty, seed=difficulty + 2)
        db = shop.worlds.take()
        try:
            seeded = seed_world(db, scenario.scenario, episode_id="ep_test", catalog_path=shop.catalog_path)
            assert seeded == frozenset(shop.worlds.holding(db)), env_id
        finally:
            shop.worlds.give_back(db)
            scenario.close()
