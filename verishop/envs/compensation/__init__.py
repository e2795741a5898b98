"""Compensation (`compensation`, issue 34): the customer complains that an order came late, that
an item's price dropped since, or that an item arrived damaged, and asks for something back. The
store's compensation clause decides the exact amount in cents (store credit, or a price
adjustment refunded to the original payment method), or that nothing is due (half the episodes):
then the right answer is the typed refusal `not_eligible`, kept through the customer's pushback,
and no write. Registered in `verishop.envs` (one line); its roles are the files beside this one.
The shop's tools: `request_price_adjustment`, `issue_store_credit` (docs/tools.md)."""

# Example rollouts (verishop.agents.record_examples): (agent, difficulty, seed).
EXAMPLE_PLAYS = (("oracle", 0, 1), ("greedy", 4, 3), ("oracle", 12, 1))
