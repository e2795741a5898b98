"""What the agent had been shown, and when.

An ID counts for the agent only once a tool result showed it: a product it recommends, an
order it names, a line it returns. `Exposure.shown(value, before_seq)` says whether a
successful tool call recorded before transcript event `before_seq` showed `value`, as a field
or as a word of a sentence (a note such as "P12345678 is sold out" shows that ID too).
The IDs an agent can write in its messages are found with the patterns below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verishop.verifier.transcript import Transcript, succeeded

PRODUCT_ID_IN_TEXT = re.compile(r"\bP\d{8}\b")
ORDER_ID_IN_TEXT = re.compile(r"\bW\d{7}\b")
LINE_ID_IN_TEXT = re.compile(r"\bLN\d{8}\b")
ANY_ID_IN_TEXT = re.compile(r"\b(?:P\d{8}|W\d{7}|LN\d{8})\b")
_PUNCTUATION = ".,;:!?()[]{}<>'\"`"
NEVER = float("inf")


@dataclass
class Exposure:
    first_seen: dict[str, int] = field(default_factory=dict)  # value -> seq of the first result showing it

    def shown(self, value: str | None, before_seq: float = NEVER) -> bool:
        return value is not None and self.first_seen.get(value.strip(), NEVER) < before_seq


def exposure(transcript: Transcript) -> Exposure:
    """Every value each successful tool result showed, with the first event that showed it.
    Read from all events, so a journey's slices still see what earlier requests showed. Built
    once per transcript: the hallucination score and every check ask for it."""
    if "exposure" not in transcript.derived:
        transcript.derived["exposure"] = _build(transcript)
    return transcript.derived["exposure"]


def _build(transcript: Transcript) -> Exposure:
    seen = Exposure()
    first_seen = seen.first_seen
    for event in transcript.events:
        if event.get("event") == "tool_call" and succeeded(event):
            # a value an earlier result showed keeps that result's seq
            first_seen.update(dict.fromkeys(_strings(event["result"]) - first_seen.keys(), event["seq"]))
    return seen


def _strings(result: object) -> set[str]:
    found: set[str] = set()
    stack = [result]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            found.add(value)
            if " " in value:
                found.update([word.strip(_PUNCTUATION) for word in value.split()])
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found
