"""The shared catalogs an episode refers to, opened once per process, and the product lookup
of one episode (catalog, plus that episode's own products and stock)."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from verishop.scenarios.catalog.integrity import catalog_identity, rows_content_hash
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.stock import EpisodeStock
from verishop.verifier.errors import Incomplete
from verishop.verifier.world import World


class CatalogCache:
    """Catalog readers by resolved path; a verifier scoring thousands of episodes opens each once."""

    def __init__(self, rehash: bool = False) -> None:
        self._readers: dict[str, CatalogReader] = {}
        # rehash: a catalog's hash is its rows hashed again (once per file), not what its meta
        # table says, so that re-scoring (`verify --compare`) sees a catalog edited in place.
        self.rehash = rehash
        self._hashes: dict[str, str] = {}
        self._identities: dict[str, str | None] = {}  # the file each reader opened (integrity.catalog_identity)

    def open(self, path: Path, expected_hash: str) -> CatalogReader:
        key = str(path)
        reader = self._readers.get(key)
        if reader is not None and self._identities.get(key) != _identity(path):
            # Rebuilt or replaced at the same path since it was opened (a long-lived verifier:
            # the sidecar, a trainer's): read the file that is there now.
            reader.close()
            del self._readers[key]
            reader = None
        if reader is None:
            _check_catalog_file(path)
            try:
                reader = CatalogReader(key)
            except (CatalogError, KeyError, ValueError) as exc:
                raise Incomplete("catalog_missing", f"cannot open the catalog {key}: {exc}") from None
            self._readers[key] = reader
            self._identities[key] = _identity(path)
            self._hashes.pop(key, None)
        actual = reader.meta.get("content_hash")
        if actual != expected_hash:
            raise Incomplete("catalog_mismatch", f"the catalog {key} has content hash {actual}, "
                                                 f"but the scenario was generated on {expected_hash}")
        return reader

    def content_hash(self, path: Path) -> str:
        """The content hash of an opened catalog: recorded, or (rehash) recomputed from its rows."""
        key = str(path)
        if not self.rehash:
            return self._readers[key].meta["content_hash"]
        if key not in self._hashes:
            try:
                self._hashes[key] = rows_content_hash(path)
            except (CatalogError, sqlite3.DatabaseError) as exc:
                raise Incomplete("catalog_missing", f"cannot hash the catalog {key}: {exc}") from None
        return self._hashes[key]

    def close(self) -> None:
        for reader in self._readers.values():
            reader.close()
        self._readers.clear()


def _identity(path: Path) -> str | None:
    try:
        return catalog_identity(path)
    except OSError:
        return None


def _check_catalog_file(path: Path) -> None:
    """world.db names its catalog, so the path is the episode's to choose: open nothing but a
    regular file (a FIFO would block SQLite's open for ever). A link is fine: catalogs are
    shared and often linked into place."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise Incomplete("catalog_missing", f"cannot open the catalog {path}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise Incomplete("catalog_missing", f"the catalog {path} is not a regular file")


class Shop:
    """Products as one episode's world saw them: its own products first, then the catalog,
    with the episode's stock applied (the world's stock changes, the scenario's sell-out rules).
    Lookups are memoised for the episode."""

    def __init__(self, catalog: CatalogReader, world: World, stock: EpisodeStock):
        self.catalog = catalog
        self.world = world
        self.stock = stock
        self._seen: dict[str, Product | None] = {}

    def product(self, product_id: str) -> Product | None:
        if product_id in self._seen:
            return self._seen[product_id]
        product = self.stock.apply(self.world.extra_products.get(product_id) or self.catalog.product(product_id))
        self._seen[product_id] = product
        return product
