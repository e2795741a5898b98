"""Greedy policy answers: read the clauses the question needs and answer at once, asking nothing.

It tells what the question asks from its wording (a window, the days left, whether it can still be
returned, a shipping cost, a fee, a refund ...), searches the policies for the clauses that
govern it, reads their figures (`policy_text`), adds the extensions the customer's opening states
(membership, holiday delivery, gift, defect) and, for a dated question, asks the shop for
today's date. A detail the customer held back is missed (greedy never asks), and a question
whose wording typo noise garbled gets the first figure of the top clause, as before.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from verishop.agents.baselines.policy_text import Clauses, Situation, in_holidays, read_situation
from verishop.agents.baselines.lookups import lookup
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import GET_CURRENT_DATE, RESPOND_TO_CUSTOMER, SEARCH_POLICIES
from verishop.scenarios.money import amount_pattern

# An amount in the shop's currency, as its clauses and its customer write it ("$7.99", "€7.99", "7.99 AED").
_AMOUNT, _ANY_AMOUNT = amount_pattern(), amount_pattern(capture=False)

_YES_NO_STARTS = ("can", "is", "will", "does", "do", "would", "are")
# The words that find each kind of question's clauses (search_policies ranks clauses by them).
_QUERIES = {
    "window": "return window final sale membership holiday gift defective items extra days",
    "shipping": "shipping costs standard free orders membership oversized surcharge",
    "fee": "restocking fee opened electronics defect return shipping",
    "refund": "refunds business days original payment method store credit",
    "gift": "gift returns refunded store credit",
    "cancel": "cancellations cancelled processing shipped",
    "price": "price drops adjustments difference refund",
}


# Greedy tries the environments' `matches` from the lowest PRECEDENCE up. A policy question names the store policy, and may name what other requests do ("Can I still return the camping tent?").
PRECEDENCE = 10


def matches(text: str) -> bool:
    lowered = text.lower()
    return "store policy" in lowered or "question about your" in lowered


def question_of(text: str) -> str:
    """The last sentence that asks ("... a $120.99 tent? I'm not a member." -> the tent's)."""
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    return next((s for s in reversed(sentences) if s.endswith("?")), sentences[-1])


def kind_of(question: str) -> str:
    q = question.lower()
    if "gift" in q and ("refunded" in q or "store credit" in q):
        return "gift"
    if "cancel" in q:
        return "cancel"
    if "price drops" in q:
        return "price"
    if "business days" in q or "refund paid" in q:
        return "refund"
    if "restocking" in q or re.search(r"how much will i get|get b\w*ck", q):
        return "fee"
    if "ship" in q:
        return "shipping"
    return "window"


async def play(shop: ShopSession, text: str) -> None:
    question = question_of(text)
    kind = kind_of(question)
    try:
        found = (await lookup(shop, SEARCH_POLICIES, query=_QUERIES[kind], limit=10))["results"]
    except ToolFailed:
        found = []
    clauses = Clauses({r["policy_id"]: r["text"] for r in found})
    answer = await _answer(shop, kind, question, _item(question, text), read_situation(text), clauses)
    if answer is None and found:
        answer = _first_figure(question, found)
    await shop.call(RESPOND_TO_CUSTOMER, **_submission(answer))


def _submission(answer: Any) -> dict[str, Any]:
    """The answer typed as the tool takes it, and in words."""
    if answer is None:
        return {"message": "Sorry, I don't know."}
    if isinstance(answer, bool):
        word = "yes" if answer else "no"
        return {"message": f"The answer is {word}.", "answer": word, "answer_yes_no": answer}
    if isinstance(answer, float):
        shown = f"{answer:.2f}" if answer != int(answer) else str(int(answer))
        return {"message": f"The answer is {shown}.", "answer": shown, "answer_number": answer}
    return {"message": f"The answer is {answer}.", "answer": answer, "answer_refund_method": answer}


def _first_figure(question: str, found: list[dict]) -> Any:
    """The old guess: yes/no from whether the top clause says "not", else the first figure."""
    if question.lower().startswith(_YES_NO_STARTS):
        return not re.search(r"\b(not|no|cannot)\b", found[0]["text"].lower())
    number = re.search(r"\d+(?:\.\d+)?", " ".join(r["text"] for r in found))
    return float(number.group()) if number else None


def _item(question: str, text: str) -> str:
    """The item the question is about ("... return the memory foam pillow?" -> its words; "I paid
    $30 for the teapot and opened it ... if I return it?" -> the teapot)."""
    pattern = (rf"(?:return (?:the |an |a )?(?:opened )?|like an? |buy an? {_ANY_AMOUNT} |for the )([a-z -]+?)"
               r"(?: i bought| because| and opened|\?|$)")
    found = re.search(pattern, question.lower(), re.IGNORECASE)  # a currency code is upper case
    if found and found.group(1) != "it":
        return found.group(1)
    paid = re.search(r"for the ([a-z -]+?) and opened", text.lower())
    return paid.group(1) if paid else question


async def _answer(shop: ShopSession, kind: str, question: str, item: str, said: Situation, clauses: Clauses) -> Any:
    q = question.lower()
    match kind:
        case "gift":
            return clauses.refund_method("POL-GIFTS")
        case "refund":
            if "business days" in q:
                return clauses.number("POL-REFUND", r"within (\d+) business days")
            return clauses.refund_method("POL-REFUND")
        case "cancel":
            free_while = re.search(r"free of charge while (?:they are )?(?:still )?(\w+)", clauses.text("POL-CANCEL"))
            return bool(free_while) and free_while.group(1).lower() in q
        case "price":
            return clauses.number("POL-PRICE-ADJUST", r"within (\d+) days")
        case "fee":
            return _fee(q, item, said, clauses)
        case "shipping":
            return _shipping(q, item, said, clauses)
    return await _window(shop, q, item, said, clauses)


def _fee(q: str, item: str, said: Situation, clauses: Clauses) -> Any:
    percent = 0.0 if said.defective else clauses.restocking_percent(item)
    if "percentage" in q:
        return percent
    if not q.startswith("is there"):  # "How much will I get back?" (its words typo-proof enough)
        if not said.amounts:
            return None
        paid = said.amounts[0]
        return_shipping = (clauses.number("POL-RETURN-SHIPPING", rf"Return shipping costs {_AMOUNT}") or 0.0
                           if not said.defective else 0.0)
        return round(paid - round(paid * percent) / 100 - return_shipping, 2)
    return percent > 0


def _shipping(q: str, item: str, said: Situation, clauses: Clauses) -> Any:
    standard = clauses.number("POL-SHIPPING", rf"Standard shipping costs {_AMOUNT}")
    threshold = clauses.number("POL-SHIPPING", rf"Orders of {_AMOUNT} or more ship free")
    surcharge = clauses.number("POL-OVERSIZE", rf"{_AMOUNT} surcharge")
    if "smallest purchase" in q:
        return threshold
    if "standard shipping cost" in q:
        return standard
    if "surcharge" in q:
        return surcharge
    if not said.amounts:
        return None
    subtotal = said.amounts[0]
    free = threshold is not None and subtotal >= threshold
    if said.tier == "Premier" and "every purchase" in clauses.text("POL-MEMBERSHIP"):
        free = True
    plus = clauses.number("POL-MEMBERSHIP", rf"Plus members get free standard shipping on purchases of {_AMOUNT}")
    if said.tier == "Plus" and plus is not None and subtotal >= plus:
        free = True
    if q.startswith("will"):
        return free
    if standard is None:
        return None
    extra = (surcharge or 0.0) if clauses.oversized(item) else 0.0
    return round((0.0 if free else standard) + extra, 2)


async def _window(shop: ShopSession, q: str, item: str, said: Situation, clauses: Clauses) -> Any:
    if clauses.final_sale(item):
        days = clauses.number("POL-DEFECTS", r"Defective final-sale items can be returned within (\d+) days") \
            if said.defective else None
        if q.startswith("can i return"):
            return False
    else:
        if q.startswith("can i return"):
            return True
        days = clauses.base_window(item)
        if days is not None:
            days += _extensions(said, clauses)
    if days is None or not ("left" in q or "still" in q):
        return days
    if said.delivered is None:
        return None
    today = await _today(shop)
    if today is None:
        return None
    elapsed = (today - said.delivered).days
    return elapsed <= days if "still" in q else float(days - elapsed)


def _extensions(said: Situation, clauses: Clauses) -> float:
    extra = 0.0
    if said.tier:
        extra += clauses.number("POL-MEMBERSHIP", rf"{said.tier} members get (\d+) extra days") or 0.0
    if said.delivered and in_holidays(clauses, said.delivered):
        extra += clauses.number("POL-HOLIDAY", r"get (\d+) extra days") or 0.0
    if said.gift:
        extra += clauses.number("POL-GIFTS", r"gifts get (\d+) extra days") or 0.0
    if said.defective:
        extra += clauses.number("POL-DEFECTS", r"defective gets (\d+) extra days") or 0.0
    return extra


async def _today(shop: ShopSession) -> date | None:
    try:
        found = await lookup(shop, GET_CURRENT_DATE)
    except ToolFailed:
        return None
    return date.fromisoformat(found["today"])
