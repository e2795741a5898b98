"""One episode's connection to its world (the shared catalog attached as `cat`), awaited the
way aiosqlite's is (`async with db.execute(...) as cur`, `await cur.fetchall()`), without a
thread per connection.

The world is an in-memory database on a kept connection (`mcp_server/episodes/worlds.py`); its
durable copy is the process's store (`mcp_server/episodes/store.py`): `commit` puts the world
there after each write, and `close` writes it to the episode's world.db, the verifier's file.

An episode's statements take microseconds (a primary-key lookup, a cart row, a page of search
results read through indexes): they run on the event loop's thread, which costs less than the
hop to a connection thread and back that aiosqlite makes for every statement (and an episode
then costs no thread at all). A statement that may read many catalog rows (a sorted search)
passes `offload=True` and runs in the slow lane (mcp_server/episodes/slow_lane.py): threads at a
lower scheduling priority, so one episode's slow search neither blocks nor starves the loop that
serves the others. A lock keeps the loop and the threads from using the connection at once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio

from verishop.mcp_server.episodes.slow_lane import Interruption, slow_lane
from verishop.mcp_server.episodes.store import WORLD_FILE, WorldStore
from verishop.scenarios.world_db import write_world_image

log = logging.getLogger(__name__)


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
    def __init__(self, db: sqlite3.Connection, *, episode_id: str, folder: Path, store: WorldStore,
                 give_back: Callable[[sqlite3.Connection], None] = sqlite3.Connection.close):
        """`db`: a connection whose main database holds the episode's world (seeded and
        committed); it is put into `store` now, and handed to `give_back` at close."""
        self._db: sqlite3.Connection | None = db
        self._lock = threading.Lock()
        self.episode_id = episode_id
        self.folder = folder
        self._store = store
        self._give_back = give_back
        store.put(episode_id, db.serialize())

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

    async def commit(self) -> None:
        """COMMIT, then put the world into the store before anyone hears of the write. If either
        fails (a full disk), the world is what it was before the transaction and the error is raised."""
        with self._lock:
            db = self._connection()
            try:
                db.execute("COMMIT")
                self._store.put(self.episode_id, db.serialize())
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                else:  # committed in memory only: back to the copy the store holds
                    saved = self._store.get(self.episode_id)
                    if saved is not None:
                        db.deserialize(saved)
                raise

    async def close(self) -> None:
        """Write the world to the episode's world.db, drop it from the store and give the
        connection back; safe to call twice. If world.db cannot be written (a full disk) the
        store keeps the world (`EpisodeHub` writes it later, or recovery does) and the error is
        raised."""
        db, self._db = self._db, None
        if db is None:
            return
        with self._lock:
            try:
                image = db.serialize()
            finally:
                self._give_back(db)
        path = self.folder / WORLD_FILE
        try:
            # One write, no partial file and rename: nothing reads world.db before the closing
            # event, written after it, and until the row is dropped the store holds the world.
            write_world_image(path, image, exclusive=False)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            raise
        try:
            self._store.drop(self.episode_id)
        except sqlite3.Error as exc:  # world.db is whole: a row left behind only makes recovery write it again
            log.warning("episode %s: its world stays in the store after close (%s)", self.episode_id, exc)

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        return self._db
