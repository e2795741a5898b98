"""Multi-intent journeys (`journey`): several requests of other environments in one conversation
(its pool: `generator.POOL`). Registered in `verishop.envs` (one line); each request is served,
played and scored by its own environment's roles."""
