"""How the customer and the check read a hand-over's summary alike: whether it names the order,
in any case or spacing ("w 123-4567", full-width digits), and no other of the customer's orders
(a summary listing every order names none: the person taking over needs the one)."""

from __future__ import annotations

import re
import unicodedata

_FILLER = re.compile(r"[\s\-_.·/]+")


def _squash(text: str) -> str:
    return _FILLER.sub("", unicodedata.normalize("NFKC", text)).upper()


def names_order(summary: str, order_id: str) -> bool:
    """Whether `summary` names `order_id`, in any case or spacing."""
    return bool(order_id.strip()) and _squash(order_id) in _squash(summary)


def names_only(summary: str, order_id: str, order_ids: list[str]) -> bool:
    """Whether `summary` names `order_id` and none of the customer's other orders."""
    return names_order(summary, order_id) and not any(names_order(summary, o) for o in order_ids if o != order_id)
