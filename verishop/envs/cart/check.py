"""Cart building: the cart against the wanted one, unit by unit, remembering every unit the
agent ever put in.

Putting a product in the customer's cart is a commitment: a wrong variant added and removed
again, or a quantity raised too high and lowered, still counts against precision.

    peak[p]  = the most units of p the cart ever held (every successful cart tool result, and
               world.db's final cart)
    matched  = Σ min(final units, wanted units), over products a tool had shown before they
               were first put in the cart (an ID no tool showed earns nothing) and whose other
               variants never were in the cart: carting several variants of one wanted
               product is a hedge, and that product earns nothing
    F1       = 2·matched / (Σ peak + Σ wanted),  r_task = 2·F1 − 1,  solved when F1 = 1

The final cart is read from world.db, never from what a tool reported.
"""

from __future__ import annotations

from collections import Counter

from verishop.envs.cart.variants import missed, say_option
from verishop.scenarios.models import CartGoal
from verishop.scenarios.tool_names import CART_CHANGES
from verishop.verifier.requirements import SHOWN, Requirement, hidden_or_stated, shop
from verishop.verifier.checks.base import Options, TaskScore
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check
from verishop.verifier.transcript import succeeded

# The cart is the answer: blame reads the conversation up to the last of these writes.
COMMITTED_BY_TOOLS = CART_CHANGES


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, CartGoal)
    wanted: Counter[str] = Counter()
    for item in goal.items:
        wanted[item.product_id] += item.quantity
    cart = ep.world.cart
    peak, first_added = _history(ep)
    seen = exposure(ep.transcript)
    hedged = _hedged(ep, set(wanted), peak)
    earned = {pid for pid in cart if seen.shown(pid, first_added.get(pid, float("inf"))) and pid not in hedged}
    matched = sum(min(units, wanted[pid]) for pid, units in cart.items() if pid in earned)
    committed = sum(peak.values())
    f1 = 2 * matched / (committed + sum(wanted.values())) if committed + sum(wanted.values()) else 1.0
    checks = [Check(name="unit_f1", expected=1.0, found=round(f1, 6), passed=f1 >= 1.0, score=round(2 * f1 - 1, 6))]
    checks += [_item_check(ep, item.product_id, item.quantity, item.description) for item in goal.items]
    unrequested = {pid: units for pid, units in peak.items() if units > wanted[pid]}
    checks.append(Check(name="units_beyond_wanted_ever_in_cart", expected={}, found=unrequested,
                        passed=not unrequested))
    if hedged:
        checks.append(Check(name="several_variants_carted", expected=[], found=sorted(hedged), passed=False))
    unearned = sorted(set(cart) - earned - hedged)
    if unearned:
        checks.append(Check(name="carted_before_shown", expected=[], found=unearned, passed=False))
    return TaskScore(r_task=2 * f1 - 1, is_correct=f1 >= 1.0, checks=checks, attempted=bool(peak))


def _hedged(ep: Episode, wanted: set[str], peak: dict[str, int]) -> set[str]:
    """Wanted products whose cart ever held another variant of theirs that was not wanted too."""
    groups: dict[str, set[str]] = {}
    for pid in peak:
        p = ep.shop.product(pid)
        if p is not None:
            groups.setdefault(p.group_id, set()).add(pid)
    hedged = set()
    for pid in wanted:
        p = ep.shop.product(pid)
        if p is not None and groups.get(p.group_id, set()) - wanted:  # a sibling it did not want
            hedged.add(pid)
    return hedged


def _history(ep: Episode) -> tuple[dict[str, int], dict[str, int]]:
    """The most units of each product the cart ever held, and the seq of its first addition."""
    peak: dict[str, int] = dict(ep.world.cart)
    first_added: dict[str, int] = {}
    for call in ep.transcript.tool_calls:
        if call["tool"] not in CART_CHANGES or not succeeded(call):
            continue
        product_id = (call.get("arguments") or {}).get("product_id")
        if isinstance(product_id, str):
            first_added.setdefault(product_id.strip(), call["seq"])
        for line in (call["result"] or {}).get("lines", []) if isinstance(call["result"], dict) else []:
            if isinstance(line, dict) and isinstance(line.get("product_id"), str) and type(line.get("quantity")) is int:
                peak[line["product_id"]] = max(peak.get(line["product_id"], 0), line["quantity"])
    # A cart tool's result lists the whole cart: in a journey, other requests' items too.
    mine = set(ep.world.cart) | set(first_added)
    return {pid: units for pid, units in peak.items() if pid in mine}, first_added


def _item_check(ep: Episode, product_id: str, quantity: int, description: str) -> Check:
    have = ep.world.cart.get(product_id, 0)
    found: dict[str, object] = {"product_id": product_id, "quantity": have}
    target = ep.shop.product(product_id)
    if target is not None:
        siblings = {pid: units for pid, units in ep.world.cart.items() if pid != product_id
                    and (p := ep.shop.product(pid)) is not None and p.group_id == target.group_id}
        if siblings:
            found["other_variants_in_cart"] = siblings
    return Check(name=f"item: {description}", expected={"product_id": product_id, "quantity": quantity},
                 found=found, passed=have == quantity)


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def _variant(ep: Episode, item, carted: list[str]) -> list[Requirement]:
    """The options of the wanted variant that the `carted` variants of its product got wrong (a
    variant named by size and colour, carted in the right size, misses the colour only)."""
    wrong: list = []
    for pid in carted:
        p = ep.shop.product(pid)
        wrong += [o for o in (missed(item, p.attrs) if p is not None else item.variant_options) if o not in wrong]
    wrong = wrong or list(item.variant_options)
    return [hidden_or_stated(ep, f"the {item.description} in {say_option(o)}", o.stated, said=say_option(o))
            for o in item.variant_options if o in wrong]


def charges(ep: Episode, goal: CartGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    by_group = {p.group_id: item for item in goal.items if (p := ep.shop.product(item.product_id)) is not None}
    wanted = {item.product_id: item for item in goal.items}

    def siblings_of(item, pids) -> list[str]:
        target = ep.shop.product(item.product_id)
        return [pid for pid in pids if pid != item.product_id and target is not None
                and (p := ep.shop.product(pid)) is not None and p.group_id == target.group_id]

    def item_misses(item) -> list[Requirement]:
        have = ep.world.cart.get(item.product_id, 0)
        siblings = siblings_of(item, ep.world.cart)
        if siblings and item.variant_attribute:
            return _variant(ep, item, siblings)
        if have != item.quantity:
            return [Requirement(f"{item.quantity} × the {item.description}", "stated")]
        return []

    def extra(pid: str) -> list[Requirement]:
        p = ep.shop.product(pid)
        item = by_group.get(p.group_id) if p is not None else None
        if item is not None and pid != item.product_id and item.variant_attribute:
            return _variant(ep, item, [pid])
        if pid in wanted:
            return [Requirement(f"{wanted[pid].quantity} × the {wanted[pid].description}", "stated")]
        return [Requirement("only the items asked for", "stated")]

    if check.name.startswith("item: "):
        item = next((i for i in goal.items if check.name == f"item: {i.description}"), None)
        return item_misses(item) if item else []
    if check.name == "units_beyond_wanted_ever_in_cart":
        return [r for pid in (check.found or {}) for r in extra(pid)]
    if check.name == "several_variants_carted":
        ever = _history(ep)[0]
        return [r for pid in check.found if pid in wanted
                for r in _variant(ep, wanted[pid], siblings_of(wanted[pid], ever))]
    if check.name == "carted_before_shown":
        return [shop(SHOWN)]
    beyond = next((c for c in checks if c.name == "units_beyond_wanted_ever_in_cart"), None)
    return ([r for item in goal.items for r in item_misses(item)]
            + [r for pid in ((beyond.found or {}) if beyond else {}) for r in extra(pid)]
            + ([shop(SHOWN)] if any(c.name == "carted_before_shown" for c in checks) else []))


def contradiction(ep: Episode, goal: CartGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    missing = [item.product_id for item in goal.items if ep.shop.product(item.product_id) is None]
    return f"the wanted products {missing} do not exist in the world" if missing else None
