"""Exchanges (`exchange`): the customer wants a delivered item swapped for another size or colour
of the same product and to know the price difference; an item outside its return window, on
final sale, or whose variant is sold out with no other acceptable is refused. Registered in
`verishop.envs` (one line); its roles are the files beside this one. The shop's tools:
`exchange_items`, `get_customer_profile` (docs/tools.md)."""

# Example rollouts (verishop.agents.record_examples): (agent, difficulty, seed).
EXAMPLE_PLAYS = (("oracle", 0, 1), ("greedy", 6, 1), ("oracle", 12, 1))
