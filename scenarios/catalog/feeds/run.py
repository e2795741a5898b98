"""One import from paths and options: pick each source's reader, load the mapping and the policy
file first (a bad one fails before any row is read), then write the catalog."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from verishop.scenarios.catalog.feeds import ImportFailed, MappingError, mapped, merchant, shopify
from verishop.scenarios.catalog.feeds.detect import FORMATS, NEEDS_MAPPING, detect_format
from verishop.scenarios.catalog.feeds.mapping import load_mapping
from verishop.scenarios.catalog.feeds.rows import FeedItem
from verishop.scenarios.catalog.feeds.shop_policy import load_policy
from verishop.scenarios.catalog.feeds.write import ImportReport, import_catalog
from verishop.scenarios.money import currency as currency_of


def reader_for(path: Path, feed_format: str, mapping_path: Path | None) -> Iterator[FeedItem]:
    if feed_format in NEEDS_MAPPING:
        if mapping_path is None:
            raise MappingError(f"{path}: the {feed_format} format needs --mapping (which column is the id, "
                               "title, price ...)")
        m = load_mapping(mapping_path)
        return {"csv": mapped.read_csv, "jsonl": mapped.read_jsonl, "parquet": mapped.read_parquet}[feed_format](path, m)
    return {"merchant-tsv": merchant.read_tsv, "merchant-xml": merchant.read_xml,
            "shopify": shopify.read_csv}[feed_format](path)


def run_import(sources: list[Path], out: Path, *, feed_format: str | None = None, mapping: Path | None = None,
               policy: Path | None = None, strict: bool = False, currency: str | None = None,
               on_progress: Callable[[int], None] | None = None, environments: bool = False) -> ImportReport:
    """Import `sources` into a catalog at `out`. `environments`: also fill the report's table of the
    environments the catalog can run (support.py; `catalog import` does, at a few seconds' cost)."""
    if not sources:
        raise ImportFailed("no SOURCE given")
    if feed_format is not None and feed_format not in FORMATS:
        raise ImportFailed(f"unknown format {feed_format!r}; known: {', '.join(FORMATS)}")
    for path in sources:
        if not Path(path).is_file():
            raise ImportFailed(f"{path}: no such file")
    formats = [feed_format or detect_format(Path(p)) for p in sources]
    if len(set(formats)) > 1:
        raise ImportFailed("the sources have different formats (" + ", ".join(
            f"{p}: {f}" for p, f in zip(sources, formats)) + "); import one format at a time")
    if mapping is not None:
        currency = currency or load_mapping(mapping).currency  # a bad mapping fails before any row is read
    if currency is not None:  # "eur" is EUR; "euro" is no code
        try:
            currency = currency_of(currency.strip().upper()).code
        except ValueError as exc:
            raise ImportFailed(f"currency: {exc}") from None
    shop_policy = load_policy(policy) if policy is not None else None
    if currency is None and formats[0] == "shopify":
        currency = "USD"  # Shopify's export carries bare amounts in the shop's currency
    readers = ((str(p), reader_for(Path(p), formats[0], mapping)) for p in sources)
    report = import_catalog(readers, out, feed_format=formats[0], policy=shop_policy, policy_path=policy,
                            currency=currency, strict=strict, on_progress=on_progress)
    if environments:
        from verishop.scenarios.catalog.feeds.support import environment_table  # the envs import the reader

        report.environments = environment_table(out)
    return report
