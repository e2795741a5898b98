"""What `verishop.ray` raises. Every error says which node or episode it is about.

    VerishopRayError
    ├── CatalogMismatch     a node's catalog is not the one the driver expects (content hash)
    ├── ServerStartFailed   a node's shop or verifier did not come up (its log's tail attached)
    ├── NoServer            no node has a live shop server to open an episode on
    ├── ServerCrashed       the server holding an episode died; the episode ends as server_crashed
    └── RewardTimeout       the verifier had not scored the episode by the deadline
"""

from __future__ import annotations


class VerishopRayError(Exception):
    """Base of every verishop.ray error."""


class CatalogMismatch(VerishopRayError):
    """A node built or found a catalog whose content hash differs from the expected one."""


class ServerStartFailed(VerishopRayError):
    """A node's shop subprocess or verifier did not become healthy."""


class NoServer(VerishopRayError):
    """No alive node runs a shop server."""


class ServerCrashed(VerishopRayError):
    """The server of an episode is gone: the episode is over (closed as `server_crashed` when a
    replacement server starts on that node, and then scored from its files)."""

    def __init__(self, episode_id: str, node_id: str, detail: str):
        super().__init__(f"episode {episode_id}: its server on node {node_id[:12]} is gone ({detail}); the "
                         f"episode ends as server_crashed once a server runs on that node again "
                         f"(VerishopCluster.heal())")
        self.episode_id = episode_id
        self.node_id = node_id


class RewardTimeout(VerishopRayError):
    """No reward.json within the deadline."""
