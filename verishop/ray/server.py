"""One shop per node: the server actor, pinned to its node, and what it runs.

    ShopServer (Ray actor, one per node, named verishop-server-<node id>)
    ├── `verishop serve --transport http` subprocess on the node's address, with a control token;
    │   killed by the kernel if the actor dies (processes.spawn_bound_to_me)
    └── the verifier sidecar, in the actor's process on a thread of its own: scores each episode
        of the node's runs folder as it closes, serves GET /rewards/<id>, and records every
        scored episode with the curriculum actor

The verifier runs in-process (not as `verishop verifier serve`) because its `on_scored` hook
must reach the curriculum actor, which only a Ray worker can call. Scored episodes reach the
curriculum at least once, and the curriculum counts each once:
- as each is scored, through the hook (the actor call is retried by Ray across curriculum restarts);
- when a server starts, it replays every reward.json already in its runs folder, so an episode
  scored just before its server died is still counted.

A server restarted on the same node (Ray's max_restarts, or `VerishopCluster.heal`) reuses the
node's folder: its shop closes what the dead one left open (reason `server_crashed`) and its
verifier scores those episodes.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import ray
import uvicorn

from verishop.scenarios.curriculum_store import EnvState
from verishop.scenarios.seal import KEY_DIR
from verishop.verifier.access import Access, allowed_hosts
from verishop.verifier.curriculum import CurriculumFeed, counts_for_curriculum
from verishop.verifier.errors import Incomplete
from verishop.verifier.files import REWARD_FILE
from verishop.verifier.runner import Settings
from verishop.verifier.safeio import Limits, episode_folder, read_regular
from verishop.verifier.service import VerifierService, create_app
from verishop.ray.catalog import CatalogSpec, node_catalog
from verishop.ray.curriculum import Scored, curriculum_actor
from verishop.ray.errors import ServerStartFailed
from verishop.ray.processes import (EXIT_USAGE, PORT_ATTEMPTS, free_port, serve_command,
                                    spawn_bound_to_me, stop, wait_healthy)

log = logging.getLogger("verishop.ray.server")

SERVER_NAME_PREFIX = "verishop-server-"
EPISODES_DIR = "episodes"
FEED_TIMEOUT_S = 60.0
REPLAY_BATCH = 500


def server_name(node_id: str) -> str:
    return SERVER_NAME_PREFIX + node_id


def node_folder(runs_dir: Path, node_id: str) -> Path:
    """A node's own folder under the runs folder (the same path on every machine, one folder
    per node, so a shared file system works too)."""
    return runs_dir / f"node-{node_id[:16]}"


@dataclass(frozen=True)
class ServerEndpoint:
    """How a client on any node reaches one node's shop and verifier."""

    node_id: str
    shop_url: str
    verifier_url: str
    token: str  # the control API's and the sidecar's bearer token


@dataclass(frozen=True)
class ServerStats:
    """What one node's server reports (`VerishopCluster.stats`)."""

    node_id: str
    """The Ray node."""
    start_s: float  # the actor's __init__: catalog, replay, verifier, shop healthy
    """Seconds the server took to start: catalog, reward replay, verifier, shop answering."""
    catalog_s: float
    """Seconds spent getting the catalog (receiving, building or checking it)."""
    actor_rss_mib: float
    """Resident memory of the server actor (with its verifier thread)."""
    shop_rss_mib: float
    """Resident memory of the `verishop serve` subprocess."""
    scored: int  # by this server's verifier since it started
    """Episodes its verifier scored since it started."""
    replayed: int  # rewards found on disk at start and sent to the curriculum
    """Rewards found on disk at start and sent to the curriculum (which counts each once)."""
    feed_failures: int
    """Rewards it could not record with the curriculum."""
    catalog_path: str = ""
    """The catalog file it serves on its node (a shipped catalog: its copy in the node's folder)."""


class RemoteCurriculum:
    """The curriculum actor as `CurriculumFeed` expects a store (one blocking `record`)."""

    def __init__(self, namespace: str):
        self.namespace = namespace
        self.failures = 0

    def record(self, episode_id: str, env_id: str, difficulty: int, solved: bool, *, seed: int) -> EnvState | None:
        """Count one episode with the curriculum actor. Returns None: the windows live there,
        and the feed logs nothing for this node."""
        try:
            ray.get(curriculum_actor(self.namespace).record.remote([Scored(episode_id, env_id, difficulty, solved, seed)]),
                    timeout=FEED_TIMEOUT_S)
        except Exception:
            self.failures += 1  # the next start's replay sends it again
            raise
        return None


class VerifierThread:
    """`VerifierService` and its HTTP app, served by uvicorn on a thread of this process."""

    def __init__(self, runs_dir: Path, catalog: Path, host: str, token: str, curriculum: RemoteCurriculum,
                 seal_keys: Path):
        # The shop's seal keys live in its VERISHOP_HOME, beside the runs folder (ShopServer._start_shop).
        self.service = VerifierService(runs_dir, Settings(catalog=catalog, seal_keys=(seal_keys,)))
        # The curriculum actor assigned the episode before the shop opened it: the actor's own
        # record decides what counts, not a mark in the transcript.
        self.service.on_scored.append(CurriculumFeed(curriculum, marked_by_server=False))  # type: ignore[arg-type]
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, 0))  # bound here, so no other process can take the port
        port = self.socket.getsockname()[1]
        self.url = f"http://{_url_host(host)}:{port}"
        app = create_app(self.service, Access(allowed_hosts(host, port), token))
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                       name="verishop-verifier", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()


class ShopServer:
    """The Ray actor holding one node's shop and verifier (see the module docstring). All the
    work happens in `__init__`, so a restart by Ray brings up a complete server again."""

    def __init__(self, node_id: str, runs_dir: str, catalog: CatalogSpec, namespace: str):
        began = time.monotonic()
        self.node_id = node_id
        self.folder = node_folder(Path(runs_dir), node_id)
        self.runs = self.folder / EPISODES_DIR
        self.runs.mkdir(parents=True, exist_ok=True)
        self.catalog, self.content_hash = node_catalog(catalog, self.folder)
        self.catalog_s = time.monotonic() - began
        self.host = ray.util.get_node_ip_address()
        self.token = secrets.token_urlsafe(24)
        self.curriculum = RemoteCurriculum(namespace)
        self.replayed = self._replay_rewards()
        self.verifier = VerifierThread(self.runs, self.catalog, self.host, self.token, self.curriculum,
                                       self.folder / "home" / KEY_DIR)
        self.log_path = self.folder / "shop.log"
        try:
            wait_healthy(f"{self.verifier.url}/health", _AliveThread(self.verifier.thread), None)
            self.shop, self.shop_url = self._start_shop()
        except BaseException:
            self.verifier.stop()
            raise
        self.stopping = False
        threading.Thread(target=self._die_with_shop, name="verishop-shop-watch", daemon=True).start()
        self.start_s = time.monotonic() - began

    def _die_with_shop(self) -> None:
        """A shop that exits on its own takes the actor with it, so that clients see one thing
        (the server is gone) and Ray restarts the actor, whose new shop closes the orphaned
        episodes as server_crashed. An actor without its shop would answer but serve nothing."""
        code = self.shop.wait()
        if not self.stopping:
            log.error("the shop on node %s exited with %s; ending the server actor", self.node_id[:12], code)
            os._exit(1)

    def _start_shop(self) -> tuple[subprocess.Popen, str]:
        """The shop subprocess and its URL, once healthy (another port if the one probed was taken)."""
        for attempt in range(PORT_ATTEMPTS):
            port = free_port(self.host)
            env = {**os.environ, "VERISHOP_TOKEN": self.token, "VERISHOP_HOME": str(self.folder / "home")}
            command = serve_command(catalog=self.catalog, catalog_hash=self.content_hash, runs_dir=self.runs,
                                    host=self.host, port=port)
            proc = spawn_bound_to_me(command, self.log_path, env)
            url = f"http://{_url_host(self.host)}:{port}"
            try:
                wait_healthy(f"{url}/health", proc, self.log_path)
                return proc, url
            except ServerStartFailed:
                stop(proc)
                if proc.returncode != EXIT_USAGE or attempt == PORT_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def _replay_rewards(self) -> int:
        """Send every scored reward.json already on disk to the curriculum (it ignores repeats)."""
        batch: list[Scored] = []
        sent = 0
        curriculum = curriculum_actor(self.curriculum.namespace)
        for reward_file in sorted(self.runs.glob(f"*/{REWARD_FILE}")):
            try:  # as the sidecar serves it: a regular file, under the cap, never through a link
                with episode_folder(reward_file.parent) as dir_fd:
                    reward = json.loads(read_regular(REWARD_FILE, "reward", Limits().reward_bytes, dir_fd))
            except (Incomplete, OSError, ValueError):
                continue  # not a reward our verifier wrote (it writes by rename): nothing to count
            if not counts_for_curriculum(reward, marked_by_server=False):
                continue
            batch.append(Scored(reward["episode_id"], reward["env_id"], reward["difficulty"],
                                bool(reward.get("is_correct")), reward["seed"]))
            if len(batch) == REPLAY_BATCH:
                ray.get(curriculum.record.remote(batch), timeout=FEED_TIMEOUT_S)
                sent, batch = sent + len(batch), []
        if batch:
            ray.get(curriculum.record.remote(batch), timeout=FEED_TIMEOUT_S)
            sent += len(batch)
        return sent

    def catalog_hash(self) -> str:
        return self.content_hash

    def endpoint(self) -> ServerEndpoint:
        return ServerEndpoint(self.node_id, self.shop_url, self.verifier.url, self.token)

    def stats(self) -> ServerStats:
        return ServerStats(self.node_id, self.start_s, self.catalog_s, _rss_mib(os.getpid()), _rss_mib(self.shop.pid),
                           self.verifier.service.scored, self.replayed, self.curriculum.failures, str(self.catalog))

    def shop_pid(self) -> int:
        return self.shop.pid

    def stop(self) -> None:
        """Stop the shop (its open episodes close as server_stopped, then get scored) and the verifier."""
        self.stopping = True
        stop(self.shop)
        self.verifier.stop()


class _AliveThread:
    """A thread seen as a process by `wait_healthy` (poll() is None while it runs)."""

    def __init__(self, thread: threading.Thread):
        self.thread, self.returncode = thread, None

    def poll(self) -> int | None:
        if self.thread.is_alive():
            return None
        self.returncode = -1
        return self.returncode


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
