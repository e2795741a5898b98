"""Store policy questions (POLICY): one question, one deterministic answer from the policy base.

The policy-clauses axis B_branch = 1 + ⌊d/3⌋ sets how many clauses the answer depends on:
"how long can I return a blender?" needs one; "I'm a Plus member, the blender was a gift and
arrived defective on December 3: how many days do I have left?" needs four (the return
window, membership, gift and defect clauses) plus the date. Answers are computed by the rule
functions of `verishop.scenarios.policy`, never typed in. Details of the customer's situation are left
out of the opening with p_missing, and given one at a time when the agent asks.

What changed in each version, and why: CHANGELOG.md (the registry in `verishop/envs/__init__.py` holds
the current id).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, timedelta

from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.shared_world import SharedWorld, pick_customer, pick_policy, pick_today
from verishop.scenarios.household import make_browsing_history, make_order_history
from verishop.scenarios.models import PolicyGoal, Scenario, StorePolicy
from verishop.scenarios.money import amount, name_of
from verishop.scenarios.noise import add_typos
from verishop.scenarios.policy import TIERS, extend_policy, refund_cents, return_window, shipping_cents
from verishop.scenarios.prompts import system_prompt
from verishop.envs.policy.question import Question
from verishop.envs.policy.shop_questions import shop_families
from verishop.scenarios.rng import make_rng
from verishop.scenarios.taxonomy import category

ENV_ID = "policy-v6"
# The random stream a seed draws from: kept from policy-v1 wherever generation did not change, so
# re-scored versions play the same worlds.
SEED_STREAM = "policy-v1"
MAX_BRANCHES = 5

# Items whose department nobody could mistake (no electrical appliance outside Electronics).
ELECTRONICS = ("chargers", "cables", "headphones", "power_banks", "keyboards", "mice", "monitors", "webcams",
               "smartwatches", "speakers", "usb_hubs")
NON_ELECTRONICS = ("cookware", "kitchen_knives", "water_bottles", "t_shirts", "jeans", "jackets", "running_shoes",
                   "yoga_mats", "dumbbells", "backpacks", "tents", "bed_sheets", "towels", "plant_pots", "dog_beds",
                   "board_games", "desks", "office_chairs")
MODIFIERS = ("tier", "holiday", "gift", "defective")
_CLAUSE = {"tier": "POL-MEMBERSHIP", "holiday": "POL-HOLIDAY", "gift": "POL-GIFTS", "defective": "POL-DEFECTS"}

YES = ("yes", "yep", "sure", "yes you can", "yes it can", "yes it will", "yes it does", "yes they can")
NO = ("no", "nope", "no you cannot", "no you can't", "no it cannot", "no it can't", "no it will not",
      "no it won't", "no it does not", "no they cannot", "no they can't", "cannot", "can't")
NO_FEE = ("no", "none", "no fee", "no restocking fee", "no there is not", "no there isn't", "there is no fee",
          "there is no restocking fee")

_GREETINGS = ("Hi!", "Hello!", "Hey there.", "Good morning!", "Hi there!")
_INTROS = ("I have a question about your store policy.", "Quick question about your store policy.",
           "I'd like to check something in your store policy.")


Family = Callable[[random.Random, StorePolicy, date, bool], Question]


def _noun(rng: random.Random, category_id: str) -> str:
    return " ".join(w if w.isupper() else w.lower() for w in rng.choice(category(category_id).nouns).split())


def _figure(cents: int) -> str:
    """An amount's figure, as an answer states it ("7.99")."""
    return f"{cents / 100:.2f}"


def _yes_no(yes: bool) -> tuple[str, tuple[str, ...]]:
    return ("yes", YES) if yes else ("no", NO)


def _long_date(day: date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _in_holidays(day: date) -> bool:
    return date(day.year, 11, 1) <= day <= date(day.year, 12, 24)


def _holiday_delivery(rng: random.Random, today: date) -> date:
    """A delivery day in the latest holiday period (November 1 to December 24) before today."""
    year = today.year if today > date(today.year, 11, 1) else today.year - 1
    start, end = date(year, 11, 1), min(date(year, 12, 24), today - timedelta(days=1))
    return start + timedelta(days=rng.randrange((end - start).days + 1))


# --- families of questions, by the clauses they need --------------------------------------

def window_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool, modifiers: int) -> Question:
    """How long can the item be returned, given `modifiers` conditions (membership, holiday
    delivery, gift, defect)? With `dates` (two lookups a turn: the policy and today's date) it
    may ask instead how many days are left, or whether it can still be returned."""
    category_id = rng.choice(ELECTRONICS + NON_ELECTRONICS)
    noun = _noun(rng, category_id)
    mods = rng.sample(MODIFIERS, modifiers)
    tier = rng.choice(TIERS) if "tier" in mods else None
    details = {
        "tier": f"I'm a Verishop {tier} member.",
        "gift": f"I bought the {noun} as a gift.",
        "defective": f"The {noun} arrived defective.",
    }
    delivered = None
    if "holiday" in mods:
        delivered = _holiday_delivery(rng, today)
    elif dates and rng.random() < 0.6:
        delivered = today - timedelta(days=rng.randint(1, 80))
        if _in_holidays(delivered):
            delivered = None  # the holiday clause would apply: keep the question about the window
    window = return_window(policy, category_id, tier=tier, holiday="holiday" in mods, gift="gift" in mods,
                           defective="defective" in mods)
    assert window is not None
    said = [details[m] for m in mods if m != "holiday"]
    clause_ids = ("POL-RETURNS", *(_CLAUSE[m] for m in mods))
    total = Question(ask=f"How many days after delivery do I have to return the {noun}?", answer=str(window),
                     kind="numeric", clause_ids=clause_ids,
                     details=tuple(said + ([f"Delivery was on {_long_date(delivered)}."]
                                           if delivered else [])))
    if delivered is None or not dates:
        return total
    elapsed = (today - delivered).days
    variants = ["total", "still"] + (["left"] if elapsed < window else [])
    match rng.choice(variants):
        case "left":
            return Question(ask=f"How many days do I have left to return the {noun}?", answer=str(window - elapsed),
                            kind="numeric", clause_ids=clause_ids, details=total.details)
        case "still":
            # Yes and no equally likely: the delivery day is redrawn on the side of the window
            # the coin chose, from the days the question allows (holiday or not); where one side
            # has no such day, the question asks for the window instead.
            days = _delivery_days(today, holiday="holiday" in mods)
            sides = ([d for d in days if (today - d).days <= window], [d for d in days if (today - d).days > window])
            if all(sides):
                still = rng.random() < 0.5
                delivered = rng.choice(sides[0] if still else sides[1])
                answer, accepted = _yes_no(still)
                return Question(ask=f"Can I still return the {noun}?", answer=answer, accepted=accepted,
                                kind="categorical", clause_ids=clause_ids,
                                details=tuple(said + [f"Delivery was on {_long_date(delivered)}."]))
    return total


def _delivery_days(today: date, *, holiday: bool) -> list[date]:
    """The delivery days a dated window question may name: in the latest holiday period, or in
    the 80 days before today outside any holiday period."""
    if holiday:
        year = today.year if today > date(today.year, 11, 1) else today.year - 1
        start, end = date(year, 11, 1), min(date(year, 12, 24), today - timedelta(days=1))
        return [start + timedelta(days=i) for i in range((end - start).days + 1)]
    return [d for d in (today - timedelta(days=i) for i in range(1, 81)) if not _in_holidays(d)]


def final_sale_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    # Half the time an item that is not final sale, so that "no" is not a safe guess.
    if rng.random() < 0.5:
        noun = _noun(rng, rng.choice(NON_ELECTRONICS))
        return Question(ask=f"Can I return the {noun} I bought from you?", answer="yes", accepted=YES,
                        kind="categorical", clause_ids=("POL-FINAL-SALE",))
    noun = _noun(rng, rng.choice(policy.final_sale_categories))
    return Question(ask=f"Can I return the {noun} I bought from you?", answer="no", accepted=NO, kind="categorical",
                    clause_ids=("POL-FINAL-SALE",))


def defective_final_sale_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    category_id = rng.choice(policy.final_sale_categories)
    noun = _noun(rng, category_id)
    return Question(ask=f"How many days after delivery do I have to return the {noun}?",
                    answer=str(return_window(policy, category_id, defective=True)), kind="numeric",
                    clause_ids=("POL-FINAL-SALE", "POL-DEFECTS"), details=(f"The {noun} arrived defective.",))


def threshold_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    member = " if I'm not a member" if policy.rules else ""
    return Question(ask=f"What is the smallest purchase, in {name_of(policy.currency)}, that ships free{member}?",
                    answer=_figure(policy.free_shipping_threshold_cents), kind="numeric",
                    clause_ids=("POL-SHIPPING",))


def standard_shipping_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    return Question(ask="How much does standard shipping cost when a purchase doesn't ship free?",
                    answer=_figure(policy.standard_shipping_cents), kind="numeric", clause_ids=("POL-SHIPPING",))


def restocking_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    noun = _noun(rng, rng.choice(ELECTRONICS))
    # Without a fee the yes/no form (answer "no"); with one, the yes/no form (answer "yes") half
    # the time: over the fees drawn (0, 10, 15), yes and no are as likely as each other.
    asked_yes_no = rng.random() < 0.5
    if policy.restocking_fee_percent == 0 or asked_yes_no:
        ask = f"Is there a restocking fee if I return an opened {noun} because I changed my mind?"
        if policy.restocking_fee_percent == 0:
            return Question(ask=ask, answer="no", accepted=NO_FEE, kind="categorical", clause_ids=("POL-RESTOCK",))
        return Question(ask=ask, answer="yes", accepted=YES, kind="categorical", clause_ids=("POL-RESTOCK",))
    return Question(ask=f"What percentage restocking fee applies if I return an opened {noun} because I changed "
                        f"my mind?", answer=str(policy.restocking_fee_percent), kind="numeric",
                    clause_ids=("POL-RESTOCK",))


def refund_amount_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    noun = _noun(rng, rng.choice(ELECTRONICS))
    price = rng.randint(15, 300) * 100 - 1
    refund = refund_cents(policy, price, opened_electronics=True, defective=False)
    return Question(ask=f"I paid {amount(price, policy.currency)} for the {noun} and opened it, but I changed my "
                        f"mind. How much "
                        f"will I get back if I return it?", answer=_figure(refund), kind="numeric",
                    clause_ids=("POL-RESTOCK",))


def refund_days_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    days = policy.rules.refund_business_days if policy.rules else 5
    return Question(ask="How many business days does my refund take once you receive my return?", answer=str(days),
                    kind="numeric", clause_ids=("POL-REFUND",))


def cancel_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    if rng.random() < 0.5:
        return Question(ask="Can I cancel a purchase free of charge while it is still processing?", answer="yes",
                        accepted=YES, kind="categorical", clause_ids=("POL-CANCEL",))
    return Question(ask="Can I cancel a purchase free of charge after it has shipped?", answer="no", accepted=NO,
                    kind="categorical", clause_ids=("POL-CANCEL",))


def gift_refund_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    assert policy.rules is not None
    method = policy.rules.gift_refund_method
    accepted = (("as store credit", "in store credit", "store credit only") if method == "store credit" else
                ("to the original payment method", "to my card", "original payment"))
    return Question(ask="How is a gift return refunded: to the original payment method or as store credit?",
                    answer=method, accepted=accepted, kind="categorical", clause_ids=("POL-GIFTS",))


def price_adjustment_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    assert policy.rules is not None
    return Question(ask="If an item's price drops after delivery, within how many days can I get the difference "
                        "refunded?", answer=str(policy.rules.price_adjustment_days), kind="numeric",
                    clause_ids=("POL-PRICE-ADJUST",))


def surcharge_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    assert policy.rules is not None
    noun = _noun(rng, rng.choice(policy.rules.oversize_categories))
    return Question(ask=f"How much is the shipping surcharge on an oversized item like a {noun}?",
                    answer=_figure(policy.rules.oversize_surcharge_cents), kind="numeric",
                    clause_ids=("POL-OVERSIZE",))


def defect_fee_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    noun = _noun(rng, rng.choice(ELECTRONICS))
    if rng.random() < 0.5:  # only asked where the policy has a fee: an opened item not defective pays it
        return Question(ask=f"Is there a restocking fee if I return the opened {noun}?", answer="yes", accepted=YES,
                        kind="categorical", clause_ids=("POL-RESTOCK", "POL-DEFECTS"),
                        details=(f"I just changed my mind about the {noun}; nothing is wrong with it.",))
    return Question(ask=f"Is there a restocking fee if I return the opened {noun}?", answer="no", accepted=NO_FEE,
                    kind="categorical", clause_ids=("POL-RESTOCK", "POL-DEFECTS"),
                    details=(f"The {noun} arrived defective.",))


def _purchase_cents(rng: random.Random, policy: StorePolicy) -> int:
    """A purchase below the general free-shipping threshold, on either side of the Plus one."""
    assert policy.rules is not None
    low, high = policy.rules.plus_free_shipping_cents, policy.free_shipping_threshold_cents
    below = rng.random() < 0.5
    dollars = rng.randint(max(1, low // 100 - 15), low // 100 - 1) if below else rng.randint(low // 100, high // 100 - 1)
    return dollars * 100 + rng.choice((0, 49, 99))


def member_free_shipping_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool) -> Question:
    subtotal = _purchase_cents(rng, policy)
    answer, accepted = _yes_no(shipping_cents(policy, subtotal, tier="Plus") == 0)
    return Question(ask=f"Will a {amount(subtotal, policy.currency)} purchase ship free?", answer=answer,
                    accepted=accepted,
                    kind="categorical", clause_ids=("POL-SHIPPING", "POL-MEMBERSHIP"),
                    details=("I'm a Verishop Plus member.",))


def oversize_shipping_question(rng: random.Random, policy: StorePolicy, today: date, dates: bool,
                               tier: str | None = None) -> Question:
    assert policy.rules is not None
    noun = _noun(rng, rng.choice(policy.rules.oversize_categories))
    subtotal = _purchase_cents(rng, policy) if tier else rng.randint(10, 150) * 100 + 99
    cost = shipping_cents(policy, subtotal, tier=tier, oversize_items=1)
    who = (f"I'm a Verishop {tier} member.",) if tier else ()
    member = "" if tier else " I'm not a member."
    return Question(ask=f"How much will shipping cost if I buy a {amount(subtotal, policy.currency)} {noun}?{member}",
                    answer=_figure(cost), kind="numeric",
                    clause_ids=("POL-SHIPPING", *(("POL-MEMBERSHIP",) if tier else ()), "POL-OVERSIZE"), details=who)


def families(branches: int, policy: StorePolicy) -> list[Family]:
    """The question families whose answer depends on exactly `branches` clauses."""
    def window(n: int) -> Family:
        return lambda rng, p, today, dates: window_question(rng, p, today, dates, n)

    fee = policy.restocking_fee_percent > 0
    if policy.rules is None or branches == 1:
        found: list[Family] = [window(0), window(0), final_sale_question, threshold_question,
                               standard_shipping_question, restocking_question, refund_days_question, cancel_question]
        found += [refund_amount_question] if fee else []
        if policy.rules is not None:
            found += [gift_refund_question, price_adjustment_question, surcharge_question]
        return found
    if branches == 2:
        return [window(1), window(1), window(1), defective_final_sale_question, member_free_shipping_question,
                oversize_shipping_question, *([defect_fee_question] if fee else [])]
    if branches == 3:
        return [window(2), window(2), window(2),
                lambda rng, p, today, dates: oversize_shipping_question(rng, p, today, dates, tier="Plus")]
    return [window(branches - 1)]


def opening_message(rng: random.Random, stated: list[str], ask: str, p_noise: float) -> str:
    text = " ".join([rng.choice(_GREETINGS), rng.choice(_INTROS), *stated, ask])
    return add_typos(rng, text, p_noise)


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    rng = make_rng("scenario", SEED_STREAM, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    customer = pick_customer(rng, today, shared)
    # A journey brings its own policy; without the conditional clauses only one-clause questions exist.
    extended = extend_policy(rng, pick_policy(rng, shared, catalog))
    policy = shared.policy if shared else extended
    branches = min(axes.policy_branches, MAX_BRANCHES) if policy.rules else 1
    # Dates need today's date besides the policy: two lookups in one turn.
    if policy.shop is not None:  # an imported shop: questions about its own policy file only
        shop_branches = 2 if axes.policy_branches >= 2 else 1
        asked = rng.choice(shop_families(policy, catalog.shoppable_categories, shop_branches))
        question = asked(rng, today, axes.tool_calls_per_turn >= 2)
    else:
        question = rng.choice(families(branches, policy))(rng, policy, today, axes.tool_calls_per_turn >= 2)
    held_back = [rng.random() < axes.p_missing for _ in question.details]
    stated = [d for d, held in zip(question.details, held_back) if not held]
    goal = PolicyGoal(question=" ".join([*question.details, question.ask]), answer_kind=question.kind,
                      answer=question.answer, accepted=question.accepted, clause_ids=question.clause_ids,
                      unstated=tuple(d for d, held in zip(question.details, held_back) if held),
                      currency=policy.currency)
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=customer,
        orders=make_order_history(rng, catalog, today, axes.order_history),
        browsing_history=make_browsing_history(rng, catalog, None),
        stock_changes=(), policy=policy, system_prompt=system_prompt(catalog.currency),
        opening_message=opening_message(rng, stated, question.ask, axes.p_noise),
        goal=goal,
    )
