"""Console helpers shared by every subcommand: progress bars and catalog resolution (all output on stderr,
because on stdio stdout is the MCP wire)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from verishop.scenarios.catalog.cache import DEFAULT_SEED, DEFAULT_SIZE, catalog_path, ensure_catalog, verishop_home

if TYPE_CHECKING:
    from verishop.scenarios.catalog.integrity import Verified

err = Console(stderr=True)


def build_progress() -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err, transient=False)


def resolve_catalog(path: Path | None, size: int = DEFAULT_SIZE, seed: int = DEFAULT_SEED) -> Path:
    """An explicit catalog file, or the cached default, built with a progress bar if missing."""
    if path is not None:
        if not path.is_file():
            raise SystemExit(f"error: catalog {path} does not exist (build one with `verishop catalog build`)")
        return path
    target = catalog_path(verishop_home(), size, seed)
    if not target.is_file():
        ensure_writable(target.parent, "the catalog cache", "set VERISHOP_HOME to a writable folder or pass --catalog")
        err.print(f"Building the default catalog ({size:,} products, seed {seed}) into {target} ...")
        with build_progress() as progress:
            task = progress.add_task("catalog", total=size)
            ensure_catalog(target, size=size, seed=seed, on_progress=lambda n: progress.advance(task, n))
    return target


def ensure_writable(folder: Path, what: str, hint: str) -> Path:
    """`folder`, created if missing, once a file could be written in it; else one line on
    stderr naming the folder and what to do, and exit code 2."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        err.print(f"error: cannot write {what} in {folder} ({exc.strerror or exc}); {hint}", markup=False,
                  highlight=False, soft_wrap=True)
        raise SystemExit(2) from None
    return folder


def checked_catalog(path: Path, expected_hash: str | None = None, *, trust_stamp: bool = True) -> Verified:
    """`path` once its products hash to its recorded content hash (and to `expected_hash`, when
    given); else one line on stderr saying what differs, and exit code 2. Hashing shows a
    progress bar: it reads every product the first time a copied or rebuilt file is opened."""
    from verishop.scenarios.catalog.integrity import verify_catalog
    from verishop.scenarios.catalog.reader import CatalogError, CatalogReader

    try:
        with CatalogReader(path) as catalog:
            size = catalog.size
        with build_progress() as progress:
            task = progress.add_task("verifying catalog", total=size, visible=False)

            def advance(rows: int) -> None:
                progress.update(task, visible=True, advance=rows)

            return verify_catalog(path, expected_hash, trust_stamp=trust_stamp, on_progress=advance)
    except (CatalogError, KeyError, ValueError) as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise SystemExit(2) from None
