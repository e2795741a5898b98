"""Shipping a catalog file to another machine in chunks (issue 30, point 7; `verishop.ray` puts the
chunks in Ray's object store): what arrives is checked chunk by chunk and then by content hash, and a
node keeps only a catalog that hashes to the driver's. Here the "object store" is a dict, so the
logic runs without Ray; tests/test_ray.py ships through the real one."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from verishop.scenarios.catalog.feeds.run import run_import
from verishop.scenarios.catalog.integrity import CatalogMismatch
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.catalog.shipping import Shipment, pack_catalog, receive_catalog, shipped_name
from verishop.scenarios.envs import REGISTRY, generate

SHOP = Path(__file__).parent.parent / "examples" / "shop"
SMALL_CHUNK_BYTES = 64 * 1024  # the sample shop is a few hundred KiB: several chunks


class ObjectStore:
    """Stands for Ray's object store: `put` returns a key, `get` the bytes under it."""

    def __init__(self) -> None:
        self.objects: dict[int, bytes] = {}
        self.gets = 0

    def put(self, data: bytes) -> int:
        self.objects[len(self.objects)] = data
        return len(self.objects) - 1

    def get(self, key: int) -> bytes:
        self.gets += 1
        return self.objects[key]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("imported") / "shop.db"
    run_import([SHOP / "shopify.csv"], path, policy=SHOP / "policy.yaml")
    return path


def content_hash(path: Path) -> str:
    with CatalogReader(path) as reader:
        return reader.meta["content_hash"]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_shipped_imported_catalog_arrives_byte_identical_and_generates_the_same_scenarios(imported, tmp_path):
    store = ObjectStore()
    shipment = pack_catalog(imported, store.put, chunk_bytes=SMALL_CHUNK_BYTES)
    assert len(shipment.chunks) > 2 and shipment.content_hash == content_hash(imported)
    assert shipment.size_bytes == imported.stat().st_size

    arrived = receive_catalog(shipment, tmp_path / "node", store.get)
    assert arrived.parent == tmp_path / "node" and arrived.name == shipped_name(shipment.content_hash)
    assert arrived.read_bytes() == imported.read_bytes()
    with CatalogReader(imported) as source, CatalogReader(arrived) as copy:
        for env in REGISTRY:
            assert generate(env, 6, 11, copy).to_json() == generate(env, 6, 11, source).to_json(), env


def test_a_chunk_altered_on_the_way_is_refused_naming_both_digests_and_leaves_nothing(imported, tmp_path):
    store = ObjectStore()
    shipment = pack_catalog(imported, store.put, chunk_bytes=SMALL_CHUNK_BYTES)
    altered = bytearray(store.objects[1])
    altered[100] ^= 0xFF
    store.objects[1] = bytes(altered)
    with pytest.raises(CatalogMismatch) as refused:
        receive_catalog(shipment, tmp_path / "node", store.get)
    message = str(refused.value)
    assert "chunk 2 of" in message
    assert hashlib.sha256(altered).hexdigest()[:16] in message and shipment.chunk_sha256[1][:16] in message
    assert leftovers(tmp_path / "node") == []


def test_a_consistent_shipment_of_another_catalog_is_refused_naming_both_content_hashes(imported, catalog_path,
                                                                                         tmp_path):
    # A goal-blind forger: the generated catalog's own bytes and chunk digests, labelled as the import.
    store = ObjectStore()
    other = pack_catalog(catalog_path, store.put)
    forged = dataclasses.replace(other, content_hash=content_hash(imported))
    with pytest.raises(CatalogMismatch) as refused:
        receive_catalog(forged, tmp_path / "node", store.get)
    message = str(refused.value)
    assert content_hash(catalog_path)[:16] in message and content_hash(imported)[:16] in message
    assert leftovers(tmp_path / "node") == []


def test_a_catalog_whose_meta_claims_the_expected_hash_but_whose_products_differ_is_refused(imported, tmp_path):
    # Same meta (so the same recorded content hash), one product's price changed.
    edited = tmp_path / "edited.db"
    shutil.copyfile(imported, edited)
    with sqlite3.connect(edited) as db:
        db.execute("UPDATE products SET price_cents = price_cents + 1 WHERE rowid = 1")
    db.close()
    store = ObjectStore()
    forged = _pack_unverified(edited, content_hash(imported), store)  # what its meta table says
    with pytest.raises(CatalogMismatch, match=f"content hash [0-9a-f]{{16}}.*{forged.content_hash[:16]}"):
        receive_catalog(forged, tmp_path / "node", store.get)
    assert leftovers(tmp_path / "node") == []


def _pack_unverified(path: Path, claimed_hash: str, store: ObjectStore) -> Shipment:
    """What a driver that skipped its own check would send: the file's bytes as they are."""
    data = path.read_bytes()
    return Shipment(content_hash=claimed_hash, size_bytes=len(data), chunk_sha256=(hashlib.sha256(data).hexdigest(),),
                    chunks=(store.put(data),))


def test_a_node_that_already_holds_the_catalog_reuses_it_and_a_different_file_there_is_replaced(imported,
                                                                                                  catalog_path,
                                                                                                  tmp_path):
    store = ObjectStore()
    shipment = pack_catalog(imported, store.put, chunk_bytes=SMALL_CHUNK_BYTES)
    first = receive_catalog(shipment, tmp_path / "node", store.get)
    gets = store.gets
    assert receive_catalog(shipment, tmp_path / "node", store.get) == first  # a restarted server
    assert store.gets == gets  # nothing fetched again

    # Another catalog where the shipped one belongs (a stale or planted file): never served.
    first.unlink()
    shutil.copyfile(catalog_path, first)
    again = receive_catalog(shipment, tmp_path / "node", store.get)
    assert store.gets > gets and again.read_bytes() == imported.read_bytes()


def test_the_driver_refuses_to_ship_a_catalog_other_than_the_pinned_one_or_a_damaged_one(imported, tmp_path):
    store = ObjectStore()
    with pytest.raises(CatalogMismatch, match="0000000000000000"):
        pack_catalog(imported, store.put, expected_hash="0" * 64)
    damaged = tmp_path / "damaged.db"
    shutil.copyfile(imported, damaged)
    with sqlite3.connect(damaged) as db:
        db.execute("UPDATE products SET title = 'changed' WHERE rowid = 2")
    db.close()
    with pytest.raises(CatalogMismatch, match="changed after"):
        pack_catalog(damaged, store.put)
    assert store.objects == {}  # nothing put in the store for a catalog refused on the driver
