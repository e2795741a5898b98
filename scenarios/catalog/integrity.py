"""Is this catalog file the catalog it says it is? Its products hashed again, as at build time.

A catalog is built from (seed, size) on every machine, or copied from one that built it. Either
way a server must not serve scenarios on a file whose rows differ from its `content_hash` (a
truncated copy, a file edited in place, another generator version), nor on a catalog other
than the one a trainer expects (`verishop serve --catalog-hash`).

Hashing reads every product (4-8 µs a row: 0.4 s at 50,000, 8 s at 2,000,000 on this
machine), so a file once verified gets a stamp beside it (`<file>.verified`) naming its hash,
byte size, inode and modification time; while those match, opening it again costs nothing.
A copy or an edit changes them, and the next server to open the file hashes it again. The
stamp is a cache, never the proof: a read-only catalog folder simply gets hashed on every start,
and so does a catalog whose hash is pinned (`serve --catalog-hash`): whoever can edit the file
can rewrite its stamp too.

While a server runs, the file it verified must stay the file it serves: `catalog_identity`
(device, inode, size, modification time) is taken when the server starts, compared before each
episode is opened, and recorded in each world.db with the machine it was taken on, so the
verifier refuses an episode whose catalog was edited or swapped since (`catalog_changed`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from verishop.scenarios.catalog.generate import CHUNK_SIZE
from verishop.scenarios.catalog.reader import CatalogError, open_readonly


class CatalogMismatch(CatalogError):
    """The file's products or its content hash are not what was expected."""


@dataclass(frozen=True)
class Verified:
    content_hash: str
    size: int
    seed: int
    hashed: bool  # False when a current stamp vouched for the file


# Rows read and hashed at a time; CHUNK_SIZE is a multiple, so chunks end on a batch's end. Small,
# because an imported row may hold fields of tens of kilobytes.
_HASH_BATCH_ROWS = 50


def product_content_hash(db: sqlite3.Connection, seed: str | int, size: int,
                         on_progress: Callable[[int], None] | None = None) -> str:
    """The hash `build_catalog` computed: per chunk of CHUNK_SIZE rows, the SHA-256 of the rows'
    repr, all chained after a header naming (seed, size). Rows read back from SQLite are the
    tuples that were inserted (TEXT, INTEGER and REAL round-trip exactly). A chunk's repr is fed
    to its hash a batch at a time (`repr(list)` is `[` + the items' reprs joined by `, ` + `]`), so
    memory stays bounded whatever the rows hold."""
    total = hashlib.sha256(f"verishop-catalog:{seed}:{size}".encode())
    rows = db.execute("SELECT * FROM products ORDER BY rowid")
    chunk, in_chunk = hashlib.sha256(b"["), 0
    while batch := rows.fetchmany(_HASH_BATCH_ROWS):
        chunk.update((", " if in_chunk else "").encode() + ", ".join(map(repr, batch)).encode())
        in_chunk += len(batch)
        if on_progress:
            on_progress(len(batch))
        if in_chunk == CHUNK_SIZE:
            chunk.update(b"]")
            total.update(chunk.hexdigest().encode())
            chunk, in_chunk = hashlib.sha256(b"["), 0
    if in_chunk:
        chunk.update(b"]")
        total.update(chunk.hexdigest().encode())
    return total.hexdigest()


# The meta rows of an imported catalog that its content hash covers besides the products
# (scenarios/catalog/feeds/write.py): its taxonomy, its shop policy, its defaults, its own IDs.
IMPORT_META_KEYS = ("absent_fields", "currency", "defaults", "format", "policy", "source_ids_sha256", "taxonomy")


def import_seed(meta: dict[str, str]) -> str:
    """What stands for the seed in the hash header: the seed of a generated catalog; for an imported
    one, a digest of the meta rows above, so editing its taxonomy or policy breaks the hash too."""
    if meta.get("source") != "import":
        return meta["seed"]
    covered = json.dumps({k: meta.get(k) for k in IMPORT_META_KEYS}, sort_keys=True)
    return "import-" + hashlib.sha256(covered.encode()).hexdigest()


def source_ids_digest(db: sqlite3.Connection) -> str:
    digest = hashlib.sha256()
    for (source_id,) in db.execute("SELECT source_id FROM source_ids ORDER BY rowid"):
        digest.update(f"{source_id}\n".encode())
    return digest.hexdigest()


def _short(content_hash: str) -> str:
    return content_hash if len(content_hash) <= 16 else content_hash[:16] + "…"


def stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _fingerprint(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"bytes": st.st_size, "inode": st.st_ino, "mtime_ns": st.st_mtime_ns}


def catalog_identity(path: Path) -> str:
    """Which file `path` is now, and in which state: an edit in place changes its size or time, a
    swap (a copy or rebuild to the same name) its inode. Stable while nobody writes the file."""
    st = Path(path).stat()
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


@functools.cache
def this_machine() -> str:
    """This machine since its last boot: a catalog identity means something only here (a copy of
    the runs scored elsewhere is checked by content hash alone). Read once per process: a
    process lives within one boot (the verifier asked for it per episode)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return socket.gethostname()


def write_stamp(path: Path, content_hash: str) -> None:
    """Best effort: a folder the process cannot write keeps no stamp (the file is hashed again)."""
    stamp = stamp_path(path)
    partial = stamp.with_name(f".{stamp.name}.{os.getpid()}.partial")
    try:
        partial.write_text(json.dumps({"content_hash": content_hash, **_fingerprint(path)}))
        os.replace(partial, stamp)
    except OSError:
        partial.unlink(missing_ok=True)


def _stamped_hash(path: Path) -> str | None:
    try:
        stamp = json.loads(stamp_path(path).read_text())
        fingerprint = _fingerprint(path)
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or any(stamp.get(k) != v for k, v in fingerprint.items()):
        return None
    value = stamp.get("content_hash")
    return value if isinstance(value, str) else None


def verify_catalog(path: Path, expected_hash: str | None = None, *, trust_stamp: bool = True,
                   on_progress: Callable[[int], None] | None = None) -> Verified:
    """Check that the file's products hash to its recorded content hash and, given one, that this
    is the expected catalog. Raises CatalogMismatch (or CatalogError: not a catalog) saying which."""
    path = Path(path)
    db = open_readonly(path)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta"))
        try:
            recorded, seed, size = meta["content_hash"], int(meta["seed"]), int(meta["size"])
        except (KeyError, ValueError):
            raise CatalogError(f"{path} is not a verishop catalog: its meta table lacks seed, size or "
                               f"content_hash") from None
        if expected_hash is not None and recorded != expected_hash:
            raise CatalogMismatch(
                f"catalog {path} is (seed={seed}, size={size}, content hash {_short(recorded)}), but "
                f"{_short(expected_hash)} was expected: build the expected catalog with `verishop catalog "
                f"build --seed S --size N` on this machine, or copy it from one that has it")
        hashed = not trust_stamp or _stamped_hash(path) != recorded
        if hashed:
            if meta.get("source") == "import" and source_ids_digest(db) != meta.get("source_ids_sha256"):
                raise CatalogMismatch(f"catalog {path} is damaged or was changed after its import: its shop "
                                      f"IDs differ from the ones it recorded; import it again")
            actual = _rows_hash(db, meta, size, on_progress)
            if actual != recorded:
                raise CatalogMismatch(
                    f"catalog {path} is damaged or was changed after its build: its products hash to "
                    f"{_short(actual)}, but the file records {_short(recorded)} (seed={seed}, size={size}); "
                    f"rebuild it with `verishop catalog build --seed {seed} --size {size}` or copy it again")
    except sqlite3.DatabaseError as exc:
        raise CatalogMismatch(f"catalog {path} cannot be read to the end ({exc}): rebuild or copy it "
                              f"again") from None
    finally:
        db.close()
    if hashed:
        write_stamp(path, recorded)
    return Verified(recorded, size, seed, hashed)


def rows_content_hash(path: Path) -> str:
    """The content hash the file's products hash to now (not the one its meta table records), always
    computed from the rows: re-scoring must see a catalog edited in place, whatever its stamp says
    (whoever can edit the file can rewrite the stamp too). An imported catalog whose shop IDs were
    changed gets a hash of its own as well."""
    path = Path(path)
    db = open_readonly(path)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta"))
        try:
            size = int(meta["size"])
        except (KeyError, ValueError):
            raise CatalogError(f"{path} is not a verishop catalog: its meta table lacks its size") from None
        actual = _rows_hash(db, meta, size)
        if meta.get("source") == "import" and source_ids_digest(db) != meta.get("source_ids_sha256"):
            actual = hashlib.sha256(f"{actual}:changed-shop-ids".encode()).hexdigest()
    finally:
        db.close()
    return actual


def _rows_hash(db: sqlite3.Connection, meta: dict[str, str], size: int,
               on_progress: Callable[[int], None] | None = None) -> str:
    """What the products hash to, with the header a generated or an imported catalog uses."""
    return product_content_hash(db, import_seed(meta), size, on_progress)
