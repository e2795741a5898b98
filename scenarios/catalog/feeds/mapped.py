"""Generic sources read through a `Mapping`: CSV (csv module), JSONL (line by line) and Parquet
(pyarrow record batches, the optional `[parquet]` extra)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from verishop.scenarios.catalog.feeds import ImportFailed
from verishop.scenarios.catalog.feeds.mapping import Mapping
from verishop.scenarios.catalog.feeds.rows import (
    MAX_LINE_BYTES, FeedItem, FeedRow, Lines, Refusal, RowProblem, category_like_column, check_text, clean,
    html_to_text, title_text,
)
from verishop.scenarios.catalog.feeds.tabular import records

# Rows converted to Python at a time: a Parquet file's dictionary-encoded columns expand here, so
# a batch may hold up to this many fields of MAX_FIELD_CHARS (plus one over-long one per column).
PARQUET_BATCH_ROWS = 256


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def to_row(record: int, values: dict[str, object], m: Mapping) -> FeedRow:
    get = {k: _text(v) for k, v in values.items()}
    check_text(get)
    category = get.get(m.category or "", "")
    if m.category_separator != ">":
        category = " > ".join(p.strip() for p in category.split(m.category_separator))
    price = clean(get.get(m.price))
    title, had_html = title_text(get.get(m.title, ""))
    column = None if m.category else category_like_column(get, m.columns())
    return FeedRow(
        record=record, source_id=clean(get.get(m.id)), title=title, title_had_html=had_html,
        category_hint=(f"the column {column!r} looks like one: add 'category: {column}' to the mapping"
                       if column else ""),
        price=price, category_path=clean(category), brand=clean(get.get(m.brand or "")),
        description=html_to_text(get.get(m.description or "", "")), group_key=clean(get.get(m.group or "")),
        sale_price=clean(get.get(m.sale_price or "")), availability=clean(get.get(m.availability or "")),
        stock=clean(get.get(m.stock or "")), rating=clean(get.get(m.rating or "")),
        rating_count=clean(get.get(m.rating_count or "")), ship_days=clean(get.get(m.ship_days or "")),
        attrs={name: clean(get.get(column)) for name, column in m.attributes.items() if clean(get.get(column))},
    )


def _checked(record: int, values: dict[str, object], m: Mapping) -> FeedItem:
    try:
        return to_row(record, values, m)
    except RowProblem as exc:
        return Refusal(record, clean(_text(values.get(m.id)))[:80], str(exc))


def _require_columns(path: Path, present: set[str], m: Mapping) -> None:
    missing = sorted(m.columns() - present)
    if missing:
        raise ImportFailed(f"{path}: the mapping names columns the source lacks: {', '.join(missing)}")


def read_csv(path: Path, m: Mapping) -> Iterator[FeedItem]:
    checked_header = False
    for item in records(path, delimiter=",", id_column=m.id):
        if isinstance(item, Refusal):
            yield item
            continue
        record, values = item
        if not checked_header:
            _require_columns(path, set(values), m)
            checked_header = True
        yield _checked(record, values, m)


def read_jsonl(path: Path, m: Mapping) -> Iterator[FeedItem]:
    with open(path, "rb") as stream:
        lines = Lines(stream, MAX_LINE_BYTES)
        for text in lines:
            record = lines.number
            if record in lines.overlong:
                yield Refusal(record, "", f"the line is longer than {MAX_LINE_BYTES:,} bytes")
                continue
            if not text.strip():
                continue
            try:
                values = json.loads(text)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                yield Refusal(record, "", f"not a JSON object: {exc}")
                continue
            except RecursionError:
                yield Refusal(record, "", "the JSON value is nested deeper than the reader allows (about 1,000 levels)")
                continue
            except ValueError as exc:  # an integer of more digits than Python converts (sys.int_info)
                yield Refusal(record, "", f"a number has too many digits: {exc}".split("; use sys.")[0])
                continue
            if not isinstance(values, dict):
                yield Refusal(record, "", f"not a JSON object but {type(values).__name__}")
                continue
            yield _checked(record, values, m)


def read_parquet(path: Path, m: Mapping) -> Iterator[FeedItem]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportFailed("Parquet needs pyarrow: pip install 'verishop[parquet]'") from None
    try:
        source = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises its own ArrowInvalid and OSError subclasses
        raise ImportFailed(f"{path}: not a readable Parquet file: {exc}") from None
    _require_columns(path, set(source.schema_arrow.names), m)
    record = 0
    try:
        for batch in source.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=sorted(m.columns())):
            for values in batch.to_pylist():
                record += 1
                yield _checked(record, values, m)
    except Exception as exc:
        yield Refusal(record + 1, "", f"the Parquet file cannot be read past here: {exc}", fatal=True)
