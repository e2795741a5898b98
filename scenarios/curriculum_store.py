"""The curriculum's state in one SQLite file, shared by two processes.

The HTTP server reads the windows to choose new episodes; the verifier sidecar records each
scored episode. The file (WAL, busy timeout) outlives both, so a restarted trainer goes on
where it stopped. It holds:

    windows   one row per environment: the window, its counters, episodes seen, checks done
    episodes  every episode already recorded: re-verifying one never counts it twice
    params    the rule's parameters, so both processes apply the same rule
    assignments  every (environment, difficulty, seed) the curriculum itself assigned, and the
              episode that counted for it: the curriculum trusts only this record of its own. An
              episode counts only if its (env, d, seed) is here, and each one counts once, so a
              client that names its own difficulty, claims the curriculum chose it, or replays one
              seed to learn its answer moves nothing.

A store holds one connection, used from any thread under a lock (callers run operations in
worker threads, off the event loop). Keeping it open matters: closing the last connection to a
WAL file checkpoints it, which made each write cost 6 ms instead of a fraction of one.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from verishop.scenarios.curriculum import Params, Window, choose, record

BUSY_TIMEOUT_MS = 10_000
FILE_NAME = "curriculum.db"

SCHEMA = """
CREATE TABLE IF NOT EXISTS windows (
    env_id TEXT PRIMARY KEY, low INTEGER NOT NULL, high INTEGER NOT NULL,
    attempts INTEGER NOT NULL, solved INTEGER NOT NULL,
    episodes INTEGER NOT NULL DEFAULT 0, checks INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS episodes (
    episode_id TEXT PRIMARY KEY, env_id TEXT NOT NULL, difficulty INTEGER NOT NULL,
    solved INTEGER NOT NULL, counted INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS params (name TEXT PRIMARY KEY, value REAL NOT NULL);
CREATE TABLE IF NOT EXISTS assignments (
    env_id TEXT NOT NULL, difficulty INTEGER NOT NULL, seed INTEGER NOT NULL, episode_id TEXT,
    PRIMARY KEY (env_id, difficulty, seed));
"""


@dataclass(frozen=True)
class EnvState:
    """One environment's window plus how many episodes were recorded and checks made."""

    env_id: str
    window: Window
    episodes: int = 0
    checks: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"env_id": self.env_id, **asdict(self.window), "episodes": self.episodes, "checks": self.checks}


class CurriculumStore:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
        try:
            self._db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> CurriculumStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def params(self) -> Params:
        with self._connect() as db:
            return _params(db)

    def set_params(self, **overrides: float | None) -> Params:
        """Change the rule's parameters for both processes; None leaves one as it is."""
        with self._transaction() as db:
            current = _params(db)
            types = {f.name: f.type for f in fields(Params)}
            chosen = {k: (float(v) if types[k] == "float" else int(v)) for k, v in overrides.items() if v is not None}
            params = replace(current, **chosen)
            db.executemany("INSERT OR REPLACE INTO params (name, value) VALUES (?, ?)", asdict(params).items())
        return params

    def state(self, env_id: str) -> EnvState:
        with self._connect() as db:
            return _state(db, env_id)

    def assign(self, env_id: str, difficulty: int, seed: int) -> None:
        """Remember that the curriculum assigned (env, d, seed): only such episodes count."""
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO assignments (env_id, difficulty, seed) VALUES (?, ?, ?)",
                       (env_id, difficulty, seed))

    def record(self, episode_id: str, env_id: str, difficulty: int, solved: bool, *, seed: int) -> EnvState | None:
        """Count one scored episode; None if it does not count: recorded before (a
        re-verification), never assigned by this curriculum, or its (env, d, seed) already counted."""
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM episodes WHERE episode_id = ?", (episode_id,)).fetchone():
                return None
            assigned = db.execute("SELECT episode_id FROM assignments WHERE env_id = ? AND difficulty = ? AND seed = ?",
                                  (env_id, difficulty, seed)).fetchone()
            if assigned is None or assigned[0] is not None:
                db.execute("INSERT INTO episodes VALUES (?, ?, ?, ?, ?)",
                           (episode_id, env_id, difficulty, int(solved), 0))
                return None
            db.execute("UPDATE assignments SET episode_id = ? WHERE env_id = ? AND difficulty = ? AND seed = ?",
                       (episode_id, env_id, difficulty, seed))
            before = _state(db, env_id)
            counted = difficulty == before.window.high
            window = record(before.window, difficulty, solved, _params(db))
            checked = counted and window.attempts == 0
            after = EnvState(env_id, window, before.episodes + 1, before.checks + int(checked))
            db.execute("INSERT INTO episodes VALUES (?, ?, ?, ?, ?)",
                       (episode_id, env_id, difficulty, int(solved), int(counted)))
            db.execute("INSERT OR REPLACE INTO windows VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (env_id, window.low, window.high, window.attempts, window.solved, after.episodes,
                        after.checks))
        return after

    def choose(self, env_ids: Sequence[str], rng: random.Random) -> tuple[str, int, Window]:
        """An environment from `env_ids` and a difficulty from its current window."""
        with self._connect() as db:
            windows = {env_id: _state(db, env_id).window for env_id in env_ids}
        env_id, difficulty = choose(env_ids, windows, rng)
        return env_id, difficulty, windows[env_id]

    def states(self, env_ids: Iterable[str] = ()) -> list[EnvState]:
        """The given environments (at [0, 0] if never recorded) and every one on file."""
        with self._connect() as db:
            stored = [row[0] for row in db.execute("SELECT env_id FROM windows ORDER BY env_id")]
            names = list(dict.fromkeys([*env_ids, *stored]))
            return [_state(db, env_id) for env_id in names]

    def snapshot(self, env_ids: Iterable[str] = ()) -> dict[str, Any]:
        """Everything as JSON-ready data (GET /curriculum, `verishop curriculum show --json`)."""
        return {"path": str(self.path), "params": asdict(self.params()),
                "windows": [s.to_dict() for s in self.states(env_ids)]}


def _params(db: sqlite3.Connection) -> Params:
    stored = dict(db.execute("SELECT name, value FROM params").fetchall())
    types = {f.name: f.type for f in fields(Params)}
    return Params(**{k: (float(v) if types[k] == "float" else int(v)) for k, v in stored.items() if k in types})


def _state(db: sqlite3.Connection, env_id: str) -> EnvState:
    row = db.execute("SELECT low, high, attempts, solved, episodes, checks FROM windows WHERE env_id = ?",
                     (env_id,)).fetchone()
    if row is None:
        return EnvState(env_id, Window())
    low, high, attempts, solved, episodes, checks = row
    return EnvState(env_id, Window(low, high, attempts, solved), episodes, checks)
