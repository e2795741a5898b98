"""What a goal-aware agent does first in an episode that carries the identity minefield: ask who
the customer is when the opening did not say it, then identify it with `find_customer`, checking
an email against the name the customer gave with it, so that a mistyped email (another customer's,
at high difficulty) is asked about, never acted on.

Each question is answered with something the customer had not said (a free turn), and the one
`find_customer` call of each turn is no lookup of the task's budget (scenarios/budget.py), so the
task's play that follows keeps every lookup its difficulty gives it.
"""

from __future__ import annotations

from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.models import Scenario
from verishop.scenarios.tool_names import FIND_CUSTOMER, RESPOND_TO_CUSTOMER

ASK = "Before I look at your orders: could you give me your email address, or your name and zip code?"
NOT_FOUND = "I couldn't find an account with that email and name. Could you check the email?"


async def prelude(shop: ShopSession, scenario: Scenario) -> None:
    identity = scenario.minefields.identity
    me = scenario.customer
    if not identity.stated:
        await shop.call(RESPOND_TO_CUSTOMER, message=ASK)
    if identity.gives == "name_zip":
        await shop.call(FIND_CUSTOMER, name=me.name, zip=identity.zip)
        return
    if identity.gives == "email_typo":
        try:  # with the name it came with: no one's, whoever owns the typo
            await shop.call(FIND_CUSTOMER, email=identity.typo_email, name=me.name)
        except ToolFailed:
            pass
        await shop.call(RESPOND_TO_CUSTOMER, message=NOT_FOUND)
    await shop.call(FIND_CUSTOMER, email=me.email, name=me.name)
