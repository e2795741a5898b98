"""Your own agent in `verishop eval --agent MODULE:NAME | path/to/file.py:NAME`: every accepted
shape plays real episodes through the real MCP server and is scored by the verifier; an agent
that raises fails only its own episodes; a bad spec is refused with a specific message before
anything is played."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import anyio
import pytest
from typer.testing import CliRunner

from verishop.agents.evaluate import RUNNERS, Plan, failures, new_eval_dir, verify
from verishop.agents.user_agent import AgentSpecError, load_agent
from verishop.cli import app

REPO = Path(__file__).resolve().parents[1]

# Goal-blind but correct in form: reads the greeting, searches one word, recommends what it found.
AGENTS_MODULE = '''
import json

SEEN = []


async def _play(episode):
    SEEN.append(episode)
    conversation = await episode.session.call_tool("get_conversation", {})
    assert conversation.structured_content["messages"][0]["text"] == episode.opening_message
    found = await episode.session.call_tool("search_catalog", {"query": "", "category_id": "chargers", "limit": 2})
    ids = [p["product_id"] for p in found.structured_content["results"]]
    await episode.session.call_tool("respond_to_customer", {"message": "These two.", "recommended_product_ids": ids})


async def as_function(episode):
    await _play(episode)


class WithPlay:
    async def play(self, episode):
        await _play(episode)


class PerEpisode:
    made = 0

    def __init__(self):
        PerEpisode.made += 1

    async def play(self, episode):
        await _play(episode)


class CallableObject:
    async def __call__(self, episode):
        await _play(episode)


as_object = WithPlay()
as_callable = CallableObject()


async def fails_on_odd_seeds(episode):
    if episode.seed % 2:
        raise ValueError(f"my agent gave up on seed {episode.seed}")
    await _play(episode)


def not_async(episode):
    return None


class SyncPlay:
    def play(self, episode):
        return None


class NeedsArguments:
    def __init__(self, model):
        self.model = model

    async def play(self, episode):
        return None


sync_play = SyncPlay()
just_a_number = 42
'''


@pytest.fixture
def agents_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_agents.py"
    path.write_text(AGENTS_MODULE)
    return path


def _play(spec: str, catalog_path: Path, runs: Path, transport: str, *, envs=("pd-v10",), episodes: int = 2,
          trials: int = 1) -> tuple[Path, list[dict]]:
    plan = Plan("user", envs, (0, 3), episodes, 40, trials=trials, user_agent=load_agent(spec))
    root = new_eval_dir(runs, plan.user_agent.name)
    anyio.run(RUNNERS[transport], plan, catalog_path, root, 2, lambda: None)
    return root, verify(root, catalog_path)


@pytest.mark.parametrize("name", ["as_function", "as_object", "as_callable", "PerEpisode"])
def test_every_accepted_agent_shape_plays_scored_episodes(agents_file, catalog_path, tmp_path, name):
    root, rewards = _play(f"{agents_file}:{name}", catalog_path, tmp_path / "runs", "memory")
    assert failures(root) == []
    assert [r["verdict"] for r in rewards] == ["scored", "scored"]
    assert all(r["r_hall"] == 1 for r in rewards), "it recommended only IDs the search returned"
    module = sys.modules[load_agent(f"{agents_file}:as_function").play.__module__]
    assert sorted((e.env_id, e.difficulty, e.seed) for e in module.SEEN) == [("pd-v10", 0, 40), ("pd-v10", 3, 41)]
    assert all(e.mcp_url is None for e in module.SEEN), "in memory there is no URL"
    if name == "PerEpisode":
        assert module.PerEpisode.made == 2, "one instance per episode"
    module.SEEN.clear()


def test_the_episode_carries_its_identity_prompt_and_url_over_http(agents_file, catalog_path, tmp_path):
    root, rewards = _play(f"{agents_file}:as_function", catalog_path, tmp_path / "runs", "http")
    module = sys.modules[load_agent(f"{agents_file}:as_function").play.__module__]
    seen = {e.episode_id: e for e in module.SEEN}
    module.SEEN.clear()
    assert sorted(seen) == sorted(r["episode_id"] for r in rewards)
    for reward in rewards:
        episode = seen[reward["episode_id"]]
        scenario = json.loads((root / reward["episode_id"] / "scenario.json").read_text())
        assert (episode.env_id, episode.difficulty, episode.seed) == (reward["env_id"], reward["difficulty"],
                                                                      reward["seed"])
        assert episode.system_prompt == scenario["system_prompt"] and episode.system_prompt
        assert episode.opening_message == scenario["opening_message"]
        assert episode.max_turns == scenario["axes"]["max_turns"]
        assert episode.mcp_url.startswith("http://127.0.0.1:") and episode.episode_id in episode.mcp_url


def test_an_agent_that_raises_fails_its_own_episodes_and_the_rest_are_scored(agents_file, catalog_path, tmp_path):
    junit = tmp_path / "junit.xml"
    result = CliRunner().invoke(app, [
        "eval", "--agent", f"{agents_file}:fails_on_odd_seeds", "--env", "pd", "--difficulty", "0-3",
        "--episodes", "4", "--seed", "10", "--transport", "memory", "--json", "--junit", str(junit),
        "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    assert summary["agent"] == "my_agents.fails_on_odd_seeds"
    assert sorted((f["seed"], f["kind"]) for f in summary["failures"]) == [(11, "ValueError"), (13, "ValueError")]
    assert all(f["message"] == f"my agent gave up on seed {f['seed']}" for f in summary["failures"])
    row = next(r for r in summary["rows"] if r["difficulty"] == "all")
    assert (row["episodes"], row["scored"], row["failed"]) == (4, 2, 2)
    cases = ElementTree.parse(junit).getroot().iter("testcase")
    failed_cases = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    assert len(failed_cases) >= 2


def test_over_stdio_a_failed_episode_is_counted_once(agents_file, catalog_path, tmp_path):
    """The stdio server names its episode; the failure is still matched to that episode's folder
    rather than counted beside its (scored) files."""
    result = CliRunner().invoke(app, [
        "eval", "--agent", f"{agents_file}:fails_on_odd_seeds", "--env", "status", "--difficulty", "0",
        "--episodes", "2", "--seed", "20", "--transport", "stdio", "--json",
        "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    (failure,) = summary["failures"]
    assert failure["seed"] == 21 and failure["episode_id"].startswith("ep_")
    row = next(r for r in summary["rows"] if r["difficulty"] == "all")
    assert (row["episodes"], row["scored"], row["failed"]) == (2, 1, 1)


def test_trials_report_pass_k_and_fail_under_gates_a_user_agent(agents_file, catalog_path, tmp_path):
    result = CliRunner().invoke(app, [
        "eval", "--agent", f"{agents_file}:as_object", "--env", "pd", "--difficulty", "0", "--episodes", "2",
        "--trials", "2", "--fail-under", "0.99", "--transport", "memory", "--json",
        "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs")])
    summary = json.loads(result.stdout)
    row = next(r for r in summary["rows"] if r["difficulty"] == "all")
    assert row["episodes"] == 4 and row["scored"] == 4
    assert {"pass^1", "pass^2"} <= set(summary["pass_k"][0])
    assert result.exit_code == (1 if row["solved_share"] < 0.99 else 0)


def test_a_module_on_the_path_is_named_like_python_dash_m(agents_file, catalog_path, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "verishop", "eval", "--agent", "my_agents:as_function", "--env", "cart",
         "--difficulty", "1", "--episodes", "1", "--transport", "stdio", "--json", "--catalog", str(catalog_path),
         "--runs-dir", str(tmp_path / "runs")],
        cwd=agents_file.parent, capture_output=True, text=True, timeout=300,
        env={**os.environ, "VERISHOP_HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr[-2000:]
    row = next(r for r in json.loads(done.stdout)["rows"] if r["difficulty"] == "all")
    assert (row["env_id"], row["scored"], row["failed"]) == ("cart-v7", 1, 0)


def test_the_hand_written_example_plays_over_http_and_its_run_makes_a_report(catalog_path, tmp_path):
    env = {**os.environ, "VERISHOP_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "verishop", "eval", "--agent", str(REPO / "examples" / "my_agent.py") + ":agent",
         "--env", "pd", "--difficulty", "0-4", "--episodes", "3", "--json", "--catalog", str(catalog_path),
         "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    row = next(r for r in summary["rows"] if r["difficulty"] == "all")
    assert (row["episodes"], row["scored"], row["failed"]) == (3, 3, 0)
    assert row["r_hall"] == 1.0, "the example recommends only products its searches returned"
    run_dir = Path(summary["run_dir"])
    calls = [json.loads(line) for d in run_dir.iterdir() if d.is_dir() and not d.name.startswith(".")
             for line in (d / "transcript.jsonl").read_text().splitlines()]
    assert {c.get("tool") for c in calls} >= {"search_catalog", "respond_to_customer"}
    report = tmp_path / "report.html"
    made = subprocess.run([sys.executable, "-m", "verishop", "report", str(run_dir), "--out", str(report)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert made.returncode == 0, made.stderr[-2000:]
    assert "my_agent.agent" in report.read_text()


@pytest.mark.parametrize(("spec", "message"), [
    ("no_such_module_xyz:agent", "no module named 'no_such_module_xyz'"),
    ("missing/agent.py:agent", "no such file 'missing/agent.py'"),
    ("{file}:nope", "has no attribute 'nope'"),
    ("{file}:not_async", "not_async is not async"),
    ("{file}:sync_play", "its play method is not async"),
    ("{file}:NeedsArguments", "must be constructible with no arguments"),
    ("{file}:just_a_number", "the int 42 is neither an async callable nor an object with an async play method"),
    ("{file}:", "expected MODULE:NAME or path/to/file.py:NAME"),
    (":agent", "expected MODULE:NAME or path/to/file.py:NAME"),
    ("{file}", "expected MODULE:NAME or path/to/file.py:NAME"),
])
def test_a_bad_agent_spec_is_refused_before_anything_is_played(agents_file, catalog_path, tmp_path, spec, message):
    spec = spec.format(file=agents_file)
    with pytest.raises(AgentSpecError) as refused:
        load_agent(spec)
    assert message in str(refused.value)
    result = CliRunner().invoke(app, ["eval", "--agent", spec, "--env", "pd", "--episodes", "1",
                                      "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2
    assert " ".join(result.output.split()).count(message.split(" ")[-1]) >= 1
    assert not (tmp_path / "runs").exists(), "nothing was played"


def test_an_agent_file_that_fails_to_import_names_the_file_and_the_error(tmp_path):
    broken = tmp_path / "broken_agent.py"
    broken.write_text(textwrap.dedent("""
        import json
        raise RuntimeError("API key missing")
    """))
    with pytest.raises(AgentSpecError, match=r"loading .*broken_agent.py raised RuntimeError: API key missing"):
        load_agent(f"{broken}:agent")
    needs = tmp_path / "needs_dep.py"
    needs.write_text("import some_framework_not_installed_xyz\n")
    with pytest.raises(AgentSpecError, match="No module named 'some_framework_not_installed_xyz'"):
        load_agent(f"{needs}:agent")
