"""The cart customer: tells the variant it left out when asked (each option of a variant named by
two, size and colour, on the question that asks for it), checks the cart after each other agent
turn and names the first concrete problem (missing item, wrong variant and the option it got
wrong, wrong quantity, unwanted item) until it is exactly right. A question with nothing left to
tell gets its needs restated (a paid turn), never a complaint about a cart still being built."""

from __future__ import annotations

from verishop.envs.cart.variants import missed, say_option
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView, neutral_close, seen_close
from verishop.scenarios.customers.topics import Detail, answer, attribute_topics
from verishop.scenarios.models import CartGoal, CartItem, Submission

_SAW_WRONG = "saw_wrong"  # `CustomerState.memory` key: its cart once held what it did not want


def reply(state: CustomerState, goal: CartGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    if _unwanted(goal, world.cart):
        state.memory[_SAW_WRONG] = True
    wanted = ", ".join(f"{item.quantity} × the {item.description}" for item in goal.items)
    turn = answer(state, message, details(goal), "Could you put it in my cart?",
                  nothing_left=f"No, that's everything I can tell you: {wanted}.")
    # A request that tells nothing new is answered, not treated as a finished cart, unless the
    # cart is already right.
    if turn is not None and (turn.tag == "clarify" or (not sub.done and _cart_problem(state, goal, world.cart))):
        return turn
    problem = _cart_problem(state, goal, world.cart)
    if problem is None:
        # The verdict remembers every unit ever carted: once it saw its cart wrong, it takes the
        # right one without praise.
        if state.memory.get(_SAW_WRONG):
            return neutral_close()
        return seen_close(state, "That's exactly what I wanted in my cart. Thank you!")
    if sub.done:
        return CustomerTurn(f"Wait, my cart isn't right: {problem} Never mind, bye.", "quit")
    return CustomerTurn(problem, "correct")


def _unwanted(goal: CartGoal, cart: dict[str, int]) -> bool:
    """Whether the cart holds a product not wanted or more units than wanted (not just too few yet)."""
    wanted = {item.product_id: item.quantity for item in goal.items}
    return any(n > wanted.get(pid, 0) for pid, n in cart.items())


def option_key(i: int, k: int) -> object:
    """What `state.revealed` records once the k-th option of the i-th item is said (the first
    option's key is the item's index, as before variants were named by two)."""
    return i if k == 0 else (i, k)


def details(goal: CartGoal) -> list[Detail]:
    """What the customer can tell, by topic: each option of each item's variant, and how many of each."""
    told = []
    for i, item in enumerate(goal.items):
        for k, option in enumerate(item.variant_options):
            told.append(Detail(option_key(i, k), attribute_topics(option.attribute) | {"item"},
                               f"For the {item.description}, I'd like {say_option(option)}.", not option.stated))
        told.append(Detail(("quantity", i), frozenset({"quantity"}), f"I need {item.quantity} of the "
                           f"{item.description}.", False))
    return told


def _cart_problem(state: CustomerState, goal: CartGoal, cart: dict[str, int]) -> str | None:
    wanted = {item.product_id: item for item in goal.items}
    groups = {}
    for item in goal.items:
        target = state.lookup(item.product_id)
        if target is not None:
            groups[target.group_id] = item
    for i, item in enumerate(goal.items):
        have = cart.get(item.product_id, 0)
        if have == 0:
            wrong = _wrong_variant(state, i, item, cart, groups)
            if wrong is not None:
                return wrong
            return f"I don't see the {item.description} in my cart yet."
        if have != item.quantity:
            return f"I need {item.quantity} of the {item.description}, not {have}."
    for product_id in cart:
        if product_id not in wanted:
            product = state.lookup(product_id)
            title = product.title if product else product_id
            return f"Please take the {title} out of my cart, I didn't ask for it."
    return None


def _wrong_variant(state: CustomerState, i: int, item: CartItem, cart: dict[str, int],
                   groups: dict[str, CartItem]) -> str | None:
    """The correction of another variant of `item` in the cart: the options it got wrong (said, so
    revealed), or None."""
    for product_id in cart:
        product = state.lookup(product_id)
        if product is not None and groups.get(product.group_id) is item and item.variant_attribute:
            wrong = missed(item, product.attrs)
            options = item.variant_options
            state.revealed.update(option_key(i, options.index(o)) for o in wrong)
            got = ", ".join(product.attrs.get(o.attribute, "another option") for o in wrong)
            return f"The {item.description} in my cart is {got}, but I need {', '.join(say_option(o) for o in wrong)}."
    return None
