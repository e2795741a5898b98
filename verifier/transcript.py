"""Reading `transcript.jsonl` strictly: the events in order, or the reason they cannot be trusted.

The file is read through `verishop.verifier.safeio` (a regular file, under its size cap) and each
line's nesting is checked before it is parsed.

Tolerated (and noted): a last line cut short without its newline, which is what a server
killed mid-write leaves. Everything else that breaks the contract makes the episode
incomplete: an unreadable line elsewhere, a sequence number that is not the previous one
plus one, any event before `episode_opened`, no `episode_closed`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from verishop.scenarios.models import Submission
from verishop.verifier.errors import Incomplete, NotClosed, Unsafe
from verishop.verifier.safeio import Limits, check_json_depth, json_depth_exceeds, read_regular, read_tail

Event = dict[str, Any]


@dataclass
class Transcript:
    """The events of one episode, split by kind (each list in transcript order)."""

    events: list[Event]
    opened: Event
    closed: Event
    assistant: list[Event] = field(default_factory=list)
    customer: list[Event] = field(default_factory=list)
    tool_calls: list[Event] = field(default_factory=list)
    # Parsed `submission` of each assistant message, index-aligned with `assistant`.
    submissions: list[Submission] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Values computed once from `events` (verifier.exposure); a journey's slices, made with
    # dataclasses.replace, share this dict with the whole transcript, as they share `events`.
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def read_transcript(name: str, limits: Limits = Limits(), dir_fd: int | None = None) -> Transcript:
    """Read the transcript `name` (relative to the episode folder `dir_fd`, if given)."""
    raw = read_regular(name, "transcript", limits.transcript_bytes, dir_fd)
    if not raw.strip():
        raise Incomplete("transcript_empty", f"{Path(name).name} is empty")
    return parse_transcript(raw, limits.json_depth)


def parse_transcript(raw: bytes, max_depth: int = Limits.json_depth) -> Transcript:
    lines = raw.split(b"\n")
    ends_with_newline = lines[-1] == b""
    if ends_with_newline:
        lines.pop()
    return parse_lines(lines, max_depth, last_may_be_cut=not ends_with_newline)


def parse_lines(lines: list[bytes], max_depth: int = Limits.json_depth, *, last_may_be_cut: bool = False,
                loads: Callable[[bytes], Any] = json.loads) -> Transcript:
    """The transcript of `lines` (one event each, no newlines). `last_may_be_cut`: the last line
    had no newline, so a server killed mid-write may have cut it short. `loads`: the JSON parser
    (the in-process shop parses the lines it wrote itself with a faster one that reads them as the
    same values)."""
    notes: list[str] = []
    events: list[Event] = []
    for number, line in enumerate(lines, start=1):
        check_json_depth(line, f"transcript line {number}", "transcript", max_depth)
        try:
            event = loads(line)
            if not isinstance(event, dict) or not isinstance(event.get("event"), str) \
                    or type(event.get("seq")) is not int:
                raise ValueError("not an event object with an integer 'seq' and a string 'event'")
        except ValueError as exc:
            if last_may_be_cut and number == len(lines):
                notes.append(f"transcript line {number} was cut short (server killed mid-write); ignored")
                break
            raise Incomplete("transcript_corrupt", f"transcript line {number} is not a valid event: {exc}") from None
        events.append(event)
    if not events:
        raise Incomplete("transcript_empty", "the transcript holds no complete event")
    return _split(events, notes)


def _split(events: list[Event], notes: list[str]) -> Transcript:
    if events[0]["event"] != "episode_opened":
        raise Incomplete("transcript_no_opening",
                         f"the first event is {events[0]['event']!r} (seq {events[0]['seq']}), not episode_opened")
    if events[0]["seq"] != 1:
        raise Incomplete("transcript_out_of_order", f"the first event has seq {events[0]['seq']}, not 1")
    for previous, event in zip(events, events[1:]):
        if event["seq"] != previous["seq"] + 1:
            raise Incomplete("transcript_out_of_order",
                             f"seq {event['seq']} follows seq {previous['seq']} (each event must be the previous + 1)")
    closed_at = next((i for i, e in enumerate(events) if e["event"] == "episode_closed"), None)
    if closed_at is None:
        raise NotClosed(f"no episode_closed event after {len(events)} events "
                        "(the episode is still running, or its server died)")
    if closed_at + 1 < len(events):
        notes.append(f"{len(events) - closed_at - 1} events after episode_closed were ignored")
        events = events[:closed_at + 1]
    transcript = Transcript(events=events, opened=events[0], closed=events[closed_at], notes=notes)
    for event in events[1:-1]:
        kind = event["event"]
        if kind == "episode_opened":
            raise Incomplete("transcript_corrupt", f"a second episode_opened at seq {event['seq']}")
        if kind == "assistant_message":
            transcript.assistant.append(event)
            transcript.submissions.append(_submission(event))
        elif kind == "customer_message":
            transcript.customer.append(event)
        elif kind == "tool_call":
            if not isinstance(event.get("tool"), str) or not isinstance(event.get("arguments", {}), dict):
                raise Incomplete("transcript_corrupt", f"tool_call at seq {event['seq']} has no tool name")
            transcript.tool_calls.append(event)
    return transcript


def _submission(event: Event) -> Submission:
    try:
        return Submission.model_validate(event.get("submission") or {})
    except ValidationError as exc:
        raise Incomplete("transcript_corrupt",
                         f"assistant_message at seq {event['seq']} has an invalid submission: "
                         f"{exc.errors()[0]['msg']}") from None


def succeeded(call: Event) -> bool:
    return "result" in call and "error" not in call


def turn_of(event: Event) -> int:
    turn = event.get("turn")
    return turn if type(turn) is int else 0


def is_closed(path: Path, tail_bytes: int = 16_384, most_bytes: int = Limits.transcript_bytes) -> bool:
    """Whether the transcript ends with `episode_closed`, reading only its tail (cheap enough
    to ask on every change of a live episode). Never blocks and never raises. A link, FIFO or
    device counts as closed: the server never makes one, nothing will change it, and scoring
    refuses it with its reason, so whoever waits for the reward gets that verdict.

    A tail holding no whole line (one line longer than the tail: a big result, or a hostile
    200 KB one after `episode_closed`) is read again 16 times larger, up to `most_bytes`."""
    while True:
        try:
            tail = read_tail(path, tail_bytes)
        except Unsafe:
            return True
        except Incomplete:
            return False
        lines = tail.split(b"\n")
        whole = lines if len(tail) < tail_bytes else lines[1:]  # the first may be cut: not a line
        if any(line.strip() for line in whole[:-1]) or tail_bytes >= most_bytes or len(tail) < tail_bytes:
            break
        tail_bytes = min(most_bytes, tail_bytes * 16)
    for line in reversed(whole):
        if not line.strip():
            continue
        try:
            if json_depth_exceeds(line, Limits.json_depth):
                raise ValueError("nested too deep")
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut short by a killed server, garbage, a hostile one
        return isinstance(event, dict) and event.get("event") == "episode_closed"
    return False
