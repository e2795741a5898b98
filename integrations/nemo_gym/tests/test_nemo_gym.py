"""verishop served by NeMo Gym 0.4's own machinery (`ng_run`: head server, server subprocesses)
and played by NeMo Gym's own rollout flow (`ng_collect_rollouts` -> simple_agent's /run ->
/seed_session, the model, the tool routes, /verify), with recorded calls as the policy."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import requests
from conftest import BIN, PACKAGE, scripted

from verishop_nemo_gym.dataset import rows
from verishop_nemo_gym.shop_process import ShopProcess

# name -> (env, seed, the scripted agent whose calls are replayed, or a fixed list of calls)
ERRORS = [{"tool": "get_product", "arguments": {"product_id": "P00000000"}},
          {"tool": "no_such_tool", "arguments": {}},
          {"tool": "search_catalog", "arguments": {"query": 5}}]
PLAYS = {
    "pd_oracle": ("pd", 3, "oracle"),
    "pd_oracle_twin": ("pd", 3, "oracle"),  # the same episode in another session, at the same time
    "status_oracle": ("status", 3, "oracle"),
    "pd_hallucinate": ("pd", 3, "hallucinate"),
    "pd_silent": ("pd", 3, []),
    "pd_errors": ("pd", 1, ERRORS),
}


@pytest.fixture(scope="module")
def shop():
    worker = ShopProcess(os.environ.get("VERISHOP_PYTHON"))
    yield worker
    worker.close()


@pytest.fixture(scope="module")
def rollouts(gym, shop):
    """Every play in PLAYS collected in one `ng_collect_rollouts` run, all at once."""
    scripts, expected, input_rows = {}, {}, []
    for name, (env, seed, agent) in PLAYS.items():
        if isinstance(agent, str):
            recorded = scripted(env, 0, seed, agent)
            scripts[name], expected[name] = recorded["calls"], recorded["total"]
        else:
            scripts[name] = agent
        row = rows(shop, env, 0, [seed])[0]
        row["responses_create_params"]["metadata"] = {"script": name}
        input_rows.append(row)
    gym.scripts.write_text(json.dumps(scripts))
    (gym.project / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in input_rows))
    done = gym.ng("ng_collect_rollouts", "+input_jsonl_fpath=rows.jsonl", "+output_jsonl_fpath=out.jsonl",
                  f"+num_samples_in_parallel={len(PLAYS)}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = [json.loads(line) for line in (gym.project / "out.jsonl").read_text().splitlines()]
    by_name = {row["responses_create_params"]["metadata"]["script"]: row for row in out}
    assert set(by_name) == set(PLAYS), "every row played once"
    metrics = json.loads((gym.project / "out_aggregate_metrics.json").read_text())
    return by_name, expected, scripts, metrics


def _calls(rollout: dict) -> list[dict]:
    return [{"tool": item["name"], "arguments": json.loads(item["arguments"])}
            for item in rollout["response"]["output"] if item["type"] == "function_call"]


def _tool_outputs(rollout: dict) -> list[str]:
    return [item["output"] for item in rollout["response"]["output"] if item["type"] == "function_call_output"]


@pytest.mark.parametrize("name", ["pd_oracle", "pd_oracle_twin", "status_oracle"])
def test_the_oracles_calls_through_nemo_gyms_agent_reach_the_full_reward(rollouts, name):
    by_name, expected, scripts, _ = rollouts
    rollout = by_name[name]
    assert expected[name] == 1.0
    assert _calls(rollout) == scripts[name], "simple_agent sent every call to the resources server"
    assert all("error" not in json.loads(output) for output in _tool_outputs(rollout))
    assert rollout["reward"] == 1.0 and rollout["is_correct"] is True and rollout["verdict"] == "scored"
    assert rollout["close_reason"] in ("customer_done", "agent_done") and rollout["r_task"] == 1.0
    env, seed, _ = PLAYS[name]
    assert rollout["env_id"].startswith(env + "-v") and rollout["verishop"]["seed"] == seed


def test_two_sessions_on_one_episode_are_two_episodes(rollouts):
    by_name, *_ = rollouts
    assert by_name["pd_oracle"]["episode_id"] != by_name["pd_oracle_twin"]["episode_id"]


def test_a_wrong_answer_scores_lower(rollouts):
    by_name, expected, scripts, _ = rollouts
    rollout = by_name["pd_hallucinate"]
    assert _calls(rollout) == scripts["pd_hallucinate"]
    assert rollout["reward"] == pytest.approx(expected["pd_hallucinate"]) and rollout["reward"] < 1.0
    assert rollout["is_correct"] is False


def test_a_policy_that_never_calls_a_tool_scores_lower(rollouts):
    by_name, *_ = rollouts
    rollout = by_name["pd_silent"]
    assert _calls(rollout) == [] and rollout["close_reason"] == "closed_by_client"
    assert rollout["reward"] < 1.0 and rollout["is_correct"] is False


def test_tool_errors_come_back_as_the_shops_messages(rollouts):
    by_name, *_ = rollouts
    rollout = by_name["pd_errors"]
    errors = [json.loads(output)["error"] for output in _tool_outputs(rollout)]
    assert errors[0].startswith("Error executing tool get_product: no product with ID 'P00000000'")
    assert errors[1] == "Unknown tool: no_such_tool"
    assert errors[2].startswith("Error executing tool search_catalog: query:")
    # the shop's transcript counts the failed lookup (an unknown tool or arguments its schema
    # refuses never reach a tool body); the episode is scored, and low
    assert rollout["tool_errors"] >= 1 and rollout["verdict"] == "scored" and rollout["reward"] < 1.0


def test_nemo_gyms_aggregate_metrics_carry_the_verifiers_parts(rollouts):
    *_, metrics = rollouts
    flat = json.dumps(metrics)
    assert all(f'"mean/{part}"' in flat for part in ("reward", "is_correct", "r_task", "r_eff", "r_hall")), flat[:2000]


# The resources server itself, over HTTP as NeMo Gym's agent talks to it (a cookie per session).

def test_sessions_are_isolated(gym, shop):
    url = gym.urls["verishop"]
    pd, status = requests.Session(), requests.Session()
    for session, env in ((pd, "pd"), (status, "status")):
        row = rows(shop, env, 0, [1])[0]
        assert session.post(f"{url}/seed_session", json=row, timeout=60).status_code == 200
    pd_talk = pd.post(f"{url}/get_conversation", json={}, timeout=60).json()
    status_talk = status.post(f"{url}/get_conversation", json={}, timeout=60).json()
    assert pd_talk["messages"] != status_talk["messages"]
    pd_row, status_row = rows(shop, "pd", 0, [1])[0], rows(shop, "status", 0, [1])[0]
    pd_verified = pd.post(f"{url}/verify", json={**pd_row, "response": _empty_response()}, timeout=60).json()
    status_verified = status.post(f"{url}/verify", json={**status_row, "response": _empty_response()}, timeout=60).json()
    assert pd_verified["env_id"].startswith("pd-") and status_verified["env_id"].startswith("status-")
    assert pd_verified["close_reason"] == "closed_by_client" and pd_verified["reward"] < 1.0


def test_a_tool_call_before_seed_session_is_refused(gym):
    reply = requests.post(f"{gym.urls['verishop']}/get_conversation", json={}, timeout=60)
    assert reply.status_code == 400 and "call /seed_session first" in reply.json()["detail"]


def test_a_bad_task_is_refused_with_the_shops_reason(gym, shop):
    row = rows(shop, "pd", 0, [1])[0]
    session = requests.Session()
    reply = session.post(f"{gym.urls['verishop']}/seed_session",
                         json={**row, "verishop": {"env": "no_such_env", "difficulty": 0, "seed": 1}}, timeout=60)
    assert reply.status_code == 400 and "no_such_env" in reply.json()["detail"]
    # nothing was opened for the session
    assert session.post(f"{gym.urls['verishop']}/get_conversation", json={}, timeout=60).status_code == 400


def test_a_row_whose_prompt_is_another_episodes_is_refused(gym, shop):
    row = rows(shop, "pd", 0, [1])[0]
    row["verishop"]["seed"] = 2
    reply = requests.post(f"{gym.urls['verishop']}/seed_session", json=row, timeout=60)
    assert reply.status_code == 400 and "not the opening of pd-" in reply.json()["detail"]


def test_the_example_rows_are_what_the_builder_writes(shop):
    example = PACKAGE / "resources_servers" / "verishop" / "data" / "example.jsonl"
    built = rows(shop, "pd", 0, range(0, 2)) + rows(shop, "status", 0, range(0, 2))
    assert example.read_text() == "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in built)


def test_the_config_is_valid_for_nemo_gym():
    checked = subprocess.run([str(BIN / "ng_validate"), "+config_paths=[resources_servers/verishop/configs/verishop.yaml]"],
                             cwd=PACKAGE, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and "Config is valid" in checked.stdout, checked.stdout + checked.stderr


def _empty_response() -> dict:
    return {"id": "resp_0", "created_at": 0.0, "model": "none", "object": "response", "output": [],
            "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}
