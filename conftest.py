"""Shared fixtures: one small catalog per test session, fresh hubs and episodes per test."""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.verifier.runner import Settings, Verifier

CATALOG_SIZE = 4000
CATALOG_SEED = 3


def pytest_configure(config: pytest.Config) -> None:
    """One operator-given seal key for every server and verifier the tests start (scenarios/seal.py),
    whatever VERISHOP_HOME each is given, so episodes made by one are checked by another and no key
    is left in the user's home. Tests of the per-runs-folder key remove it from their children's env."""
    if "VERISHOP_SEAL_KEY_FILE" not in os.environ:
        folder = Path(tempfile.mkdtemp(prefix="verishop-seal-"))
        os.environ["VERISHOP_SEAL_KEY_FILE"] = str(folder / "tests.key")


@pytest.fixture(scope="session")
def catalog_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("catalog") / "catalog.db"
    build_catalog(path, size=CATALOG_SIZE, seed=CATALOG_SEED)
    return path


@pytest.fixture(scope="session")
def reader(catalog_path: Path) -> Iterator[CatalogReader]:
    with CatalogReader(catalog_path) as r:
        yield r


@pytest.fixture
def verifier() -> Iterator[Verifier]:
    with Verifier(Settings()) as v:
        yield v


@pytest.fixture
async def hub(catalog_path: Path, tmp_path: Path) -> AsyncIterator[EpisodeHub]:
    hub = EpisodeHub(catalog_path, tmp_path / "runs")
    try:
        yield hub
    finally:
        await hub.aclose()
