"""The catalog every node serves: the same file content everywhere, checked by its hash.

A node gets it in one of three ways:
- `CatalogSpec.shipped(path)` (what `VerishopCluster.start` does with a plain path, such as an
  imported catalog): the driver checks its file and puts its bytes in Ray's object store in chunks
  (`verishop.scenarios.catalog.shipping`); each node fetches them, checks each chunk's digest and then
  the whole file's content hash, and keeps the file in its own folder. A node that already holds it
  (a restarted server) reuses its copy once it hashes right.
- `CatalogSpec.at(path)`: a path every node can read (shared storage), no copy.
- `CatalogSpec.build(seed, size)`: each node builds it (the build is deterministic).
Either way the hash must equal the one the driver expects, or the node refuses to serve: episodes
scored against different catalogs are not comparable.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray

from verishop.scenarios.catalog.cache import ensure_catalog
from verishop.scenarios.catalog.integrity import verify_catalog
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader
from verishop.scenarios.catalog.shipping import Shipment, pack_catalog, receive_catalog
from verishop.ray.errors import CatalogMismatch, ServerStartFailed

BUILT_NAME = "catalog.db"
CHUNK_TIMEOUT_S = 300.0  # one chunk (8 MiB) from another node's object store


@dataclass(frozen=True)
class CatalogSpec:
    """Where a node gets its catalog: the driver's file shipped to it (`shipped`), a path it can
    read (`at`), or a build from `seed` and `size` into the node's own folder (`build`).
    `content_hash`, when known, is what every node's copy must hash to."""

    path: Path | None = None
    """With `ship`, the driver's file; without, a catalog file every node can read at this path."""
    seed: int | None = None
    """With `size`: build the catalog on each node (deterministic from `(seed, size)`)."""
    size: int | None = None
    """How many products to build."""
    content_hash: str | None = None
    """The content hash every node's catalog must have (`CatalogMismatch` otherwise)."""
    ship: bool = False
    """Send the driver's file at `path` to every node through Ray's object store."""
    shipment: Shipment | None = None
    """The shipped file's chunks in the object store (set by `VerishopCluster.start`)."""

    def __post_init__(self) -> None:
        if (self.path is None) == (self.seed is None or self.size is None):
            raise ValueError("a catalog is either a path or a (seed, size) to build, not both or neither")
        if self.shipment is not None and not self.ship:
            raise ValueError("a shipment belongs to a shipped catalog (CatalogSpec.shipped)")

    @classmethod
    def shipped(cls, path: Path | str, content_hash: str | None = None) -> CatalogSpec:
        """The catalog file at `path` on the driver, sent to every node (an imported catalog,
        or any file the nodes do not share)."""
        return cls(path=Path(path), content_hash=content_hash, ship=True)

    @classmethod
    def at(cls, path: Path | str, content_hash: str | None = None) -> CatalogSpec:
        """A catalog file at `path` on every node (shared storage, or copied there beforehand)."""
        return cls(path=Path(path), content_hash=content_hash)

    @classmethod
    def build(cls, seed: int, size: int, content_hash: str | None = None) -> CatalogSpec:
        """A catalog each node builds from `(seed, size)` (once; later starts reuse the file)."""
        return cls(seed=seed, size=size, content_hash=content_hash)

    def expecting(self, content_hash: str) -> CatalogSpec:
        """The same spec, requiring this content hash."""
        return dataclasses.replace(self, content_hash=content_hash)

    def with_shipment(self, shipment: Shipment) -> CatalogSpec:
        """The same shipped spec, its bytes in the object store; requiring the shipment's hash."""
        if self.content_hash is not None and shipment.content_hash != self.content_hash:
            raise CatalogMismatch(f"the driver's catalog {self.path} has content hash {shipment.content_hash[:16]}…, "
                                  f"not the expected {self.content_hash[:16]}…")
        return dataclasses.replace(self, ship=True, shipment=shipment, content_hash=shipment.content_hash)


def content_hash(path: Path) -> str:
    """The content hash recorded in a catalog file."""
    with CatalogReader(path) as reader:
        return reader.meta["content_hash"]


def ship_from_driver(spec: CatalogSpec) -> CatalogSpec:
    """The spec with the driver's file checked and put in the object store (a shipped spec), or
    with the file's recorded hash expected (a path every node reads)."""
    assert spec.path is not None
    try:
        if spec.ship:
            return spec.with_shipment(pack_catalog(spec.path, ray.put, expected_hash=spec.content_hash))
        return spec if spec.content_hash is not None else spec.expecting(content_hash(spec.path))
    except CatalogError as exc:
        raise CatalogMismatch(f"the driver's catalog: {exc}") from None


def node_catalog(spec: CatalogSpec, node_dir: Path) -> tuple[Path, str]:
    """The catalog file on this node (received or built into `node_dir` first if the spec says
    so) and its content hash, which must equal `spec.content_hash` when that is set."""
    try:
        if spec.ship:
            if spec.shipment is None:
                raise CatalogMismatch("a shipped catalog without its shipment: start the cluster with "
                                      "VerishopCluster.start, which puts the driver's file in the object store")
            path = receive_catalog(spec.shipment, node_dir, _fetch_chunk)
        elif spec.path is not None:
            path = spec.path
            if not path.is_file():
                raise CatalogMismatch(f"catalog {path} does not exist on this node (CatalogSpec.shipped sends "
                                      f"the driver's file to every node)")
        else:
            assert spec.seed is not None and spec.size is not None
            path = ensure_catalog(node_dir / BUILT_NAME, size=spec.size, seed=spec.seed)
        # The products hashed again on the first open of this copy (scenarios.catalog.integrity).
        found = verify_catalog(path).content_hash
    except CatalogError as exc:
        raise CatalogMismatch(f"catalog on this node: {exc}") from None
    if spec.content_hash is not None and found != spec.content_hash:
        origin = ("shipped" if spec.ship else "given") if spec.path is not None else \
            f"from seed {spec.seed}, size {spec.size}"
        raise CatalogMismatch(f"catalog {path} ({origin}) has content hash {found[:16]}…, the driver expects "
                              f"{spec.content_hash[:16]}…: this node would serve different products (another "
                              f"verishop version, or another file at that path)")
    return path, found


def _fetch_chunk(ref: Any) -> bytes:
    try:
        return ray.get(ref, timeout=CHUNK_TIMEOUT_S)
    except (ray.exceptions.ObjectLostError, ray.exceptions.GetTimeoutError) as exc:
        # OwnerDiedError is an ObjectLostError: the driver that put the chunks has exited.
        raise ServerStartFailed(f"the shipped catalog's chunks cannot be fetched from the object store "
                                f"({type(exc).__name__}; has the driver that shipped them exited?): call "
                                f"VerishopCluster.start again from a driver") from None
