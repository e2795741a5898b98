"""Catalog import at scale (issue 21): a generated Merchant Center TSV feed of --rows products
(categories, product_detail attributes, variant groups, availability, shipping times) written to
a temp folder, imported by `verishop catalog import`, and reported as rows/s and the importing
process's peak resident memory (target: at most 1 GiB at 1,000,000 rows). The same-run baseline
is the generated catalog's build of as many products (bench/catalog_build.py's), serial, so both
rates come from this machine under this load. Each runs in its own process, so each peak RSS is
its own (VmHWM, reset at exec).

    python bench/catalog_import.py --rows 1000000
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import console, print_table, verdict, write_json

TARGET_PEAK_MIB = 1024
SEED = 21
_DEPARTMENTS = ("Garden", "Studio", "Workshop", "Pantry", "Nursery", "Atelier", "Harbor", "Orchard")
_KINDS = ("Trowels", "Easels", "Chisels", "Spice Jars", "Cribs", "Looms", "Ropes", "Ladders", "Kettles", "Lanterns")
_DETAILS = {"finish": ("Matte", "Gloss", "Satin", "Raw"), "grade": ("Standard", "Pro", "Heirloom"),
            "span": ("Small", "Medium", "Large", "Extra Large")}
_COLUMNS = ("id", "title", "description", "availability", "price", "brand", "product_type", "item_group_id",
            "product_detail", "color", "max_handling_time", "max_transit_time")

# Runs in its own process: the import (or build) and its peak memory, as one JSON line.
_MEASURE = """
import json, re, sys, time
from pathlib import Path
kind, source, out = sys.argv[1:4]
started = time.perf_counter()
if kind == "import":
    from verishop.scenarios.catalog.feeds.run import run_import
    report = run_import([Path(source)], Path(out))
    rows, extra = report.imported, {"refused": report.refused, "categories": report.categories}
else:
    from verishop.scenarios.catalog.build import build_catalog
    rows, extra = int(source), {}
    build_catalog(Path(out), size=rows, seed=7, workers=1)
seconds = time.perf_counter() - started
peak_kib = int(re.search(r"VmHWM:\\s+(\\d+)", Path("/proc/self/status").read_text()).group(1))
print(json.dumps({"rows": rows, "seconds": seconds, "peak_mib": peak_kib / 1024,
                  "file_mib": Path(out).stat().st_size / 2**20, **extra}))
"""


def write_feed(path: Path, rows: int) -> None:
    """`rows` products, a fifth of them in variant groups of 2-4, streamed to disk."""
    rng = random.Random(SEED)
    paths = [f"{d} > {k}" for d in _DEPARTMENTS for k in _KINDS]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\t".join(_COLUMNS) + "\n")
        n = 0
        while n < rows:
            category, brand = rng.choice(paths), f"Maker {rng.randrange(400)}"
            base = {a: rng.choice(v) for a, v in _DETAILS.items()}
            size = min(rows - n, rng.randint(2, 4)) if rng.random() < 0.2 else 1
            group = f"G{n}" if size > 1 else ""
            price = rng.randint(300, 90_000)
            for color in rng.sample(("Red", "Blue", "Green", "Black", "White"), size):
                n += 1
                detail = ",".join(f"Specs:{a.title()}:{v}" for a, v in base.items())
                f.write(f"SKU{n:08d}\t{brand} {category.split(' > ')[1]} {n}\t<p>Item {n}, {color}.</p>\t"
                        f"{'out_of_stock' if rng.random() < 0.05 else 'in_stock'}\t{price / 100:.2f} USD\t{brand}\t"
                        f"{category}\t{group}\t{detail}\t{color}\t1\t{rng.randint(1, 6)}\n")


def measure(kind: str, source: str, out: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _MEASURE, kind, source, str(out)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"{kind} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verishop-bench-import-") as tmp:
        feed = Path(tmp) / "feed.tsv"
        console.print(f"[dim]writing a Merchant TSV feed of {args.rows:,} rows ...[/dim]")
        started = time.perf_counter()
        write_feed(feed, args.rows)
        feed_mib = feed.stat().st_size / 2**20
        console.print(f"[dim]  {feed_mib:,.0f} MiB in {time.perf_counter() - started:.0f} s; importing ...[/dim]")
        imported = measure("import", str(feed), Path(tmp) / "imported.db")
        console.print("[dim]baseline: building a generated catalog of as many products (workers=1) ...[/dim]")
        built = measure("build", str(args.rows), Path(tmp) / "built.db")
    rows = [["import (Merchant TSV)", imported["rows"], f"{imported['seconds']:.1f}",
             f"{imported['rows'] / imported['seconds']:,.0f}", f"{imported['peak_mib']:,.0f}",
             f"{imported['file_mib']:,.0f}"],
            ["build (generated, workers=1)", built["rows"], f"{built['seconds']:.1f}",
             f"{built['rows'] / built['seconds']:,.0f}", f"{built['peak_mib']:,.0f}", f"{built['file_mib']:,.0f}"]]
    print_table(f"Catalog import vs build ({args.rows:,} rows, feed {feed_mib:,.0f} MiB)",
                ["run", "products", "seconds", "products/s", "peak RSS MiB", "file MiB"], rows)
    console.print(f"import rate / build rate: {(imported['rows'] / imported['seconds']) / (built['rows'] / built['seconds']):.2f}x")
    console.print(f"target: import peak RSS <= {TARGET_PEAK_MIB} MiB: {verdict(imported['peak_mib'], TARGET_PEAK_MIB)}")
    write_json("catalog_import", {"rows": args.rows, "feed_mib": round(feed_mib, 1), "import": imported,
                                  "build": built})


if __name__ == "__main__":
    main()
