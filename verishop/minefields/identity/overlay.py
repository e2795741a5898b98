"""The identity overlay: which tasks carry it, at what rate by difficulty, and what it draws.

It applies to a task that reads or writes orders (a return, an order's status, an order change,
an exchange, a hand-over, and a journey with any of those): their tools are the ones locked.
Off below difficulty 3 (rate 0: no draw, the scenario keeps its bytes); from d = 3 on, on in
min(1, 0.5 + 0.1·(d − 3)) of the episodes: half at d = 3, every one from d = 8.

Draws, from the minefield's own stream only:
- what the customer gives: its email (`email`), its name and zip code (`name_zip`), or first its
  email with one typo, the right one once told it was not found (`email_typo`, more often as d
  grows); with an email it also says its name, which is how a careful agent checks the account;
- whether the opening says it (`stated`, less often as d grows) or the customer tells it when asked;
- the zip code: the account's default address's when the scenario has an account, else drawn;
- decoys among the shop's other customers: always a namesake in another zip code (a name alone
  never identifies), and from d = 7, when the email is mistyped, a customer whose email IS the
  typo (an agent that trusts the typo without the name identifies someone else).
"""

from __future__ import annotations

import random

from verishop.minefields import with_minefields
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.household import faker
from verishop.scenarios.models import IdentityCheck, OtherCustomer, Scenario

START_DIFFICULTY = 3
# From here a mistyped email is some other customer's.
TYPO_OWNER_DIFFICULTY = 7
# The kinds of task that read or write the customer's orders or account (a checkout: its vouchers,
# addresses and payment methods, and the order it places).
ORDER_TASKS = frozenset({"return", "status", "order_change", "exchange", "handover", "compensation", "purchase"})
RULE = ("Before any order or account tool, identify the customer with find_customer: by their email, or by their "
        "name and zip code together; never act on an account that is not theirs.")


def applies(scenario: Scenario) -> bool:
    goal = scenario.goal
    kinds = {task.kind for task in goal.tasks} if goal.kind == "journey" else {goal.kind}
    return bool(kinds & ORDER_TASKS)


def rate(difficulty: int) -> float:
    return 0.0 if difficulty < START_DIFFICULTY else min(1.0, 0.5 + 0.1 * (difficulty - START_DIFFICULTY))


def typo_weight(difficulty: int) -> float:
    """How often the customer mistypes its email: 10% at d = 3, rising to 40%."""
    return min(0.4, 0.1 + 0.05 * (difficulty - START_DIFFICULTY))


def stated_probability(difficulty: int) -> float:
    """How often the opening says who the customer is: 70% at d = 3, falling to 30%."""
    return max(0.3, 0.7 - 0.05 * (difficulty - START_DIFFICULTY))


def overlay(scenario: Scenario, rng: random.Random, catalog: CatalogReader) -> Scenario:
    d, me = scenario.difficulty, scenario.customer
    typo = typo_weight(d)
    gives = rng.choices(("email", "name_zip", "email_typo"), weights=((1 - typo) / 2, (1 - typo) / 2, typo))[0]
    stated = rng.random() < stated_probability(d)
    default = next((a for a in scenario.account.addresses if a.default), None) if scenario.account else None
    zip_code = default.zip if default is not None else f"{rng.randrange(10 ** 5):05d}"
    others = list(scenario.minefields.others) if scenario.minefields is not None else []
    taken_ids = {me.customer_id, *(o.customer_id for o in others)}
    taken_emails = {me.email.casefold(), *(o.email.casefold() for o in others)}
    typo_email = mistype(rng, me.email, taken_emails) if gives == "email_typo" else None
    if typo_email is not None:  # no decoy draws it by chance: only the typo's owner (from d = 7) has it
        taken_emails.add(typo_email.casefold())
    fake = faker()
    fake.seed_instance(rng.getrandbits(32))

    def other(name: str, email: str | None, not_zip: str) -> OtherCustomer:
        customer_id = _fresh(rng, taken_ids, lambda: f"C{rng.randrange(10 ** 7):07d}")
        first, last = name.split(" ", 1) if " " in name else (name, "")
        made = email or _fresh(rng, taken_emails, lambda: f"{first}.{last}{rng.randrange(100, 1000)}@example.com"
                               .lower().replace("'", "").replace(" ", ""))
        zip_other = _fresh(rng, {not_zip}, lambda: f"{rng.randrange(10 ** 5):05d}")
        taken_emails.add(made.casefold())
        return OtherCustomer(customer_id=customer_id, name=name, email=made, street=fake.street_address(),
                             city=fake.city(), zip=zip_other)

    decoys = [other(me.name, None, zip_code)]  # the same name, another zip code
    if typo_email is not None and d >= TYPO_OWNER_DIFFICULTY:
        owner = _fresh(rng, {me.name}, lambda: f"{fake.first_name()} {fake.last_name()}")
        decoys.append(other(owner, typo_email, zip_code))
    identity = IdentityCheck(zip=zip_code, gives=gives, typo_email=typo_email, stated=stated)
    update: dict[str, object] = {"system_prompt": f"{scenario.system_prompt}\n{RULE}"}
    if stated:
        said = f"{scenario.opening_message} {introduction(scenario, identity)}"
        update["opening_message"] = said
        if scenario.goal.kind == "journey":
            update["goal"] = scenario.goal.model_copy(update={"openings": (said, *scenario.goal.openings[1:])})
    return with_minefields(scenario.model_copy(update=update), identity=identity, others=(*others, *decoys))


def introduction(scenario: Scenario, identity: IdentityCheck, *, corrected: bool = False) -> str:
    """How the customer says who it is: its name and zip code, or its name and (first mistyped) email."""
    name = scenario.customer.name
    if identity.gives == "name_zip":
        return f"I'm {name}, and my zip code is {identity.zip}."
    email = identity.typo_email if identity.gives == "email_typo" and not corrected else scenario.customer.email
    return f"I'm {name}, and my email is {email}."


def mistype(rng: random.Random, email: str, taken: set[str]) -> str:
    """`email` with one typo in the part before the @ (two letters swapped, one dropped or one
    doubled), never an email already taken."""
    local, _, domain = email.partition("@")
    for _ in range(50):
        i = rng.randrange(len(local))
        kind = rng.randrange(3)
        if kind == 0 and i + 1 < len(local):
            typed = local[:i] + local[i + 1] + local[i] + local[i + 2:]
        elif kind == 1 and len(local) > 3:
            typed = local[:i] + local[i + 1:]
        else:
            typed = local[:i] + local[i] + local[i:]
        candidate = f"{typed}@{domain}"
        if candidate.casefold() != email.casefold() and candidate.casefold() not in taken:
            return candidate
    return f"{local}x@{domain}"  # practically never: a local part of one repeated letter


def _fresh(rng: random.Random, taken: set[str], draw) -> str:
    """A value `draw` makes that is not in `taken` (added to it)."""
    while True:
        value = draw()
        if value.casefold() not in {t.casefold() for t in taken}:
            taken.add(value)
            return value
