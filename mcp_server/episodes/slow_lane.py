"""The slow lane: a few threads, at a lower scheduling priority, for statements that may read many
catalog rows (a sorted search ranking every match of a common word takes 150-350 ms of CPU on a
2M catalog).

Running them beside the event loop keeps them from blocking it, but not from starving it: on a
2-core machine 16 such statements in 16 threads took 57% of both cores, and the loop thread,
which serves every episode's cheap calls, got 3% of one (`bench/loop_stall.py`: the cheap calls'
p99 went from 0.12 s to 2.3 s). So the lane has about one thread per core (work beyond that
waits in a queue, holding no CPU), and each thread lowers its own priority once, when it starts
(Linux: nice +10, a CFS weight of 110 against a normal thread's 1024), so whenever the loop or a
client on the same machine wants a core it gets it first, and the lane still uses every idle
cycle. Elsewhere, the threads keep the normal priority.

A statement whose caller is cancelled never starts if it is still queued; one that is running
is interrupted (`sqlite3.Connection.interrupt`), so its thread is free for the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

SLOW_LANE_NICE = 10
THREAD_NAME = "verishop-slow-lane"


def lower_priority(nice: int) -> None:
    """Lower the calling thread's scheduling priority by `nice` (Linux schedules threads, not
    processes, so the thread id is a valid PRIO_PROCESS target there). Never raises: a thread that
    keeps the normal priority still runs the statement correctly, only without yielding to the loop."""
    if sys.platform != "linux" or nice <= 0:
        return
    with contextlib.suppress(OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice)


class Interruption:
    """Interrupts one statement on `db`, and only while that statement runs: a statement of the
    same connection that comes later is never hit by an interrupt meant for an earlier one."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db
        self._lock = threading.Lock()
        self._active = self._cancelled = False

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Enter once the connection is this statement's (its lock held), around the statement."""
        with self._lock:
            if self._cancelled:
                raise sqlite3.OperationalError("interrupted")
            self._active = True
        try:
            yield
        finally:
            with self._lock:
                self._active = False

    def interrupt(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._active:
                self._db.interrupt()


class SlowLane:
    def __init__(self, threads: int, nice: int = SLOW_LANE_NICE):
        if threads < 1:
            raise ValueError(f"the slow lane needs at least one thread, not {threads}")
        self.threads, self.nice = threads, nice
        self._native_ids: set[int] = set()
        self._waiting = 0  # submitted, not started yet
        self._waiting_lock = threading.Lock()
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix=THREAD_NAME, initializer=self._start_thread)

    def _start_thread(self) -> None:
        lower_priority(self.nice)
        self._native_ids.add(threading.get_native_id())

    @property
    def native_ids(self) -> frozenset[int]:
        """The OS ids of the lane's threads started so far (they start on demand)."""
        return frozenset(self._native_ids)

    @property
    def waiting(self) -> int:
        """Statements submitted and not started yet (every thread busy)."""
        return self._waiting

    def _count_waiting(self, change: int) -> None:
        with self._waiting_lock:
            self._waiting += change

    async def run(self, work: Callable[[], T], interruption: Interruption | None = None) -> T:
        """`work()` in a lane thread. If the caller is cancelled, queued work is dropped and
        running work is interrupted through `interruption`; its result, if any, is dropped."""
        def start() -> T:
            self._count_waiting(-1)
            return work()

        self._count_waiting(+1)
        future = self._executor.submit(start)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            # wrap_future has already cancelled `future` if it was still queued; a running one goes on.
            if future.cancelled():
                self._count_waiting(-1)
            elif interruption is not None:
                interruption.interrupt()
            raise

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def _cores() -> int:
    """The cores this process may run on (a container's CPU set, not the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_lane: SlowLane | None = None
_lane_lock = threading.Lock()


def slow_lane() -> SlowLane:
    """The process's slow lane, made on first use (nothing happens at import), one thread per
    core: the lane can keep every core busy when nothing else wants it, and no more than that."""
    global _lane
    with _lane_lock:
        if _lane is None:
            _lane = SlowLane(max(2, _cores()))
        return _lane
