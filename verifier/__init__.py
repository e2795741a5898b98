"""The verifier: recomputes an episode's reward from its files and the catalog, trusting
nothing the server computed. It never imports `mcp_server`.

    files.py          load + cross-check scenario.json, transcript.jsonl, world.db, catalog
      safeio.py       regular files only, size caps, JSON depth cap, no writes through links
      transcript.py   strict JSON Lines reading        world.py   read-only world.db
      catalogs.py     shared catalogs + per-episode product lookup
    checks/           r_task per goal kind (pd, cart; registry in checks/__init__.py)
    efficiency.py     r_eff and tool-use counts        hallucination.py   r_hall
    safety.py         denied-category hard fail        reward.py  composition -> Reward
    runner.py         score directories, write reward.json, process pool
    cli.py            `verishop verify`, `verishop verifier serve`   service.py  the sidecar
    compare.py        `verify --compare`: re-score, list what changed and why (the manifests)
    curriculum.py     which scored episodes feed the curriculum (only its own, played ones)
    access.py         the sidecar's exact Host/Origin matching and bearer token

Exceptions (verifier.errors):

    VerifierError
    ├── Incomplete        an episode cannot be scored: reward.json with verdict "incomplete"
    │   ├── NotClosed     no episode_closed event (yet)
    │   └── Unsafe        a file refused unread: a link, FIFO or device, over its size cap,
    │                     or JSON nested past the depth cap
    └── UsageError        bad input from the caller (no such directory, bad weights)

Two deliberate departures from docs/ecomrlve-reference.md, both rescaling a penalty that
the reference defines on [−1, 0] to [−1, 1], so that a clean answer earns full marks:
- r_hall = 1 − 2·(hallucinated/used) instead of −(share hallucinated). With −share a clean
  agent gets 0, and an oracle's mean total could not exceed 0.9 (the issue requires > 0.9).
- PD r_oos = 1 − 2·(share out of stock) instead of −share. With −share a perfect PD answer
  has r_task = 0.55 + 0.35 + 0 = 0.9, and is_correct (r_task ≥ 0.95) could never hold.
"""

from verishop.verifier.models import Reward, Weights
from verishop.verifier.runner import Settings, Verifier, verify_many

__all__ = ["Reward", "Settings", "Verifier", "Weights", "verify_many"]
