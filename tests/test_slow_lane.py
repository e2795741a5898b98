"""One episode's slow work never stalls the others: statements that may read many catalog rows run
in the slow lane (mcp_server/episodes/slow_lane.py), threads beside the event loop at a lower
scheduling priority, and a cancelled caller frees its thread.

A statement is "held running" by a SQLite progress handler or a user function that waits on a
threading.Event the test controls, so nothing here depends on timing; every wait is bounded."""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import anyio.abc
import pytest
from mcp import Client

from verishop.mcp_server.episodes.connection import WorldConnection
from verishop.mcp_server.episodes.store import WorldStore
from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.episodes.slow_lane import SLOW_LANE_NICE, THREAD_NAME, Interruption, SlowLane, slow_lane
from verishop.mcp_server.tools import create_server
from verishop.scenarios.catalog.reader import CatalogReader

DEADLINE_S = 10.0
CHEAP_CALLS = 20
# Instructions between progress-handler calls: small enough to fire in any catalog statement.
PROGRESS_STEPS = 50
# Counts until twice the test's deadline: only an interrupt ends it in time. (Not endless, so a
# server that cannot interrupt it fails the test at its deadline instead of hanging it.)
LONG = ("WITH RECURSIVE n(i) AS (SELECT started() UNION ALL SELECT i + 1 FROM n WHERE NOT overdue()) "
        "SELECT count(*) FROM n")

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="thread priorities are set on Linux only")


async def wait_for(event: threading.Event) -> None:
    """Wait for a thread's event without blocking the loop, bounded."""
    assert await anyio.to_thread.run_sync(event.wait, DEADLINE_S), "the event never came"


def hold_lane_statements(ep: Episode) -> tuple[threading.Event, threading.Event]:
    """Make `ep`'s next statement off the loop's thread wait, mid-statement, until the returned `release` is
    set; `entered` is set once it waits. Its statements on the loop's thread are left alone."""
    entered, release = threading.Event(), threading.Event()
    loop_thread = threading.current_thread()

    def progress() -> int:
        if threading.current_thread() is not loop_thread and not entered.is_set():
            entered.set()
            release.wait(DEADLINE_S)
        return 0

    ep.db._connection().set_progress_handler(progress, PROGRESS_STEPS)
    return entered, release


async def open_roomy(hub: EpisodeHub, seed: int) -> Episode:
    """A pd episode whose turn allows more lookups than the test makes."""
    scenario = hub.generate("pd", 3, seed)
    roomy = scenario.axes.model_copy(update={"tool_calls_per_turn": 4 * CHEAP_CALLS})
    return await hub.open(scenario.model_copy(update={"axes": roomy}))


def sorted_search(category_id: str) -> dict:
    return {"query": "", "category_id": category_id, "sort_by": "price", "limit": 10}


def nonempty_category(reader: CatalogReader, rank: int = 0) -> str:
    return [c for c in reader.category_ids if reader.featured_in_stock(c, 5)][rank]


async def test_cheap_calls_in_other_episodes_finish_while_a_slow_search_is_held_running(
        hub: EpisodeHub, reader: CatalogReader) -> None:
    slow = await open_roomy(hub, 1)
    others = [await open_roomy(hub, seed) for seed in (2, 3, 4)]
    category_id = nonempty_category(reader)
    async with Client(create_server(hub, episode_id=slow.episode_id)) as client:
        expected = (await client.call_tool("search_catalog", sorted_search(category_id))).structured_content
    entered, release = hold_lane_statements(slow)
    held_result: dict = {}

    async def slow_search(client: Client) -> None:
        held_result.update((await client.call_tool("search_catalog", sorted_search(category_id))).structured_content)

    with anyio.fail_after(DEADLINE_S):
        async with Client(create_server(hub, episode_id=slow.episode_id)) as client, anyio.create_task_group() as tg:
            tg.start_soon(slow_search, client)
            await wait_for(entered)
            for ep in others:
                async with Client(create_server(hub, episode_id=ep.episode_id)) as other:
                    for _ in range(CHEAP_CALLS):
                        assert not (await other.call_tool("get_current_date", {})).is_error
                    # Another episode's slow-lane search runs on another of the lane's threads.
                    other_search = await other.call_tool("search_catalog", sorted_search(category_id))
                    assert not other_search.is_error and other_search.structured_content["results"]
            assert entered.is_set() and not release.is_set() and not held_result, "the held search ended early"
            release.set()
    assert held_result == expected, "the held search, once released, answers as it does unheld"


async def test_a_slow_search_runs_in_the_slow_lane_at_a_lower_priority_than_the_loop(
        hub: EpisodeHub, reader: CatalogReader) -> None:
    ep = await hub.open(hub.generate("pd", 3, 1))
    threads: set[str] = set()

    def progress() -> int:
        threads.add(threading.current_thread().name)
        return 0

    ep.db._connection().set_progress_handler(progress, PROGRESS_STEPS)
    async with Client(create_server(hub, episode_id=ep.episode_id)) as client:
        assert not (await client.call_tool("search_catalog", sorted_search(nonempty_category(reader)))).is_error
    assert any(name.startswith(THREAD_NAME) for name in threads), threads
    if sys.platform == "linux":
        loop_nice = nice_of(threading.get_native_id())
        assert slow_lane().native_ids
        assert {nice_of(tid) for tid in slow_lane().native_ids} == {min(19, loop_nice + SLOW_LANE_NICE)}


def nice_of(tid: int) -> int:
    """A thread's nice value as the kernel reports it (field 19 of /proc/self/task/<tid>/stat)."""
    return int(Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()[16])


@linux_only
async def test_every_thread_of_a_lane_lowers_its_own_priority_and_no_other_thread_changes() -> None:
    lane = SlowLane(3, nice=7)
    loop_tid = threading.get_native_id()
    loop_nice = nice_of(loop_tid)
    try:
        # Three jobs held at once start all three threads.
        started = [threading.Event() for _ in range(3)]
        release = threading.Event()

        def job(i: int) -> int:
            started[i].set()
            release.wait(DEADLINE_S)
            return threading.get_native_id()

        with anyio.fail_after(DEADLINE_S):
            async with anyio.create_task_group() as tg:
                tids: list[int] = []

                async def run(i: int) -> None:
                    tids.append(await lane.run(lambda: job(i)))

                for i in range(3):
                    tg.start_soon(run, i)
                for event in started:
                    await wait_for(event)
                assert {nice_of(tid) for tid in lane.native_ids} == {min(19, loop_nice + 7)}
                release.set()
        assert set(tids) == lane.native_ids and len(tids) == 3
        assert nice_of(loop_tid) == loop_nice, "the loop's own priority is untouched"
    finally:
        lane.shutdown()


def world(tmp_path: Path, name: str, started: threading.Event | None = None,
          ran: Callable[[], None] | None = None) -> WorldConnection:
    """A WorldConnection on its own file, with user functions the statements below call."""
    raw = sqlite3.connect(tmp_path / f"{name}.db", isolation_level=None, check_same_thread=False)
    raw.execute("CREATE TABLE IF NOT EXISTS t(x)")
    (tmp_path / name).mkdir()
    db = WorldConnection(raw, episode_id=name, folder=tmp_path / name, store=WorldStore(tmp_path / name))
    raw = db._connection()
    raw.create_function("started", 0, lambda: (started.set() if started else None, 1)[1])
    raw.create_function("ran", 0, lambda: (ran() if ran else None, 1)[1])
    cutoff = time.monotonic() + 2 * DEADLINE_S
    raw.create_function("overdue", 0, lambda: time.monotonic() > cutoff)
    return db


async def run_statement(db: WorldConnection, sql: str) -> None:
    await db.execute(sql, offload=True)


async def fill_lane(tmp_path: Path, count: int) -> tuple[list[WorldConnection], threading.Event, list[threading.Event]]:
    """`count` connections, each with a statement held running in the lane until `release`."""
    release = threading.Event()
    starts = [threading.Event() for _ in range(count)]
    held = []
    for i in range(count):
        db = world(tmp_path, f"held{i}", starts[i])
        db._connection().create_function("hold", 0, lambda: (release.wait(DEADLINE_S), 1)[1])
        held.append(db)
    return held, release, starts


async def hold_each(holders: anyio.abc.TaskGroup, held: list[WorldConnection],
                    starts: list[threading.Event]) -> None:
    """Start each held connection's statement in the lane, and wait until it runs."""
    for db, started in zip(held, starts):
        holders.start_soon(run_statement, db, "SELECT started() + hold()")
        await wait_for(started)


async def test_a_cheap_statement_never_queues_behind_sixteen_slow_ones(tmp_path: Path) -> None:
    held, release, starts = await fill_lane(tmp_path, 16)
    cheap = world(tmp_path, "cheap")
    try:
        with anyio.fail_after(DEADLINE_S):
            async with anyio.create_task_group() as holders:
                await hold_each(holders, held, starts)
                assert await (await cheap.execute("SELECT 6 * 7", offload=True)).fetchall() == [(42,)]
                assert not release.is_set(), "every slow statement was still running"
                release.set()
    finally:
        release.set()
        for db in (*held, cheap):
            await db.close()


async def test_a_cancelled_slow_statement_is_interrupted_and_frees_its_thread(tmp_path: Path) -> None:
    lane = slow_lane()
    held, release, starts = await fill_lane(tmp_path, lane.threads - 1)
    slow_started = threading.Event()
    slow_db = world(tmp_path, "long", slow_started)
    fresh = world(tmp_path, "fresh")
    try:
        with anyio.fail_after(DEADLINE_S):
            async with anyio.create_task_group() as holders:
                await hold_each(holders, held, starts)
                with anyio.CancelScope() as scope:
                    async def slow_call() -> None:
                        await slow_db.execute(LONG, offload=True)
                        pytest.fail("the long statement was not interrupted")

                    async with anyio.create_task_group() as tg:
                        tg.start_soon(slow_call)
                        await wait_for(slow_started)
                        scope.cancel()
                assert scope.cancelled_caught
                # Every other thread of the lane is still held: this runs only on the freed one.
                rows = await (await fresh.execute("SELECT 41 + 1", offload=True)).fetchall()
                assert rows == [(42,)]
                # The interrupt was for the cancelled statement only: the connection still works.
                assert await (await slow_db.execute("SELECT 7", offload=True)).fetchall() == [(7,)]
                release.set()
    finally:
        release.set()
        for db in (*held, slow_db, fresh):
            await db.close()


async def test_a_queued_statement_whose_caller_is_cancelled_never_runs(tmp_path: Path) -> None:
    lane = slow_lane()
    held, release, starts = await fill_lane(tmp_path, lane.threads)
    ran = threading.Event()
    queued = world(tmp_path, "queued", ran=ran.set)
    try:
        with anyio.fail_after(DEADLINE_S):
            async with anyio.create_task_group() as holders:
                await hold_each(holders, held, starts)
                with anyio.CancelScope() as scope:
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(run_statement, queued, "SELECT ran()")
                        while not lane.waiting:  # bounded by fail_after
                            await anyio.lowlevel.checkpoint()
                        scope.cancel()
                assert not lane.waiting, "the cancelled statement was taken off the queue"
                release.set()
            # Once the lane is free, a later statement runs; the cancelled one never did.
            assert await (await queued.execute("SELECT 1", offload=True)).fetchall() == [(1,)]
        assert not ran.is_set()
    finally:
        release.set()
        for db in (*held, queued):
            await db.close()


def test_an_interrupt_reaches_only_the_statement_it_was_meant_for(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "w.db", check_same_thread=False)
    finished = Interruption(db)
    with finished.running():
        assert db.execute("SELECT 1").fetchall() == [(1,)]
    finished.interrupt()  # too late: its statement is over
    assert db.execute("SELECT 2").fetchall() == [(2,)], "a late interrupt hit the next statement"
    never = Interruption(db)
    never.interrupt()  # cancelled before it started
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        with never.running():
            pytest.fail("a statement cancelled before it started ran")
    db.close()


def test_a_lane_without_threads_is_refused_with_a_clear_error() -> None:
    with pytest.raises(ValueError, match="at least one thread, not 0"):
        SlowLane(0)
