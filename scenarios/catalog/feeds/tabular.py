"""Delimited text (TSV, CSV) read as header-keyed records with their line numbers, streaming.
Row-level problems (a record cut short, a line over the size limit, a quoting error) come out as
`Refusal`s so that each reader reports them the same way."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from verishop.scenarios.catalog.feeds import ImportFailed
from verishop.scenarios.catalog.feeds.rows import MAX_FIELD_CHARS, MAX_LINE_BYTES, Lines, Refusal


def records(path: Path, *, delimiter: str, id_column: str | None = None,
            max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, dict[str, str]] | Refusal]:
    """(first line number, {header: value}) per record, or a Refusal. The header names are
    stripped; an empty file or one without a header is an ImportFailed."""
    with open(path, "rb") as stream:
        lines = Lines(stream, max_line_bytes)
        # The csv module's field limit is process-wide; ours is checked per field instead.
        csv.field_size_limit(max(csv.field_size_limit(), max_line_bytes * 4))
        quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
        reader = csv.reader(lines, delimiter=delimiter, quoting=quoting, strict=True)
        try:
            header = next(reader)
        except StopIteration:
            raise ImportFailed(f"{path} is empty: no header row") from None
        except csv.Error as exc:
            raise ImportFailed(f"{path}: the header row cannot be read: {exc}") from None
        header = [h.strip().lstrip("\ufeff") for h in header]
        if not any(header) or lines.overlong_between(1, 1):
            raise ImportFailed(f"{path}: the first line is not a header row")
        end = reader.line_num
        while True:
            start = end + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                end = reader.line_num
                yield Refusal(start, "", f"the record cannot be read: {exc}")
                continue
            end = reader.line_num
            if lines.overlong_between(start, end):
                yield Refusal(start, "", f"a line is longer than {max_line_bytes:,} bytes")
                continue
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # blank line
            values = dict(zip(header, (v.strip() for v in row)))
            source_id = values.get(id_column or "", "") if id_column else ""
            if len(row) != len(header):
                yield Refusal(start, source_id[:80], f"the record has {len(row)} fields but the header has "
                                                    f"{len(header)} (a truncated file or a stray delimiter?)")
                continue
            if any(len(v) > MAX_FIELD_CHARS for v in row):
                yield Refusal(start, source_id[:80], f"a field is longer than {MAX_FIELD_CHARS:,} characters")
                continue
            yield start, values
