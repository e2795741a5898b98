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
    # In memory the runs folder is left to its default, the one `serve` and the verifier use too.
    runs = tmp_path / "runs" if transport == "stdio" else tmp_path / "home" / "runs"
    chosen = ["--runs-dir", str(runs)] if transport == "stdio" else []
    done = subprocess.run([sys.executable, "-m", "verishop", "demo", "--transport", transport, "--catalog",
                           str(catalog_path), *chosen], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200", "VERISHOP_HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr
    assert len([p for p in runs.iterdir() if p.name.startswith("ep_")]) == len(DEMO_EPISODES)
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
