"""Reading an episode's `world.db` read-only: the final cart, returns, per-episode stock and
products, and where its catalog is.

A closed episode's world.db is one self-contained file (its server writes it whole at close):
it is read once, through the descriptor `verishop.verifier.safeio` checked (a regular file, not a
link, under the cap), and its bytes are opened as an in-memory database. Nothing opens it by
path again, so nobody can swap a link in between. A world.db with a -wal beside it was left by a
server that died before folding its WAL in (an older server, recovery not yet run): SQLite must
apply the WAL, so that one is opened read-only by path, after the same checks."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from verishop.scenarios.catalog.reader import PRODUCT_COLUMNS, Product
from verishop.verifier.errors import Incomplete
from verishop.verifier.safeio import Limits, check_regular, read_regular


@dataclass(frozen=True)
class World:
    meta: dict[str, str]
    cart: dict[str, int]  # product ID -> units
    stock: dict[str, int]  # product ID -> units in stock in this episode (overrides the catalog)
    extra_products: dict[str, Product]  # products that exist only in this episode
    returns: tuple[tuple[str, str], ...]  # (order ID, line ID) of every return started


def read_world(directory: Path, name: str, limits: Limits = Limits(), dir_fd: int | None = None) -> World:
    """The world `directory/name`; `dir_fd`, if given, is that directory's descriptor."""
    path = Path(directory) / name

    def where(file_name: str) -> str:
        return file_name if dir_fd is not None else str(path.parent / file_name)

    has_wal = check_regular(where(name + "-wal"), "world", limits.world_bytes, dir_fd, missing_ok=True)
    check_regular(where(name + "-shm"), "world", limits.world_bytes, dir_fd, missing_ok=True)
    if has_wal:
        check_regular(where(name), "world", limits.world_bytes, dir_fd)
        db = _open_with_wal(path)
    else:
        db = _open_image(read_regular(where(name), "world", limits.world_bytes, dir_fd), path.name)
    try:
        return World(
            meta=dict(db.execute("SELECT key, value FROM meta")),
            cart=dict(db.execute("SELECT product_id, quantity FROM cart")),
            stock=dict(db.execute("SELECT product_id, stock FROM stock_changes")),
            extra_products={row[0]: Product.from_row(row)
                            for row in db.execute(f"SELECT {PRODUCT_COLUMNS} FROM extra_products")},
            returns=tuple(db.execute("SELECT order_id, line_id FROM returns ORDER BY created_seq")),
        )
    except (sqlite3.Error, json.JSONDecodeError, TypeError) as exc:
        raise Incomplete("world_corrupt", f"{path.name} is not a readable episode world: {exc}") from None
    finally:
        db.close()


def _open_image(image: bytes, file_name: str) -> sqlite3.Connection:
    data = bytearray(image)
    if len(data) >= 100 and data[18:20] == b"\x02\x02":
        # The header's WAL flag (https://sqlite.org/fileformat2.html#database_header): an
        # in-memory database cannot be in WAL mode, and without a -wal file the bytes are the
        # whole database, so it reads as the same database in rollback mode.
        data[18:20] = b"\x01\x01"
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(bytes(data))
    except sqlite3.Error as exc:
        db.close()
        raise Incomplete("world_corrupt", f"{file_name} cannot be opened: {exc}") from None
    return db


def _open_with_wal(path: Path) -> sqlite3.Connection:
    try:
        return sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise Incomplete("world_corrupt", f"{path.name} cannot be opened: {exc}") from None
