"""The episode world file (`world.db`): its schema and how a scenario seeds it.

This is half of the contract between server and verifier: the server creates and mutates
it, the verifier reads it read-only. The shared catalog is referenced (path and content
hash in `meta`), never copied.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path

from verishop.scenarios.models import Account, Scenario

WORLD_SCHEMA_VERSION = 4  # 2: the account tables and order changes (issue 32); 3: handovers (issue 33);
# 4: the shop's customers and whose each order is (the minefields of issue 33); the vouchers table
# (issue 34) is new in 4 too: a world without it has no voucher to read
WORLD_PAGE_SIZE = 1024

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE orders (
    order_id TEXT PRIMARY KEY, placed_on TEXT NOT NULL, status TEXT NOT NULL, carrier TEXT,
    tracking_number TEXT, eta TEXT, delivered_on TEXT,
    -- An account world's (issue 32): the saved address it ships to (or NULL with ship_to given in
    -- full), the address as JSON {street, city, zip}, how it was paid, why it was cancelled.
    address_id TEXT, ship_to TEXT, payment_id TEXT, cancel_reason TEXT,
    -- Whose order it is: the episode's customer, or another one (`customers`; issue 33).
    customer_id TEXT
);
-- The shop's customers: the episode's own and, when the scenario carries minefields, others
-- (look-alikes, the friend asked about); `find_customer` reads it (issue 33).
CREATE TABLE customers (
    customer_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, street TEXT, city TEXT NOT NULL,
    zip TEXT
);
CREATE TABLE order_lines (
    line_id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(order_id),
    product_id TEXT NOT NULL, title TEXT NOT NULL, category_id TEXT NOT NULL,
    quantity INTEGER NOT NULL, unit_price_cents INTEGER NOT NULL
);
CREATE TABLE stock_changes (product_id TEXT PRIMARY KEY, stock INTEGER NOT NULL);
-- Products that exist only in this episode (synthesized variants); same columns as the catalog's.
CREATE TABLE extra_products (
    product_id TEXT PRIMARY KEY, group_id TEXT NOT NULL, title TEXT NOT NULL, brand TEXT NOT NULL,
    category_id TEXT NOT NULL, price_cents INTEGER NOT NULL, rating REAL NOT NULL,
    rating_count INTEGER NOT NULL, ship_days INTEGER NOT NULL, stock INTEGER NOT NULL, attrs TEXT NOT NULL
);
CREATE INDEX extra_products_by_group ON extra_products(group_id);
CREATE TABLE cart (
    product_id TEXT PRIMARY KEY, quantity INTEGER NOT NULL CHECK (quantity > 0),
    added_seq INTEGER NOT NULL
);
CREATE TABLE addresses (
    address_id TEXT PRIMARY KEY, street TEXT NOT NULL, city TEXT NOT NULL, zip TEXT NOT NULL,
    is_default INTEGER NOT NULL
);
CREATE TABLE payment_methods (
    payment_id TEXT PRIMARY KEY, kind TEXT NOT NULL, label TEXT NOT NULL, balance_cents INTEGER
);
-- Every order change and exchange made (mcp_server/shop/order_changes.py): the tool, its effect
-- as JSON, the money it moved (positive: charged to the customer) and through which payment method.
CREATE TABLE order_changes (
    change_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, tool TEXT NOT NULL, detail TEXT NOT NULL,
    amount_cents INTEGER NOT NULL, payment_id TEXT, created_seq INTEGER NOT NULL
);
-- Every hand-over to a person (mcp_server/shop/handover.py, issue 33): the agent's summary for them.
CREATE TABLE handovers (
    handover_id TEXT PRIMARY KEY, summary TEXT NOT NULL, created_seq INTEGER NOT NULL
);
-- The account's vouchers (issue 34): their rules as the scenario seeds them, whether one is on the
-- coming order (`applied_seq`, mcp_server/shop/checkout.py) and the order that used it.
CREATE TABLE vouchers (
    code TEXT PRIMARY KEY, kind TEXT NOT NULL, amount INTEGER NOT NULL, min_spend_cents INTEGER NOT NULL,
    category_id TEXT, excludes_final_sale INTEGER NOT NULL, stackable INTEGER NOT NULL, expires_on TEXT NOT NULL,
    applied_seq INTEGER, order_id TEXT
);
CREATE TABLE returns (
    return_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, line_id TEXT NOT NULL UNIQUE,
    quantity INTEGER NOT NULL, reason TEXT NOT NULL, refund_cents INTEGER NOT NULL,
    created_seq INTEGER NOT NULL
);
"""


def create_world(path: Path, scenario: Scenario, *, episode_id: str, catalog_path: Path,
                 scenario_sha256: str | None = None, catalog_identity: tuple[str, str] | None = None) -> None:
    """Write a fresh world file for `scenario` at `path` (which must not exist).

    The world is built in memory from a prebuilt empty image and written with one write(): no
    schema script, no journal and no fsync per episode. `scenario_sha256` saves hashing the
    scenario again when the caller has it; `catalog_identity` is (the catalog file's identity,
    the machine) as the server verified it (catalog.integrity)."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db.deserialize(empty_world_image())
        seed_world(db, scenario, episode_id=episode_id, catalog_path=catalog_path,
                   scenario_sha256=scenario_sha256, catalog_identity=catalog_identity)
        write_world_image(path, db.serialize())
    finally:
        db.close()


def seed_world(db: sqlite3.Connection, scenario: Scenario, *, episode_id: str, catalog_path: Path,
               scenario_sha256: str | None = None, catalog_identity: tuple[str, str] | None = None) -> frozenset[str]:
    """Insert `scenario`'s rows, in one transaction, into `db`, whose main database is a fresh
    copy of `empty_world_image()` (autocommit connection). Returns the tables given rows."""
    filled = {"meta", "customers"}
    db.execute("BEGIN")
    try:
        db.executemany("INSERT INTO main.meta VALUES (?, ?)", [
            ("world_schema_version", str(WORLD_SCHEMA_VERSION)),
            ("episode_id", episode_id),
            ("env_id", scenario.env_id),
            ("scenario_sha256", scenario_sha256 or scenario.sha256()),
            ("catalog_path", str(catalog_path)),
            ("catalog_content_hash", scenario.catalog.content_hash),
            *((("catalog_identity", catalog_identity[0]), ("catalog_machine", catalog_identity[1]))
              if catalog_identity else ()),
        ])
        account = scenario.account
        own = scenario.customer.customer_id
        others = scenario.minefields.others if scenario.minefields is not None else ()
        db.executemany("INSERT INTO main.customers VALUES (?, ?, ?, ?, ?, ?)",
                       [own_customer_row(scenario)]
                       + [(c.customer_id, c.name, c.email, c.street, c.city, c.zip) for c in others])
        # Another customer's order ships to its own address (check_order shows it in an account shop).
        orders = [(o, own, ship_to_json(account, o.address_id)) for o in scenario.orders]
        orders += [(o, c.customer_id, address_json(c.street, c.city, c.zip)) for c in others for o in c.orders]
        line_rows = [(line.line_id, o.order_id, line.product_id, line.title, line.category_id, line.quantity,
                      line.unit_price_cents) for o, _, _ in orders for line in o.lines]
        filled.update(table for table, rows in (("orders", orders), ("order_lines", line_rows)) if rows)
        db.executemany("INSERT INTO main.orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
            (o.order_id, o.placed_on.isoformat(), o.status, o.carrier, o.tracking_number,
             o.eta.isoformat() if o.eta else None, o.delivered_on.isoformat() if o.delivered_on else None,
             o.address_id, ship_to, o.payment_id, None, whose)
            for o, whose, ship_to in orders
        ])
        if account is not None:
            filled.update(table for table, rows in (("addresses", account.addresses),
                                                    ("payment_methods", account.payment_methods),
                                                    ("vouchers", account.vouchers)) if rows)
            db.executemany("INSERT INTO main.addresses VALUES (?, ?, ?, ?, ?)", [
                (a.address_id, a.street, a.city, a.zip, int(a.default)) for a in account.addresses])
            db.executemany("INSERT INTO main.payment_methods VALUES (?, ?, ?, ?)", [
                (m.payment_id, m.kind, m.label, m.balance_cents) for m in account.payment_methods])
            db.executemany("INSERT INTO main.vouchers VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)", [
                (v.code, v.kind, v.amount, v.min_spend_cents, v.category_id, int(v.excludes_final_sale),
                 int(v.stackable), v.expires_on.isoformat()) for v in account.vouchers])
        db.executemany("INSERT INTO main.order_lines VALUES (?, ?, ?, ?, ?, ?, ?)", line_rows)
        if scenario.extra_products:  # (an empty executemany still costs its statement)
            filled.add("extra_products")
            db.executemany("INSERT INTO main.extra_products VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
                (p.product_id, p.group_id, p.title, p.brand, p.category_id, p.price_cents, p.rating,
                 p.rating_count, p.ship_days, p.stock, json.dumps(p.attrs, separators=(",", ":"), sort_keys=True))
                for p in scenario.extra_products
            ])
        if scenario.stock_changes:
            filled.add("stock_changes")
            db.executemany("INSERT INTO main.stock_changes VALUES (?, ?)",
                           [(c.product_id, c.stock) for c in scenario.stock_changes])
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return frozenset(filled)


def own_customer_row(scenario: Scenario) -> tuple[str, str, str, str | None, str, str | None]:
    """The episode's customer as a `customers` row: its street and zip are its default address's
    (an account world), else the identity minefield's zip, else unknown."""
    c = scenario.customer
    address = next((a for a in scenario.account.addresses if a.default), None) if scenario.account else None
    identity = scenario.minefields.identity if scenario.minefields is not None else None
    zip_code = address.zip if address else identity.zip if identity else None
    return (c.customer_id, c.name, c.email, address.street if address else None, c.city, zip_code)


def address_json(street: str, city: str, zip_code: str) -> str:
    """An address as the world stores it (`orders.ship_to`): canonical JSON."""
    return json.dumps({"street": street, "city": city, "zip": zip_code}, separators=(",", ":"), sort_keys=True)


def ship_to_json(account: Account | None, address_id: str | None) -> str | None:
    """The stored address of a saved `address_id` (None when there is none)."""
    address = account.address(address_id) if account is not None and address_id else None
    return address_json(address.street, address.city, address.zip) if address else None


def write_world_image(path: Path, image: bytes, *, exclusive: bool = True) -> None:
    """Write a serialized world to `path` in one write(): a new file, or (`exclusive=False`)
    whatever file is there replaced by it."""
    data = bytearray(image)
    # Header bytes 18 and 19 (file format write/read version) = 2 is what `PRAGMA
    # journal_mode=WAL` writes (https://sqlite.org/fileformat2.html#database_header): a
    # connection that opens the file to write (crash recovery) keeps it in WAL mode.
    data[18:20] = b"\x02\x02"
    with open(path, "xb" if exclusive else "wb") as file:
        file.write(data)


@functools.cache
def empty_world_image() -> bytes:
    """The image of a world file with every table and no rows, made once per process."""
    db = sqlite3.connect(":memory:")
    try:
        # Small pages: a world holds a few rows per table, one page each, so the file written
        # per episode is 20 KiB instead of 68 KiB (and each WAL frame of a write is as small).
        db.execute(f"PRAGMA page_size = {WORLD_PAGE_SIZE}")
        db.executescript(SCHEMA)
        return db.serialize()
    finally:
        db.close()
