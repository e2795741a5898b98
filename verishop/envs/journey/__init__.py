"""Multi-intent journeys (`journey`): several requests of other environments in one conversation
(its pool: `generator.POOL`). Registered in `verishop.envs` (one line); each request is served,
played and scored by its own environment's roles."""

# Example rollouts (verishop.agents.record_examples): a journey at d12 is 62 KB, so none.
EXAMPLE_PLAYS = (("oracle", 0, 1), ("greedy", 6, 3))
