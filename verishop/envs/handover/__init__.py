"""Restraint and hand-over (`handover`, issue 33): the customer asks for an order change or an
exchange the store's rules allow (served as its own environment judges it), or for something the
store's rules refuse although a tool would do it (a shipped order cancelled or re-addressed, an exchange
past its window or on final sale), with a sad story and, as difficulty grows, pushback; or for
something outside the shop's remit (a legal claim, a complaint about an employee, a chargeback, a
safety incident) that a person must take over. Registered in `verishop.envs` (one line); its roles
are the files beside this one. The shop's tool: `transfer_to_human` (docs/tools.md)."""

# Example rollouts (verishop.agents.record_examples): (agent, difficulty, seed).
EXAMPLE_PLAYS = (("oracle", 2, 1), ("greedy", 2, 4), ("oracle", 2, 3), ("oracle", 6, 2))
