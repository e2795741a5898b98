"""The environment registry, under the import path it has always had (docs/api/scenarios.md).

The registry itself is `verishop.envs` (one line per environment, one folder each); this module
re-exports it, so `from verishop.scenarios.envs import generate, get_env, REGISTRY` keeps working.
"""

from __future__ import annotations

from verishop.envs import (
    COLLECTIONS,
    ENVIRONMENTS,
    REGISTRY,
    EnvSpec,
    collection,
    draw_stream,
    generate,
    get_env,
    spec_for_goal,
    spec_of,
)

__all__ = ["COLLECTIONS", "ENVIRONMENTS", "REGISTRY", "EnvSpec", "collection", "draw_stream", "generate", "get_env",
           "spec_for_goal", "spec_of"]
