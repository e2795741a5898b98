"""The TRL adapter against the real TRL and transformers (opt-in: `make test-adapters`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from servers import shop_server
from tiny_model import tiny_model, tiny_tokenizer

from verishop.agents.trl import make_environment_factory, verishop_reward

pytestmark = pytest.mark.adapters


@pytest.fixture(scope="module")
def base(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with shop_server(catalog_path, tmp_path_factory.mktemp("trl")) as url:
        yield url


def test_enums_and_ranges_survive_into_transformers_json_schema(base):
    from transformers.utils import get_json_schema

    env = make_environment_factory(base, env="pd", difficulty=0)()
    search = get_json_schema(env.search_catalog)["function"]["parameters"]["properties"]
    assert search["sort_by"]["enum"] == ["featured", "price", "rating", "delivery"]
    # get_json_schema has no minimum/maximum: the range reaches the model through the description
    assert search["limit"]["type"] == "integer" and search["limit"]["description"].endswith("(from 1 to 50)")
    assert search["attributes"]["items"]["type"] == "object"
    from pydantic import TypeAdapter

    limit = TypeAdapter(env.search_catalog.__annotations__["limit"]).json_schema()
    assert (limit["minimum"], limit["maximum"]) == (1, 50)  # pydantic-based readers keep the bounds
    for name in ("respond_to_customer", "compare_products", "view_cart", "initiate_return"):
        get_json_schema(getattr(env, name))  # every tool converts


def test_reset_text_is_set_apart_from_the_prompt_by_a_blank_line(base):
    env = make_environment_factory(base, env="pd", difficulty=0)()
    text = env.reset(seed=3)
    assert text.startswith("\n\n") and env.opening_message in text
    assert ("A customer is waiting. Help them." + text).count("Help them.\n\nYou are") == 1
    assert verishop_reward([env])[0] <= 0


def test_grpo_trainer_runs_two_steps_in_process_with_no_server(catalog_path, tmp_path):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from verishop.verifier.runner import Verifier

    tokenizer = tiny_tokenizer()
    ShopEnv = make_environment_factory(catalog=catalog_path, runs_dir=tmp_path / "runs", env="status", difficulty=0)
    rows = [{"prompt": [{"role": "user", "content": "A customer is waiting. Help them."}], "seed": seed}
            for seed in range(4)]
    trainer = GRPOTrainer(
        model=tiny_model(len(tokenizer)), processing_class=tokenizer, reward_funcs=verishop_reward,
        environment_factory=ShopEnv, train_dataset=Dataset.from_list(rows),
        args=GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=2, num_generations=2,
                        max_completion_length=16, max_steps=2, use_cpu=True, report_to="none", logging_steps=1,
                        save_strategy="no", seed=0, chat_template_kwargs={"enable_thinking": False}))
    assert trainer.train().global_step == 2
    episodes = [env for pool in trainer._environment_pool.values() for env in pool]
    assert episodes and all(env.reward_details["verdict"] == "scored" for env in episodes)
    assert len({env._shop() for env in episodes}) == 1, "one in-process shop for every instance"
    with Verifier() as verifier:  # each episode's folder, as `verishop verify` reads it, scores the same
        for env in episodes:
            assert verifier.score(tmp_path / "runs" / env.episode_id).model_dump(mode="json") == env.reward_details


def test_grpo_trainer_runs_two_steps_on_cpu_with_a_tiny_model(base, tmp_path):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    tokenizer = tiny_tokenizer()
    ShopEnv = make_environment_factory(base, env="pd", difficulty=0)
    rows = [{"prompt": [{"role": "user", "content": "A customer is waiting. Help them."}], "seed": seed}
            for seed in range(4)]
    trainer = GRPOTrainer(
        model=tiny_model(len(tokenizer)), processing_class=tokenizer, reward_funcs=verishop_reward,
        environment_factory=ShopEnv, train_dataset=Dataset.from_list(rows),
        args=GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=2, num_generations=2,
                        max_completion_length=16, max_steps=2, use_cpu=True, report_to="none", logging_steps=1,
                        save_strategy="no", seed=0, chat_template_kwargs={"enable_thinking": False}))
    result = trainer.train()
    assert result.global_step == 2
    rewards = [log["reward"] for log in trainer.state.log_history if "reward" in log]
    assert len(rewards) == 2 and all(-1.0 <= r <= 1.0 for r in rewards)
    # every rollout was a real episode, closed and scored by the verifier
    episodes = [env for pool in trainer._environment_pool.values() for env in pool]
    assert episodes and all(env.reward_details and env.reward_details["verdict"] == "scored" for env in episodes)
    assert all(httpx2.get(f"{base}/episodes/{env.episode_id}").json()["status"] == "closed" for env in episodes)
    json.dumps(trainer.state.log_history)
