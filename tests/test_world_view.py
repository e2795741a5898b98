"""What the simulated customer sees of the world (`Episode.world_view`): before the agent's first
write it is known without asking the world, because seeding fills none of the tables it reads;
checked here for every environment, so that a new one seeding a cart or a return fails loudly."""

from __future__ import annotations

import asyncio

import pytest

from verishop.envs import REGISTRY
from verishop.local import LocalShop
from verishop.scenarios.customers.base import WorldView


@pytest.fixture(scope="module")
def shop(catalog_path):
    with LocalShop(catalog_path) as local:
        yield local


def _asked(episode) -> WorldView:
    """The view read from the world's tables (as after a write)."""
    served = episode._episode
    served.write_calls, kept = 1, served.write_calls
    try:
        return asyncio.run(served.world_view())
    finally:
        served.write_calls = kept


@pytest.mark.parametrize("env_id", sorted(REGISTRY))
@pytest.mark.parametrize("difficulty", [0, 6, 12])
def test_a_seeded_world_shows_the_customer_nothing_yet(shop, env_id, difficulty):
    episode = shop.open(env=env_id, difficulty=difficulty, seed=difficulty + 1)
    try:
        assert episode._episode.write_calls == 0
        assert asyncio.run(episode._episode.world_view()) == WorldView() == _asked(episode)
    finally:
        episode.close()


def test_after_a_write_the_customer_sees_the_world(shop):
    episode = shop.open(env="cart", difficulty=2, seed=3)
    try:
        product_id = episode.call("search_catalog", {"limit": 1}).data["results"][0]["product_id"]
        assert episode.call("add_to_cart", {"product_id": product_id, "quantity": 2}).error is None
        assert episode._episode.write_calls == 1
        view = asyncio.run(episode._episode.world_view())
        assert view.cart == {product_id: 2} and view == _asked(episode)
    finally:
        episode.close()
