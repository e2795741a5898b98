"""Crash recovery: a server killed mid-episode leaves episodes that no process will close. The
next server on the same runs dir closes them, so the verifier scores them and nobody waits.

Liveness is an advisory lock (flock) that the process creating and serving an episode holds on
its directory from the moment the directory exists (it is created under a temporary name,
locked, then renamed) until the episode is finalized. The kernel drops the lock when its
process dies, kill -9 included, so at start an episode directory that can be locked has no
owner. Several servers may share a runs dir (the stdio transport runs one per episode): a
locked directory belongs to a live one and is left alone.

An open episode's world lives in memory, its durable copy in its process's world store
(`mcp_server/episodes/store.py`), locked the same way. Stores without a live owner are read
first: each world they hold is written into its folder as world.db.

For an ownerless directory:
- a transcript without a closing event: a WAL left by an older server is checkpointed (world.db
  becomes one self-contained file again), a torn last line (the process died mid-write) is cut,
  and an `episode_closed` event with reason `server_crashed` is appended;
- no transcript: the world's creation was interrupted. The transcript gets only an
  `episode_closed` event with reason `creation_interrupted`, so the verifier reports the
  episode instead of waiting for it, and the server names it on stderr.

A folder still under its temporary name (`.ep_<id>.creating`) that can be locked is what a process
killed between making and renaming it left: it holds nothing to score, and is removed. A creating
process that finds its new folder taken by a recovery (`make_locked_directory` returns None)
takes another id.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from verishop.mcp_server.episodes.store import recover_stores
from verishop.mcp_server.episodes.transcript import strict_json
from verishop.scenarios.seal import SEAL_FIELD, SealChain, SealKey, file_sha256, key_for_runs

CRASHED = "server_crashed"
CREATION_INTERRUPTED = "creation_interrupted"
TRANSCRIPT = "transcript.jsonl"
_CREATING = re.compile(r"^\.ep_[0-9a-f]{24}\.creating$")


def lock_directory(path: Path) -> int | None:
    """An fd holding an exclusive lock on directory `path`, or None if a live process holds it."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_locked_directory(path: Path) -> int | None:
    """Make directory `path` and lock it; None if a recovery took it between the two (it is then
    being removed: make another)."""
    path.mkdir(parents=True)
    try:
        return lock_directory(path)
    except FileNotFoundError:
        return None


def release(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the last descriptor drops the lock


@dataclass
class Recovered:
    crashed: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)


def recover(runs_dir: Path, is_episode_id, seal_key: SealKey | None = None) -> Recovered:
    """Close every ownerless open episode under `runs_dir` (see the module docstring). A sealed
    transcript's closing event is sealed with `seal_key`, by default the runs folder's key (a
    supervisor recovering its workers' episodes seals as they would)."""
    found = Recovered()
    if not runs_dir.is_dir():
        return found
    seal_key = seal_key or key_for_runs(runs_dir)
    recover_stores(runs_dir, is_episode_id)
    _remove_creating_leftovers(runs_dir)
    for directory in sorted(runs_dir.iterdir()):
        if not is_episode_id(directory.name) or directory.is_symlink() or not directory.is_dir():
            continue
        fd = lock_directory(directory)
        if fd is None:
            continue  # its server is alive
        try:
            transcript = directory / TRANSCRIPT
            if not transcript.is_file():
                _append_closing(transcript, CREATION_INTERRUPTED, last={})
                found.interrupted.append(directory.name)
                continue
            last = _last_event(transcript)
            if last.get("event") == "episode_closed":
                continue
            _checkpoint(directory / "world.db")
            _append_closing(transcript, CRASHED, last=last, turns=_turns(transcript), seal_key=seal_key)
            found.crashed.append(directory.name)
        finally:
            release(fd)
    return found


def _remove_creating_leftovers(runs_dir: Path) -> None:
    for directory in sorted(runs_dir.iterdir()):
        if not _CREATING.fullmatch(directory.name) or directory.is_symlink() or not directory.is_dir():
            continue
        try:
            fd = lock_directory(directory)
        except FileNotFoundError:
            continue  # renamed (made) meanwhile by its owner
        if fd is None:
            continue  # its process is alive and still creating it
        try:
            shutil.rmtree(directory, ignore_errors=True)
        finally:
            release(fd)


def _last_event(transcript: Path) -> dict:
    """The last complete event; a torn last line (no newline) is cut off first."""
    with open(transcript, "r+b") as f:
        size = f.seek(0, os.SEEK_END)
        tail_start = max(0, size - 65536)
        f.seek(tail_start)
        tail = f.read()
        if tail and not tail.endswith(b"\n"):
            cut = tail.rfind(b"\n")
            f.truncate(tail_start + cut + 1 if cut >= 0 else tail_start)
            tail = tail[:cut + 1] if cut >= 0 else b""
    lines = tail.splitlines()
    try:
        return json.loads(lines[-1]) if lines else {}
    except ValueError:
        return {}


def _turns(transcript: Path) -> int:
    turns = 0
    with open(transcript, "rb") as f:
        for line in f:
            if b'"event":"assistant_message"' in line:
                turns += 1
    return turns


def append_closing(transcript: Path, reason: str, *, turns: int, seal_key: SealKey | None = None) -> None:
    """Append an `episode_closed` event to a transcript whose writer has closed it."""
    _append_closing(transcript, reason, last=_last_event(transcript), turns=turns, seal_key=seal_key)


def _append_closing(transcript: Path, reason: str, *, last: dict, turns: int = 0,
                    seal_key: SealKey | None = None) -> None:
    """The closing event, sealed on the chain of the last event when that one was sealed (an
    older server's unsealed transcript stays unsealed), with the digest of world.db as it is now."""
    event = {"seq": int(last.get("seq") or 0) + 1, "event": "episode_closed",
             "elapsed_ms": last.get("elapsed_ms", 0), "reason": reason, "turns": turns}
    line = strict_json(event)
    previous = last.get(SEAL_FIELD)
    if seal_key is not None and isinstance(previous, str):
        event["world_sha256"] = file_sha256(transcript.parent / "world.db")
        line = SealChain(seal_key, previous).seal(strict_json(event))
    fd = os.open(transcript, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def _checkpoint(world: Path) -> None:
    """Fold a crashed server's WAL into world.db, so the verifier opens one self-contained file."""
    if not world.is_file():
        return
    try:
        db = sqlite3.connect(world, isolation_level=None)
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # closing the last connection removes the WAL
        finally:
            db.close()
    except sqlite3.Error:
        pass  # a damaged world: the verifier reports it; the closing event matters more
