"""One policy question as the generator writes it (the generated shop's families and an imported
shop's, `shop_questions`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Question:
    ask: str
    answer: str
    kind: Literal["numeric", "categorical"]
    clause_ids: tuple[str, ...]
    details: tuple[str, ...] = ()  # the customer's situation, one sentence each (may be held back)
    accepted: tuple[str, ...] = ()
