"""The in-process shop (issue 36): the same episodes as a server's, scored as `verishop verify`
scores their folders, with no server, no port and no files until asked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import stable_event

from verishop.agents.scripted import make_agent
from verishop.agents.session import ShopSession, ToolFailed
from verishop.envs import REGISTRY, generate
from verishop.local import LocalShop, LocalShopError
from verishop.local.catalog import CachedCatalogReader
from verishop.local.session import LocalSession, play_scripted
from verishop.mcp_server.inprocess import InProcessClient
from verishop.mcp_server.tools import create_server
from verishop.scenarios.curriculum import Params
from verishop.verifier.runner import Verifier

PLAYS = [("pd", 4, 11), ("status", 3, 5), ("cart", 6, 2), ("return", 5, 8), ("journey", 7, 3),
         ("change", 6, 4), ("compensation", 8, 1), ("checkout", 9, 6)]


@pytest.fixture(scope="module")
def shop(catalog_path: Path):
    with LocalShop(catalog_path) as local:
        yield local


async def _play_local(shop: LocalShop, agent: str, env: str, difficulty: int, seed: int):
    episode = await play_scripted(shop, agent, env=env, difficulty=difficulty, seed=seed)
    reward = await episode.areward()
    return episode, reward


async def _play_server(hub, agent: str, env: str, difficulty: int, seed: int, verifier: Verifier):
    scenario = hub.generate(env, difficulty, seed)
    episode = await hub.open(scenario)
    async with InProcessClient(create_server(hub, episode_id=episode.episode_id)) as client:
        try:
            await make_agent(agent, scenario).play(ShopSession(client))
        except ToolFailed:
            pass
    if episode.episode_id in hub.episodes:
        await hub.close(episode.episode_id, "agent_stopped")
    return episode, verifier.score(episode.directory)


@pytest.mark.parametrize("agent", ["oracle", "greedy", "null"])
async def test_an_in_process_episode_is_the_servers_episode(shop, hub, verifier, agent):
    """Same scenario, same play: the same transcript event by event (ids and clocks aside) and the
    same reward, field by field, as a server's episode scored from its files."""
    for env, difficulty, seed in PLAYS:
        local, reward = await _play_local(shop, agent, env, difficulty, seed)
        served, served_reward = await _play_server(hub, agent, env, difficulty, seed, verifier)
        ours = [stable_event(json.loads(line)) for line in local.run_files()["transcript.jsonl"].splitlines()]
        theirs = [stable_event(json.loads(line)) for line in (served.directory / "transcript.jsonl").read_bytes().splitlines()]
        assert ours == theirs, (agent, env)
        a, b = reward.model_dump(mode="json"), served_reward.model_dump(mode="json")
        a.pop("episode_id"), b.pop("episode_id")
        assert a == b, (agent, env)
        if agent == "oracle":
            assert reward.is_correct and reward.total == pytest.approx(1.0, abs=0.2), (env, reward.breakdown)
        if agent == "null":
            assert not reward.is_correct, env


async def test_a_written_run_folder_is_rescored_identically_by_verishop_verify(shop, tmp_path):
    runs = tmp_path / "runs"
    rewards = {}
    for env, difficulty, seed in PLAYS:
        for agent in ("oracle", "greedy"):
            episode, reward = await _play_local(shop, agent, env, difficulty, seed)
            folder = episode.write_run(runs)
            assert json.loads((folder / "reward.json").read_text()) == reward.model_dump(mode="json")
            (folder / "reward.json").unlink()  # the CLI must score it again, not read it back
            rewards[folder.name] = reward.model_dump(mode="json")
    done = subprocess.run([sys.executable, "-m", "verishop", "verify", str(runs), "--json"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    scored = {r["episode_id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert scored == rewards
    assert all(r["seal"] == "intact" for r in scored.values())


async def test_a_tampered_run_folder_is_caught(shop, tmp_path):
    episode, reward = await _play_local(shop, "oracle", "status", 2, 9)
    folder = episode.write_run(tmp_path / "runs")
    lines = (folder / "transcript.jsonl").read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"turn":0', b'"turn":1')
    (folder / "transcript.jsonl").write_bytes(b"".join(lines))
    with Verifier() as verifier:
        rescored = verifier.score(folder)
    assert reward.verdict == "scored" and rescored.verdict == "incomplete"


async def test_tool_errors_are_the_servers_words(shop, hub):
    """A malformed argument, an unknown tool, an unknown product: the text an MCP client reads."""
    calls = [("search_catalog", {"limit": 999}), ("search_catalog", {"limit": "many"}), ("no_such_tool", {}),
             ("get_product", {"product_id": "P00000000"}), ("add_to_cart", {"product_id": "", "quantity": 1}),
             ("check_order", {"order_id": "W0000000"})]
    local = await shop.aopen(env="cart", difficulty=6, seed=2)
    scenario = hub.generate("cart", 6, 2)
    served = await hub.open(scenario)
    async with InProcessClient(create_server(hub, episode_id=served.episode_id)) as client:
        for name, arguments in calls:
            ours = await local.acall(name, arguments)
            theirs = await client.call_tool(name, arguments)
            assert ours.error is not None and theirs.is_error, name
            assert ours.error == theirs.content[0].text, name
    await local.aclose()


def test_the_blocking_api_and_the_env(catalog_path):
    import verishop

    with verishop.Env("pd", difficulty=2, catalog=catalog_path) as env:
        opening = env.reset(seed=4)
        assert opening == env.opening_message and env.reward is None and not env.done
        goal = env.episode.scenario.goal
        found = env.search_catalog(category_id=goal.category_id, limit=goal.items_to_recommend)
        with pytest.raises(verishop.ToolError, match="limit"):
            env.search_catalog(limit=0)
        reply = env.respond_to_customer(message="Here you are.", done=True,
                                        recommended_product_ids=[c["product_id"] for c in found["results"]])
        assert reply["status"] == "closed" and env.done
        assert env.reward == env.reward_details["total"] and -1 <= env.reward <= 1
        assert {t.name for t in env.tools} >= {"search_catalog", "respond_to_customer", "check_order"}
        env.reset(seed=5)
        assert env.episode.info.seed == 5 and not env.done


async def test_blocking_calls_inside_an_event_loop_are_refused_with_the_way_out(catalog_path):
    local = LocalShop(catalog_path)
    with pytest.raises(LocalShopError, match="aopen"):
        local.open(env="pd", difficulty=0, seed=1)
    episode = await local.aopen(env="pd", difficulty=0, seed=1)
    await local.aclose()  # the async twin closes what is open
    assert not episode.is_open and episode.close_reason == "server_stopped" and not local.episodes


def test_bad_requests_say_what_is_wrong(shop):
    for spec, words in (({"env": "nope", "difficulty": 0}, "nope"), ({"env": "pd", "difficulty": 13}, "difficulty"),
                        ({"env": "pd", "difficulty": "3"}, "difficulty"), ({"scenario": {"env_id": 3}}, "valid scenario"),
                        ({"env": "pd", "collection": "C1", "difficulty": 0}, "either"),
                        ({"env": "pd", "difficulty": 0, "seed": -1}, "seed"), ({"colour": "red"}, "colour")):
        with pytest.raises(LocalShopError, match=words):
            shop.open(**spec)
    assert not shop.episodes


def test_without_a_difficulty_the_curriculum_chooses_and_learns(catalog_path):
    with LocalShop(catalog_path, curriculum=Params(episodes_per_check=2, threshold=0.5)) as shop:
        for seed in range(6):
            episode = shop.open(env="status", seed=seed)
            assert episode.info.difficulty == 0 or seed >= 2
            session_reward = _play_oracle(shop, episode)
            assert session_reward.chosen_by_curriculum
        assert shop.windows[episode.info.env_id].high >= 1
        # An episode nobody played (no tool call, no turn) is no evidence, and a seed counts once.
        before = dict(shop.windows)
        shop.open(env="status", seed=100).reward()
        assert shop.windows == before


def _play_oracle(shop: LocalShop, episode):
    async def play():
        await make_agent("oracle", episode.scenario).play(LocalSession(episode))
        return await episode.areward()

    return shop._run(play())


def test_the_catalog_it_keeps_generates_the_same_scenarios(catalog_path, reader):
    """The in-process reader keeps every product of a small catalog and ranks from memory: every
    environment's scenarios keep their bytes."""
    kept = CachedCatalogReader(catalog_path)
    try:
        names = sorted({spec.env_id.rsplit("-v", 1)[0] for spec in REGISTRY.values()})
        for name in names:
            for difficulty in (0, 3, 6, 9, 12):
                for seed in range(3):
                    assert generate(name, difficulty, seed, kept).to_json() == \
                        generate(name, difficulty, seed, reader).to_json(), (name, difficulty, seed)
    finally:
        kept.close()


def test_a_tools_data_in_process_is_what_an_mcp_client_receives(shop):
    """The in-process shop hands back the transcript's dump of a result (no second dump): it must be
    the structured content the server sends (`compact_result`: the by-alias dump)."""
    from verishop.mcp_server.schema import compact_result

    episode = shop.open(env="pd", difficulty=4, seed=11)
    try:
        goal = episode.scenario.goal
        for name, arguments in (("search_catalog", {"category_id": goal.category_id, "limit": 5}),
                                ("get_current_date", {}), ("view_cart", {})):
            got = episode.call(name, arguments)
            assert got.error is None, got.error
            result = episode._episode.last_dump[0]
            assert got.data == compact_result(result).structured_content, name
    finally:
        episode.close()


async def test_an_in_process_episode_takes_one_call_at_a_time():
    """`CallLock` (an in-process episode's): a second caller waits until the first is done, a waiter
    cancelled while it waits leaves the lock usable, and callers are served one after another."""
    import asyncio

    from verishop.local.memory import CallLock

    lock, order = CallLock(), []
    release_first = asyncio.Event()

    async def first() -> None:
        async with lock:
            order.append("first in")
            await release_first.wait()
            order.append("first out")

    async def second() -> None:
        async with lock:
            order.append("second in")

    holder = asyncio.create_task(first())
    await asyncio.sleep(0)
    assert lock.locked()
    cancelled = asyncio.create_task(second())
    waiter = asyncio.create_task(second())
    await asyncio.sleep(0)
    cancelled.cancel()
    await asyncio.sleep(0)
    assert order == ["first in"]  # neither second caller got in while the first held it
    release_first.set()
    await asyncio.wait_for(asyncio.gather(holder, waiter), timeout=5)
    assert order == ["first in", "first out", "second in"]
    assert cancelled.cancelled() and not lock.locked()
    async with lock:  # still usable
        assert lock.locked()
