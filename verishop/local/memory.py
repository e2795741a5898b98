"""An episode's files, kept in memory: the transcript's lines and the world's connection.

`MemoryTranscript` writes each event exactly as `Transcript` writes it to transcript.jsonl (the
same JSON, the same seal chain), into a list; `MemoryWorld` is the episode's world connection
without a store or a world.db: a write commits in memory, and closing keeps the world's image
(the bytes world.db would hold) and reads the verifier's view of it from the live connection.
The run folder written from these (`verishop.local.run_folder`) holds the bytes a server would
have written, so `verishop verify` scores it as the in-process verifier did.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from pydantic_core import from_json

from verishop.local.inline import INLINE
from verishop.mcp_server.episodes.connection import WorldConnection
from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.episodes.transcript import strict_json_bytes
from verishop.mcp_server.episodes.worlds import IDLE_WORLDS, WorldPool
from verishop.scenarios.seal import SealChain, SealKey
from verishop.verifier.safeio import Limits
from verishop.verifier.transcript import Transcript as ParsedTranscript
from verishop.verifier.transcript import parse_lines
from verishop.verifier.world import World, world_from_connection


class MemoryTranscript:
    """`Transcript`'s interface (write, mark, rewind, close) over a list of lines.

    Each event is written as `Transcript` writes it; the seal chain is computed once, when the
    bytes are first asked for (`data`), over the lines as they then stand: the same seals as a
    chain built line by line, since a rewind only ever drops the last lines. Scoring reads the
    lines unsealed (`parse`): the verifier never reads an event's seal, only checks the chain."""

    def __init__(self, name: str, seal_key: SealKey | None = None):
        self.name = name  # for messages only: nothing is written
        self._seal_key = seal_key
        self.lines: list[bytes] = []  # unsealed, without their newlines
        self._seq = 0
        self._started = time.perf_counter()
        self._data: bytes | None = None
        self.closed = False

    def write(self, event: str, **fields: Any) -> int:
        if self.closed:
            raise RuntimeError(f"transcript {self.name} is closed")
        self._seq += 1
        self.lines.append(strict_json_bytes({"seq": self._seq, "event": event,
                                             "elapsed_ms": round((time.perf_counter() - self._started) * 1000, 3),
                                             **fields}))
        self._data = None
        return self._seq

    def mark(self) -> tuple[int, int]:
        return len(self.lines), self._seq

    def rewind(self, mark: tuple[int, int]) -> None:
        count, self._seq = mark
        del self.lines[count:]
        self._data = None

    def close(self) -> None:
        self.closed = True

    def data(self) -> bytes:
        """The transcript.jsonl bytes (sealed, with a seal key)."""
        if self._data is None:
            lines = self.lines
            if self._seal_key is not None:
                chain = SealChain(self._seal_key)
                lines = [chain.seal_bytes(line) for line in lines]
            self._data = b"".join(line + b"\n" for line in lines)
        return self._data

    def parse(self, max_depth: int = Limits.json_depth) -> ParsedTranscript:
        """The verifier's reading of these lines (`verifier.transcript.parse_lines`), each parsed
        into values of its own: nothing the caller was handed is shared with what is scored."""
        return parse_lines(self.lines, max_depth, loads=from_json)


_HERE = Path(".")


class _NoStore:
    """A world store that keeps nothing: an in-process world has no durable copy to recover from
    (a process that dies takes its trainer with it)."""

    def put(self, episode_id: str, image: bytes) -> None:
        return None

    def get(self, episode_id: str) -> bytes | None:
        return None

    def drop(self, episode_id: str) -> None:
        return None


class MemoryWorld(WorldConnection):
    """The episode's world connection, in memory only (see the module docstring)."""

    def __init__(self, db: sqlite3.Connection, *, episode_id: str, worlds: MemoryWorlds | None = None,
                 seeded: frozenset[str] | None = None):
        """`seeded`: the tables seeding gave rows (`seed_world`'s answer), if known: until a write
        commits, they are the tables holding rows, and closing need not ask."""
        # Not WorldConnection.__init__: it puts a copy of the world into the store.
        self._seeded = seeded
        self._written = False
        self._db: sqlite3.Connection | None = db
        self._lock = threading.Lock()
        self.episode_id = episode_id
        self.folder = _HERE
        self._store = _NoStore()
        self._worlds = worlds  # where the connection goes back at close (None: it is closed)
        self.image: bytes | None = None
        self.world: World | None = None

    async def commit(self) -> None:
        with self._lock:
            self._written = True
            self._connection().execute("COMMIT")

    async def _run_in_slow_lane(self, sql: str, parameters: Any) -> Any:
        if INLINE.get():  # a blocking call: nothing else runs meanwhile, so a thread would only add its hop
            return self._run(sql, parameters)
        return await super()._run_in_slow_lane(sql, parameters)

    def _holding(self, db: sqlite3.Connection) -> list[str] | None:
        """The tables holding rows: those seeding filled while nothing is written, else asked."""
        if self._worlds is None:
            return None
        if self._seeded is not None and not self._written:
            return sorted(self._seeded)
        return self._worlds.holding(db)

    async def close(self) -> None:
        """Keep the world's image and its verifier view, and give the connection back."""
        db, self._db = self._db, None
        if db is None:
            return
        with self._lock:
            # The tables holding rows, asked once: the verifier's view reads only those, and the
            # pool empties only those (a product discovery's world fills 4 of its 13 tables).
            holding = self._holding(db)
            try:
                self.world = world_from_connection(db, filled=None if holding is None else frozenset(holding),
                                                   tables=self._worlds.tables if self._worlds is not None else None)
                self.image = db.serialize()
            finally:
                if self._worlds is not None:
                    self._worlds.give_back(db, holding)
                else:
                    db.close()


class CallLock:
    """One tool call at a time on an in-process episode, as the server's `anyio.Lock` gives, without
    asking the async library for the current task on every call: a free lock is taken with no call
    into it at all (an in-process call rarely awaits anything else); a caller finding it held waits
    on an `anyio.Event`, on whichever event loop runs it."""

    def __init__(self) -> None:
        self._held = False
        self._freed: anyio.Event | None = None

    def locked(self) -> bool:
        return self._held

    async def __aenter__(self) -> None:
        while self._held:
            if self._freed is None:
                self._freed = anyio.Event()
            await self._freed.wait()
        self._held = True

    async def __aexit__(self, *exc: object) -> None:
        self._held = False
        freed, self._freed = self._freed, None
        if freed is not None:
            freed.set()


@dataclass
class MemoryEpisode(Episode):
    """An in-process episode: the server's `Episode`, with what its files would hold once closed."""

    lock: CallLock = field(default_factory=CallLock)  # type: ignore[assignment]
    scenario_bytes: bytes = b""  # scenario.json, as the server writes it
    scenario_sha256: str = ""  # of scenario_bytes
    world_file: bytes | None = None  # world.db, once closed
    world: World | None = None  # the verifier's view of it, read from the live connection at close

    async def _roll_back(self) -> None:
        # Its statements run on the calling thread and never wait, so there is nothing to shield
        # from cancellation (and an inline call has no event loop to ask).
        if self.db.in_transaction:
            await self.db.execute("ROLLBACK")


class MemoryWorlds:
    """World connections for in-process episodes, kept and emptied between episodes.

    A server's pool (`mcp_server/episodes/worlds.py`) gives each episode a fresh world by
    deserializing the empty world image, which changes the schema: every statement prepared on the
    connection (a search's, the world reads at close) is compiled again in the next episode. Here a
    returned connection is emptied row by row instead (a few rows per table; no table uses
    AUTOINCREMENT, so the next rows get the ids a fresh world gives them), and its statements stay
    compiled. The world image written at close holds the same rows; its free pages may differ."""

    def __init__(self, pool: WorldPool):
        self._pool = pool
        self._idle: list[sqlite3.Connection] = []
        self._holding: str | None = None  # the statement naming the world's tables that hold rows
        self.tables: frozenset[str] | None = None  # the world's tables (one schema for every world of the pool)

    def take(self) -> sqlite3.Connection:
        if self._idle:
            return self._idle.pop()
        db = self._pool.take()
        if self._holding is None:
            tables = [name for (name,) in db.execute(
                "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
            # Which tables hold rows, in one statement: `give_back` empties only those.
            self._holding = " UNION ALL ".join(f"SELECT '{t}' WHERE EXISTS (SELECT 1 FROM main.{t})" for t in tables)
            self.tables = frozenset(tables)
        return db

    def holding(self, db: sqlite3.Connection) -> list[str]:
        """The world's tables that hold rows, in one statement."""
        return [table for (table,) in db.execute(self._holding).fetchall()] if self._holding else []

    def give_back(self, db: sqlite3.Connection, holding: list[str] | None = None) -> None:
        """Empty `db` for the next episode (`holding`: its tables with rows, if the caller has just
        asked) and keep it, or close it (the pool is full, or `db` is in a transaction)."""
        if db.in_transaction or len(self._idle) >= IDLE_WORLDS:
            db.close()
            return
        for table in self.holding(db) if holding is None else holding:
            db.execute(f"DELETE FROM main.{table}")
        self._idle.append(db)

    def close(self) -> None:
        idle, self._idle = self._idle, []
        for db in idle:
            db.close()
        self._pool.close()
