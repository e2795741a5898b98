"""Catalog build throughput: seconds and products/s per size.

Same-run baseline: the same build with workers=1 at the sizes up to --baseline-max (or at
--baseline-max itself when every requested size is larger), so the parallel speedup is
measured on this machine in this run. Serial and parallel builds must give the same content
hash (generation does not depend on the worker count); that is checked too.

    python bench/catalog_build.py --sizes 10000,100000,1000000 [--workers 2]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
from pathlib import Path

from _common import CATALOG_SEED, console, parse_sizes, print_table, verdict, write_json

from verishop.scenarios.catalog.build import build_catalog

TARGET_2M_SECONDS = 180.0


def build_once(directory: Path, size: int, workers: int | None) -> dict:
    path = directory / f"catalog-{size}-w{workers}.db"
    result = build_catalog(path, size=size, seed=CATALOG_SEED, workers=workers)
    row = {"size": size, "workers": workers, "seconds": round(result.seconds, 3),
           "products_per_s": round(size / result.seconds), "file_mb": round(path.stat().st_size / 2**20, 1),
           "content_hash": result.content_hash}
    path.unlink()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--workers", type=int, default=None, help="build workers (default: the builder's, 2)")
    parser.add_argument("--baseline-max", type=int, default=100_000,
                        help="build with workers=1 too at sizes up to this (default 100000)")
    args = parser.parse_args()
    sizes = parse_sizes(args.sizes)
    baseline_sizes = [s for s in sizes if s <= args.baseline_max] or [args.baseline_max]

    with tempfile.TemporaryDirectory(prefix="verishop-bench-build-") as tmp:
        build_once(Path(tmp), 2_000, args.workers)  # warm-up (imports, first fork), not reported
        runs = []
        for size in sorted(set(sizes) | set(baseline_sizes)):
            console.print(f"[dim]building {size:,} products (workers={args.workers or 'default'}) ...[/dim]")
            runs.append(build_once(Path(tmp), size, args.workers))
        serial = []
        for size in baseline_sizes:
            console.print(f"[dim]baseline: building {size:,} products with workers=1 ...[/dim]")
            serial.append(build_once(Path(tmp), size, 1))

    by_size = {r["size"]: r for r in runs}
    best_serial_rate = max(s["products_per_s"] for s in serial)
    print_table(f"Catalog build (seed {CATALOG_SEED}, workers={args.workers or 'default (2)'})",
                ["products", "seconds", "products/s", "file MB", "rate / serial rate"],
                [[r["size"], r["seconds"], r["products_per_s"], r["file_mb"],
                  f"{r['products_per_s'] / best_serial_rate:.2f}x"] for r in runs])
    rows = []
    for s in serial:
        p = by_size[s["size"]]
        rows.append([s["size"], s["seconds"], p["seconds"], f"{s['seconds'] / p['seconds']:.2f}x",
                     "yes" if s["content_hash"] == p["content_hash"] else "[red]NO[/red]"])
    print_table("Same-run baseline: workers=1 vs parallel", ["products", "workers=1 s", "parallel s",
                                                             "speedup", "same content hash"], rows)
    for r in runs:
        if r["size"] == 2_000_000:
            console.print(f"target: 2M build <= {TARGET_2M_SECONDS:g} s: {verdict(r['seconds'], TARGET_2M_SECONDS)}")
    peak_mb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    console.print(f"peak RSS (largest single process): {peak_mb:,.0f} MB")
    write_json("catalog_build", {"seed": CATALOG_SEED, "workers": args.workers, "runs": runs,
                                 "baseline_serial": serial, "peak_rss_mb": round(peak_mb)})


if __name__ == "__main__":
    main()
