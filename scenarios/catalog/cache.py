"""Where catalogs live when nobody says: a cache folder outside the repo, built on first use."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from verishop.scenarios.catalog.build import CATALOG_SCHEMA_VERSION, build_catalog
from verishop.scenarios.taxonomy import TAXONOMY_VERSION

DEFAULT_SIZE = 50_000
DEFAULT_SEED = 0


def verishop_home(environ: dict[str, str] | os._Environ = os.environ) -> Path:
    """`$VERISHOP_HOME`, else `~/.cache/verishop` (read at entry points, never at import)."""
    return Path(environ.get("VERISHOP_HOME") or Path.home() / ".cache" / "verishop")


def runs_home(environ: dict[str, str] | os._Environ = os.environ) -> Path:
    """Where every command puts and looks for episode folders unless told otherwise: `serve`,
    `demo`, `eval` and the verifier sidecar alike."""
    return verishop_home(environ) / "runs"


def catalog_path(home: Path, size: int, seed: int) -> Path:
    return home / "catalogs" / f"catalog-s{seed}-n{size}-t{TAXONOMY_VERSION}-v{CATALOG_SCHEMA_VERSION}.db"


def ensure_catalog(path: Path, *, size: int, seed: int,
                   on_progress: Callable[[int], None] | None = None) -> Path:
    """The catalog at `path`, built first if it is not there (an existing file opens as is)."""
    if not path.is_file():
        build_catalog(path, size=size, seed=seed, on_progress=on_progress)
    return path
