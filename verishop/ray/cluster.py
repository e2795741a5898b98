"""`VerishopCluster`: start one shop per node and the curriculum (on the driver), open episodes
and read their rewards (from any Ray worker or task).

    shop = VerishopCluster.start(catalog=CatalogSpec.build(seed=0, size=50_000), runs_dir="/data/verishop")

    @ray.remote
    def rollout(shop: VerishopCluster, seed: int) -> float:
        episode = shop.open_episode(collection="C8", seed=seed)  # on this task's node
        ...  # the agent plays at episode.mcp_url
        return shop.reward(episode)["total"]

The object is small and picklable: it names the actors (by namespace), and a task looks them up
by name. It remembers each node's endpoint in the process that uses it, never in the pickle.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from verishop.agents.client import EpisodeInfo
from verishop.scenarios.envs import collection as collection_members
from verishop.scenarios.envs import get_env
from verishop.ray.catalog import CatalogSpec, ship_from_driver
from verishop.ray.curriculum import curriculum_actor, start_curriculum
from verishop.ray.errors import (CatalogMismatch, NoServer, RewardTimeout, ServerCrashed, ServerStartFailed,
                                 VerishopRayError)
from verishop.ray.server import ServerEndpoint, ServerStats, ShopServer, server_name

DEFAULT_NAMESPACE = "verishop"
CURRICULUM_FILE = "curriculum.db"
START_TIMEOUT_S = 300.0  # a server builds its node's catalog first: seconds at the default size
CALL_TIMEOUT_S = 30.0
REWARD_TIMEOUT_S = 60.0
REWARD_POLL_S = 0.05
SERVER_RESTARTS = 3  # a server that crashes comes back on its node, which then closes what it had open


@dataclass(frozen=True)
class EpisodeHandle(EpisodeInfo):
    """An open episode: where the agent plays it and what it is told (`verishop.agents.client`'s fields,
    `run_dir` on the file system of `node_id`), plus the node that holds it. Picklable. It is
    the trainer's: `seed` and `run_dir` lead to the hidden goal, so only `mcp_url`,
    `system_prompt` and `opening_message` are for the agent."""

    node_id: str = ""  # the node whose server holds the episode
    """The Ray node whose shop server holds the episode."""
    curriculum_window: tuple[int, int] | None = None
    """The environment's difficulty window `[l, h]` when the curriculum chose the difficulty."""


class VerishopCluster:
    """The handle on a cluster's shops and curriculum (see the module docstring).

    `start`, `heal` and `shutdown` belong to the driver; `open_episode`, `reward`,
    `close_episode` and `status` work from any worker."""

    def __init__(self, runs_dir: Path, catalog: CatalogSpec, namespace: str = DEFAULT_NAMESPACE):
        self.runs_dir = Path(runs_dir)
        self.catalog = catalog
        self.namespace = namespace
        self._endpoints: dict[str, ServerEndpoint] = {}
        self._http: httpx2.Client | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"runs_dir": self.runs_dir, "catalog": self.catalog, "namespace": self.namespace}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)

    # --- the driver -------------------------------------------------------------------------

    @classmethod
    def start(cls, catalog: CatalogSpec | Path | str, runs_dir: Path | str, *, namespace: str = DEFAULT_NAMESPACE,
              curriculum_params: dict[str, float | None] | None = None,
              timeout_s: float = START_TIMEOUT_S) -> VerishopCluster:
        """Start the curriculum on this (the driver's) node, then one shop server on every alive
        node, and wait until all answer. Servers and curriculum already running (a restarted
        driver) are reused. A plain path is `CatalogSpec.shipped(path)`: the driver's file (an
        imported catalog, say) goes to every node through the object store. The catalog's content
        hash is fixed first: from the file when a path is given, else from the first server's
        build, and every node must match it."""
        if not ray.is_initialized():
            raise VerishopRayError("connect to the cluster first: ray.init(address=...)")
        spec = catalog if isinstance(catalog, CatalogSpec) else CatalogSpec.shipped(catalog)
        if spec.path is not None and spec.shipment is None:
            spec = ship_from_driver(spec)  # the driver's node has the file too
        here = ray.get_runtime_context().get_node_id()
        runs = Path(runs_dir).resolve()
        curriculum = start_curriculum(runs / CURRICULUM_FILE, here, namespace, curriculum_params)
        ray.get(curriculum.counts.remote(), timeout=timeout_s)
        first = None
        if spec.content_hash is None:  # a build: the driver's node says what everyone must match
            nodes = alive_nodes()
            node = here if here in nodes else nodes[0]
            first = _start_server(node, runs, spec, namespace)
            spec = spec.expecting(_wait_started({node: first}, timeout_s)[node])
        shop = cls(runs, spec, namespace)
        try:
            shop.heal(timeout_s=timeout_s)
        except BaseException:
            if first is not None:
                ray.kill(first, no_restart=True)
            raise
        shop._check_catalogs()  # servers a previous driver started must serve the same catalog
        return shop

    def heal(self, *, timeout_s: float = START_TIMEOUT_S) -> list[str]:
        """Start a server on every alive node that has none (after a kill, or a node joined);
        the node ids started. A replacement closes the episodes its predecessor left open
        (`server_crashed`), and its verifier scores them."""
        missing = [node for node in alive_nodes() if self._server(node) is None]
        started = {node: _start_server(node, self.runs_dir, self.catalog, self.namespace) for node in missing}
        _wait_started(started, timeout_s, expected_hash=self.catalog.content_hash)
        self._endpoints.clear()
        return missing

    def servers(self) -> dict[str, ray.actor.ActorHandle]:
        """The live server actor of each alive node that has one."""
        return {node: handle for node in alive_nodes() if (handle := self._server(node)) is not None}

    def stats(self) -> list[ServerStats]:
        """Each live server's start-up times, memory and counters."""
        return ray.get([handle.stats.remote() for handle in self.servers().values()], timeout=CALL_TIMEOUT_S)

    def curriculum(self) -> dict[str, Any]:
        """The curriculum's parameters, windows and counters (as GET /curriculum)."""
        return ray.get(curriculum_actor(self.namespace).snapshot.remote(), timeout=CALL_TIMEOUT_S)

    def shutdown(self, *, keep_curriculum: bool = True) -> None:
        """Stop every server (open episodes close as server_stopped). The curriculum actor stays
        unless told otherwise: its file keeps the state either way."""
        handles = list(self.servers().values())
        for handle in handles:
            try:
                ray.get(handle.stop.remote(), timeout=CALL_TIMEOUT_S)
            except ray.exceptions.RayError:
                pass  # already dead: killing it below is all that is left
            ray.kill(handle, no_restart=True)
        if not keep_curriculum:
            ray.kill(curriculum_actor(self.namespace), no_restart=True)
        if self._http is not None:
            self._http.close()
            self._http = None

    # --- any worker ---------------------------------------------------------------------------

    def open_episode(self, *, collection: str | None = None, env: str | None = None, difficulty: int | None = None,
                     seed: int | None = None, split: str | None = None) -> EpisodeHandle:
        """Open an episode on this worker's node (another node's if this one has no server).
        Without `difficulty` the curriculum chooses the environment and the difficulty. With
        `split` (train, dev, test) the seed is the episode's index in that split."""
        if env and collection:
            raise ValueError("give either env or collection, not both")
        seed = seed if seed is not None else secrets.randbelow(2**31)
        body: dict[str, Any] = {"seed": seed, **({"split": split} if split else {})}
        window = None
        if difficulty is None:
            candidates = (tuple(s.env_id for s in collection_members(collection)) if collection
                          else (get_env(env or "pd").env_id,))
            # The actor records what it assigned; that record, not anything in the request, is
            # what makes the episode count for the curriculum once scored.
            chosen_env, difficulty, window = ray.get(
                curriculum_actor(self.namespace).choose.remote(candidates, seed, split), timeout=CALL_TIMEOUT_S)
            body.update(env=chosen_env, difficulty=difficulty)
        else:
            body.update({"collection": collection} if collection else {"env": env or "pd"}, difficulty=difficulty)
        here = ray.get_runtime_context().get_node_id()
        for endpoint in self._endpoints_to_try(here, seed):
            try:
                response = self._client().post(f"{endpoint.shop_url}/episodes", json=body,
                                               headers=_bearer(endpoint.token))
            except httpx2.TransportError:
                self._endpoints.pop(endpoint.node_id, None)  # died since we looked: try the next node
                continue
            if response.status_code != 201:
                raise VerishopRayError(f"POST /episodes on node {endpoint.node_id[:12]}: HTTP "
                                       f"{response.status_code}: {response.text[:300]}")
            payload = response.json()
            return EpisodeHandle(
                payload["episode_id"], payload["env_id"], payload["difficulty"], payload["seed"], payload["mcp_url"],
                payload["system_prompt"], payload["opening_message"], payload["max_turns"], payload["run_dir"],
                endpoint.node_id, tuple(window) if window else None)
        raise NoServer("no alive node runs a verishop server; on the driver: VerishopCluster.heal()")

    def status(self, episode: EpisodeHandle) -> dict[str, Any]:
        """GET /episodes/<id>: open or closed, and why. Raises ServerCrashed if its server is gone."""
        return self._episode_request("GET", episode)

    def close_episode(self, episode: EpisodeHandle) -> str:
        """Close the episode (its files become final, the verifier scores it); why it closed."""
        return self._episode_request("DELETE", episode)["close_reason"]

    def reward(self, episode: EpisodeHandle, *, timeout_s: float = REWARD_TIMEOUT_S) -> dict[str, Any]:
        """The episode's reward.json, once its node's verifier has scored it (close it first, or
        let the agent finish it). Raises RewardTimeout after `timeout_s`, ServerCrashed if the
        episode's server is gone and no replacement has scored it."""
        deadline = time.monotonic() + timeout_s
        while True:
            endpoint = self._endpoint_or_crash(episode)
            try:
                response = self._client().get(f"{endpoint.verifier_url}/rewards/{episode.episode_id}",
                                              headers=_bearer(endpoint.token))
            except httpx2.TransportError as exc:
                # Next time round asks the node's actor again: a replacement, or ServerCrashed.
                self._endpoints.pop(episode.node_id, None)
                if time.monotonic() > deadline:
                    raise ServerCrashed(episode.episode_id, episode.node_id, repr(exc)) from exc
            else:
                if response.status_code == 200:
                    return response.json()
                if response.status_code != 404:
                    raise VerishopRayError(f"GET /rewards/{episode.episode_id}: HTTP {response.status_code}: "
                                           f"{response.text[:300]}")
                if time.monotonic() > deadline:
                    raise RewardTimeout(f"no reward for {episode.episode_id} on node {episode.node_id[:12]} "
                                        f"within {timeout_s:g} s (its status: {self.status(episode).get('status')})")
            time.sleep(REWARD_POLL_S)

    # --- inside ---------------------------------------------------------------------------------

    def _check_catalogs(self) -> None:
        servers = self.servers()
        hashes = ray.get([handle.catalog_hash.remote() for handle in servers.values()], timeout=CALL_TIMEOUT_S)
        for node_id, found in zip(servers, hashes):
            if found != self.catalog.content_hash:
                raise CatalogMismatch(f"node {node_id[:12]}: its running server serves catalog {found[:16]}…, not "
                                      f"{str(self.catalog.content_hash)[:16]}…; VerishopCluster.shutdown() first")

    def _episode_request(self, method: str, episode: EpisodeHandle) -> dict[str, Any]:
        for attempt in range(2):  # the remembered endpoint, then the node's current server once
            endpoint = self._endpoint_or_crash(episode)
            try:
                response = self._client().request(method, f"{endpoint.shop_url}/episodes/{episode.episode_id}",
                                                  headers=_bearer(endpoint.token))
                break
            except httpx2.TransportError as exc:
                self._endpoints.pop(episode.node_id, None)
                if attempt == 1 or self._endpoint(episode.node_id) is None:
                    raise ServerCrashed(episode.episode_id, episode.node_id, repr(exc)) from exc
        if response.status_code != 200:
            raise VerishopRayError(f"{method} /episodes/{episode.episode_id}: HTTP {response.status_code}: "
                                   f"{response.text[:300]}")
        return response.json()

    def _endpoint_or_crash(self, episode: EpisodeHandle) -> ServerEndpoint:
        endpoint = self._endpoint(episode.node_id)
        if endpoint is None:
            raise ServerCrashed(episode.episode_id, episode.node_id, "no server actor on that node")
        return endpoint

    def _server(self, node_id: str) -> ray.actor.ActorHandle | None:
        try:
            return ray.get_actor(server_name(node_id), namespace=self.namespace)
        except ValueError:
            return None

    def _endpoint(self, node_id: str) -> ServerEndpoint | None:
        """The node's server endpoint (remembered), or None if it has no live server."""
        if node_id in self._endpoints:
            return self._endpoints[node_id]
        handle = self._server(node_id)
        if handle is None:
            return None
        try:
            endpoint = ray.get(handle.endpoint.remote(), timeout=CALL_TIMEOUT_S)
        except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
            return None
        self._endpoints[node_id] = endpoint
        return endpoint

    def _endpoints_to_try(self, here: str, seed: int) -> Iterator[ServerEndpoint]:
        """This node's server first, then the other nodes' in turn, starting from one the seed
        picks (so the episodes of a node without a server spread over the rest, even when
        every task opens a single episode)."""
        endpoint = self._endpoint(here)
        if endpoint is not None:
            yield endpoint
        others = [node for node in alive_nodes() if node != here]
        if not others:
            return
        start = seed % len(others)
        for node in others[start:] + others[:start]:
            if (endpoint := self._endpoint(node)) is not None:
                yield endpoint

    def _client(self) -> httpx2.Client:
        if self._http is None:
            self._http = httpx2.Client(timeout=CALL_TIMEOUT_S)
        return self._http


def alive_nodes() -> list[str]:
    """Node ids of the alive nodes, in a stable order."""
    return sorted(node["NodeID"] for node in ray.nodes() if node["Alive"])


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _start_server(node_id: str, runs_dir: Path, catalog: CatalogSpec, namespace: str) -> ray.actor.ActorHandle:
    """The server actor of `node_id`, created there (and only there) if it is not running."""
    return ray.remote(ShopServer).options(
        name=server_name(node_id), namespace=namespace, get_if_exists=True, lifetime="detached",
        max_restarts=SERVER_RESTARTS, num_cpus=0,
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
    ).remote(node_id, str(runs_dir), catalog, namespace)


def _wait_started(handles: dict[str, ray.actor.ActorHandle], timeout_s: float,
                  expected_hash: str | None = None) -> dict[str, str]:
    """Wait until every server answers; the catalog hash each serves. A server's failure to
    start is raised as the error it hit (CatalogMismatch, ServerStartFailed), naming its node."""
    hashes = {}
    try:
        for node_id, handle in handles.items():
            try:
                found = ray.get(handle.catalog_hash.remote(), timeout=timeout_s)
            except ray.exceptions.RayActorError as exc:
                raise _start_error(node_id, exc) from None
            if expected_hash is not None and found != expected_hash:  # a server from an earlier start
                raise CatalogMismatch(f"node {node_id[:12]}: its running server serves catalog {found[:16]}…, "
                                      f"not {expected_hash[:16]}…; shut the cluster's servers down first")
            hashes[node_id] = found
    except BaseException:
        for handle in handles.values():  # all or none: no half-started cluster left behind
            ray.kill(handle, no_restart=True)
        raise
    return hashes


def _start_error(node_id: str, exc: Exception) -> VerishopRayError:
    text = str(exc)
    for kind in (CatalogMismatch, ServerStartFailed):
        marker = f"{kind.__name__}: "
        if marker in text:
            return kind(f"node {node_id[:12]}: " + text[text.rindex(marker) + len(marker):].strip())
    return ServerStartFailed(f"node {node_id[:12]}: the server actor died while starting: {text}")
