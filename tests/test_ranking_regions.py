"""The counts `bench/ranking_regions.py` prints for issue 11's goal 2 (what bounds PD and SUB
generation's growth with the catalog): each region holds the next, and the narrowest, counted
by a full scan of the category, holds the generator's ideal list."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scenarios.catalog.reader import CatalogReader

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import ranking_regions  # noqa: E402  (a script in bench/, not a package)

SEEDS = range(12)


@pytest.mark.parametrize("env", ["pd", "sub"])
def test_each_region_holds_the_next_and_the_last_holds_the_ideal_list(reader: CatalogReader, env: str) -> None:
    count = ranking_regions.COUNTERS[env]
    names = ranking_regions.REGIONS[env]
    rows_of: dict = {}
    widest_seen = 0
    for seed in SEEDS:
        difficulty = seed % 13
        counts = count(reader, difficulty, 7000 + seed, rows_of)  # asserts the ideal list reaches the bar
        sizes = [counts[n] for n in names]
        assert sizes == sorted(sizes, reverse=True), f"{env} seed {seed}: {dict(zip(names, sizes))}"
        assert counts["exact"] >= 1
        widest_seen = max(widest_seen, counts[names[1]] - counts["exact"])
    # Not a vacuous nesting: the walk's region is wider than the products reaching the bar somewhere.
    assert widest_seen > 0
