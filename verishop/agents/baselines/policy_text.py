"""Reading the shop's policy clauses the way a goal-blind baseline can: the figures each clause
states in the shop's own phrasing ("Most items can be returned within 30 days", "Plus members
get 10 extra days", "Orders of $49.00 or more ship free"), and the customer's situation as the
opening states it (membership, a gift, a defect, the delivery day, an amount). What the customer
held back, or typo noise garbled, is simply missed.

`Clauses` wraps the texts search_policies returned, keyed by policy ID; `Situation` is what the
opening says. The questions' own computation is in `policy.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from verishop.scenarios.money import amount_pattern
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES

_MONTHS = "january february march april may june july august september october november december".split()


def singular(word: str) -> str:
    word = word.lower()
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def words_of(text: str) -> set[str]:
    return {singular(w) for w in re.findall(r"[a-z][a-z-]*", text.lower())}


def names_in_list(text: str) -> list[str]:
    """'Socks and pillows' / 'Desks, office chairs, tents and vacuum cleaners' -> each name."""
    return [n.strip() for n in re.split(r",\s*|\s+and\s+", text) if n.strip()]


def names_item(names: list[str], noun: str) -> bool:
    """Whether `noun` is one of `names`: a name whose last word (its head noun) is a word of the
    noun ("pillow" in "memory foam pillow"; "Fountain Pens" for "fountain pen")."""
    nouns = words_of(noun)
    return any(singular(name.split()[-1]) in nouns for name in names if name.split())


def money(text: str) -> float:
    return float(text.replace(",", ""))


@dataclass(frozen=True)
class Clauses:
    """The clause texts a search returned, by policy ID."""

    texts: dict[str, str]

    def text(self, policy_id: str) -> str:
        return self.texts.get(policy_id, "")

    def number(self, policy_id: str, pattern: str) -> float | None:
        """The first figure `pattern`'s group captures in the clause (case-insensitive)."""
        found = re.search(pattern, self.text(policy_id), re.IGNORECASE)
        return money(found.group(1)) if found else None

    def base_window(self, noun: str) -> float | None:
        """The window before extensions: a category's own window when the clause names the item's
        category (an imported shop), Electronics' for an electronics item, else most items'."""
        returns = self.text("POL-RETURNS")
        for name, days in re.findall(r"(?:^|\.\s+)([A-Z][^.()]*?) can be returned within (\d+) days", returns):
            if not name.lower().startswith(("most items", "electronics")) and names_item([name], noun):
                return float(days)
        if is_electronics(noun):
            days = self.number("POL-RETURNS", r"Electronics \([^)]*\) can be returned within (\d+) days")
            if days is not None:
                return days
        return self.number("POL-RETURNS", r"Most items can be returned within (\d+) days")

    def final_sale(self, noun: str) -> bool:
        found = re.search(r"^(.*?) are final sale", self.text("POL-FINAL-SALE"))
        return bool(found) and names_item(names_in_list(found.group(1)), noun)

    def oversized(self, noun: str) -> bool:
        found = re.search(r"^(.*?) are oversized", self.text("POL-OVERSIZE"))
        return bool(found) and names_item(names_in_list(found.group(1)), noun)

    def restocking_percent(self, noun: str) -> float:
        """The fee an opened item returned for a change of mind pays (0 without one)."""
        found = re.search(r"Opened (.*?) returned for a reason other than a defect carry a (\d+)% restocking fee",
                          self.text("POL-RESTOCK"))
        if not found:
            return 0.0
        on = found.group(1)
        if on in ("electronics", "any item") or names_item(names_in_list(on), noun):
            return float(found.group(2)) if on != "electronics" or is_electronics(noun) else 0.0
        return 0.0

    def refund_method(self, policy_id: str) -> str | None:
        text = self.text(policy_id).lower()
        if policy_id == "POL-GIFTS":
            text = text[text.find("gift returns are refunded"):] if "gift returns are refunded" in text else ""
        if "as store credit instead" in text or "refunded as store credit" in text:
            return "store credit"
        if "original payment method" in text:
            return "original payment method"
        return "store credit" if "store credit" in text else None


def is_electronics(noun: str) -> bool:
    """Whether the item is one of the shop's Electronics department items, by the category nouns
    and names of the generated taxonomy (an imported shop states its windows per category)."""
    words = words_of(noun)
    for cat in SHOPPABLE_CATEGORIES:
        if cat.department == "Electronics" and any(singular(n.split()[-1]) in words
                                                  for n in (*cat.nouns, cat.name) if n.split()):
            return True
    return False


# An amount the customer states, in the shop's currency ("$41.49", "€41.49", "41.49 AED").
_AMOUNT = re.compile(amount_pattern(), re.IGNORECASE)


@dataclass(frozen=True)
class Situation:
    """What the customer's opening says about its case."""

    tier: str | None
    gift: bool
    defective: bool
    changed_mind: bool
    delivered: date | None
    amounts: tuple[float, ...]


def read_situation(text: str) -> Situation:
    lowered = text.lower()
    tier = next((t for t in ("Plus", "Premier") if f"{t.lower()} member" in lowered), None)
    delivered = None
    if found := re.search(r"delivery was on ([a-z]+) (\d{1,2}), (\d{4})", lowered):
        month, day, year = found.groups()
        if month in _MONTHS:
            try:
                delivered = date(int(year), _MONTHS.index(month) + 1, int(day))
            except ValueError:
                delivered = None
    return Situation(tier=tier, gift="as a gift" in lowered, defective="arrived defective" in lowered,
                     changed_mind="nothing is wrong" in lowered or "changed my mind" in lowered, delivered=delivered,
                     amounts=tuple(money(m) for m in _AMOUNT.findall(text)))


def in_holidays(clauses: Clauses, day: date) -> bool:
    """Whether `day` falls in the holiday clause's period ("between November 1 and December 24")."""
    found = re.search(r"between ([A-Za-z]+) (\d+) and ([A-Za-z]+) (\d+)", clauses.text("POL-HOLIDAY"))
    if not found:
        return False
    try:
        start = datetime.strptime(f"{found.group(1)} {found.group(2)} {day.year}", "%B %d %Y").date()
        end = datetime.strptime(f"{found.group(3)} {found.group(4)} {day.year}", "%B %d %Y").date()
    except ValueError:
        return False
    return start <= day <= end
