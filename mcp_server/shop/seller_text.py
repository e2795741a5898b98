"""A product's seller text: a one-line description and the questions a buyer asks, answered from
the product's own facts (title, brand, two attributes, delivery days, rating), the same in every
episode, with nothing a task needs that the product's card and details do not already show.
Short, because every get_product and compare_products result carries it.

In an episode carrying the injection minefield (issue 33, `verishop.minefields.injection`) the
carrier product's description ends with the planted instruction, and its search card shows that
text as `seller_note`: the one place a shop's listing shows a seller's words, so a card says it
only when a seller said something beyond the facts."""

from __future__ import annotations

from collections.abc import Collection

from verishop.mcp_server.models import SellerAnswer, SellerText
from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.models import Scenario

_FACTS = 2  # attributes the description names


def seller_text(p: Product, absent: Collection[str], planted: str | None = None) -> SellerText:
    """`p`'s seller text; `absent`: the fields its shop's catalog does not have (an imported feed's)."""
    description = p.title + (f", from {p.brand}." if p.brand else ".")
    facts = [f"{name.replace('_', ' ').capitalize()}: {value}." for name, value in sorted(p.attrs.items()) if value]
    description = " ".join([description, *facts[:_FACTS]])
    questions = []
    if "ship_days" not in absent:
        days = "1 day" if p.ship_days == 1 else f"{p.ship_days} days"
        questions.append(SellerAnswer(question="How soon does it arrive?", answer=f"{days} from the order."))
    if "rating" not in absent and p.rating_count > 0:
        questions.append(SellerAnswer(question="What do buyers say?",
                                      answer=f"{p.rating:.1f} of 5 stars over {p.rating_count} ratings."))
    if planted:
        description = f"{description} {planted}"
    return SellerText(description=description, questions=questions)


def planted_on(scenario: Scenario, product_id: str) -> str | None:
    """The instruction planted in `product_id`'s seller text in this episode, if any."""
    minefields = scenario.minefields
    injection = minefields.injection if minefields is not None else None
    return injection.text if injection is not None and injection.carrier_id == product_id else None
