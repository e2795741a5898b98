"""The catalog every node serves: the same file content everywhere, checked by its hash.

A node either builds it from `(seed, size)` (the build is deterministic, so every node gets the
same bytes' worth of products and the same content hash) or opens a path that exists on every
node. Either way the hash in the file's `meta` table must equal the one the driver expects,
or the node refuses to serve: episodes scored against different catalogs are not comparable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verishop.scenarios.catalog.cache import ensure_catalog
from verishop.scenarios.catalog.integrity import verify_catalog
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader
from verishop.ray.errors import CatalogMismatch

BUILT_NAME = "catalog.db"


@dataclass(frozen=True)
class CatalogSpec:
    """Where a node gets its catalog: `path`, or a build from `seed` and `size` into the node's
    own folder. `content_hash`, when known, is what every node's copy must hash to."""

    path: Path | None = None
    """A catalog file every node can read at this path (a shared or copied file)."""
    seed: int | None = None
    """With `size`: build the catalog on each node (deterministic from `(seed, size)`)."""
    size: int | None = None
    """How many products to build."""
    content_hash: str | None = None
    """The content hash every node's catalog must have (`CatalogMismatch` otherwise)."""

    def __post_init__(self) -> None:
        if (self.path is None) == (self.seed is None or self.size is None):
            raise ValueError("a catalog is either a path or a (seed, size) to build, not both or neither")

    @classmethod
    def at(cls, path: Path | str, content_hash: str | None = None) -> CatalogSpec:
        """A catalog file at `path` on every node."""
        return cls(path=Path(path), content_hash=content_hash)

    @classmethod
    def build(cls, seed: int, size: int, content_hash: str | None = None) -> CatalogSpec:
        """A catalog each node builds from `(seed, size)` (once; later starts reuse the file)."""
        return cls(seed=seed, size=size, content_hash=content_hash)

    def expecting(self, content_hash: str) -> CatalogSpec:
        """The same spec, requiring this content hash."""
        return CatalogSpec(self.path, self.seed, self.size, content_hash)


def content_hash(path: Path) -> str:
    """The content hash recorded in a catalog file."""
    with CatalogReader(path) as reader:
        return reader.meta["content_hash"]


def node_catalog(spec: CatalogSpec, node_dir: Path) -> tuple[Path, str]:
    """The catalog file on this node (built into `node_dir` first if the spec says so) and its
    content hash, which must equal `spec.content_hash` when that is set."""
    if spec.path is not None:
        path = spec.path
        if not path.is_file():
            raise CatalogMismatch(f"catalog {path} does not exist on this node")
    else:
        assert spec.seed is not None and spec.size is not None
        path = ensure_catalog(node_dir / BUILT_NAME, size=spec.size, seed=spec.seed)
    try:  # the products hashed again on the first open of this copy (scenarios.catalog.integrity)
        found = verify_catalog(path).content_hash
    except CatalogError as exc:
        raise CatalogMismatch(f"catalog on this node: {exc}") from None
    if spec.content_hash is not None and found != spec.content_hash:
        origin = f"from seed {spec.seed}, size {spec.size}" if spec.path is None else "given"
        raise CatalogMismatch(f"catalog {path} ({origin}) has content hash {found[:16]}…, the driver expects "
                              f"{spec.content_hash[:16]}…: this node would serve different products (another "
                              f"verishop version, or another file at that path)")
    return path, found
