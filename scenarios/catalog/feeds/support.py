"""Which environments an imported catalog can run, said at import time (issue 30).

Each environment is asked to generate over every difficulty with a few seeds, the way an
evaluation would; an environment that cannot raises `CatalogError` saying what it needs and what
the catalog has, and that sentence is the table's reason. Any other exception is a bug of the
generator: the row says so (the catalog is written by then), and the tests generate every
environment on many imported catalogs, this table included, to keep it from happening."""

from __future__ import annotations

from pathlib import Path

from verishop.scenarios.catalog.cached_reader import CachedCatalogReader
from verishop.scenarios.catalog.reader import CatalogError
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.taxonomy import imported_categories_apart

# Seeds tried per difficulty: generation draws its products at random, so a catalog that can run an
# environment only with luck shows it here. Far from the seeds evaluations start at (0, 1, ...).
PROBE_SEEDS = (7_100_003, 7_100_019, 7_100_057)


def environment_table(path: Path) -> list[dict]:
    """One row per registered environment: env (short name), env_id, can_run, reason (empty when
    it can run, else the CatalogError's sentence with the difficulties it failed at)."""
    from verishop.scenarios.envs import REGISTRY, generate

    rows = []
    # About 500 scenarios on one catalog that never changes: its rows are read once, not once per
    # scenario (the same scenarios: tests/test_local_shop.py; the tests also generate every
    # environment on the server's reader over the imported catalogs, tests/test_real_shop_exports.py).
    with imported_categories_apart(), CachedCatalogReader(path) as catalog:
        for spec in REGISTRY.values():
            first, failed = "", []
            for difficulty in range(MAX_DIFFICULTY + 1):
                for seed in PROBE_SEEDS:
                    try:
                        generate(spec.short_name, difficulty, seed, catalog)
                    except CatalogError as exc:
                        first = first or str(exc)
                        failed.append(difficulty)
                        break
                    except Exception as exc:  # noqa: BLE001 (the catalog is written; say it, do not die)
                        first = first or (f"{spec.env_id}: the generator failed, a bug of verishop (please report "
                                          f"it with the feed): {type(exc).__name__}: {exc}")
                        failed.append(difficulty)
                        break
            reason = f"{first} (fails at difficulty {_ranges(failed)} of 0-{MAX_DIFFICULTY})" if failed else ""
            rows.append({"env": spec.short_name, "env_id": spec.env_id, "can_run": not failed, "reason": reason})
    return rows


def _ranges(numbers: list[int]) -> str:
    """[0, 1, 2, 5] -> '0-2, 5'."""
    spans: list[list[int]] = []
    for n in sorted(set(numbers)):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)


def table_lines(rows: list[dict]) -> list[str]:
    """The table as `verishop catalog import` prints it."""
    width = max(len(r["env_id"]) for r in rows)
    return [f"{r['env_id']:<{width}}  " + ("can run" if r["can_run"] else f"cannot run: {r['reason']}")
            for r in rows]
