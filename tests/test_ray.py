"""verishop on a real Ray cluster of three nodes on this machine (`make test-ray`; marker `ray`,
not in `make test`): one shop per node, one curriculum actor, episodes opened where the rollout
runs, a server killed mid-run, the curriculum restarted from its file.

Every node binds 127.0.0.1: with RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 Ray takes the loopback
address as the node address (`ray._private.services.get_node_ip_address`); without it the nodes
advertise the machine's interface address, and passing `node_ip_address="127.0.0.1"` to the
nodes alone is not enough (the driver then looks for the GCS on the interface address and hangs).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import sqlite3
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
import pytest

ray = pytest.importorskip("ray")

from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: E402

from verishop.agents.scripted import make_agent  # noqa: E402
from verishop.agents.session import ShopSession  # noqa: E402
from verishop.scenarios.catalog.feeds.run import run_import  # noqa: E402
from verishop.scenarios.catalog.reader import CatalogReader  # noqa: E402
from verishop.scenarios.catalog.shipping import pack_catalog  # noqa: E402
from verishop.scenarios.envs import REGISTRY, generate  # noqa: E402
from verishop.scenarios.models import Scenario  # noqa: E402
from verishop.verifier.curriculum import counts_for_curriculum  # noqa: E402
from verishop.ray import (CatalogMismatch, CatalogSpec, EpisodeHandle, ServerCrashed,  # noqa: E402
                          VerishopCluster)
from verishop.ray.cluster import alive_nodes  # noqa: E402
from verishop.ray.curriculum import curriculum_actor  # noqa: E402
from verishop.ray.server import EPISODES_DIR, node_folder, server_name  # noqa: E402

pytestmark = pytest.mark.ray

NODES = 3
EPISODES = 300
BATCH = 10
COLLECTION = "C8"
DEADLINE_S = 120.0
POLL_S = 0.05
LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
TESTS_DIR = str(Path(__file__).parent)
SHOP = Path(__file__).parent.parent / "examples" / "shop"
T = TypeVar("T")


def wait_until(fn: Callable[[], T], what: str, deadline_s: float = DEADLINE_S) -> T:
    """fn() until it is truthy, for at most `deadline_s`."""
    deadline = time.monotonic() + deadline_s
    while not (value := fn()):
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {deadline_s:g} s (last: {value!r})")
        time.sleep(POLL_S)
    return value


async def play_oracle(episode: EpisodeHandle) -> None:
    """The oracle plays the episode over MCP at its URL (it reads the scenario: this task runs on
    the episode's node, whose files it can read)."""
    scenario = Scenario.model_validate_json(Path(episode.run_dir, "scenario.json").read_text())
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=60.0)) as http:
        async with Client(streamable_http_client(episode.mcp_url, http_client=http)) as mcp:
            await make_agent("oracle", scenario).play(ShopSession(mcp))


def play_one(shop: VerishopCluster, seed: int) -> dict[str, Any]:
    """Open, play, close and score one episode; a crash of its server is reported, not raised."""
    here = ray.get_runtime_context().get_node_id()
    began = time.monotonic()
    episode = shop.open_episode(collection=COLLECTION, seed=seed)
    row = {"episode_id": episode.episode_id, "env_id": episode.env_id, "seed": seed, "task_node": here,
           "episode_node": episode.node_id}
    try:
        anyio.run(play_oracle, episode)
        shop.close_episode(episode)
        reward = shop.reward(episode)
    except Exception as exc:  # noqa: BLE001 - the MCP client's error says little; ask the cluster
        try:
            shop.status(episode)
        except ServerCrashed:
            return {**row, "crashed": True, "episode": episode}
        raise exc
    return {**row, "crashed": False, "verdict": reward["verdict"], "is_correct": reward["is_correct"],
            "episode_s": time.monotonic() - began}


@ray.remote(num_cpus=1, scheduling_strategy="SPREAD")
def play_batch(shop: VerishopCluster, seeds: list[int]) -> list[dict[str, Any]]:
    return [play_one(shop, seed) for seed in seeds]


@ray.remote(num_cpus=0)
def open_unplayed(shop: VerishopCluster, seeds: list[int]) -> list[EpisodeHandle]:
    return [shop.open_episode(collection=COLLECTION, seed=seed) for seed in seeds]


@ray.remote(num_cpus=0)
def after_the_crash(shop: VerishopCluster, episodes: list[EpisodeHandle], seeds: list[int]) -> dict[str, Any]:
    """On the node that lost its server: the open episodes are reported crashed, new ones open elsewhere."""
    reported = []
    for episode in episodes:
        try:
            shop.status(episode)
        except ServerCrashed as exc:
            reported.append(exc.episode_id)
    return {"reported": reported, "played": [play_one(shop, seed) for seed in seeds]}


@ray.remote(num_cpus=0)
class Gate:
    """Lets the driver hold a task at a point, and know that it got there."""

    def __init__(self) -> None:
        self.reached, self.opened = asyncio.Event(), asyncio.Event()

    async def arrive_and_wait(self) -> None:
        self.reached.set()
        await self.opened.wait()

    async def has_arrived(self) -> bool:
        return self.reached.is_set()

    async def open(self) -> None:
        self.opened.set()


@ray.remote(num_cpus=0)
def play_across_the_kill(shop: VerishopCluster, seed: int, gate: Any) -> dict[str, Any]:
    """Open an episode, make its first tool call, wait at the gate (the driver kills the server
    meanwhile), then let the oracle play on: its server is gone, and the cluster says so."""
    episode = shop.open_episode(collection=COLLECTION, seed=seed)
    scenario = Scenario.model_validate_json(Path(episode.run_dir, "scenario.json").read_text())

    async def play() -> None:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(10.0)) as http:
            async with Client(streamable_http_client(episode.mcp_url, http_client=http)) as mcp:
                session = ShopSession(mcp)
                await session.call("get_conversation")
                await gate.arrive_and_wait.remote()
                await make_agent("oracle", scenario).play(session)

    try:
        anyio.run(play)
    except Exception as exc:  # noqa: BLE001 - whatever the MCP client raised, the cluster knows why
        try:
            shop.status(episode)
        except ServerCrashed as crash:
            return {"episode": episode, "reported": crash.episode_id, "client_error": type(exc).__name__}
        raise
    return {"episode": episode, "reported": None}


def is_gone(pid: int) -> bool:
    """The process has exited (a zombie waiting for a reaper counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z"
    except OSError:
        return True


def memory_mib() -> tuple[list[float], float]:
    """Proportional set size (PSS: shared pages split between their users) of each simulated
    node (its raylet and every process under it: workers, actors, the shop), and of the
    cluster-wide processes (GCS, dashboard, …). They all descend from this test process."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(") ", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(pid)

    def tree(pid: int) -> list[int]:
        return [pid, *(p for child in children.get(pid, []) for p in tree(child))]

    def pss(pid: int) -> float:
        try:
            line = next(line for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
                        if line.startswith("Pss:"))
            return int(line.split()[1]) / 1024
        except (OSError, StopIteration):
            return 0.0

    nodes, rest = [], 0.0
    for child in children.get(os.getpid(), []):
        try:
            is_raylet = b"raylet" in Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        size = sum(pss(pid) for pid in tree(child))
        if is_raylet:
            nodes.append(size)
        else:
            rest += size
    return sorted(nodes), rest


def on(node_id: str) -> NodeAffinitySchedulingStrategy:
    return NodeAffinitySchedulingStrategy(node_id, soft=False)


def scored_on_disk(runs_dir: Path) -> Counter[str]:
    """Episodes the curriculum must count per environment, from every node's reward.json files:
    the ground truth (scored, chosen by the curriculum and played: docs/training.md (the curriculum learns only from its own episodes))."""
    # What the curriculum actor assigned (its own record): only those count, each (env, d, seed) once.
    with contextlib.closing(sqlite3.connect(runs_dir / "curriculum.db")) as db:
        assigned = set(db.execute("SELECT env_id, difficulty, seed FROM assignments"))
    counts: Counter[str] = Counter()
    seen: set[tuple[str, int, int]] = set()
    for reward_file in runs_dir.glob(f"node-*/{EPISODES_DIR}/*/reward.json"):
        reward = json.loads(reward_file.read_text())
        triple = (reward["env_id"], reward["difficulty"], reward["seed"])
        if counts_for_curriculum(reward, marked_by_server=False) and triple in assigned and triple not in seen:
            seen.add(triple)
            counts[reward["env_id"]] += 1
    return counts


def curriculum_counts(shop: VerishopCluster) -> Counter[str]:
    return Counter({w["env_id"]: w["episodes"] for w in shop.curriculum()["windows"] if w["episodes"]})


def counts_match_disk(shop: VerishopCluster) -> bool:
    return curriculum_counts(shop) == scored_on_disk(shop.runs_dir)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    # The nodes' workers import this module to run its tasks: they inherit PYTHONPATH.
    env = {**LOOPBACK_ENV, "PYTHONPATH": os.pathsep.join(filter(None, [TESTS_DIR, os.environ.get("PYTHONPATH")]))}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    began = time.monotonic()
    local = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(NODES - 1):
        local.add_node(num_cpus=1)
    ray.init(address=local.address, logging_level="warning")
    local.wait_for_nodes()
    print(f"\nverishop-ray: {NODES}-node cluster up in {time.monotonic() - began:.1f} s")
    try:
        yield local
    finally:
        ray.shutdown()
        local.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def shop(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VerishopCluster]:
    from conftest import CATALOG_SEED, CATALOG_SIZE

    runs = tmp_path_factory.mktemp("ray-runs")
    began = time.monotonic()
    shop = VerishopCluster.start(CatalogSpec.build(seed=CATALOG_SEED, size=CATALOG_SIZE), runs)
    print(f"verishop-ray: curriculum + {NODES} servers (each building a {CATALOG_SIZE}-product catalog) "
          f"started in {time.monotonic() - began:.1f} s")
    for stats in shop.stats():
        print(f"verishop-ray: node {stats.node_id[:8]}: server start {stats.start_s:.2f} s (catalog "
              f"{stats.catalog_s:.2f} s), actor RSS {stats.actor_rss_mib:.0f} MiB, shop RSS "
              f"{stats.shop_rss_mib:.0f} MiB")
    try:
        yield shop
    finally:
        shop.shutdown(keep_curriculum=False)


def test_a_node_whose_catalog_differs_from_the_drivers_refuses_to_serve(cluster: Cluster, catalog_path: Path,
                                                                         tmp_path: Path):
    wrong = CatalogSpec.at(catalog_path, content_hash="0" * 64)
    with pytest.raises(CatalogMismatch, match="content hash .* the driver expects 0000000000000000"):
        VerishopCluster.start(wrong, tmp_path, namespace="verishop-mismatch")
    wait_until(lambda: not VerishopCluster(tmp_path, wrong, "verishop-mismatch").servers(),
               "the refused servers to be gone")
    ray.kill(curriculum_actor("verishop-mismatch"), no_restart=True)


@pytest.fixture(scope="module")
def imported_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shop imported from the Shopify sample (its own taxonomy, policy and content hash), in a
    folder of the driver's: the nodes get it from the driver, not from this path."""
    path = tmp_path_factory.mktemp("imported") / "shop.db"
    run_import([SHOP / "shopify.csv"], path, policy=SHOP / "policy.yaml")
    return path


@ray.remote(num_cpus=0)
def scenarios_here(shop: VerishopCluster, requests: list[tuple[str, int, int]]) -> dict[str, Any]:
    """On one node: open each (env, difficulty, seed), keep its scenario.json's bytes; play one."""
    episodes = [shop.open_episode(env=env, difficulty=d, seed=seed) for env, d, seed in requests]
    texts = [Path(episode.run_dir, "scenario.json").read_bytes() for episode in episodes]
    anyio.run(play_oracle, episodes[0])
    for episode in episodes[1:]:
        shop.close_episode(episode)
    reward = shop.reward(episodes[0])
    return {"node": ray.get_runtime_context().get_node_id(), "episode_nodes": {e.node_id for e in episodes},
            "scenarios": texts, "oracle_correct": reward["is_correct"]}


def test_a_cluster_started_with_an_imported_catalog_serves_exactly_it_on_every_node(cluster: Cluster,
                                                                                    imported_catalog: Path,
                                                                                    tmp_path: Path):
    with CatalogReader(imported_catalog) as reader:
        expected_hash = reader.meta["content_hash"]
        requests = [(env, 6, 21 + n) for n, env in enumerate(REGISTRY)]
        local = [generate(env, d, seed, reader).to_json().encode() for env, d, seed in requests]
    began = time.monotonic()
    shop = VerishopCluster.start(imported_catalog, tmp_path, namespace="verishop-imported")
    started_s = time.monotonic() - began
    try:
        assert shop.catalog.content_hash == expected_hash
        stats = shop.stats()
        assert {s.node_id for s in stats} == set(alive_nodes())
        for s in stats:  # each node serves its own copy, the driver's bytes exactly
            served = Path(s.catalog_path)
            assert served.parent == node_folder(tmp_path, s.node_id), s
            assert served.read_bytes() == imported_catalog.read_bytes()
        rows = ray.get([scenarios_here.options(scheduling_strategy=on(node)).remote(shop, requests)
                        for node in alive_nodes()])
        for row in rows:
            assert row["episode_nodes"] == {row["node"]} and row["oracle_correct"] is True, row["node"]
            assert row["scenarios"] == local  # byte-identical on every node, and to the driver's
        print(f"verishop-ray: imported catalog ({imported_catalog.stat().st_size / 1024:.0f} KiB) shipped to "
              f"{NODES} nodes, servers up in {started_s:.1f} s (catalog received and hashed in "
              f"{', '.join(f'{s.catalog_s:.2f}' for s in stats)} s); {len(requests)} scenarios identical on "
              f"every node")
    finally:
        shop.shutdown(keep_curriculum=False)


def test_a_node_whose_shipped_catalog_differs_refuses_naming_both_hashes(cluster: Cluster, catalog_path: Path,
                                                                         imported_catalog: Path, tmp_path: Path):
    # The generated catalog's bytes, consistently chunked, labelled as the imported one.
    with CatalogReader(imported_catalog) as reader:
        claimed = reader.meta["content_hash"]
    with CatalogReader(catalog_path) as reader:
        actual = reader.meta["content_hash"]
    forged = dataclasses.replace(pack_catalog(catalog_path, ray.put), content_hash=claimed)
    spec = CatalogSpec.shipped(imported_catalog).with_shipment(forged)
    with pytest.raises(CatalogMismatch) as refused:
        VerishopCluster.start(spec, tmp_path, namespace="verishop-forged")
    assert actual[:16] in str(refused.value) and claimed[:16] in str(refused.value)
    print(f"verishop-ray: a shipped catalog that hashes differently is refused: {refused.value}")
    wait_until(lambda: not VerishopCluster(tmp_path, spec, "verishop-forged").servers(),
               "the refused servers to be gone")
    assert not list(tmp_path.glob("node-*/*.db"))  # no node kept the wrong catalog
    ray.kill(curriculum_actor("verishop-forged"), no_restart=True)


def test_300_episodes_spread_over_every_node_and_each_is_counted_once(shop: VerishopCluster):
    # The baseline, in the same run: one task alone on one node (its worker warmed up first).
    alone = ray.get(play_batch.remote(shop, list(range(EPISODES, EPISODES + BATCH))))
    alone_rate = (len(alone) - 1) / sum(row["episode_s"] for row in alone[1:])  # the first one imports

    began = time.monotonic()
    batches = [list(range(start, start + BATCH)) for start in range(0, EPISODES, BATCH)]
    rows = [row for batch in ray.get([play_batch.remote(shop, seeds) for seeds in batches]) for row in batch]
    elapsed_s = time.monotonic() - began

    assert len(rows) == EPISODES and not any(row["crashed"] for row in rows)
    assert all(row["verdict"] == "scored" and row["is_correct"] for row in rows), \
        [row for row in rows if not row["is_correct"]][:3]
    assert all(row["episode_node"] == row["task_node"] for row in rows)  # opened where the rollout ran
    per_node = Counter(row["episode_node"] for row in rows)
    assert set(per_node) == set(alive_nodes())

    expected = Counter(row["env_id"] for row in rows + alone)
    wait_until(lambda: curriculum_counts(shop) == expected, "the curriculum to count every scored episode")
    assert sum(curriculum_counts(shop).values()) == EPISODES + BATCH
    rate = EPISODES / elapsed_s
    print(f"verishop-ray: {EPISODES} oracle episodes ({COLLECTION}, curriculum-chosen) in {elapsed_s:.1f} s = "
          f"{rate:.1f} episodes/s over {NODES} nodes ({rate / alone_rate:.2f}x one task alone: "
          f"{alone_rate:.1f}/s); episode p50 {statistics.median(row['episode_s'] for row in rows) * 1000:.0f} ms "
          f"(alone {statistics.median(row['episode_s'] for row in alone[1:]) * 1000:.0f} ms); per node "
          f"{sorted(per_node.values())}; per env {dict(sorted(expected.items()))}")

    nodes_mib, cluster_mib = memory_mib()
    print(f"verishop-ray: memory (PSS) per node {', '.join(f'{m:.0f}' for m in nodes_mib)} MiB (raylet, workers, "
          f"server actor, shop); cluster-wide processes {cluster_mib:.0f} MiB")

    # Re-verifying an episode rewrites its reward but never counts it twice.
    first = next(row for row in rows)
    endpoint = ray.get(ray.get_actor(server_name(first["episode_node"]), namespace=shop.namespace)
                       .endpoint.remote())
    again = httpx2.post(f"{endpoint.verifier_url}/verify/{first['episode_id']}",
                        headers={"authorization": f"Bearer {endpoint.token}"}, timeout=30)
    assert again.status_code == 200 and again.json()["is_correct"] is True
    assert curriculum_counts(shop) == expected


def test_a_killed_server_ends_its_episodes_as_crashed_and_new_ones_go_elsewhere(shop: VerishopCluster):
    here = ray.get_runtime_context().get_node_id()  # the driver's node holds the curriculum
    victim = next(node for node in alive_nodes() if node != here)
    before = curriculum_counts(shop)
    stranded = ray.get(open_unplayed.options(scheduling_strategy=on(victim)).remote(shop, [10_000, 10_001, 10_002]))
    assert {episode.node_id for episode in stranded} == {victim}

    gate = Gate.remote()
    in_play = play_across_the_kill.options(scheduling_strategy=on(victim)).remote(shop, 10_003, gate)
    wait_until(lambda: ray.get(gate.has_arrived.remote()), "an episode on the victim's node to be in play")

    # Mid-run: batches keep playing on every node while the victim's server is killed; the
    # kernel kills its shop subprocess with it.
    victim_episodes = node_folder(shop.runs_dir, victim) / EPISODES_DIR
    opened_before = len(list(victim_episodes.iterdir()))
    running = [play_batch.remote(shop, list(range(start, start + 5))) for start in range(20_000, 20_030, 5)]
    wait_until(lambda: len(list(victim_episodes.iterdir())) > opened_before,
               "a batch to open an episode on the victim's node")
    server = ray.get_actor(server_name(victim), namespace=shop.namespace)
    shop_pid = ray.get(server.shop_pid.remote())
    ray.kill(server, no_restart=True)
    wait_until(lambda: victim not in shop.servers(), "the killed server to be gone")
    wait_until(lambda: is_gone(shop_pid), "the killed server's shop subprocess to die with it")
    gate.open.remote()
    crossed = ray.get(in_play)
    assert crossed["reported"] == crossed["episode"].episode_id, crossed
    stranded.append(crossed["episode"])
    rows = [row for batch in ray.get(running) for row in batch]
    crashed = [row for row in rows if row["crashed"]]
    assert all(row["episode_node"] == victim for row in crashed)
    assert all(row["verdict"] == "scored" for row in rows if not row["crashed"])

    after = ray.get(after_the_crash.options(scheduling_strategy=on(victim))
                    .remote(shop, stranded, list(range(30_000, 30_005))))
    assert sorted(after["reported"]) == sorted(episode.episode_id for episode in stranded)  # the in-play one too
    assert all(row["verdict"] == "scored" for row in after["played"])
    assert {row["episode_node"] for row in after["played"]} == set(alive_nodes()) - {victim}  # spread by seed

    # The curriculum lost nothing: it still has every count, and counts each scored episode.
    now = wait_until(lambda: counts_match_disk(shop) and curriculum_counts(shop), "the curriculum to catch up")
    assert all(now[env] >= count for env, count in before.items())

    # A replacement on the victim's node closes what was left open as server_crashed; its
    # verifier scores those episodes, and the counts still match the rewards on disk.
    scored_there = sum(json.loads(f.read_text())["verdict"] == "scored" for f in victim_episodes.glob("*/reward.json"))
    assert shop.heal() == [victim]
    replacement = next(stats for stats in shop.stats() if stats.node_id == victim)
    assert replacement.replayed == scored_there  # every reward already there, sent again: none counts twice
    for episode in stranded:
        reward = shop.reward(episode)
        assert reward["close_reason"] == "server_crashed", reward
    for row in crashed:  # closed by the crash or just before it: either way scored now, on the old handle
        assert shop.reward(row["episode"])["verdict"] == "scored"
    wait_until(lambda: counts_match_disk(shop), "the curriculum to count the crashed episodes' rewards")
    print(f"verishop-ray: server killed mid-run: {len(stranded)} open episodes (one in play: its client saw "
          f"{crossed['client_error']}) + {len(crashed)} of the batches' reported crashed; "
          f"{len(after['played'])} new episodes from that node went to other nodes; its replacement started "
          f"in {replacement.start_s:.2f} s and replayed {replacement.replayed} rewards to the curriculum")


def test_a_shop_that_dies_alone_takes_its_actor_along_and_ray_restarts_both(shop: VerishopCluster):
    here = ray.get_runtime_context().get_node_id()
    node = next(node for node in reversed(alive_nodes()) if node != here)
    stranded = ray.get(open_unplayed.options(scheduling_strategy=on(node)).remote(shop, [50_000]))[0]
    server = ray.get_actor(server_name(node), namespace=shop.namespace)
    shop_pid = ray.get(server.shop_pid.remote())
    os.kill(shop_pid, signal.SIGKILL)  # the shop alone, as the kernel's OOM killer would

    def restarted_pid() -> int | None:
        try:
            return ray.get(server.shop_pid.remote(), timeout=5)
        except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
            return None  # between the death and the restart

    wait_until(lambda: (pid := restarted_pid()) is not None and pid != shop_pid, "Ray to restart the server")
    reward = shop.reward(stranded)  # the same handle: the node's new server answers for it
    assert reward["close_reason"] == "server_crashed", reward
    wait_until(lambda: counts_match_disk(shop), "the curriculum to count the restarted node's rewards")


def test_the_curriculum_actor_restarts_from_its_file(shop: VerishopCluster):
    before = shop.curriculum()
    actor = curriculum_actor(shop.namespace)
    pid = ray.get(actor.__ray_call__.remote(lambda self: os.getpid()))
    ray.kill(actor, no_restart=False)
    wait_until(lambda: ray.get(actor.__ray_call__.remote(lambda self: os.getpid())) != pid,
               "the curriculum actor to restart")
    assert shop.curriculum() == before
    row = ray.get(play_batch.remote(shop, [40_000]))[0]
    assert row["verdict"] == "scored"
    wait_until(lambda: counts_match_disk(shop), "the restarted curriculum to count a new episode")
    assert sum(curriculum_counts(shop).values()) == sum(w["episodes"] for w in before["windows"]) + 1
