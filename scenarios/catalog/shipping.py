"""A catalog file sent to another machine in chunks, kept there only if it is the catalog it was
sent as.

An imported catalog cannot be rebuilt from a seed: a node that should serve it gets its bytes. The
sender checks its file (`verify_catalog`), then cuts it into chunks it hands to `put` (Ray's
`ray.put` in `verishop.ray`; anything that stores bytes and gives back a key). The `Shipment` names
the chunks, each chunk's SHA-256, the file's size and its content hash. The receiver fetches each
chunk with `get`, checks its digest as it arrives, writes the file under a temporary name, hashes
the products again (`rows_content_hash`, which also covers an imported catalog's taxonomy, policy
and shop IDs) and gives the file its name only if that hash is the one shipped; otherwise nothing
is kept and `CatalogMismatch` names both hashes. A node that already holds a file under that name
reuses it when it hashes right, and replaces it when it does not: it never serves another shop.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verishop.scenarios.catalog.integrity import (CatalogMismatch, rows_content_hash, stamp_path,
                                                  verify_catalog, write_stamp)
from verishop.scenarios.catalog.reader import CatalogError, open_readonly

# Ray keeps an object above 100 KiB in its shared-memory store and moves it between nodes in
# pieces of its own; 8 MiB chunks keep the sender's and each receiver's memory at a few MiB
# whatever the catalog's size, at 125 objects a GiB.
CHUNK_BYTES = 8 * 2**20
PARTIAL_SUFFIX = ".partial"


@dataclass(frozen=True)
class Shipment:
    """A catalog file's bytes, put away in chunks by the sender. Small and picklable: the chunks
    are keys into the store (Ray ObjectRefs), not the bytes."""

    content_hash: str
    """The content hash the receiver's copy must have."""
    size_bytes: int
    """The file's size."""
    chunk_sha256: tuple[str, ...]
    """Each chunk's SHA-256, in order (checked as it arrives)."""
    chunks: tuple[Any, ...]
    """What `put` returned for each chunk, in order."""


def shipped_name(content_hash: str) -> str:
    """The file name a shipped catalog gets in the receiver's folder."""
    return f"catalog-{content_hash[:16]}.db"


def pack_catalog(path: Path, put: Callable[[bytes], Any], *, expected_hash: str | None = None,
                 chunk_bytes: int = CHUNK_BYTES) -> Shipment:
    """Check the catalog at `path` (and that it is `expected_hash`, given one), then hand its bytes
    to `put` a chunk at a time. Raises CatalogMismatch or CatalogError before anything is put: a
    damaged file is refused here, once, not on every receiver."""
    path = Path(path)
    verified = verify_catalog(path, expected_hash)
    digests, chunks, size = [], [], 0
    with open(path, "rb") as source:
        while chunk := source.read(chunk_bytes):
            digests.append(hashlib.sha256(chunk).hexdigest())
            chunks.append(put(chunk))
            size += len(chunk)
    # A file replaced or edited since its check is caught by each receiver (content hash).
    return Shipment(verified.content_hash, size, tuple(digests), tuple(chunks))


def receive_catalog(shipment: Shipment, folder: Path, get: Callable[[Any], bytes]) -> Path:
    """The shipped catalog in `folder` (fetched with `get` unless a good copy is already there).
    Raises CatalogMismatch, leaving no file behind, if a chunk or the whole differs."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / shipped_name(shipment.content_hash)
    if _holds(target, shipment.content_hash):
        return target
    for stale in folder.glob(f".{target.name}.*{PARTIAL_SUFFIX}"):  # a receiver that died mid-way
        stale.unlink(missing_ok=True)
    partial = folder / f".{target.name}.{os.getpid()}{PARTIAL_SUFFIX}"
    try:
        _write_chunks(shipment, partial, get)
        try:
            found, recorded = rows_content_hash(partial), _recorded_hash(partial)
        except (CatalogError, sqlite3.DatabaseError) as exc:
            raise CatalogMismatch(f"the shipped catalog arrived unreadable ({exc}); the sender's has content "
                                  f"hash {_short(shipment.content_hash)}") from None
        if found != shipment.content_hash or recorded != shipment.content_hash:
            raise CatalogMismatch(
                f"the shipped catalog arrived with content hash {_short(found)} (its meta table records "
                f"{_short(recorded)}), but the sender's is {_short(shipment.content_hash)}: it is not the "
                f"catalog the driver shipped, and this node will not serve it")
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    write_stamp(target, shipment.content_hash)  # hashed just now: the server's own check need not
    return target


def _holds(target: Path, content_hash: str) -> bool:
    """Whether `target` is already this catalog (a restarted server's node); anything else there
    is removed, to be replaced by the shipped bytes."""
    if not target.exists():
        return False
    with contextlib.suppress(CatalogError):
        if verify_catalog(target, content_hash).content_hash == content_hash:
            return True
    target.unlink()
    stamp_path(target).unlink(missing_ok=True)
    return False


def _write_chunks(shipment: Shipment, partial: Path, get: Callable[[Any], bytes]) -> None:
    if len(shipment.chunks) != len(shipment.chunk_sha256):
        raise CatalogMismatch(f"the shipment lists {len(shipment.chunks)} chunks but "
                              f"{len(shipment.chunk_sha256)} digests")
    size = 0
    with open(partial, "xb") as out:
        for index, (key, expected) in enumerate(zip(shipment.chunks, shipment.chunk_sha256)):
            data = get(key)
            found = hashlib.sha256(data).hexdigest()
            if found != expected:
                raise CatalogMismatch(
                    f"chunk {index + 1} of {len(shipment.chunks)} of the shipped catalog arrived with SHA-256 "
                    f"{_short(found)}, but the sender's was {_short(expected)}")
            out.write(data)
            size += len(data)
        out.flush()
        os.fsync(out.fileno())
    if size != shipment.size_bytes:
        raise CatalogMismatch(f"the shipped catalog arrived with {size} bytes, the sender's file has "
                              f"{shipment.size_bytes}")


def _recorded_hash(path: Path) -> str:
    db = open_readonly(path)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'content_hash'").fetchone()
    finally:
        db.close()
    return row[0] if row else "(none)"


def _short(value: str) -> str:
    return value if len(value) <= 16 else value[:16] + "…"
