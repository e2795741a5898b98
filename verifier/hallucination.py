"""Hallucination: IDs the agent used before any tool had shown them to it.

An ID is *shown* once an earlier tool result contains it (anywhere: a field, or a word in a
text). IDs *used*: products recommended in any submission, products successfully put in or
changed in the cart, product-ID-looking words in the agent's messages, and order/line IDs
submitted or passed to initiate_return. An ID is hallucinated if its first use came before
it was shown; each distinct ID counts once.

    r_hall = 1 − 2·(hallucinated / used),  0 when nothing was used

This rescales the reference's −share to [−1, 1] (see `verifier` docstring), so that an
agent that only uses IDs it was shown earns +1 rather than 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verifier.transcript import Transcript, succeeded

PRODUCT_ID_IN_TEXT = re.compile(r"\bP\d{8}\b")
_PUNCTUATION = ".,;:!?()[]{}<>'\"`"
CART_TOOLS = frozenset({"add_to_cart", "update_cart_item"})


@dataclass
class Hallucination:
    r_hall: float
    used: int
    hallucinated: list[str] = field(default_factory=list)


def hallucination(transcript: Transcript) -> Hallucination:
    shown: set[str] = set()
    first_use_unseen: dict[str, bool] = {}

    def use(value: object) -> None:
        if isinstance(value, str) and value.strip() and value.strip() not in first_use_unseen:
            first_use_unseen[value.strip()] = value.strip() not in shown

    submissions = iter(transcript.submissions)
    for event in transcript.events:
        kind = event["event"]
        if kind == "assistant_message":
            submission = next(submissions)
            for pid in submission.recommended_product_ids:
                use(pid)
            for pid in PRODUCT_ID_IN_TEXT.findall(str(event.get("text", ""))):
                use(pid)
            use(submission.order_id)
            use(submission.line_id)
        elif kind == "tool_call":
            arguments = event.get("arguments") or {}
            if event["tool"] in CART_TOOLS and succeeded(event):
                use(arguments.get("product_id"))
            elif event["tool"] == "initiate_return":
                use(arguments.get("order_id"))
                use(arguments.get("line_id"))
            if succeeded(event):
                _collect_shown(event["result"], shown)
    hallucinated = [value for value, unseen in first_use_unseen.items() if unseen]
    used = len(first_use_unseen)
    r_hall = 0.0 if used == 0 else 1 - 2 * len(hallucinated) / used
    return Hallucination(r_hall=r_hall, used=used, hallucinated=hallucinated)


def _collect_shown(result: object, shown: set[str]) -> None:
    """Every string in a tool result, and every word of a string that is a sentence (a note
    such as "P12345678 is sold out" shows that ID too)."""
    stack = [result]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            shown.add(value)
            if " " in value:
                shown.update(word.strip(_PUNCTUATION) for word in value.split())
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
