"""Shared fixtures: one small catalog per test session, fresh hubs and episodes per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.verifier.runner import Settings, Verifier

CATALOG_SIZE = 4000
CATALOG_SEED = 3


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
