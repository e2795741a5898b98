"""A blocking in-process call runs inline (`verishop.local.inline`): no event loop, no slow-lane
thread, the same results, transcript and reward as the awaited path, and a write that fails
midway is rolled back all the same."""

from __future__ import annotations

import asyncio
import json

import pytest
from support import stable_event

from verishop.local import LocalShop
from verishop.local.inline import WaitedInline, run_inline
from verishop.local.session import play_scripted
from verishop.mcp_server.episodes import connection
from verishop.mcp_server.errors import InternalError

# Environments whose oracles write (cart, return, change, compensation, checkout) and read.
PLAYS = [("pd", 4, 11), ("cart", 6, 2), ("return", 5, 8), ("change", 6, 4), ("compensation", 8, 1),
         ("checkout", 9, 6), ("journey", 7, 3)]


def _events(episode) -> list[dict]:
    lines = episode.run_files()["transcript.jsonl"].splitlines()
    return [stable_event(json.loads(line)) for line in lines]


@pytest.mark.parametrize("env,difficulty,seed", PLAYS)
def test_a_blocking_replay_of_an_awaited_episode_is_the_same_episode(catalog_path, env, difficulty, seed):
    """The oracle plays awaited; its calls, replayed through the blocking `call`, give the same
    results, the same transcript and the same reward, and the blocking shop never made a loop."""
    with LocalShop(catalog_path) as awaited_shop:
        awaited = asyncio.run(play_scripted(awaited_shop, "oracle", env=env, difficulty=difficulty, seed=seed))
        calls = [(e["tool"], e["arguments"]) for e in _events(awaited) if e["event"] == "tool_call"]
        assert calls, "the oracle called no tool"
        with LocalShop(catalog_path) as blocking_shop:
            replay = blocking_shop.open(env=env, difficulty=difficulty, seed=seed)
            for name, arguments in calls:
                if replay.is_open:
                    replay.call(name, arguments)
            if replay.is_open:
                replay.close("agent_stopped")
            assert blocking_shop._loop is None  # every call ran inline
            assert _events(replay) == _events(awaited)
            theirs, ours = awaited.reward_model(), replay.reward_model()
            assert ours.model_dump(exclude={"episode_id"}) == theirs.model_dump(exclude={"episode_id"})


def test_a_blocking_search_skips_the_slow_lane_and_an_awaited_one_takes_it(catalog_path, monkeypatch):
    """A ranked search goes to the slow lane's threads on a server; a blocking call has nothing to
    keep responsive, so it runs the statement on the calling thread (the same rows)."""
    lanes = []
    real_lane = connection.slow_lane
    monkeypatch.setattr(connection, "slow_lane", lambda: lanes.append(1) or real_lane())
    arguments = {"query": "cotton", "sort_by": "price", "limit": 5}
    with LocalShop(catalog_path) as shop:
        blocking = shop.open(env="pd", difficulty=3, seed=1)
        found = blocking.call("search_catalog", arguments)
        assert found.error is None and found.data["results"] and lanes == []

        async def awaited_search():
            episode = await shop.aopen(env="pd", difficulty=3, seed=1)
            return await episode.acall("search_catalog", arguments)

        assert asyncio.run(awaited_search()).data == found.data and lanes


def test_a_write_that_fails_midway_is_rolled_back_inline(catalog_path):
    """A write's statements are undone when its body fails after the first: the world, the
    transcript (the failure recorded) and the next call agree."""
    with LocalShop(catalog_path) as shop:
        episode = shop.open(env="cart", difficulty=2, seed=3)
        served = episode._episode
        product_id = episode.call("search_catalog", {"limit": 1}).data["results"][0]["product_id"]

        async def half_a_write():
            await served.db.execute("INSERT INTO cart VALUES (?, ?, ?)", (product_id, 1, 1))
            raise RuntimeError("the second statement failed")

        with pytest.raises(InternalError):
            shop._run(served.call("add_to_cart", {"product_id": product_id, "quantity": 1}, half_a_write), inline=True)
        assert episode.call("view_cart").data["lines"] == []
        assert episode.call("add_to_cart", {"product_id": product_id, "quantity": 1}).error is None
        episode.close()
        assert served.world.cart == {product_id: 1}  # the world as the verifier reads it
        failed, = [e for e in _events(episode) if e["event"] == "tool_call" and "error" in e]
        assert failed["tool"] == "add_to_cart" and "internal error" in failed["error"]
        assert episode.reward_model().verdict == "scored"


def test_run_inline_steps_past_a_bare_yield_and_refuses_a_real_wait():
    async def yields_then_returns():
        await asyncio.sleep(0)  # a bare yield: nothing else to let run
        return 7

    assert run_inline(yields_then_returns()) == 7

    loop = asyncio.new_event_loop()
    try:
        async def waits_on_a_future():
            await loop.create_future()

        with pytest.raises(WaitedInline, match="event loop"):
            run_inline(waits_on_a_future())
    finally:
        loop.close()


@pytest.mark.parametrize("env,difficulty,seed", PLAYS)
def test_a_played_episode_is_freed_by_reference_counting(catalog_path, env, difficulty, seed):
    """Nothing of a played and scored episode is left for the cyclic garbage collector: once its
    handle is dropped, its world, transcript and customer go at once (a trainer's process would
    otherwise pay a collector's pass over every episode's objects)."""
    import gc
    import weakref

    with LocalShop(catalog_path) as shop:
        gc.collect()
        gc.disable()
        try:
            episode = asyncio.run(play_scripted(shop, "oracle", env=env, difficulty=difficulty, seed=seed))
            assert episode.reward_model().verdict == "scored"
            served = weakref.ref(episode._episode)
            customer = weakref.ref(episode._episode.customer)
            del episode
            assert served() is None and customer() is None
        finally:
            gc.enable()
