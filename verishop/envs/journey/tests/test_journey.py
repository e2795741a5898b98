"""Multi-intent journeys: requests of the other environments chained in one conversation."""

from __future__ import annotations

import re

from mcp import Client

from verishop.minefields.privacy.overlay import task_words
from verishop.mcp_server.tools import create_server
from support import play_and_verify
from verishop.scenarios.envs import generate
from verishop.envs.journey.generator import owned_ids, request_count


def _kinds(scenario) -> list[str]:
    return [t.kind for t in scenario.goal.tasks]


def test_same_inputs_give_byte_identical_journeys(reader):
    for d in (0, 6, 12):
        assert generate("journey", d, 5, reader).to_json() == generate("journey", d, 5, reader).to_json()


def test_request_count_and_turn_budget_follow_difficulty(reader):
    for d in (0, 4, 8, 12):
        scenario = generate("journey", d, 1, reader)
        assert len(scenario.goal.tasks) == request_count(d) == min(5, 2 + d // 4)
        assert scenario.axes.max_turns == (4 + d // 2) * request_count(d)


def test_context_switch_axis_changes_how_often_requests_change_kind(reader):
    def switch_share(d: int) -> float:
        # Since journey-v10 any kind may follow any (several requests about orders are allowed).
        pairs = [(a, b) for s in (generate("journey", d, seed, reader) for seed in range(40))
                 for a, b in zip(_kinds(s), _kinds(s)[1:])]
        return sum(a != b for a, b in pairs) / len(pairs)

    assert switch_share(0) < 0.2 and switch_share(12) > 0.4


def test_every_request_about_orders_finds_its_order_in_the_journeys_history(reader):
    goal_kinds = {"return", "status", "order_change", "exchange"}
    for seed in range(30):
        scenario = generate("journey", 12, seed, reader)
        for task in scenario.goal.tasks:
            if task.kind in goal_kinds:
                assert task.order_id in {o.order_id for o in scenario.orders}


def test_requests_never_share_ids_and_the_opening_names_none(reader):
    for seed in range(10):
        scenario = generate("journey", 8, seed, reader)
        goal = scenario.goal
        owned = [owned_ids(task) for task in goal.tasks]
        assert sum(map(len, owned)) == len(set().union(*owned))  # no ID belongs to two requests
        ids = set(re.findall(r"\b(?:P\d{8}|W\d{7}|LN\d{8})\b", goal.model_dump_json()))
        assert not any(i in scenario.opening_message for i in ids)
        # The opening is the first request's words, and the other customers' data minefield's
        # question after them when it carries one (which the hidden goal does not hold).
        assert task_words(scenario) == goal.openings[0]


def _play(catalog_path, tmp_path, agent: str, difficulties, episodes: int) -> list[dict]:
    return play_and_verify(agent, ("journey-v12",), tuple(difficulties), episodes, 40, catalog_path, tmp_path)


def test_oracle_solves_journeys_at_every_difficulty(catalog_path, tmp_path):
    rewards = _play(catalog_path, tmp_path, "oracle", range(13), 13)
    assert [r["verdict"] for r in rewards] == ["scored"] * 13
    assert all(r["is_correct"] for r in rewards), [(r["difficulty"], r["r_task"]) for r in rewards]
    assert all(r["total"] > 0.9 for r in rewards)


def test_doing_nothing_solves_no_journey(catalog_path, tmp_path):
    rewards = _play(catalog_path, tmp_path, "null", (0, 6, 12), 3)
    # (a return nobody asked to replace keeps its replacement part, so not every r_task is -1)
    assert not any(r["is_correct"] for r in rewards) and all(r["r_task"] < 0 for r in rewards)


async def test_the_customer_moves_on_only_when_a_request_is_handled(hub):
    scenario = next(s for s in (hub.generate("journey", 0, seed) for seed in range(200))
                    if _kinds(s) == ["cart", "cart"])
    first, second = scenario.goal.tasks
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        reply = (await client.call_tool("respond_to_customer", {"message": "Done?"})).structured_content
        assert reply["status"] == "open" and scenario.goal.openings[1] not in reply["customer_message"]
        await client.call_tool("compare_products", {"product_ids": [i.product_id for i in first.items]})
        for item in first.items:
            await client.call_tool("add_to_cart", {"product_id": item.product_id, "quantity": item.quantity})
        reply = (await client.call_tool("respond_to_customer", {"message": "All set."})).structured_content
        assert scenario.goal.openings[1].split(":")[0][:20] in reply["customer_message"]
        await client.call_tool("respond_to_customer", {"message": "Bye.", "done": True})
    if episode.episode_id in hub.episodes:
        await hub.close(episode.episode_id, "test")
    reward = verify_one(episode.directory, hub.catalog_path)
    # request 1 solved (+1), request 2 never carted (F1 = 0 -> -1): the mean is 0
    assert reward["r_task"] == 0.0 and reward["is_correct"] is False
    assert [c["passed"] for c in reward["breakdown"] if c["name"].startswith("request") and "·" not in c["name"]] \
        == [True, False]
    assert len(second.items) >= 1


def verify_one(directory, catalog_path) -> dict:
    from verishop.verifier.runner import Verifier

    with Verifier() as v:
        return v.verify(directory).model_dump()
