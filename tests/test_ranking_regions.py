"""The counts `bench/ranking_regions.py` prints for issue 11's goal 2 (what bounds PD and SUB
generation's growth with the catalog): each region holds the next, and the narrowest, counted
by a full scan of the category, holds the generator's ideal list."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from verishop.scenarios.catalog.reader import CatalogReader

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


def test_an_ideal_list_the_full_scan_disagrees_with_is_refused(reader: CatalogReader,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    real = ranking_regions.generate

    def with_a_wrong_first_pick(env: str, difficulty: int, seed: int, catalog: CatalogReader):
        scenario = real(env, difficulty, seed, catalog)
        goal = scenario.goal
        worst = catalog.db.execute("SELECT product_id FROM products WHERE category_id = ? ORDER BY rating, "
                                   "ship_days DESC, price_cents DESC LIMIT 1", (goal.category_id,)).fetchone()[0]
        ideal = (goal.ideal[0].model_copy(update={"product_id": worst}), *goal.ideal[1:])
        return scenario.model_copy(update={"goal": goal.model_copy(update={"ideal": ideal})})

    monkeypatch.setattr(ranking_regions, "generate", with_a_wrong_first_pick)
    with pytest.raises(RuntimeError, match="do not reach the bar"):
        ranking_regions.pd_regions(reader, 3, 7001, {})
