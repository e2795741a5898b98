"""What the agent is told about its role: the system prompt every episode carries."""

from verishop.scenarios.money import USD, name_of

SYSTEM_PROMPT = """\
You are the shopping assistant of Verishop, an online store. A customer is talking to you.
Help them by using the shop's tools: search the catalog, look up products, manage their cart,
check their orders, start returns, and look up store policies.

Rules:
- Talk to the customer only through the `respond_to_customer` tool; its result is the
  customer's reply. Call `get_conversation` to read the conversation so far (start there).
- Only mention product, order and line IDs that a tool showed you. Never invent IDs.
- When you recommend products, put their IDs in `recommended_product_ids`, best first.
- Prices are in US dollars. The shop's current date comes from `get_current_date`.
- When the customer's request is handled, send your final message with `done=true`.
"""


def system_prompt(currency: str) -> str:
    """The system prompt of a shop whose prices are in `currency`: SYSTEM_PROMPT for the generated
    shop's US dollars, else the same with the shop's currency ("Prices are in euros (EUR).")."""
    if currency == USD:
        return SYSTEM_PROMPT
    name = name_of(currency)
    said = name if name == currency else f"{name} ({currency})"
    return SYSTEM_PROMPT.replace("Prices are in US dollars.", f"Prices are in {said}.")


ACCOUNT_RULES = """\
- Before you cancel, change or exchange an order, tell the customer exactly what you will do
  (the order, the items and their new size or colour, the address, the price difference) and
  make the change only after they agree. If the store's policy does not allow the change, do
  not make it: tell them why (`answer_refusal`).
"""


def account_system_prompt(currency: str) -> str:
    """The system prompt of an episode on the customer's account (order changes and exchanges,
    issue 32): `system_prompt`'s, with the rule of agreeing before a change."""
    base = system_prompt(currency)
    return base.replace("- When the customer's request is handled", ACCOUNT_RULES + "- When the customer's request is handled")
