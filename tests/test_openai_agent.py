"""The OpenAI-compatible agent through `verishop eval --agent openai` against a local scripted
chat endpoint, and `verishop export` of the episodes it played (conversations + rewards)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from llm_endpoint import scripted_endpoint

SCRIPT = ["get_conversation", "search_catalog", "respond_to_customer"]


def _run(*args: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verishop", *args], capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "VERISHOP_HOME": str(tmp_path / "home")})


def _string_schemas(schema):
    if isinstance(schema, dict):
        if schema.get("type") == "string" and "enum" not in schema:
            yield schema
        for value in schema.values():
            yield from _string_schemas(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _string_schemas(value)


def test_openai_agent_plays_the_scripted_endpoint_and_the_export_round_trips(catalog_path, tmp_path):
    with scripted_endpoint() as (url, requests):
        out = _run("eval", "--agent", "openai", "--base-url", url, "--model", "scripted", "--env", "pd",
                   "--difficulty", "0-1", "--episodes", "2", "--transport", "http", "--json",
                   "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs"), tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(out.stdout)
    everything = next(r for r in summary["rows"] if r["difficulty"] == "all")
    assert everything["episodes"] == everything["scored"] == 2 and everything["r_hall"] == 1.0

    # What the agent sent: three model calls per episode, in the API's shapes.
    assert len(requests) == 2 * len(SCRIPT)
    for body in requests:
        assert body["model"] == "scripted" and body.get("tool_choice") != "required"
        assert {t["function"]["name"] for t in body["tools"]} >= set(SCRIPT)
        assert all("maxLength" in s for s in _string_schemas(body["tools"]))
        for message in body["messages"]:
            if message["role"] == "assistant":
                assert isinstance(message["content"], str)  # echoed as "" when the model sent null
    last = max(requests, key=lambda b: len(b["messages"]))["messages"]
    # the model's escaped text comes back unescaped, so escapes never compound turn after turn
    assert "Let me look, I'm on it." in [m.get("content") for m in last if m["role"] == "assistant"]
    calls = [c for m in last if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    answers = [m for m in last if m["role"] == "tool"]
    assert [c["id"] for c in calls] == [m["tool_call_id"] for m in answers]

    # Export: one JSON line per episode, the tool calls in transcript order, each answered, the reward attached.
    exported = tmp_path / "episodes.jsonl"
    out = _run("export", summary["run_dir"], "--format", "openai", "--out", str(exported), tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    records = [json.loads(line) for line in exported.read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        episode_dir = tmp_path / "runs" / os.path.basename(summary["run_dir"]) / record["episode_id"]
        assert record["reward"] == json.loads((episode_dir / "reward.json").read_text())
        assert record["close_reason"] == "agent_done"
        messages = record["messages"]
        assert [m["role"] for m in messages[:2]] == ["system", "user"]
        pairs = list(zip(messages[2::2], messages[3::2]))
        assert [a["tool_calls"][0]["function"]["name"] for a, _ in pairs] == SCRIPT
        for assistant, tool in pairs:
            assert assistant["role"] == "assistant" and assistant["content"] == ""
            assert tool["role"] == "tool" and tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
        transcript = [json.loads(line) for line in (episode_dir / "transcript.jsonl").read_text().splitlines()]
        tool_events = [e for e in transcript if e["event"] == "tool_call"]
        assert [json.loads(a["tool_calls"][0]["function"]["arguments"]) for a, _ in pairs] == \
            [e["arguments"] for e in tool_events]
        assert json.loads(pairs[-1][1]["content"])["status"] == "closed"


class FlakySession:
    """A shop session whose transport fails the first call to each tool with `failure`."""

    def __init__(self, failure: Exception):
        self.failure, self.sent = failure, []

    async def call(self, tool: str, **arguments):
        self.sent.append(tool)
        if self.sent.count(tool) == 1:
            raise self.failure
        return {"status": "open"}


async def test_a_write_that_may_have_reached_the_shop_is_never_sent_twice():
    import httpx2

    from verishop.agents.openai_agent import OpenAIAgent, OpenAISettings

    agent = OpenAIAgent(None, OpenAISettings(base_url="http://127.0.0.1:9/v1", model="m"))
    safe = {"search_catalog": True, "respond_to_customer": False}
    read_timeout = httpx2.ReadTimeout("no answer")
    shop = FlakySession(read_timeout)
    outcome, _ = await agent._call(shop, "respond_to_customer", {"message": "hi"}, safe)
    assert shop.sent == ["respond_to_customer"] and "not repeated" in outcome
    outcome, _ = await agent._call(shop, "search_catalog", {"query": "x"}, safe)  # read-only: retried
    assert shop.sent.count("search_catalog") == 2 and outcome == {"status": "open"}
    shop = FlakySession(httpx2.ConnectError("refused"))  # never sent: safe to send again, even a write
    outcome, _ = await agent._call(shop, "respond_to_customer", {"message": "hi"}, safe)
    assert shop.sent == ["respond_to_customer"] * 2 and outcome == {"status": "open"}


def test_the_examples_load_without_trl_and_name_episodes_per_row():
    import importlib.util
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples"
    spec = importlib.util.spec_from_file_location("train_grpo", examples / "train_grpo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = module.episode_rows(module.parse_args(["--episodes", "3", "--collection", "C2"]))
    assert [r["seed"] for r in rows] == [0, 1, 2] and all(r["collection"] == "C2" and "difficulty" not in r
                                                          for r in rows)
    assert subprocess.run(["bash", "-n", str(examples / "eval_ollama.sh")], check=False).returncode == 0
