"""Which reader a source needs, from `--format` or, when not given, its name and first bytes."""

from __future__ import annotations

from pathlib import Path

from verishop.scenarios.catalog.feeds import ImportFailed

FORMATS = ("merchant-tsv", "merchant-xml", "shopify", "csv", "jsonl", "parquet")
NEEDS_MAPPING = frozenset({"csv", "jsonl", "parquet"})


def detect_format(path: Path) -> str:
    try:
        with open(path, "rb") as stream:
            head = stream.read(65536)
    except OSError as exc:
        raise ImportFailed(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if head.startswith(b"PAR1"):
        return "parquet"
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"<"):
        return "merchant-xml"
    first_line = text.split(b"\n", 1)[0].decode("utf-8", "replace")
    if text.startswith(b"{"):
        return "jsonl"
    if "\t" in first_line:
        return "merchant-tsv"
    columns = {c.strip().strip('"') for c in first_line.split(",")}
    if {"Handle", "Title"} <= columns:
        return "shopify"
    if path.suffix.lower() in (".csv", ".txt") and columns:
        return "csv"
    raise ImportFailed(f"{path}: cannot tell its format; pass --format ({', '.join(FORMATS)})")
