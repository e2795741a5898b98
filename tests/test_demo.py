"""`verishop demo` (what `make run` shows): every episode ends with the verifier's reward, and
the run ends with a one-line summary."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from verishop.agents.cli import DEMO_EPISODES


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_the_demo_shows_each_episodes_reward_and_a_summary(catalog_path, tmp_path, transport):
    done = subprocess.run([sys.executable, "-m", "verishop", "demo", "--transport", transport, "--catalog",
                           str(catalog_path), "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    rewards = re.findall(r"reward: total ([+-]\d\.\d{3}) · (solved|not solved)", done.stdout)
    assert len(rewards) == len(DEMO_EPISODES)
    solved = sum(verdict == "solved" for _, verdict in rewards)
    mean = sum(float(total) for total, _ in rewards) / len(rewards)
    summary = re.search(r"(\d+) of (\d+) episodes solved · mean total ([+-]\d\.\d{3})", done.stdout)
    assert summary is not None, done.stdout
    assert (int(summary[1]), int(summary[2])) == (solved, len(DEMO_EPISODES))
    assert float(summary[3]) == pytest.approx(mean, abs=0.001)  # the mean of unrounded totals
    oracle = [r for r, (*_, agent) in zip(rewards, DEMO_EPISODES, strict=True) if agent == "oracle"]
    assert all(verdict == "solved" for _, verdict in oracle), done.stdout
