"""Greedy policy answers: search the policies for the customer's words and answer with the
first number the results show (or yes/no from whether the top clause says "not"), at once."""

from __future__ import annotations

import re

from verishop.agents.session import ShopSession, ToolFailed

_YES_NO_STARTS = ("can", "is", "will", "does", "do", "would", "are")


def matches(text: str) -> bool:
    lowered = text.lower()
    return "store policy" in lowered or "question about your" in lowered


async def play(shop: ShopSession, text: str) -> None:
    question = re.split(r"(?<=[.!?])\s+", text.strip())[-1]
    try:
        results = (await shop.call("search_policies", query=text[:200], limit=3))["results"]
    except ToolFailed:
        results = []
    answer = None
    if results:
        if question.lower().startswith(_YES_NO_STARTS):
            answer = "no" if re.search(r"\b(not|no|cannot)\b", results[0]["text"].lower()) else "yes"
        elif number := re.search(r"\d+(?:\.\d+)?", " ".join(r["text"] for r in results)):
            answer = number.group()
    await shop.call("respond_to_customer", message=f"The answer is {answer}." if answer else "Sorry, I don't know.",
                    answer=answer)
