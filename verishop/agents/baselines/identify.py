"""Greedy's identification step (issue 33), goal-blind: when the shop's prompt says the customer
must be identified first (the rule the identity minefield adds to the system prompt), read an
email (checked against the name said with it), or a name and zip code, from the customer's words;
ask when they hold none; try again with the customer's next words when the shop finds no one.
"""

from __future__ import annotations

import re
from typing import Any

from verishop.agents.session import ToolFailed
from verishop.scenarios.tool_names import FIND_CUSTOMER, RESPOND_TO_CUSTOMER

PROMPT = "shop_assistant"
ASK = "Could you give me your email address, or your name and zip code, so I can find your account?"
AGAIN = "I couldn't find an account with that. Could you check your email?"
ATTEMPTS = 3
_EMAIL = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
_NAME = re.compile(r"\b(?:I'm|I am|my name is|this is)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+)")
_ZIP = re.compile(r"\bzip(?:\s*code)?(?:\s+is)?\s*:?\s*(\d{5})\b", re.IGNORECASE)


async def shop_rules(shop: Any) -> str:
    """The shop's prompt to its assistant (the system prompt), '' when the session offers none."""
    while getattr(shop, "client", None) is None and getattr(shop, "shop", None) is not None:
        shop = shop.shop  # a wrapper (KeepOpen, a red-team session) around the MCP session
    client = getattr(shop, "client", None)
    try:
        prompt = await client.get_prompt(PROMPT)
        return "\n".join(getattr(m.content, "text", "") for m in prompt.messages)
    except Exception:  # noqa: BLE001 - no prompt, no rule to follow: greedy plays as before
        return ""


def identity_in(text: str) -> dict[str, str] | None:
    """The `find_customer` arguments the words give: an email (with the name said beside it, so
    that a mistyped email someone else owns is not taken for the customer's), else a name and zip
    code."""
    name, zip_code = _NAME.search(text), _ZIP.search(text)
    if email := _EMAIL.search(text):
        return {"email": email.group(0).rstrip("."), **({"name": name.group(1)} if name else {})}
    if name and zip_code:
        return {"name": name.group(1), "zip": zip_code.group(1)}
    return None


async def identify(shop: Any, opening: str) -> None:
    """Identify the customer when the shop's rules ask for it (see the module docstring)."""
    if FIND_CUSTOMER not in await shop_rules(shop):
        return
    words = opening
    for attempt in range(ATTEMPTS):
        found = identity_in(words)
        if found is not None:
            try:
                await shop.call(FIND_CUSTOMER, **found)
                return
            except ToolFailed:
                pass
        question = ASK if found is None else AGAIN
        reply = await shop.call(RESPOND_TO_CUSTOMER, message=question)
        if reply.get("status") != "open":
            return
        words = reply.get("customer_message", "")
