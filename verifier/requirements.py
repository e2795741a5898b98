"""What the customer wanted, in words, and where each want came from (issue 22).

A requirement's source is read from the files, never from the server:

    stated    the opening message says it (the goal marks it stated)
    revealed  the opening left it out and the customer said it in a reply (an answer, a
              correction: "that one is Sony, but I wanted it made by Nike", an open question's
              answer), before the agent committed its last answer (`verishop.verifier.blame`)
    withheld  the opening left it out and no reply had said it: never asked for
    shop      found only through the shop's tools: stock, the policy text, an order's status

What a reply said is read in the customer's words before its typo noise
(`verishop.verifier.speech`): "colr Blue" told "color Blue" (issue 28).

The blame (actor) is the agent's unless the episode shows a bug of the simulator:
    customer     a withheld requirement although the customer replied that it had told
                 everything (a reply tagged `confirm`): it failed to reveal what it was asked
    environment  the world contradicts the goal (`contradiction`): nothing could have passed
"""

from __future__ import annotations

from dataclasses import dataclass

from verishop.scenarios.models import (
    BundleGoal,
    CartGoal,
    PolicyGoal,
    ProductDiscoveryGoal,
    ReturnGoal,
    StatusGoal,
    SubstitutionGoal,
)
from verishop.verifier.files import Episode
from verishop.verifier.models import Actor, Source
from verishop.verifier.speech import said

SHOWN = "only products and orders the shop's tools showed"
IN_STOCK = "in stock"


@dataclass(frozen=True)
class Requirement:
    words: str
    source: Source
    actor: Actor = "agent"


def _says(text: str, words: str) -> bool:
    return " ".join(words.lower().split()) in " ".join(text.lower().split())


def told(ep: Episode, words: str) -> bool:
    """Whether a customer reply said `words` (in its words before typo noise)."""
    return any(e.get("tag") != "open" and _says(said(ep, e), words) for e in ep.transcript.customer)


def claimed_everything(ep: Episode) -> bool:
    """Whether the customer replied that nothing was left to tell."""
    return any(e.get("tag") == "confirm" for e in ep.transcript.customer)


def hidden_or_stated(ep: Episode, words: str, stated: bool, said: str | None = None) -> Requirement:
    """A customer requirement: stated, or revealed/withheld by whether a customer reply said
    `said` (default: `words`). Withheld after "that's everything" is the customer's fault."""
    if stated:
        return Requirement(words, "stated")
    if told(ep, said or words):
        return Requirement(words, "revealed")
    return Requirement(words, "withheld", "customer" if claimed_everything(ep) else "agent")


def shop(words: str) -> Requirement:
    return Requirement(words, "shop")


def contradiction(ep: Episode, goal: object) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    product = ep.shop.product
    orders = {o.order_id: o for o in ep.scenario.orders}
    if isinstance(goal, ProductDiscoveryGoal | SubstitutionGoal):
        if not goal.ideal:
            return "the goal's ideal list is empty"
        best = product(goal.ideal[0].product_id)
        if best is None or best.stock <= 0:
            return f"the ideal product {goal.ideal[0].product_id} is missing or sold out in the world"
        if isinstance(goal, SubstitutionGoal) and best.category_id != goal.category_id:
            return f"the ideal substitute {best.product_id} is not of the category asked for"
    elif isinstance(goal, CartGoal):
        missing = [item.product_id for item in goal.items if product(item.product_id) is None]
        if missing:
            return f"the wanted products {missing} do not exist in the world"
    elif isinstance(goal, ReturnGoal):
        order = orders.get(goal.order_id)
        if order is None or goal.line_id not in {line.line_id for line in order.lines}:
            return f"the order line {goal.order_id}/{goal.line_id} to return is not among the customer's orders"
    elif isinstance(goal, StatusGoal):
        order = orders.get(goal.order_id)
        if order is None:
            return f"the order {goal.order_id} asked about is not among the customer's orders"
        if order.status.replace("_", " ") != goal.status.replace("_", " "):
            return f"the order's status is {order.status}, the goal says {goal.status}"
    elif isinstance(goal, PolicyGoal):
        clauses = {c.policy_id for c in ep.scenario.policy.clauses}
        if not set(goal.clause_ids) <= clauses:
            return f"the policy lacks the clauses {sorted(set(goal.clause_ids) - clauses)} the answer rests on"
    elif isinstance(goal, BundleGoal) and goal.reference_product_ids:
        refs = [product(pid) for pid in goal.reference_product_ids]
        if any(p is None or p.stock <= 0 for p in refs):
            return "a product of the goal's reference bundle is missing or sold out in the world"
        if goal.budget_cents is not None and sum(p.price_cents for p in refs if p) > goal.budget_cents:
            return "the goal's reference bundle costs more than its budget"
    return None
