"""The bundle customer: names the project and some of what it needs, names one more thing each
time it is asked, and checks a recommended bundle item by item: a product it cannot find or
that is sold out, a category still missing, one it did not ask for, or the total over budget.
It accepts once every category is covered by an in-stock product and the total fits."""

from __future__ import annotations

from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView, neutral_close
from verishop.scenarios.customers.topics import Detail, answer
from verishop.envs.bundle.generator import PHRASES, money, say_category
from verishop.scenarios.models import BundleGoal, Submission
from verishop.scenarios.taxonomy import CATEGORIES, is_denied

# Each category as a topic: "Do you need a desk lamp?" asks about `desk_lamps`.
_CATEGORY_WORDS = {f"category:{c.id}": [c.name, PHRASES.get(c.id, c.name).split(" ", 1)[-1]] for c in CATEGORIES}
_NOT_NEEDED = {f"category:{c.id}": f"I don't need {say_category(c.id)}." for c in CATEGORIES}


def reply(state: CustomerState, goal: BundleGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    if sub.recommended_product_ids:
        turn = _judge(state, goal, sub.recommended_product_ids)
        if sub.done and turn.tag != "done":
            return CustomerTurn(f"Wait, that's not everything I need: {turn.text} Never mind, bye.", "quit")
        return turn
    if sub.done:
        return CustomerTurn("You haven't suggested anything yet... never mind, bye.", "quit")
    nothing_left = "No, that's everything I need." if goal.budget_cents is None else \
        f"No, that's everything. It all has to fit in {money(goal.budget_cents, goal.currency)}."
    turn = answer(state, message, details(goal), "What would you recommend?", extra=_CATEGORY_WORDS, unneeded=_NOT_NEEDED,
                  nothing_left=nothing_left)
    return turn or CustomerTurn("Okay. What would you recommend?", "continue")


def details(goal: BundleGoal) -> list[Detail]:
    """What the customer can tell, by topic: each thing the project needs, and the budget."""
    told = [Detail(i, frozenset({"needs", f"category:{c}"}),
                   f"Oh right, I also need {say_category(c)}." if c in goal.unstated else f"I need {say_category(c)}.",
                   c in goal.unstated) for i, c in enumerate(goal.categories)]
    if goal.budget_cents is not None:
        told.append(Detail("budget", frozenset({"budget"}),
                           f"It all has to fit in {money(goal.budget_cents, goal.currency)}.", False))
    return told


def _judge(state: CustomerState, goal: BundleGoal, ids: tuple[str, ...]) -> CustomerTurn:
    unique = list(dict.fromkeys(pid.strip() for pid in ids))
    products: list[Product] = []
    for pid in unique:
        product = state.lookup(pid)
        if product is None:
            return CustomerTurn(f"I can't find {pid} in your shop. Are you sure that's right?", "correct")
        products.append(product)
    for p in products:
        if is_denied(p.category_id, state.scenario.policy.restricted_categories):
            return CustomerTurn(f"I'd never buy the {p.title}, please leave it out.", "correct")
        if p.stock <= 0:
            return CustomerTurn(f"The {p.title} is sold out. Is there one in stock?", "correct")
    covered = {p.category_id for p in products}
    for i, category_id in enumerate(goal.categories):
        if category_id not in covered:
            state.revealed.add(i)
            return CustomerTurn(f"I still need {say_category(category_id)}.", "correct")
    seen_categories: set[str] = set()
    for p in products:
        if p.category_id not in goal.categories:
            return CustomerTurn(f"I don't need the {p.title} for my {goal.project}.", "correct")
        if p.category_id in seen_categories:
            return CustomerTurn(f"I only need one {say_category(p.category_id)}; please pick one.", "correct")
        seen_categories.add(p.category_id)
    cost = sum(p.price_cents for p in products)
    if goal.budget_cents is not None and cost > goal.budget_cents:
        over = money(cost - goal.budget_cents, goal.currency)
        return CustomerTurn(f"Altogether that's {money(cost, goal.currency)}, which is {over} over "
                            f"my budget of {money(goal.budget_cents, goal.currency)}.", "correct")
    # The verdict also needs every list it was offered right and each product shown by the shop's
    # tools, which it cannot tell: it takes the bundle without praise.
    return neutral_close(f"Thanks, I'll go with those for my {goal.project}.")
