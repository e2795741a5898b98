"""The process's world store: one SQLite file per server process (each `--workers` worker its own)
that holds the world of every episode the process has open, as the database image the episode's
`world.db` will be.

An open episode's world lives in memory (`mcp_server/episodes/worlds.py`); the store is its
durable copy. The image is put here when the episode opens and again after each write tool
commits, before the agent gets its answer, so a kill -9 loses no answered write; closing writes
`world.db` from memory and drops the row. Per episode that is one insert where a world file of its
own cost a file, its -wal and -shm, and a connection attaching the catalog (docs/performance.md,
"Episode creation and closing at small catalogs").

Ownership works like the episode folders' (`mcp_server/episodes/recovery.py`): the store is made
under a temporary name, locked with flock, then renamed, and its process holds the lock until it
closes the store. A store that can be locked has no live owner: `recover_stores` writes each of
its worlds into its episode folder as `world.db` and removes it.

    runs/.worlds-<16 hex>.db   the store (and SQLite's -wal and -shm beside it)
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import secrets
import sqlite3
from collections.abc import Callable
from pathlib import Path

from verishop.scenarios.world_db import write_world_image

log = logging.getLogger(__name__)

WORLD_FILE = "world.db"
_STORE_NAME = re.compile(r"^\.worlds-[0-9a-f]{16}\.db(\.creating)?$")
_SCHEMA = "CREATE TABLE IF NOT EXISTS worlds (episode_id TEXT PRIMARY KEY, image BLOB NOT NULL)"
# WAL pages between checkpoints (SQLite's default is 1,000).
CHECKPOINT_PAGES = 100


class WorldStore:
    """The store of one process, made on first use in `runs_dir` (see the module docstring)."""

    def __init__(self, runs_dir: Path):
        self.runs_dir = Path(runs_dir)
        self.path: Path | None = None
        self._db: sqlite3.Connection | None = None
        self._lock_fd: int | None = None

    def put(self, episode_id: str, image: bytes) -> None:
        """Keep `image` as the episode's world (replacing the one kept before). Raises
        sqlite3.Error (a full disk: "database or disk is full") with nothing changed."""
        self._connection().execute("INSERT OR REPLACE INTO worlds VALUES (?, ?)", (episode_id, image))

    def get(self, episode_id: str) -> bytes | None:
        row = self._connection().execute("SELECT image FROM worlds WHERE episode_id = ?", (episode_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def drop(self, episode_id: str) -> None:
        """Forget the episode's world (its world.db is written)."""
        if self._db is not None:
            self._db.execute("DELETE FROM worlds WHERE episode_id = ?", (episode_id,))

    def pending(self) -> list[str]:
        """The episodes whose world is kept here (open, or closed without their world.db written)."""
        if self._db is None:
            return []
        return [row[0] for row in self._db.execute("SELECT episode_id FROM worlds")]

    def close(self) -> None:
        """Close the store; remove it when it holds no world, else leave it (locked no more) for
        recovery to write those worlds into their folders."""
        db, self._db = self._db, None
        if db is None:
            return
        try:
            empty = db.execute("SELECT NOT EXISTS (SELECT 1 FROM worlds)").fetchone()[0]
        except sqlite3.Error:
            empty = False
        db.close()  # before the lock's descriptor: closing any descriptor of the file drops SQLite's locks
        if empty and self.path is not None:
            _remove(self.path)
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db, self._lock_fd, self.path = _make_store(self.runs_dir)
        return self._db


def _make_store(runs_dir: Path) -> tuple[sqlite3.Connection, int, Path]:
    runs_dir.mkdir(parents=True, exist_ok=True)
    for _attempt in range(2):
        try:
            return _make_store_once(runs_dir)
        except FileNotFoundError:
            # A recovery that started in the instant between making the file and locking it took
            # it for a dead process's and removed it: make another.
            continue
    return _make_store_once(runs_dir)


def _make_store_once(runs_dir: Path) -> tuple[sqlite3.Connection, int, Path]:
    name = f".worlds-{secrets.token_hex(8)}.db"
    making, path = runs_dir / f"{name}.creating", runs_dir / name
    fd = os.open(making, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new name: nobody else can hold it
        os.rename(making, path)
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            # No sync at all: a kill -9 loses nothing committed (the page cache outlives the
            # process); a power cut is not covered, as for every episode file (the server makes
            # no fsync). A checkpoint that synced stalled its put on the event loop (up to 13 ms,
            # p99 3.4 ms over 2,000 puts of 20 KiB on this disk); small unsynced ones every
            # 100 pages keep the WAL under 0.5 MiB and the p99 at 0.4 ms.
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=OFF")
            db.execute(f"PRAGMA wal_autocheckpoint={CHECKPOINT_PAGES}")
            db.execute(_SCHEMA)
        except BaseException:
            db.close()
            raise
    except BaseException:
        os.close(fd)
        _remove(path)
        _remove(making)
        raise
    return db, fd, path


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def recover_stores(runs_dir: Path, is_episode_id: Callable[[str], bool]) -> list[str]:
    """Write the worlds that stores without a live owner hold into their episode folders as
    world.db (replacing one its process may have been cut short writing) and remove those stores. Returns the episode ids whose world was written."""
    written: list[str] = []
    if not runs_dir.is_dir():
        return written
    for entry in sorted(runs_dir.iterdir()):
        if not _STORE_NAME.fullmatch(entry.name) or entry.is_symlink() or not entry.is_file():
            continue
        try:
            fd = os.open(entry, os.O_RDWR | os.O_NOFOLLOW)
        except FileNotFoundError:
            continue  # renamed (made) or removed meanwhile by its owner
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # its process is alive
            if entry.name.endswith(".creating"):
                _remove(entry)  # its process died before it held any world
                continue
            written += _write_worlds(entry, runs_dir, is_episode_id)
            _remove(entry)
        finally:
            os.close(fd)
    return written


def _write_worlds(store: Path, runs_dir: Path, is_episode_id: Callable[[str], bool]) -> list[str]:
    written = []
    try:
        db = sqlite3.connect(store, isolation_level=None)
        try:
            rows = db.execute("SELECT episode_id, image FROM worlds").fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        log.error("the world store %s cannot be read (%s); its episodes' worlds are lost", store, exc)
        return written
    for episode_id, image in rows:
        folder = runs_dir / str(episode_id)
        if not is_episode_id(str(episode_id)) or folder.is_symlink() or not folder.is_dir():
            continue
        # The row is dropped only once world.db is whole: a world.db beside it may be cut short.
        write_world_file(folder, bytes(image))
        written.append(str(episode_id))
    return written


def write_world_file(folder: Path, image: bytes) -> None:
    """Write `folder/world.db` from `image`, whole or not at all (through a partial file renamed
    over it: a reader never sees half a world, a full disk leaves no partial file)."""
    partial = folder / f".{WORLD_FILE}.partial"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(partial)
    try:
        write_world_image(partial, image)
        os.replace(partial, folder / WORLD_FILE)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
        raise
