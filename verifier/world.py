"""Reading an episode's `world.db` read-only: the final cart, returns, per-episode stock and
products, and where its catalog is.

SQLite opens files by path, so world.db and its -wal and -shm companions are first checked
through `verishop.verifier.safeio` (regular files, not links; under the cap). What remains is a race
only someone who can write into the episode folder while it is being scored could run."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from verishop.scenarios.catalog.reader import PRODUCT_COLUMNS, Product
from verishop.verifier.errors import Incomplete
from verishop.verifier.safeio import Limits, check_regular


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

    def checked(file_name: str, missing_ok: bool = False) -> bool:
        where = file_name if dir_fd is not None else str(path.parent / file_name)
        return check_regular(where, "world", limits.world_bytes, dir_fd, missing_ok=missing_ok)

    checked(name)
    # A closed episode's world never changes again, so it may be opened immutable (no locks,
    # no -shm file); a leftover -wal means the server died before checkpointing, so read it
    # the ordinary read-only way, which applies the WAL (and opens the -shm).
    has_wal = checked(name + "-wal", missing_ok=True)
    checked(name + "-shm", missing_ok=True)
    immutable = "" if has_wal else "&immutable=1"
    try:
        db = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro{immutable}", uri=True)
    except sqlite3.Error as exc:
        raise Incomplete("world_corrupt", f"{path.name} cannot be opened: {exc}") from None
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
