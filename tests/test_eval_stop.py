"""`verishop eval` stops that stop: a hung agent is cut off at `--episode-timeout`, SIGINT and
SIGTERM end the run with its outputs, and no process eval starts outlives it (SIGKILL included),
over every transport eval can use. Every run is a real `verishop eval` subprocess; every wait is
bounded; the agent hangs in blocking sync code (a thread that never returns), the hardest case."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from xml.etree import ElementTree

import anyio
import pytest

from verishop.agents.episode_limits import RunControl
from verishop.agents.evaluate import RUNNERS, Plan, failures, new_eval_dir

# Plays one search, then (on difficulty 0, or always with HANG_ALWAYS) says it is stuck and blocks
# its thread for good; otherwise it answers like a goal-blind agent and returns.
HANGING_AGENT = '''
import os
import pathlib
import threading
import uuid


async def agent(episode):
    found = await episode.session.call_tool("search_catalog", {"query": "", "limit": 2})
    if episode.difficulty == 0 or os.environ.get("HANG_ALWAYS"):
        pathlib.Path(os.environ["READY_DIR"], uuid.uuid4().hex).touch()
        threading.Event().wait()  # blocking, not awaiting: nothing on this thread runs again
    ids = [p["product_id"] for p in found.structured_content["results"]]
    await episode.session.call_tool("respond_to_customer", {"message": "These.", "recommended_product_ids": ids})
'''

WAIT_S = 60  # bound on every wait; a run takes a few seconds


@pytest.fixture
def agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "hanging_agent.py"
    path.write_text(HANGING_AGENT)
    return path


def _eval_command(catalog_path: Path, runs: Path, agent_file: Path, junit: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "verishop", "eval", "--agent", f"{agent_file}:agent", "--catalog",
            str(catalog_path), "--runs-dir", str(runs), "--env", "pd", "--json", "--junit", str(junit), *args]


def _env(ready: Path, *, hang_always: bool = False) -> dict[str, str]:
    ready.mkdir(exist_ok=True)
    env = dict(os.environ, READY_DIR=str(ready))
    if hang_always:
        env["HANG_ALWAYS"] = "1"
    return env


def _run_root(runs: Path) -> Path:
    (root,) = [p for p in runs.iterdir() if p.name.startswith("eval-")]
    return root


def _episode_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def _closing(directory: Path) -> dict:
    lines = (directory / "transcript.jsonl").read_text().splitlines()
    return json.loads(lines[-1]) if lines else {}


def _descendants(pid: int) -> set[int]:
    """Every live process below `pid`, from /proc (no psutil)."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                after_name = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children[int(after_name[1])].append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie (an orphan's zombie waits for a reaper we do not control)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _wait_for(condition, what: str, timeout_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s:.0f}s: {what}")
        time.sleep(0.05)


def test_a_hung_agent_is_cut_off_at_the_episode_timeout_and_its_episode_is_closed_and_scored(
        catalog_path, tmp_path, agent_file):
    runs, junit = tmp_path / "runs", tmp_path / "junit.xml"
    started = time.monotonic()
    done = subprocess.run(_eval_command(catalog_path, runs, agent_file, junit, "--difficulty", "0-1", "--episodes",
                                        "2", "--episode-timeout", "2", "--transport", "memory"),
                          env=_env(tmp_path / "ready"), capture_output=True, text=True, timeout=WAIT_S)
    assert time.monotonic() - started < WAIT_S
    assert done.returncode == 1, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    (timed_out,) = summary["failures"]
    assert timed_out["kind"] == "timeout" and timed_out["difficulty"] == 0
    assert "--episode-timeout" in timed_out["message"]
    assert timed_out["reward"]["verdict"] == "scored", "scored as the agent left it"
    root = _run_root(runs)
    hung = root / timed_out["episode_id"]
    assert (hung / "reward.json").is_file()
    assert _closing(hung)["reason"] == "timeout"
    assert {r["difficulty"]: r["failed"] for r in summary["rows"]} == {0: 1, 1: 0, "all": 1}
    assert {r["difficulty"]: r.get("timeouts") for r in summary["rows"]} == {0: 1, 1: 0, "all": 1}
    cases = ElementTree.parse(junit).getroot().iter("testcase")
    errors = {case.get("name"): case.find("error") for case in cases}
    assert len(errors) == 2, "one testcase per episode, the timed-out one not twice"
    (hung_case,) = [e for e in errors.values() if e is not None]
    assert hung_case.get("type") == "timeout"


def test_a_negative_episode_timeout_is_refused_before_anything_is_played(catalog_path, tmp_path, agent_file):
    done = subprocess.run(_eval_command(catalog_path, tmp_path / "runs", agent_file, tmp_path / "j.xml",
                                        "--episode-timeout", "-1"),
                          env=_env(tmp_path / "ready"), capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 2 and "--episode-timeout" in done.stderr
    assert not (tmp_path / "runs").exists()


TRANSPORTS = ["memory", "stdio", "http"]


def _start_mid_run(catalog_path: Path, tmp_path: Path, agent_file: Path, transport: str):
    """An eval of three episodes, two at a time, both running ones hung: returns (process, runs,
    junit, its descendants) once both are stuck."""
    runs, junit, ready = tmp_path / "runs", tmp_path / "junit.xml", tmp_path / "ready"
    process = subprocess.Popen(
        _eval_command(catalog_path, runs, agent_file, junit, "--difficulty", "0", "--episodes", "3",
                      "--concurrency", "2", "--transport", transport),
        env=_env(ready, hang_always=True), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        _wait_for(lambda: len(list(ready.iterdir())) == 2 or process.poll() is not None, "two episodes hung")
        assert process.poll() is None, process.communicate()[1][-2000:]
        children = _descendants(process.pid)
        assert children, "eval runs at least one helper process (server or watcher)"
    except BaseException:
        process.kill()
        raise
    return process, runs, junit, children


# SIGINT and SIGTERM take the same path through eval; SIGINT over the wire is the slow lane's.
SIGNAL_CASES = [(signal.SIGTERM, t) for t in TRANSPORTS] + [(signal.SIGINT, "memory")] + [
    pytest.param(signal.SIGINT, t, marks=pytest.mark.slow) for t in ("stdio", "http")]


@pytest.mark.parametrize(("signum", "transport"), SIGNAL_CASES)
def test_a_signal_mid_run_closes_and_scores_the_running_episodes_and_still_writes_every_output(
        catalog_path, tmp_path, agent_file, transport, signum):
    process, runs, junit, children = _start_mid_run(catalog_path, tmp_path, agent_file, transport)
    process.send_signal(signum)
    try:
        out, err = process.communicate(timeout=WAIT_S)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, err[-2000:]
    summary = json.loads(out)
    assert summary["stopped_by"] == signal.Signals(signum).name
    assert [r["episodes"] for r in summary["rows"] if r["difficulty"] == "all"] == [2], "the third never started"
    assert sorted(f["kind"] for f in summary["failures"]) == ["interrupted", "interrupted"]
    root = _run_root(runs)
    episodes = _episode_dirs(root)
    assert len(episodes) == 2
    for directory in episodes:
        assert (directory / "reward.json").is_file(), "scored"
        assert _closing(directory)["event"] == "episode_closed"
    assert ElementTree.parse(junit).getroot().get("tests") == "2"
    _wait_for(lambda: not any(_alive(pid) for pid in children), "every child of eval gone", 10)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_no_child_of_a_killed_eval_survives_and_its_episodes_are_closed(catalog_path, tmp_path, agent_file,
                                                                        transport):
    process, runs, _, children = _start_mid_run(catalog_path, tmp_path, agent_file, transport)
    process.kill()
    process.wait(timeout=WAIT_S)
    _wait_for(lambda: not any(_alive(pid) for pid in children), f"children {sorted(children)} of a killed eval gone")
    episodes = _episode_dirs(_run_root(runs))
    assert len(episodes) == 2
    for directory in episodes:
        assert _closing(directory)["event"] == "episode_closed", "closed, left for `verishop verify` to score"
        assert (directory / "world.db").is_file()


def test_a_second_signal_exits_at_once_without_waiting_for_the_scoring(catalog_path, tmp_path, agent_file):
    process, runs, junit, children = _start_mid_run(catalog_path, tmp_path, agent_file, "memory")
    try:
        process.send_signal(signal.SIGINT)
        root = _run_root(runs)
        _wait_for(lambda: all(_closing(d).get("event") == "episode_closed" for d in _episode_dirs(root)),
                  "the running episodes closed after the first SIGINT")
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=WAIT_S)
    finally:
        process.kill()
    assert process.returncode == 130
    assert out == "", "no summary: it did not wait for the verifier"
    assert not junit.exists()
    _wait_for(lambda: not any(_alive(pid) for pid in children), "every child of eval gone", 10)


def test_the_built_in_openai_agent_waiting_on_a_silent_model_server_is_cut_off(catalog_path, tmp_path):
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        options = {"base_url": f"http://127.0.0.1:{silent.getsockname()[1]}/v1", "model": "m", "api_key": None,
                   "max_steps": 4}
        plan = Plan("openai", ("pd",), (0,), 1, 0, options)
        root = new_eval_dir(tmp_path / "runs", "openai")
        started = time.monotonic()
        anyio.run(RUNNERS["memory"], plan, catalog_path, root, 1, lambda: None, RunControl(episode_timeout_s=1))
        assert time.monotonic() - started < WAIT_S
    (cut_off,) = failures(root)
    assert cut_off["kind"] == "timeout"
    assert _closing(root / cut_off["episode_id"])["reason"] == "timeout"
