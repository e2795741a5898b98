"""Reading an episode's `world.db` read-only: the final cart, returns, per-episode stock and
products, and where its catalog is.

A closed episode's world.db is one self-contained file (its server writes it whole at close):
it is read once, through the descriptor `verishop.verifier.safeio` checked (a regular file, not a
link, under the cap), and its bytes are opened as an in-memory database. Nothing opens it by
path again, so nobody can swap a link in between. Opened read-only by path, after the same
checks, are a world.db with a -wal beside it (left by an older server that died before folding
its WAL in, recovery not yet run: SQLite must apply the WAL) and one over IN_MEMORY_WORLD_BYTES."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from verishop.scenarios.catalog.reader import PRODUCT_COLUMNS, Product
from verishop.verifier.errors import Incomplete, Unsafe
from verishop.verifier.safeio import MiB, Limits, check_regular, read_regular

# A world up to this size is read into memory in one read (real ones are about 20 KiB); a larger
# one, which only a hand-made file can be, is opened by path so that its size never sits in
# memory two or three times over.
IN_MEMORY_WORLD_BYTES = 8 * MiB


@dataclass(frozen=True)
class World:
    meta: dict[str, str]
    cart: dict[str, int]  # product ID -> units
    stock: dict[str, int]  # product ID -> units in stock in this episode (overrides the catalog)
    extra_products: dict[str, Product]  # products that exist only in this episode
    returns: tuple[tuple[str, str], ...]  # (order ID, line ID) of every return started
    # Each order as the episode left it, and every order change and exchange made (issue 32);
    # empty for a world written before those existed (world schema 1).
    orders: dict[str, OrderState] = field(default_factory=dict)
    order_writes: tuple[OrderChange, ...] = ()
    balances: dict[str, int | None] = field(default_factory=dict)  # payment method -> balance left
    # Every hand-over to a person (issue 33), in order; empty for a world written before them.
    handovers: tuple[Handover, ...] = ()


@dataclass(frozen=True)
class Handover:
    """One row of `handovers`: the agent's summary for the person who takes over."""

    handover_id: str
    summary: str
    seq: int


@dataclass(frozen=True)
class OrderState:
    """What an order change can touch: its status, why it was cancelled, where it ships (the
    stored JSON of the address) and each line's product."""

    status: str
    cancel_reason: str | None
    address_id: str | None
    ship_to: str | None
    lines: tuple[tuple[str, str], ...]  # (line ID, product ID), in the order's line order


@dataclass(frozen=True)
class OrderChange:
    """One write of `order_changes`: the tool, the order, its detail, the money and its method."""

    tool: str
    order_id: str
    detail: dict
    amount_cents: int
    payment_id: str | None
    seq: int


def read_world(directory: Path, name: str, limits: Limits = Limits(), dir_fd: int | None = None,
               image: bytes | None = None) -> World:
    """The world `directory/name`; `dir_fd`, if given, is that directory's descriptor. `image`:
    its bytes, when the caller already read them (the seal check digests them), so the file is
    read once and what is scored is what was digested."""
    path = Path(directory) / name

    def where(file_name: str) -> str:
        return file_name if dir_fd is not None else str(path.parent / file_name)

    has_wal = check_regular(where(name + "-wal"), "world", limits.world_bytes, dir_fd, missing_ok=True)
    check_regular(where(name + "-shm"), "world", limits.world_bytes, dir_fd, missing_ok=True)
    db = None
    if not has_wal and image is not None:
        db = _open_image(image, path.name)
    elif not has_wal:
        try:
            image = read_regular(where(name), "world", min(limits.world_bytes, IN_MEMORY_WORLD_BYTES), dir_fd)
        except Unsafe as exc:
            if exc.reason != "world_too_large" or limits.world_bytes <= IN_MEMORY_WORLD_BYTES:
                raise
        else:
            db = _open_image(image, path.name)
    if db is None:
        check_regular(where(name), "world", limits.world_bytes, dir_fd)
        db = _open_by_path(path, immutable=not has_wal)
    try:
        return world_from_connection(db, path.name)
    finally:
        db.close()


def world_from_connection(db: sqlite3.Connection, file_name: str = "world.db",
                          filled: frozenset[str] | None = None, tables: frozenset[str] | None = None) -> World:
    """The world in `db`'s main database, read (the caller owns and closes `db`). The in-process
    shop (`verishop.local`) reads a closing episode's world this way, from its own connection, and
    names the tables that hold rows (`filled`): the others, of its own schema, read as empty; and
    that schema's tables (`tables`), which it knows."""
    rows = _Rows(db, filled)
    try:
        if tables is None:
            tables = frozenset(name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        return World(
            meta=dict(rows("meta", "SELECT key, value FROM meta")),
            cart=dict(rows("cart", "SELECT product_id, quantity FROM cart")),
            stock=dict(rows("stock_changes", "SELECT product_id, stock FROM stock_changes")),
            extra_products={row[0]: Product.from_row(row)
                            for row in rows("extra_products", f"SELECT {PRODUCT_COLUMNS} FROM extra_products")},
            returns=tuple(rows("returns", "SELECT order_id, line_id FROM returns ORDER BY created_seq")),
            **_order_tables(rows, tables),
            handovers=_handovers(rows, tables),
        )
    except (sqlite3.Error, json.JSONDecodeError, TypeError) as exc:
        raise Incomplete("world_corrupt", f"{file_name} is not a readable episode world: {exc}") from None


class _Rows:
    """A table's rows by a query, or none without asking when the caller knows the table is empty."""

    def __init__(self, db: sqlite3.Connection, filled: frozenset[str] | None):
        self.db, self.filled = db, filled

    def __call__(self, table: str, sql: str) -> Iterable[tuple]:
        return self.db.execute(sql) if self.filled is None or table in self.filled else ()


def _order_tables(rows: _Rows, tables: frozenset[str]) -> dict:
    """The orders' state, their changes and the payment balances, from a world that has them."""
    if "order_changes" not in tables:
        return {}
    lines: dict[str, list[tuple[str, str]]] = {}
    for order_id, line_id, product_id in rows("order_lines", "SELECT order_id, line_id, product_id FROM order_lines "
                                                             "ORDER BY rowid"):
        lines.setdefault(order_id, []).append((line_id, product_id))
    orders = {row[0]: OrderState(status=row[1], cancel_reason=row[2], address_id=row[3], ship_to=row[4],
                                 lines=tuple(lines.get(row[0], ())))
              for row in rows("orders", "SELECT order_id, status, cancel_reason, address_id, ship_to FROM orders")}
    writes = tuple(OrderChange(tool, order_id, json.loads(detail), amount, payment, seq)
                   for tool, order_id, detail, amount, payment, seq in rows("order_changes",
                       "SELECT tool, order_id, detail, amount_cents, payment_id, created_seq FROM order_changes "
                       "ORDER BY created_seq"))
    balances = dict(rows("payment_methods", "SELECT payment_id, balance_cents FROM payment_methods"))
    return {"orders": orders, "order_writes": writes, "balances": balances}


def _handovers(rows: _Rows, tables: frozenset[str]) -> tuple[Handover, ...]:
    """The hand-overs, from a world that has their table (world schema 3)."""
    if "handovers" not in tables:
        return ()
    return tuple(Handover(str(h), str(s), int(q)) for h, s, q in rows(
        "handovers", "SELECT handover_id, summary, created_seq FROM handovers ORDER BY created_seq"))


def _open_image(image: bytes, file_name: str) -> sqlite3.Connection:
    if len(image) >= 100 and image[18:20] == b"\x02\x02":
        # The header's WAL flag (https://sqlite.org/fileformat2.html#database_header): an
        # in-memory database cannot be in WAL mode, and without a -wal file the bytes are the
        # whole database, so it reads as the same database in rollback mode.
        image = image[:18] + b"\x01\x01" + image[20:]
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(image)
    except sqlite3.Error as exc:
        db.close()
        raise Incomplete("world_corrupt", f"{file_name} cannot be opened: {exc}") from None
    return db


def _open_by_path(path: Path, *, immutable: bool) -> sqlite3.Connection:
    # A closed episode's world never changes again, so without a -wal it may be opened
    # immutable (no locks, no -shm file); with one, the ordinary read-only way applies the WAL.
    try:
        return sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro{'&immutable=1' if immutable else ''}",
                               uri=True)
    except sqlite3.Error as exc:
        raise Incomplete("world_corrupt", f"{path.name} cannot be opened: {exc}") from None
