"""Returns (`return`): the customer wants to return one delivered order line it describes, never
names, and sometimes a replacement. Registered in `verishop.envs` (one line); its roles are the
files beside this one. The folder is `return_` because `return` is a Python keyword (PEP 8)."""

# Example rollouts (verishop.agents.record_examples): greedy solves seeds 1-3 at d6, so its unsolved one is seed 4.
EXAMPLE_PLAYS = (("oracle", 0, 1), ("greedy", 6, 4), ("oracle", 12, 1))
