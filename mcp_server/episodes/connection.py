"""One episode's connection to its world.db (the shared catalog attached as `cat`), awaited the
way aiosqlite's is (`async with db.execute(...) as cur`, `await cur.fetchall()`), without a
thread per connection.

An episode's statements take microseconds (a primary-key lookup, a cart row, a page of search
results read through indexes): they run on the event loop's thread, which costs less than the
hop to a connection thread and back that aiosqlite makes for every statement (and an episode
then costs no thread at all). A statement that may read many catalog rows (a sorted search)
passes `offload=True` and runs in the slow lane (mcp_server/episodes/slow_lane.py): threads at a
lower scheduling priority, so one episode's slow search neither blocks nor starves the loop that
serves the others. Closing, whose WAL checkpoint syncs to disk, runs in anyio's worker threads. A
lock keeps the loop and the threads from using the connection at once.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio

from verishop.mcp_server.episodes.slow_lane import Interruption, slow_lane


class Rows:
    """The rows of one statement, read in full when it ran (every statement here is bounded)."""

    def __init__(self, rows: list[tuple], rowcount: int):
        self._rows = rows
        self.rowcount = rowcount

    async def fetchone(self) -> tuple | None:
        return self._rows[0] if self._rows else None

    async def fetchall(self) -> list[tuple]:
        return self._rows

    async def __aenter__(self) -> Rows:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Statement:
    """What `execute` returns: awaited, or entered with `async with`, it runs."""

    def __init__(self, run: Any):
        self._run = run

    def __await__(self):
        return self._run().__await__()

    async def __aenter__(self) -> Rows:
        return await self._run()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        return None


class WorldConnection:
    def __init__(self, path: Path, setup_script: str):
        # check_same_thread=False: offloaded statements and close run in worker threads, one at
        # a time with the loop's, under self._lock.
        self._db: sqlite3.Connection | None = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        try:
            self._db.executescript(setup_script)
        except BaseException:
            self._db.close()
            raise

    @property
    def in_transaction(self) -> bool:
        return self._connection().in_transaction

    def execute(self, sql: str, parameters: Sequence[Any] = (), *, offload: bool = False) -> _Statement:
        if offload:
            return _Statement(lambda: self._run_in_slow_lane(sql, parameters))
        return _Statement(lambda: self._run_here(sql, parameters))

    async def _run_here(self, sql: str, parameters: Sequence[Any]) -> Rows:
        return self._run(sql, parameters)

    async def _run_in_slow_lane(self, sql: str, parameters: Sequence[Any]) -> Rows:
        # A cancelled caller (a client gone, an episode closed) interrupts its statement, which
        # frees the lane's thread instead of ranking rows nobody will read.
        interruption = Interruption(self._connection())
        return await slow_lane().run(lambda: self._run(sql, parameters, interruption), interruption)

    def _run(self, sql: str, parameters: Sequence[Any], interruption: Interruption | None = None) -> Rows:
        with self._lock:
            with interruption.running() if interruption else contextlib.nullcontext():
                cursor = self._connection().execute(sql, parameters)
                try:
                    return Rows(cursor.fetchall(), cursor.rowcount)
                finally:
                    cursor.close()

    async def executescript(self, script: str) -> None:
        with self._lock:
            self._connection().executescript(script)

    async def close(self) -> None:
        """Close (checkpointing the WAL into world.db) in a worker thread; safe to call twice."""
        db, self._db = self._db, None
        if db is not None:
            def close() -> None:
                with self._lock:
                    db.close()
            await anyio.to_thread.run_sync(close)

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        return self._db
