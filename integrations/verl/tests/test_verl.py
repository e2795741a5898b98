"""verishop driven by verl 0.9.1's own rollout code on CPU: the tool config through verl's loader,
the rows through verl's dataset, each trajectory through verl's `AgentLoopWorker.generate_sequences`
and the `verishop_agent` loop (verl's `ToolAgentLoop`), with a scripted model in place of the
inference engine. The reward in the batch is verishop's verifier's."""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path

import pytest
import tiny_tokenizer
import verl_harness
from scripted_model import ScriptedModel
from verl.tools.tool_registry import initialize_tools_from_config

from verishop.agents.scripted import make_agent
from verishop.envs import generate
from verishop_verl import dataset
from verishop_verl.episodes import CURRENT, EpisodeSpecError, Trajectory, shop, spec_from_row
from verishop_verl.reward import compute_score
from verishop_verl.tools import VerishopTool

EPISODES = [("pd", 0, 0), ("pd", 0, 1), ("status", 0, 0), ("status", 0, 1)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verl")
    rows = [row for env, d, seed in EPISODES for row in dataset.rows(shop(), env, d, [seed])]
    dataset.write_parquet(rows, folder / "train.parquet")
    dataset.write_tool_config(shop(), folder / "tools.yaml")
    scenarios = {}
    for env, d, seed in EPISODES:
        scenario = generate(env, d, seed, shop().catalog)
        scenarios[scenario.opening_message] = scenario
    return folder, rows, scenarios


def rollout(files, agent: str = "oracle", silent: bool = False):
    folder, _, scenarios = files
    tokenizer = tiny_tokenizer.build()
    cfg = verl_harness.config(folder / "tools.yaml")
    model = ScriptedModel(tokenizer, lambda opening: make_agent(agent, scenarios[opening]), silent=silent)
    worker = verl_harness.worker(cfg, tokenizer, model)
    output = asyncio.run(worker.generate_sequences(verl_harness.batch(folder / "train.parquet", tokenizer, cfg)))
    return output, model


def test_the_tool_config_loads_through_verls_loader(files):
    folder, _, _ = files
    with contextlib.redirect_stdout(io.StringIO()):
        tools = initialize_tools_from_config(str(folder / "tools.yaml"))
    assert [tool.name for tool in tools] == [spec.name for spec in shop().tool_specs()]
    assert len(tools) == 30 and all(isinstance(tool, VerishopTool) for tool in tools)
    search = next(tool for tool in tools if tool.name == "search_catalog")
    attributes = search.tool_schema.function.parameters.properties["attributes"]
    assert attributes.type == "array" and "array of {name: string, value: string}" in attributes.description
    respond = next(tool for tool in tools if tool.name == "respond_to_customer")
    assert respond.tool_schema.function.parameters.properties["answer_status"].enum[0] == "processing"


def test_rows_are_verls_multi_turn_shape_and_deterministic(files):
    _, rows, _ = files
    row = rows[0]
    env_id = row["extra_info"]["env"]  # the versioned id (pd-v9 ...): the rollout replays these bytes
    assert env_id.startswith("pd-v") and row["agent_name"] == "verishop_agent" and row["data_source"] == f"verishop/{env_id}"
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    kwargs = row["extra_info"]["tools_kwargs"]
    assert len(kwargs) == 30 and {tuple(v["create_kwargs"].items()) for v in kwargs.values()} == {
        (("env", env_id), ("difficulty", 0), ("seed", 0))}
    assert dataset.rows(shop(), "pd", 0, [0]) == [row]  # same (env, d, seed): same row
    assert rows[1]["prompt"][1] != row["prompt"][1]


def test_oracle_trajectories_reach_the_full_reward(files):
    output, model = rollout(files)
    rewards = list(output.non_tensor_batch["verishop_reward"])
    assert [r["total"] for r in rewards] == [1.0] * 4
    assert all(r["is_correct"] and r["verdict"] == "scored" for r in rewards)
    assert len({r["episode_id"] for r in rewards}) == 4
    assert output.batch["rm_scores"].sum(-1).tolist() == [1.0] * 4  # what the trainer reads
    # multi-turn: several model turns per trajectory, tool output masked out of the loss
    assert all(turns >= 4 for turns in output.non_tensor_batch["__num_turns__"])
    mask = output.batch["response_mask"]
    assert (mask.sum(-1) > 0).all() and (mask.sum(-1) < output.batch["attention_mask"][:, -mask.shape[1]:].sum(-1)).all()
    for play in model.plays.values():  # every scripted call went through verl's tool loop
        assert play.calls_made[0][0] == "get_conversation" and play.calls_made[-1][0] == "respond_to_customer"


@pytest.mark.parametrize("agent", ["null", "hallucinate"])
def test_wrong_answers_score_lower(files, agent):
    output, _ = rollout(files, agent)
    rewards = list(output.non_tensor_batch["verishop_reward"])
    assert all(r["verdict"] == "scored" and not r["is_correct"] and r["total"] < 1.0 for r in rewards)
    assert output.batch["rm_scores"].sum(-1).tolist() == pytest.approx([r["total"] for r in rewards])  # float32


def test_a_model_that_calls_no_tool_is_scored_too(files):
    output, _ = rollout(files, silent=True)
    rewards = list(output.non_tensor_batch["verishop_reward"])
    assert all(r["close_reason"] == "closed_by_client" and r["verdict"] == "scored" and not r["is_correct"]
               for r in rewards)
    assert all(r["total"] < 1.0 for r in rewards)


def test_compute_score_returns_the_recorded_total(files):
    output, _ = rollout(files)
    reward = output.non_tensor_batch["verishop_reward"][2]
    score = compute_score("verishop/status", "", "status/0/0", {"verishop_reward": reward})
    assert score["score"] == reward["total"] == 1.0 and score["is_correct"] == 1.0
    with pytest.raises(ValueError, match="verishop_agent"):
        compute_score("verishop/pd", "", "pd/0/0", {})


def test_tools_refuse_to_run_outside_the_verishop_loop(files):
    folder, _, _ = files
    with contextlib.redirect_stdout(io.StringIO()):
        tool = initialize_tools_from_config(str(folder / "tools.yaml"))[0]
    assert CURRENT.get() is None
    with pytest.raises(RuntimeError, match="verishop_agent"):
        asyncio.run(tool.create(create_kwargs={"env": "pd", "difficulty": 0, "seed": 0}))


def test_calc_reward_scores_the_instances_episode(files):
    folder, _, _ = files
    with contextlib.redirect_stdout(io.StringIO()):
        tool = next(t for t in initialize_tools_from_config(str(folder / "tools.yaml")) if t.name == "respond_to_customer")

    async def play():
        trajectory = Trajectory({"env": "pd", "difficulty": 0, "seed": 0})
        CURRENT.set(trajectory)
        instance, _ = await tool.create()
        response, step_reward, metrics = await tool.execute(instance, {"message": "Bye", "done": True})
        assert step_reward == 0.0 and not metrics["error"] and '"status":"closed"' in response.text
        total = await tool.calc_reward(instance)
        await tool.release(instance)
        return total, trajectory

    total, trajectory = asyncio.run(play())
    assert total == trajectory.reward["total"] < 1.0 and trajectory.episode.close_reason == "agent_done"


def test_a_row_without_the_episode_is_refused():
    with pytest.raises(EpisodeSpecError, match="lack difficulty, seed"):
        spec_from_row({"search_catalog": {"create_kwargs": {"env": "pd"}}})
    with pytest.raises(EpisodeSpecError, match="no tools_kwargs"):
        spec_from_row({})
    with pytest.raises(EpisodeSpecError, match="different episodes"):
        spec_from_row({"a": {"create_kwargs": {"env": "pd", "difficulty": 0, "seed": 0}},
                       "b": {"create_kwargs": {"env": "pd", "difficulty": 0, "seed": 1}}})


def test_an_error_goes_back_to_the_model_as_the_shops_text(files):
    folder, _, _ = files
    with contextlib.redirect_stdout(io.StringIO()):
        tool = next(t for t in initialize_tools_from_config(str(folder / "tools.yaml")) if t.name == "get_product")

    async def call():
        CURRENT.set(Trajectory({"env": "pd", "difficulty": 0, "seed": 0}))
        instance, _ = await tool.create()
        return await tool.execute(instance, {"product_id": "P00000000"})

    response, _, metrics = asyncio.run(call())
    assert metrics["error"] and response.text.startswith("Error: ") and "P00000000" in response.text


def test_the_example_command_composes_with_verls_trainer_config():
    """Every override of examples/run_qwen2.5_1.5b_grpo.sh names a key of verl 0.9.1's
    ppo_trainer config (hydra composes it as `verl.trainer.main_ppo` would)."""
    import re

    import verl
    from hydra import compose, initialize_config_dir

    script = (Path(__file__).parents[1] / "examples" / "run_qwen2.5_1.5b_grpo.sh").read_text()
    overrides = [line.strip().rstrip("\\").strip() for line in script.splitlines()
                 if re.match(r"^\s{4}[a-z_.]+=", line)]
    overrides = [o.replace("$DATA", "data/verishop").replace("$AGENT_LOOP", "agent_loop.yaml").replace("$HERE", ".")
                 for o in overrides]
    assert len(overrides) > 30
    with initialize_config_dir(str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        cfg = compose(config_name="ppo_trainer", overrides=overrides)
    rollout = cfg.actor_rollout_ref.rollout
    assert rollout.multi_turn.enable and rollout.agent.default_agent_loop == "verishop_agent"
    assert cfg.reward.custom_reward_function.name == "compute_score" and cfg.algorithm.adv_estimator == "grpo"
