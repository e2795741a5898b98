"""The per-turn tool budget (axis B_tool = 1 + ⌊d/2⌋), shared by the server that enforces it
and the verifier that reports it.

The budget counts *lookups*: read-only shop tools called between two messages to the
customer. Actions (cart changes, returns) are not counted: each is one the customer asked
for. Conversational tools (reading the conversation, answering the customer) are free.

Every message to the customer starts a new turn with the same budget, whether the verifier
will count that turn as free (a real question) or not: a free turn never refills more than a
paid one would, and since only a reply that tells something withheld is free, free turns are
bounded by what the customer held back, not by the agent.
"""

LOOKUP_TOOLS = frozenset({
    "search_catalog", "get_product", "compare_products", "view_cart", "list_orders", "check_order",
    "check_return_eligibility", "search_policies", "get_browsing_history", "get_current_date",
})

# How the server's refusal starts.
BUDGET_ERROR = "tool budget spent"
