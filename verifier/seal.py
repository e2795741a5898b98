"""Checking an episode's seal (`scenarios/seal.py`): was anything the server wrote changed since?

A sealed episode is one whose opening event names a seal key. For it, every transcript line
must carry the next link of the chain, the last line must be the closing event (nothing
appended after close), scenario.json must be the bytes the opening event digests, and world.db
the bytes the closing event digests, with no write-ahead log beside it. Any difference is
`modified_after_close`; a key this verifier does not hold is `seal_key_missing` (it cannot vouch
for the files, so it does not score them). An episode recorded before sealing existed carries
no seal at all: it is scored and marked `unsealed`, which says its files cannot be vouched for.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from verishop.scenarios.catalog.cache import verishop_home
from verishop.scenarios.seal import KEY_DIR, KEY_FILE_ENV, SealKey, known_keys, ledger_path, next_seal, split_sealed
from verishop.verifier.errors import Incomplete
from verishop.verifier.safeio import json_depth_exceeds
from verishop.verifier.transcript import Transcript

MODIFIED = "modified_after_close"
KEY_MISSING = "seal_key_missing"
INTACT = "intact"
UNSEALED = "unsealed"


class SealKeys:
    """The keys a verifier checks seals with, looked up again once when an id is not among them
    (a sidecar may start before the server that makes its runs folder's key)."""

    def __init__(self, extra: Iterable[Path] = ()):
        self.extra = tuple(extra)
        self._keys: dict[str, SealKey] | None = None
        self._stamp: tuple[int, ...] = ()
        self._ledgers: dict[Path, tuple[int, frozenset[str]]] = {}  # path -> (size read, ids)

    def get(self, key_id: str) -> SealKey | None:
        if self._keys is None or key_id not in self._keys:
            self._refresh()
        return self._keys.get(key_id) if self._keys is not None else None

    def _refresh(self) -> None:
        """Read the keys again if a place they are kept changed since (a new key file changes
        its folder's mtime): one stat per place, not one read per key, per episode."""
        stamp = tuple(_mtime_ns(place) for place in (*self.extra, verishop_home() / KEY_DIR,
                                                      Path(os.environ.get(KEY_FILE_ENV) or "/nonexistent")))
        if self._keys is None or stamp != self._stamp:
            self._keys, self._stamp = known_keys(self.extra), stamp

    def sealed_with(self, episode_ids: Iterable[str]) -> SealKey | None:
        """The key whose ledger lists any of `episode_ids` (an episode its server sealed), or None."""
        self._refresh()
        assert self._keys is not None
        wanted = set(episode_ids)
        for key in self._keys.values():
            path = ledger_path(key)
            try:
                size = path.stat().st_size
            except OSError:
                continue
            cached = self._ledgers.get(path)
            if cached is None or cached[0] != size:  # append-only: a new size means new ids
                cached = (size, frozenset(path.read_text(errors="replace").split()))
                self._ledgers[path] = cached
            if wanted & cached[1]:
                return key
        return None


def _mtime_ns(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def check_chain(raw_transcript: bytes, keys: SealKeys, max_depth: int, folder_name: str) -> SealKey | None:
    """Before the transcript is parsed: the key of a sealed transcript whose every line matches
    its seal, None for an unsealed one; raises Incomplete for a broken chain or a missing key.
    Checked first, so a sealed episode edited in any way (a line removed, reordered, rewritten)
    is reported as modified, never as whatever structural fault the edit also made."""
    lines = raw_transcript.split(b"\n")
    # The last line without its newline is one being written, or cut short by a killed server:
    # the parser decides (an open episode is not closed; after a closing event it is extra, which
    # check_files reports). Only whole lines are checked here.
    lines.pop()
    opened = _opening(lines[0] if lines else b"", max_depth)
    key_id = opened.get("seal_key_id")
    if key_id is None:
        if any(split_sealed(line) is not None for line in lines):
            raise Incomplete(MODIFIED, "the transcript carries seals but its opening event names no seal key: "
                                       "the opening event was changed after the episode was written")
        names = {folder_name, *([opened["episode_id"]] if isinstance(opened.get("episode_id"), str) else [])}
        if keys.sealed_with(names) is not None:
            raise Incomplete(MODIFIED, "its server sealed this episode (the key's ledger lists it) but the "
                                       "transcript carries no seal: the seals were removed after close")
        return None
    if not isinstance(key_id, str):
        raise Incomplete(MODIFIED, "the opening event's seal_key_id is not a key id: changed after it was written")
    key = keys.get(key_id)
    if key is None:
        raise Incomplete(KEY_MISSING, f"the episode is sealed with key {key_id[:16]!r}, which this verifier does "
                                      f"not hold: give it with --seal-key or {KEY_FILE_ENV} (kept outside the "
                                      f"runs folder, see docs/reward.md)")
    previous = ""
    for number, line in enumerate(lines, start=1):
        sealed = split_sealed(line)
        if sealed is None:
            raise Incomplete(MODIFIED, f"transcript line {number} has no seal: added or rewritten after the "
                                       f"server wrote it")
        body, seal = sealed
        if next_seal(key.secret, previous, body) != seal:
            raise Incomplete(MODIFIED, f"transcript line {number} does not match its seal: changed, removed or "
                                       f"reordered after the server wrote it")
        previous = seal
    return key


def _opening(line: bytes, max_depth: int) -> dict:
    if json_depth_exceeds(line, max_depth):
        return {}
    try:
        opened = json.loads(line)
    except (ValueError, RecursionError):
        return {}
    return opened if isinstance(opened, dict) else {}


def check_files(raw_transcript: bytes, transcript: Transcript, scenario_raw: bytes,
                world_sha256: Callable[[], str | None], world_has_log: bool, folder_name: str) -> None:
    """After parsing a sealed transcript whose chain holds: the files it digests are the ones here."""
    lines = raw_transcript.count(b"\n") + (0 if raw_transcript.endswith(b"\n") else 1)
    if lines != len(transcript.events):
        raise Incomplete(MODIFIED, f"the sealed transcript has {lines - len(transcript.events)} line(s) after its "
                                   f"closing event: written after close")
    opened_id = transcript.opened.get("episode_id")
    if opened_id != folder_name:
        raise Incomplete(MODIFIED, f"this folder is named {folder_name!r} but holds the sealed record of episode "
                                   f"{str(opened_id)[:40]!r}: copied or renamed after close")
    if hashlib.sha256(scenario_raw).hexdigest() != transcript.opened.get("scenario_sha256"):
        raise Incomplete(MODIFIED, "scenario.json is not the scenario the sealed opening event digests: "
                                   "changed after the episode opened")
    if "world_sha256" in transcript.closed:
        if world_has_log:
            raise Incomplete(MODIFIED, "world.db has a write-ahead log beside it, which its server never leaves "
                                       "at close: the world was changed after close")
        if world_sha256() != transcript.closed["world_sha256"]:
            raise Incomplete(MODIFIED, "world.db is not the world the sealed closing event digests: "
                                       "changed after close")


def world_log_present(directory: Path, dir_fd: int | None) -> bool:
    """Whether a non-empty world.db-wal sits beside world.db."""
    try:
        st = os.stat("world.db-wal" if dir_fd is not None else Path(directory) / "world.db-wal",
                     dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return st.st_size > 0


def world_digest(dir_fd: int | None, directory: Path) -> str | None:
    """The SHA-256 of world.db read through the episode folder's descriptor (no link followed)."""
    try:
        fd = os.open("world.db" if dir_fd is not None else Path(directory) / "world.db",
                     os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return None
    digest = hashlib.sha256()
    try:
        while block := os.read(fd, 1 << 20):
            digest.update(block)
    finally:
        os.close(fd)
    return digest.hexdigest()
