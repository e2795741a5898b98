"""Order changes (`change`): the customer wants one processing order cancelled, some of its
items switched to another size or colour, or shipped elsewhere; a shipped one must be left alone
(return it instead). Registered in `verishop.envs` (one line); its roles are the files beside
this one. The shop's tools: `cancel_order`, `modify_order_items`, `change_order_address`,
`get_customer_profile` (docs/tools.md)."""

# Example rollouts (verishop.agents.record_examples): (agent, difficulty, seed).
EXAMPLE_PLAYS = (("oracle", 0, 1), ("greedy", 6, 1), ("oracle", 12, 1))
