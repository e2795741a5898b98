"""verishop on a Ray cluster (`pip install 'verishop[ray]'`): one shop server per node, placed
by Ray, and one curriculum for the whole cluster.

    driver                       every node                                 head node
    VerishopCluster.start ─────► ShopServer actor (NodeAffinity, detached)   CurriculumActor
                                 ├── verishop serve --transport http         (named, detached,
                                 │   (subprocess, dies with the actor)        restarted forever,
                                 └── verifier sidecar (thread) ──record──►    state in curriculum.db)
    task on node N:
    shop.open_episode(...) ──choose (no difficulty)──────────────────────────► CurriculumActor
                           ──POST /episodes──► node N's shop (the agent's tool calls stay on N)
    shop.reward(episode)   ──GET /rewards/<id>──► node N's verifier

Modules: `cluster` (the API), `server` (the per-node actor), `curriculum` (the curriculum
actor), `catalog` (the same catalog on every node), `processes` (the shop subprocess),
`errors`. Absolute imports throughout: inside this package `import ray` must be the real Ray.
"""

from verishop.ray.catalog import CatalogSpec
from verishop.ray.cluster import EpisodeHandle, VerishopCluster
from verishop.ray.errors import (CatalogMismatch, NoServer, RewardTimeout, ServerCrashed, ServerStartFailed,
                                 VerishopRayError)
from verishop.ray.server import ServerStats

__all__ = ["CatalogMismatch", "CatalogSpec", "EpisodeHandle", "NoServer", "RewardTimeout", "ServerCrashed",
           "ServerStartFailed", "ServerStats", "VerishopCluster", "VerishopRayError"]
