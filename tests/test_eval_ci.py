"""`verishop eval` in a CI pipeline: trials and pass^k, a solved-share gate (exit code 1 below
it) and JUnit XML with one testcase per episode."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

from verishop.agents.evaluate import Plan, solved_share
from verishop.agents.junit import junit_xml
from verishop.scenarios.envs import get_env


def run_eval(catalog_path, tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verishop", "eval", "--catalog", str(catalog_path), "--runs-dir",
                           str(tmp_path / "runs"), "--json", *args], capture_output=True, text=True, timeout=300)


def test_trials_repeat_each_task():
    plan = Plan("oracle", ("pd",), (0, 1), 2, 5, trials=3)
    assert plan.episodes_to_play() == [("pd", 0, 5)] * 3 + [("pd", 1, 6)] * 3


def test_a_run_below_the_gate_exits_1_and_reports_pass_k_and_junit(catalog_path, tmp_path):
    junit = tmp_path / "junit.xml"
    done = run_eval(catalog_path, tmp_path, "--agent", "greedy", "--env", "pd,return", "--difficulty", "0-4",
                    "--episodes", "3", "--trials", "2", "--fail-under", "0.99", "--junit", str(junit))
    assert done.returncode == 1, done.stderr
    assert "is below --fail-under 99.0%" in done.stderr
    summary = json.loads(done.stdout)
    overall = summary["pass_k"][-1]
    assert (overall["env_id"], overall["difficulty"], overall["tasks"], overall["trials"]) == ("all", "all", 6, 2)
    assert 0 <= overall["pass^2"] <= overall["pass^1"] < 0.99
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == int(root.get("tests")) == 12
    assert {s.get("name") for s in root.findall("testsuite")} == {get_env("pd").env_id, get_env("return").env_id}
    assert int(root.get("failures")) == sum(1 for c in cases if c.find("failure") is not None) > 0
    assert sum(1 for c in cases if "trial 2" in c.get("name")) == 6
    # Each failed check says which requirement it failed, where it came from and who is to blame.
    failures = [c.find("failure").text for c in cases if c.find("failure") is not None]
    assert all("; requirement: " in text and "charged to agent)" in text for text in failures), failures


def test_a_run_at_or_above_the_gate_exits_0(catalog_path, tmp_path):
    done = run_eval(catalog_path, tmp_path, "--agent", "oracle", "--env", "status", "--difficulty", "0-1",
                    "--episodes", "2", "--fail-under", "1.0")
    assert done.returncode == 0, done.stderr
    assert "pass_k" not in json.loads(done.stdout), "pass^k needs several trials"


def test_junit_marks_unscored_episodes_as_errors_and_survives_hostile_text():
    hostile = 'a\x00b</failure><x y="1">&\x1b'
    rewards = [{"env_id": "pd-v2", "difficulty": 0, "seed": 1, "verdict": "scored", "is_correct": False, "total": -1,
                "breakdown": [{"name": hostile, "expected": hostile, "found": [hostile], "passed": False}]},
               {"env_id": "pd-v2", "difficulty": 0, "seed": 1, "verdict": "incomplete", "reason": "transcript_empty",
                "detail": hostile},
               {"env_id": "cart-v1", "difficulty": 2, "seed": 3, "verdict": "scored", "is_correct": True}]
    crashed = [{"env_id": "cart-v1", "difficulty": 1, "seed": 4, "kind": "RuntimeError", "message": "server died"}]
    text = ET.tostring(junit_xml(rewards, hostile, crashed).getroot(), encoding="unicode")
    root = ET.fromstring(text)
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "2")
    assert root.find(".//error[@type='failed to run']").text == "server died"
    message = root.find(".//failure").get("message")
    assert message.startswith('unsolved: total -1; failed checks: ab</failure><x y="1">&')
    assert root.find("./testsuite[@name='pd-v2']//error").get("type") == "incomplete"
    assert solved_share(rewards) == 1 / 3
    assert solved_share(rewards, crashed) == 1 / 4
