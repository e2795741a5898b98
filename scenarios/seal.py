"""Tamper-evident episode files: the server seals what it writes with a keyed digest chain.

Every transcript event the server writes ends with a `seal` field:

    seal_n = HMAC-SHA256(key, seal_{n-1} + line_n without its seal)      (seal_0 = "")

so an event edited, removed, reordered or added after the fact breaks the chain from there on.
The opening event names the key (`seal_key_id`, a digest of the key that reveals nothing of it)
and `scenario_sha256`; the closing event carries `world_sha256`, the digest of world.db as the
server left it: scenario.json, world.db and the transcript are all covered by the last seal.
Sealing costs one HMAC over the line being written (never a re-read of the file); world.db is
hashed once, at close.

The key never lives in the runs folder (whoever can write the episodes could then re-seal
them). It is, in this order:
- the file named by `VERISHOP_SEAL_KEY_FILE` (the operator's; made if missing), for every runs folder;
- else `$VERISHOP_HOME/seal-keys/<digest of the runs folder's path>.key`, made on first use:
  one key per runs folder.
The verifier finds a key by its id among the operator's file, every `*.key` in
`$VERISHOP_HOME/seal-keys/`, and any file or folder it is given (`verify --seal-key`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verishop.scenarios.catalog.cache import verishop_home
from verishop.scenarios.short_hash import sha256 as short_sha256

KEY_FILE_ENV = "VERISHOP_SEAL_KEY_FILE"
KEY_DIR = "seal-keys"
KEY_SUFFIX = ".key"
KEY_BYTES = 32
SEAL_FIELD = "seal"
_SEAL_FIELD_BYTES = SEAL_FIELD.encode()
SEAL_SCHEME = "hmac-sha256-chain-1"
_KEY_TEXT = re.compile(rb"^\s*([0-9a-f]{64})\s*$")
# What every sealed line ends with: `,"seal":"<64 hex digits>"}`.
_SEALED_TAIL = re.compile(rb',"seal":"([0-9a-f]{64})"\}$')
SEALED_TAIL_BYTES = len(b',"seal":"') + 64 + len(b'"}')


class SealKeyError(Exception):
    """A seal key that cannot be used: unreadable, malformed, or inside the runs folder."""


@dataclass(frozen=True)
class SealKey:
    secret: bytes
    path: Path

    @functools.cached_property
    def key_id(self) -> str:
        """A name for the key that reveals nothing of it (written in each opening event)."""
        return hashlib.sha256(b"verishop-seal-key-id\0" + self.secret).hexdigest()[:16]


def key_for_runs(runs_dir: Path, environ: Mapping[str, str] = os.environ) -> SealKey:
    """The key that seals the episodes of `runs_dir` (see the module docstring), made if missing."""
    given = environ.get(KEY_FILE_ENV)
    runs = Path(runs_dir).resolve()
    if given:
        path = Path(given).expanduser()
    else:
        path = verishop_home(environ) / KEY_DIR / (hashlib.sha256(str(runs).encode()).hexdigest()[:24] + KEY_SUFFIX)
    resolved = path.resolve()
    if resolved == runs or runs in resolved.parents:
        raise SealKeyError(f"the seal key {path} is inside the runs folder {runs}: whoever can edit the episodes "
                           f"could re-seal them; keep it elsewhere ({KEY_FILE_ENV} or VERISHOP_HOME)")
    return load_or_create(path)


def child_env(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """What a server started as a child (stdio) must inherit to seal with the parent's key, so the
    parent's verifier can check its episodes: VERISHOP_HOME and the operator's key file, if set."""
    return {name: environ[name] for name in ("VERISHOP_HOME", KEY_FILE_ENV) if environ.get(name)}


def load_key(path: Path) -> SealKey:
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise SealKeyError(f"cannot read the seal key {path}: {exc.strerror}") from None
    found = _KEY_TEXT.match(text)
    if found is None:
        raise SealKeyError(f"{path} is not a seal key (64 lowercase hex digits expected)")
    return SealKey(bytes.fromhex(found.group(1).decode()), Path(path))


def load_or_create(path: Path) -> SealKey:
    """The key in `path`; made first (mode 0600) if there is none. Safe when several processes
    start at once (workers): the key is written to a private file, then linked into place."""
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = path.with_name(f".{path.name}.{secrets.token_hex(6)}.partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (secrets.token_hex(KEY_BYTES) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(partial, path)  # fails if another process made it first: theirs is the key
        except FileExistsError:
            pass
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(partial)
    return load_key(path)


def known_keys(extra: Iterable[Path] = (), environ: Mapping[str, str] = os.environ) -> dict[str, SealKey]:
    """Every key the verifier can check seals with, by id: the operator's file, the keys in
    `$VERISHOP_HOME/seal-keys/`, and the files or folders in `extra`. Unreadable ones are skipped."""
    candidates: list[Path] = []
    if environ.get(KEY_FILE_ENV):
        candidates.append(Path(environ[KEY_FILE_ENV]).expanduser())
    for place in [*extra, verishop_home(environ) / KEY_DIR]:
        place = Path(place)
        if place.is_dir():
            candidates.extend(sorted(place.glob("*" + KEY_SUFFIX)))
        else:
            candidates.append(place)
    keys: dict[str, SealKey] = {}
    for path in candidates:
        try:
            key = load_key(path)
        except SealKeyError:
            continue
        keys.setdefault(key.key_id, key)
    return keys


LEDGER_SUFFIX = ".sealed"


def ledger_path(key: SealKey) -> Path:
    """Beside the key (never in a runs folder): the ids of the episodes sealed with it, one per
    line, so that an episode whose seals were all stripped does not pass for one from before
    sealing."""
    return key.path.with_name(key.path.name + LEDGER_SUFFIX)


def record_sealed(key: SealKey, episode_id: str) -> None:
    """Add an episode to its key's ledger: one short O_APPEND write (atomic among processes)."""
    fd = os.open(ledger_path(key), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, (episode_id + "\n").encode())
    finally:
        os.close(fd)


class SealChain:
    """Seals lines one after another (the writer's side)."""

    def __init__(self, key: SealKey, previous: str = ""):
        self.key = key
        self.previous = previous

    def seal(self, line: str) -> str:
        """`line` (one JSON object, no newline, no `seal` field) with its seal appended."""
        return self.seal_bytes(line.encode()).decode()

    def seal_bytes(self, line: bytes) -> bytes:
        """`seal`, on the line's UTF-8 bytes (what the writers have)."""
        mac = next_seal(self.key.secret, self.previous, line)
        self.previous = mac
        return b'%s,"%s":"%s"}' % (line[:-1], _SEAL_FIELD_BYTES, mac.encode())


def next_seal(secret: bytes, previous: str, body: bytes) -> str:
    inner, outer = _keyed(secret)
    inner = inner.copy()
    inner.update(previous.encode())
    inner.update(body)
    outer = outer.copy()
    outer.update(inner.digest())
    return outer.hexdigest()


@functools.lru_cache(maxsize=16)
def _keyed(secret: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256's two keyed states for `secret` (RFC 2104), to copy for each line: the same
    seal as `hmac.digest(secret, previous + body, "sha256")`, without OpenSSL's look-up of SHA-256
    at every line (verishop.scenarios.short_hash)."""
    key = (secret if len(secret) <= _BLOCK else short_sha256(secret).digest()).ljust(_BLOCK, b"\0")
    return short_sha256(bytes(b ^ 0x36 for b in key)), short_sha256(bytes(b ^ 0x5C for b in key))


_BLOCK = 64  # SHA-256's block, in bytes


def split_sealed(line: bytes) -> tuple[bytes, str] | None:
    """A sealed line's body (as it was sealed) and its seal; None for a line without a seal."""
    found = _SEALED_TAIL.search(line[-SEALED_TAIL_BYTES:]) if len(line) > SEALED_TAIL_BYTES else None
    if found is None:
        return None
    return line[:-SEALED_TAIL_BYTES] + b"}", found.group(1).decode()


def file_sha256(path: Path) -> str | None:
    """The SHA-256 of a file, read once in blocks; None if there is no such file."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as file:
            while block := file.read(1 << 20):
                digest.update(block)
    except FileNotFoundError:
        return None
    return digest.hexdigest()
