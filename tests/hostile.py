"""Hostile episode files, as an agent, a client's scenario or anyone who can write into a runs
folder could leave them (issue 10, "What broke"). Each function damages one good episode
folder in place; the verifier and its sidecar must give it a verdict and carry on."""

from __future__ import annotations

import os
import resource
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def deep_scenario(directory: Path, depth: int = 200_000) -> None:
    (directory / "scenario.json").write_bytes(nested(depth))


def deep_transcript_line(directory: Path, depth: int = 5_000, *, last: bool = False) -> None:
    """A `depth`-deep value in a tool result: as the third line, or after episode_closed."""
    lines = (directory / "transcript.jsonl").read_bytes().splitlines(keepends=True)
    line = b'{"seq": %d, "event": "tool_call", "tool": "search_catalog", "arguments": {}, "result": ' \
           b'%s}\n' % (len(lines) + 1 if last else 3, nested(depth))
    if last:
        lines.append(line)
    else:
        lines[2] = line
    (directory / "transcript.jsonl").write_bytes(b"".join(lines))


def fifo_transcript(directory: Path) -> None:
    (directory / "transcript.jsonl").unlink()
    os.mkfifo(directory / "transcript.jsonl")


def zero_transcript(directory: Path) -> None:
    """transcript.jsonl linked to /dev/zero: read to the end, it never ends."""
    (directory / "transcript.jsonl").unlink()
    (directory / "transcript.jsonl").symlink_to("/dev/zero")


MEMORY_CAP_BYTES = 4 * 1024**3


def memory_capped() -> None:
    """preexec_fn for a subprocess given hostile files: a reader that never stops (/dev/zero)
    must fail there with MemoryError, not take the machine's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def within(seconds: float, fn: Callable[[], T], what: str) -> T:
    """fn() in a daemon thread, failing the test if it has not returned within `seconds` (a
    call blocked in open() on a FIFO cannot be interrupted, but it must not hang the suite)."""
    result: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"{what} did not return within {seconds} s")
    if errors:
        raise errors[0]
    return result[0]
