"""The simulated customer: a deterministic state machine driven by the hidden goal.

Each reply is tagged (reference section 6): `clarify` answers a question about an unstated
requirement, `correct` names a concrete problem with what the agent proposed, `confirm`
says there is nothing more to add, `continue` nudges the agent on, `done` accepts, and
`quit` gives up when the turn budget is spent. The customer never says an ID the agent is
supposed to find.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from scenarios.catalog.reader import Product
from scenarios.constraints import describe, describe_violation, satisfies, share_met
from scenarios.models import CartGoal, CartItem, CustomerTag, ProductDiscoveryGoal, Scenario, Submission
from scenarios.noise import add_typos
from scenarios.rng import make_rng

ProductLookup = Callable[[str], Product | None]


@dataclass(frozen=True)
class CustomerTurn:
    text: str
    tag: CustomerTag

    @property
    def ends_episode(self) -> bool:
        return self.tag in ("done", "quit")


@dataclass
class SimulatedCustomer:
    scenario: Scenario
    lookup: ProductLookup
    turns_taken: int = 0
    revealed: set[int] = field(default_factory=set)

    def reply(self, message: str, submission: Submission, cart: dict[str, int] | None = None) -> CustomerTurn:
        """The customer's answer to one agent turn (`message` plus its structured answer, and
        the cart as it stands: product ID -> quantity)."""
        self.turns_taken += 1
        rng = make_rng("customer", self.scenario.env_id, self.scenario.difficulty, self.scenario.seed,
                       self.turns_taken)
        goal = self.scenario.goal
        if isinstance(goal, CartGoal):
            turn = self._cart(goal, message, submission, cart or {})
        else:
            turn = self._product_discovery(goal, message, submission)
        if not turn.ends_episode and self.turns_taken >= self.scenario.axes.max_turns:
            turn = CustomerTurn("I've run out of time for this, thanks anyway. Bye.", "quit")
        return CustomerTurn(add_typos(rng, turn.text, self.scenario.axes.p_noise), turn.tag)

    # --- product discovery --------------------------------------------------------------
    def _product_discovery(self, goal: ProductDiscoveryGoal, message: str, sub: Submission) -> CustomerTurn:
        if sub.recommended_product_ids:
            return self._judge_recommendations(goal, sub.recommended_product_ids)
        if sub.done:
            return CustomerTurn("You haven't suggested anything yet... never mind, bye.", "quit")
        if "?" in message:
            return self._answer_question(goal)
        return CustomerTurn("Okay. What would you recommend?", "continue")

    def _answer_question(self, goal: ProductDiscoveryGoal) -> CustomerTurn:
        for i, c in enumerate(goal.constraints):
            if not c.stated and i not in self.revealed:
                self.revealed.add(i)
                return CustomerTurn(f"Good question. It should be {describe(c)}.", "clarify")
        return CustomerTurn("No, that's everything I need. What do you suggest?", "confirm")

    def _judge_recommendations(self, goal: ProductDiscoveryGoal, ids: tuple[str, ...]) -> CustomerTurn:
        products = [self.lookup(pid) for pid in ids]
        unknown = [pid for pid, p in zip(ids, products) if p is None]
        if unknown:
            return CustomerTurn(f"I can't find {unknown[0]} in your shop. Are you sure that's right?", "correct")
        known = [p for p in products if p is not None]
        fits = [p for p in known if all(satisfies(p, c) for c in goal.constraints) and p.stock > 0]
        if fits:
            return CustomerTurn(f"The {fits[0].title} looks perfect. Thanks, that's all I needed!", "done")
        best = max(known, key=lambda p: share_met(p, goal.constraints))
        if best.stock <= 0:
            return CustomerTurn(f"The {best.title} is sold out. Anything in stock?", "correct")
        for i, c in enumerate(goal.constraints):
            if not satisfies(best, c):
                self.revealed.add(i)
                return CustomerTurn(f"Hmm, {describe_violation(best, c)}", "correct")
        return CustomerTurn("None of these are quite what I want.", "dissatisfied")

    # --- cart building ------------------------------------------------------------------
    def _cart(self, goal: CartGoal, message: str, sub: Submission, cart: dict[str, int]) -> CustomerTurn:
        if "?" in message:
            for i, item in enumerate(goal.items):
                if not item.variant_stated and i not in self.revealed:
                    self.revealed.add(i)
                    return CustomerTurn(f"For the {item.description}, I'd like "
                                        f"{str(item.variant_attribute).replace('_', ' ')} {item.variant_value}.",
                                        "clarify")
        problem = self._cart_problem(goal, cart)
        if problem is None:
            return CustomerTurn("That's exactly what I wanted in my cart. Thank you!", "done")
        if sub.done:
            return CustomerTurn(f"Wait, my cart isn't right: {problem} Never mind, bye.", "quit")
        return CustomerTurn(problem, "correct")

    def _cart_problem(self, goal: CartGoal, cart: dict[str, int]) -> str | None:
        wanted = {item.product_id: item for item in goal.items}
        groups = {}
        for item in goal.items:
            target = self.lookup(item.product_id)
            if target is not None:
                groups[target.group_id] = item
        for i, item in enumerate(goal.items):
            have = cart.get(item.product_id, 0)
            if have == 0:
                wrong = self._wrong_variant(item, cart, groups)
                if wrong is not None:
                    self.revealed.add(i)
                    return wrong
                return f"I don't see the {item.description} in my cart yet."
            if have != item.quantity:
                return f"I need {item.quantity} of the {item.description}, not {have}."
        for product_id in cart:
            if product_id not in wanted:
                product = self.lookup(product_id)
                title = product.title if product else product_id
                return f"Please take the {title} out of my cart, I didn't ask for it."
        return None

    def _wrong_variant(self, item: CartItem, cart: dict[str, int], groups: dict[str, CartItem]) -> str | None:
        for product_id in cart:
            product = self.lookup(product_id)
            if product is not None and groups.get(product.group_id) is item and item.variant_attribute:
                got = product.attrs.get(item.variant_attribute, "another option")
                return (f"The {item.description} in my cart is {got}, but I need "
                        f"{str(item.variant_attribute).replace('_', ' ')} {item.variant_value}.")
        return None
