"""Sealed means sealed: under `eval --split test` an agent plays with the public generator at
hand, so nothing it can read may rebuild its goal (issue 28), and no output of the run names a
test-split seed or the split's secret (issue 37).

The attacker here is a real `--agent` file: on every transport it gathers everything the
evaluation hands it (the episode object, every MCP list, prompt and tool answer, errors
included, the HTTP control API's answers and headers, and any file an answer points at), and
the test then tries every integer in all of it as a seed for the public generator."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.envs import generate
from verishop.scenarios.splits import split_seed

SECRET = "the-evaluators-own-secret-7f3a9c"
ENV = "status"
EPISODES = 3
MAX_FILE_BYTES = 1 << 20

# The attacker. It writes what it saw, one JSON line per episode, to $SEALED_SEEN.
HUNTER = '''
import dataclasses
import json
import os
import re
from pathlib import Path

import httpx2

OUT = Path(os.environ["SEALED_SEEN"])
GAVE_UP = []


def dump(value):
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except Exception:
        return repr(value)


async def from_mcp(session, seen):
    seen.append(dump([session.instructions, repr(session.server_info)]))
    for listing in (session.list_tools, session.list_prompts, session.list_resources,
                    session.list_resource_templates):
        try:
            seen.append(dump((await listing()).model_dump(mode="json")))
        except Exception as exc:
            seen.append(repr(exc))
    try:
        seen.append(dump((await session.get_prompt("shop_assistant", {})).model_dump(mode="json")))
    except Exception as exc:
        seen.append(repr(exc))
    calls = [("get_conversation", {}), ("get_current_date", {}), ("get_browsing_history", {}),
             ("list_orders", {}), ("view_cart", {}), ("search_policies", {"query": "return window"}),
             ("search_catalog", {"query": "charger"}), ("check_order", {"order_id": "ORD-999999"}),
             ("get_product", {"product_id": "P-0"}), ("initiate_return", {}), ("no_such_tool", {})]
    for tool, arguments in calls:
        try:
            seen.append(dump((await session.call_tool(tool, arguments)).model_dump(mode="json")))
        except Exception as exc:
            seen.append(repr(exc))


async def from_http(episode, seen):
    base = episode.mcp_url.split("/episodes/")[0]
    async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
        asks = [("GET", f"/episodes/{episode.episode_id}", None), ("GET", "/health", None),
                ("GET", "/curriculum", None), ("GET", "/episodes/ep_nope", None)]
        # Its own index in the split, and its neighbours: the control API must not re-create them.
        index = getattr(episode, "index", None) or 0
        for k in {0, 1, 2, index}:
            asks.append(("POST", "/episodes", {"env": episode.env_id, "difficulty": episode.difficulty,
                                               "seed": k, "split": "test"}))
        for method, path, body in asks:
            try:
                answer = await http.request(method, path, json=body)
                seen.append(dump([answer.status_code, dict(answer.headers), answer.text]))
            except Exception as exc:
                seen.append(repr(exc))


def files_named_in(texts):
    """Every file an answer points at (a run_dir, a path in an error), read as text."""
    found = []
    for text in texts:
        for path in set(re.findall(r"/[^\\s\\"'<>|,;]+", text)):
            path = Path(path.rstrip(".)"))
            try:
                files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())[:50]
                for f in files:
                    found.append(f.read_bytes()[:1_000_000].decode(errors="replace"))
            except OSError:
                pass
    return found


def walk(root, limit=20000):
    """Every string and integer reachable from `root` by attributes and items (what a curious
    agent finds by poking at the objects it was handed)."""
    found, todo, done = [], [root], set()
    while todo and len(done) < limit:
        obj = todo.pop()
        if id(obj) in done:
            continue
        done.add(id(obj))
        if isinstance(obj, (str, bytes, int)) and not isinstance(obj, bool):
            found.append(obj if isinstance(obj, str) else repr(obj))
            continue
        if isinstance(obj, dict):
            todo += list(obj.keys()) + list(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo += list(obj)
        slots = getattr(type(obj), "__slots__", ())
        for name in slots if isinstance(slots, tuple) else ():
            try:
                todo.append(getattr(obj, name))
            except Exception:
                pass
        try:
            todo += list(vars(obj).values())
        except TypeError:
            pass
    return found


async def play(episode):
    seen = [dump({f.name: repr(getattr(episode, f.name)) for f in dataclasses.fields(episode)
                  if f.name != "session"}), dump(walk(episode))]
    await from_mcp(episode.session, seen)
    if episode.mcp_url:
        await from_http(episode, seen)
    seen += files_named_in(list(seen))
    with open(OUT, "a") as out:
        out.write(json.dumps({"env_id": episode.env_id, "difficulty": episode.difficulty,
                              "opening_message": episode.opening_message, "seen": seen}) + "\\n")
    if not GAVE_UP:  # one failed episode: its error line must not name its seed either
        GAVE_UP.append(True)
        raise RuntimeError("the hunter gives up on this one")
'''


def integers_in(texts: list[str]) -> set[int]:
    """Every integer an attacker could read out of `texts`: decimal runs and hex runs (an
    episode id, a folder name), as seeds the generator accepts."""
    found: set[int] = set()
    for text in texts:
        found.update(int(d) for d in re.findall(r"\d+", text))
        found.update(int(h, 16) for h in re.findall(r"[0-9a-fA-F]{6,}", text))
    return {n for n in found if 0 <= n < 2**64}


def hunter_file(where: Path) -> Path:
    agent = where / "hunter.py"
    agent.write_text(HUNTER)
    return agent


def run_eval(catalog: Path, where: Path, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    """The hunter plays the test split through a real `verishop eval` over HTTP (its default)."""
    seen = where / "seen.jsonl"
    env = {**os.environ, "VERISHOP_SPLIT_SECRET": SECRET, "SEALED_SEEN": str(seen)}
    done = subprocess.run([sys.executable, "-m", "verishop", "eval", "--agent", f"{hunter_file(where)}:play",
                           "--catalog", str(catalog), "--runs-dir", str(where / "runs"), "--env", ENV,
                           "--difficulty", "0-2", "--episodes", str(EPISODES), "--split", "test", "--concurrency",
                           "2", *extra], capture_output=True, text=True, timeout=300, env=env, cwd=where)
    return done, seen


@pytest.fixture(scope="module")
def hunted(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, Path]:
    """One test-split run of the hunter, with JUnit: its folder holds runs/, seen.jsonl, junit.xml."""
    where = tmp_path_factory.mktemp("hunted")
    done, _ = run_eval(catalog_path, where, "--junit", str(where / "junit.xml"))
    return done, where


def episode_folders(runs: Path) -> list[Path]:
    return [p for p in runs.glob("eval-*/*") if p.is_dir() and (p / "scenario.json").is_file()]


def scenario_files(runs: Path) -> list[dict]:
    return [json.loads((p / "scenario.json").read_text()) for p in episode_folders(runs)]


def test_an_agent_under_the_test_split_cannot_rebuild_any_goal_from_what_it_sees(hunted, catalog_path: Path):
    done, where = hunted
    assert done.returncode == 1, done.stderr  # the hunter gave up on one episode: recorded, the rest went on
    scenarios = scenario_files(where / "runs")
    # The agent made no episode of its own in the evaluator's server: exactly the planned ones exist.
    assert len(scenarios) == EPISODES
    assert {s["seed"] for s in scenarios} == {split_seed("test", ENV, i, i, SECRET) for i in range(EPISODES)}
    records = [json.loads(line) for line in (where / "seen.jsonl").read_text().splitlines()]
    assert len(records) == EPISODES
    with CatalogReader(catalog_path) as reader:
        for record in records:
            scenario = next(s for s in scenarios if s["opening_message"] == record["opening_message"])
            goal = scenario["goal"]
            d = scenario["difficulty"]
            # The check has teeth: the real seed does rebuild the goal with the public generator.
            assert generate(ENV, d, scenario["seed"], reader).model_dump(mode="json")["goal"] == goal
            candidates = integers_in(record["seen"])
            assert len(candidates) > 20  # it did see the shop: ids, prices, dates, schemas
            rebuilt = [n for n in sorted(candidates)
                       if generate(ENV, d, n, reader).model_dump(mode="json")["goal"] == goal]
            assert rebuilt == [], f"the agent can rebuild its goal from {rebuilt}"


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_a_user_agent_plays_the_test_split_over_http_only(transport: str, catalog_path: Path, tmp_path: Path):
    # In memory the session is the server itself, its episodes' goals a few attributes away; over
    # stdio it holds the server's command line, which names the run folder (the hunter found it).
    from typer.testing import CliRunner

    from verishop.cli import app

    done = CliRunner().invoke(app, ["eval", "--agent", f"{hunter_file(tmp_path)}:play", "--transport", transport,
                                    "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs"), "--env",
                                    ENV, "--episodes", "1", "--split", "test", "--split-secret", SECRET],
                              env={"SEALED_SEEN": str(tmp_path / "seen.jsonl")})
    said = re.sub(r"[│\s]+", " ", done.output)  # rich draws the usage error in a box
    assert done.exit_code == 2 and "the test split is sealed" in said and "use --transport http" in said, said
    assert not (tmp_path / "seen.jsonl").exists() and episode_folders(tmp_path / "runs") == []


def test_no_output_of_a_test_split_run_names_a_seed_or_the_secret(hunted, catalog_path: Path, tmp_path: Path):
    from typer.testing import CliRunner

    from verishop.cli import app

    done, where = hunted
    junit = where / "junit.xml"
    run_root = next((where / "runs").glob("eval-*"))
    report = tmp_path / "report.html"
    made = CliRunner().invoke(app, ["report", str(run_root), "--out", str(report), "--json"])
    assert made.exit_code == 0, made.output
    exported = CliRunner().invoke(app, ["export", str(run_root)])
    assert exported.exit_code == 0 and exported.output.count("\n") == EPISODES, exported.output
    # A built-in agent over stdio: each server's banner goes to eval's stderr.
    as_json = subprocess.run([sys.executable, "-m", "verishop", "eval", "--json", "--agent", "null", "--transport",
                              "stdio", "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs"), "--env",
                              ENV, "--difficulty", "0-2", "--episodes", "2", "--split", "test"],
                             capture_output=True, text=True, timeout=300,
                             env={**os.environ, "VERISHOP_SPLIT_SECRET": SECRET})
    assert as_json.returncode == 0, as_json.stderr
    outputs = {"eval stdout": done.stdout, "eval stderr": done.stderr, "JUnit": junit.read_text(),
               "HTML report": report.read_text(), "report output": made.output, "export": exported.output,
               "eval --json (stdio servers' banners included)": as_json.stdout + as_json.stderr}
    seeds = {s["seed"] for s in scenario_files(where / "runs") + scenario_files(tmp_path / "runs")}
    assert seeds == {split_seed("test", ENV, i, i, SECRET) for i in range(EPISODES)}  # both runs: the same tasks
    for name, text in outputs.items():
        unwrapped = text.replace("\n", "")  # rich wraps long words on stderr
        for seed in seeds:
            assert str(seed) not in text and str(seed) not in unwrapped, f"{name} names the test seed {seed}"
        assert SECRET not in unwrapped, f"{name} names the split secret"
    # What they print instead: the split's index, so a failure can still be found again.
    assert "test #0" in junit.read_text() and "test #2" in report.read_text()
    assert "test #" in done.stderr  # the failed episode's line
    assert "seed=test (sealed)" in " ".join(as_json.stderr.split())  # the servers' banners


def test_outputs_name_a_test_episode_by_its_index_and_keep_every_other_seed():
    from verishop.agents.junit import junit_xml
    from verishop.agents.sealed import redact_json
    from verishop.mcp_server.http.app import ControlSettings
    from verishop.scenarios.splits import redact_seeds

    sealed, dev = split_seed("test", ENV, 1, 4, SECRET), split_seed("dev", ENV, 1, 4)
    rewards = [{"env_id": "status-v8", "difficulty": 1, "seed": seed, "verdict": "scored", "is_correct": True,
                "episode_id": f"ep_{n}"} for n, seed in enumerate((sealed, dev, 7))]
    names = [case.get("name") for case in junit_xml(rewards, indices={sealed: 4}).getroot().iter("testcase")]
    assert sorted(names) == sorted(["d1 test #4 trial 1 (ep_0)", f"d1 seed {dev} trial 1 (ep_1)",
                                    "d1 seed 7 trial 1 (ep_2)"])
    # Without the index the seed is still never shown; inside any text, too.
    assert redact_seeds(f"order IDs collided (d=1, seed={sealed}); dev {dev}") == \
        f"order IDs collided (d=1, seed=test (sealed)); dev {dev}"
    assert redact_json({"seed": sealed, "rows": [{"seed": 7, "m": f"x{sealed}"}]}, {sealed: 4}) == \
        {"seed": "test #4", "rows": [{"seed": 7, "m": "xtest #4"}]}
    settings = ControlSettings(token="a-control-token-9f8e7d", split_secret=SECRET)
    assert SECRET not in repr(settings) and "a-control-token-9f8e7d" not in repr(settings)
