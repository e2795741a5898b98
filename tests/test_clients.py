"""The training-side clients against a real `verishop serve --transport http` subprocess (and a
real verifier sidecar): the async client and its sync wrapper, the TRL adapter and the
Gymnasium-style environment, each playing whole episodes."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers import shop_server, verifier_sidecar

from verishop.agents.client import ShopClient, ToolCallError
from verishop.agents.gym_env import ShopTextEnv
from verishop.agents.sync_client import SyncShopClient
from verishop.agents.trl import make_environment_factory, verishop_reward

SHOP_TOOLS = {"search_catalog", "get_product", "compare_products", "add_to_cart", "update_cart_item",
              "remove_from_cart", "view_cart", "list_orders", "check_order", "check_return_eligibility",
              "initiate_return", "search_policies", "get_browsing_history", "get_current_date",
              "get_conversation", "respond_to_customer", "get_customer_profile", "cancel_order", "modify_order_items",
              "change_order_address", "exchange_items", "transfer_to_human", "request_price_adjustment",
              "issue_store_credit", "find_customer",
              "list_shipping_options", "list_vouchers", "apply_voucher", "remove_voucher", "checkout"}


@pytest.fixture(scope="module")
def servers(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    root = tmp_path_factory.mktemp("clients")
    with shop_server(catalog_path, root) as base, verifier_sidecar(catalog_path, root) as verifier:
        yield base, verifier, root / "runs"


def _reward_file(runs: Path, episode_id: str) -> dict:
    return json.loads((runs / episode_id / "reward.json").read_text())


async def test_async_client_plays_an_episode_and_waits_for_the_sidecar_reward(servers):
    base, verifier, runs = servers
    async with ShopClient(base, verifier_url=verifier) as shop:
        async with shop.episode(env="pd", difficulty=0, seed=21) as ep:
            assert ep.info.env_id == "pd-v10" and ep.info.opening_message
            schemas = await ep.openai_tools()
            assert {s["function"]["name"] for s in schemas} == SHOP_TOOLS
            assert all(s["type"] == "function" and s["function"]["parameters"]["type"] == "object"
                       and s["function"]["description"] for s in schemas)
            missing = await ep.call("get_product", product_id="P00000000")
            assert missing.is_error and "no product with ID 'P00000000'" in missing.error
            with pytest.raises(ToolCallError):
                missing.unwrap()
            await ep.call("respond_to_customer", message="What colour would you like?")
            found = (await ep.call("search_catalog", query="")).unwrap()
            ids = [p["product_id"] for p in found["results"][:3]]
            reply = (await ep.call("respond_to_customer", message="Here you go.", recommended_product_ids=ids,
                                   done=True)).unwrap()
            assert reply["status"] == "closed" and ep.close_reason == "agent_done"
        reward = await shop.reward(ep.info.episode_id, timeout_s=30)
    assert reward["verdict"] == "scored" and reward["episode_id"] == ep.info.episode_id
    assert reward == _reward_file(runs, ep.info.episode_id)


def test_sync_client_opens_a_collection_episode_closes_it_and_scores_it_in_process(servers):
    base, _, runs = servers
    with SyncShopClient(base) as shop:  # no verifier_url: the verifier runs in this process
        with shop.episode(collection="C1", seed=5) as ep:
            assert ep.info.env_id == "pd-v10"
            assert ep.call("get_conversation").unwrap()["messages"][0]["text"] == ep.info.opening_message
            assert ep.close() == "closed_by_client"
        reward = shop.reward(ep.info.episode_id, run_dir=ep.info.run_dir)
    assert reward["verdict"] == "scored" and not reward["is_correct"]
    assert reward == _reward_file(runs, ep.info.episode_id)


def test_trl_adapter_exposes_one_documented_method_per_tool_and_reads_the_reward_after_close(servers):
    base, verifier, runs = servers
    ShopEnv = make_environment_factory(base, verifier_url=verifier, env="pd", difficulty=0)
    env = ShopEnv()
    # TRL's discovery rule: public methods other than reset are the tools.
    tools = {n for n, _ in inspect.getmembers(env, predicate=inspect.ismethod) if n != "reset" and n[0] != "_"}
    assert tools == SHOP_TOOLS
    signature = inspect.signature(env.respond_to_customer)
    assert signature.parameters["message"].annotation is str
    assert signature.parameters["message"].default is inspect.Parameter.empty
    assert signature.parameters["done"].default is False
    assert all(f"    {name}: " in env.respond_to_customer.__doc__ for name in signature.parameters)

    prompt = env.reset(seed=8, prompt=[{"role": "user", "content": "ignored column"}])
    assert env.system_prompt in prompt and env.opening_message in prompt
    first = env.episode_id
    with pytest.raises(ValueError, match="no product with ID"):
        env.add_to_cart("P00000000")  # a write: no lookup budget spent
    results = json.loads(env.search_catalog(query=""))["results"]
    reply = json.loads(env.respond_to_customer("Try these.", recommended_product_ids=[results[0]["product_id"]],
                                               done=True))
    assert reply["close_reason"] == "agent_done"
    [total] = verishop_reward([env])
    assert total == env.reward == _reward_file(runs, first)["total"]

    env.reset(seed=9)  # the model never said done: the reward function closes the episode
    assert env.episode_id != first and env.reward is None
    [total] = verishop_reward([env])
    assert env.reward_details["verdict"] == "scored" and total == _reward_file(runs, env.episode_id)["total"]


def test_gym_env_keeps_termination_and_truncation_apart(servers):
    base, verifier, _ = servers
    env = ShopTextEnv(base, verifier_url=verifier, env="pd", difficulty=0)
    try:
        observation, info = env.reset(seed=31)
        assert observation and info["system_prompt"] not in observation  # the customer's opening message
        assert {t["function"]["name"] for t in info["tools"]} == SHOP_TOOLS
        steps = []
        while not steps or not (steps[-1][2] or steps[-1][3]):
            steps.append(env.step("Hello! How can I help you today?"))
        *_, (_, reward, terminated, truncated, last_info) = steps
        assert (terminated, truncated) == (False, True) and last_info["close_reason"] == "turn_budget"
        assert len(steps) == info["max_turns"] and all(s[1] == 0.0 for s in steps[:-1])
        assert reward == last_info["reward"]["total"]

        observation, info = env.reset(seed=32)
        obs, reward, terminated, truncated, step_info = env.step({"tool": "search_catalog",
                                                                  "arguments": {"query": ""}})
        assert (reward, terminated, truncated) == (0.0, False, False) and "results" in json.loads(obs)
        ids = [p["product_id"] for p in step_info["data"]["results"][:3]]
        obs, reward, terminated, truncated, step_info = env.step(
            {"message": "These three.", "recommended_product_ids": ids, "done": True})
        assert (terminated, truncated) == (True, False) and step_info["close_reason"] == "agent_done"
        assert reward == step_info["reward"]["total"]
        with pytest.raises(RuntimeError, match="ended"):
            env.step("anything else?")
    finally:
        env.close()
