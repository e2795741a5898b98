"""The slow lane: threads at the lowest scheduling priority for statements that may read many
catalog rows (a sorted search ranking every match of a common word takes 150-600 ms of CPU on a
2M catalog).

Running them beside the event loop keeps them from blocking it, but not from starving it: on a
2-core machine, 16 such statements in 16 threads of normal priority got 69 s of CPU in a 93 s
run and the loop thread, which serves every episode's cheap calls, 3.5 s (`bench/loop_stall.py`:
the cheap calls' p99 went from 0.12 s to 1.9 s). So each lane thread lowers its own priority
once, when it starts (Linux: nice 19, a CFS weight of 15 against a normal thread's 1024): whenever
the loop or a client on the same machine wants a core it gets it first, and the lane still uses
every cycle nobody else wants. The lane has many threads (32), not one per core, so that a cheap
statement (a page of one category's index) starts at once instead of queueing behind slow ones
(with 2 threads it waited 2.6 s at p50 behind 16 slow sorts); the CPU the lane gets is shared
among its statements, and 32 busy threads weigh 480 together, under half of the loop's 1024.
Elsewhere than Linux the threads keep the normal priority.

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

SLOW_LANE_NICE = 19  # added to the process's nice value; the kernel caps the sum at 19
SLOW_LANE_THREADS = 32
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
    """Up to `threads` threads, each `nice` steps below the process's priority, fed from one
    queue. Awaited from the asyncio event loop (the only loop the server runs on)."""

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


_lane: SlowLane | None = None
_lane_lock = threading.Lock()


def slow_lane() -> SlowLane:
    """The process's slow lane, made on first use (nothing happens at import); its threads
    start as statements need them."""
    global _lane
    with _lane_lock:
        if _lane is None:
            _lane = SlowLane(SLOW_LANE_THREADS)
        return _lane
