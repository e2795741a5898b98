"""Confidence, not just a mean: Wilson intervals, seeded bootstrap intervals, flip rates and the
determinism certificate, from the numbers up to `verishop eval --json --trials`."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verishop.agents.confidence import bootstrap_mean_interval, flip_rates, wilson_interval
from verishop.agents.determinism import certify
from verishop.agents.evaluate import summarize

# Hand-computed with z = 1.959964: centre (p + z²/2n) / (1 + z²/n), half-width
# z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n). 8/10: centre 0.7167, half 0.2266.
WILSON_KNOWN = [
    ((8, 10), (0.4902, 0.9433)),
    ((0, 20), (0.0, 0.1611)),
    ((20, 20), (0.8389, 1.0)),
    ((50, 100), (0.4038, 0.5962)),
    ((1, 1), (0.2065, 1.0)),
]


@pytest.mark.parametrize(("counts", "expected"), WILSON_KNOWN)
def test_the_wilson_interval_matches_hand_computed_bounds(counts, expected):
    assert wilson_interval(*counts) == expected


def test_the_wilson_interval_is_none_without_episodes_and_refuses_impossible_counts():
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError, match="successes <= n"):
        wilson_interval(3, 2)


def test_the_wilson_interval_narrows_as_episodes_grow_and_always_holds_the_share():
    widths = []
    for n in (10, 40, 160, 640):
        low, high = wilson_interval(n // 4, n)
        assert low <= 0.25 <= high
        widths.append(high - low)
    assert widths == sorted(widths, reverse=True)


def test_a_seeded_bootstrap_is_reproducible_and_brackets_the_mean():
    totals = [0.91, -0.2, 0.55, 1.0, 0.12, -1.0, 0.73, 0.4, 0.66, 0.05]
    mean = sum(totals) / len(totals)
    first = bootstrap_mean_interval(totals, seed=7)
    assert first == bootstrap_mean_interval(totals, seed=7)
    low, high = first
    assert min(totals) <= low < mean < high <= max(totals)
    # A different seed draws other resamples: close, not identical.
    other = bootstrap_mean_interval(totals, seed=8)
    assert other != first and math.isclose(other[0], low, abs_tol=0.1)


def test_the_bootstrap_of_constant_values_is_that_value_and_of_nothing_is_none():
    assert bootstrap_mean_interval([0.5] * 7) == (0.5, 0.5)
    assert bootstrap_mean_interval([]) is None


def test_summary_rows_carry_both_intervals():
    rewards = [{"episode_id": f"ep_{i}", "env_id": "pd-v10", "difficulty": 0, "seed": i, "verdict": "scored",
                "is_correct": i < 8, "total": 0.9 if i < 8 else -0.5, "r_task": 0, "r_eff": 0, "r_hall": 0,
                "turns": 1, "tool_calls": 1} for i in range(10)]
    row = summarize(rewards)[0]
    assert row["solved_ci95"] == [0.4902, 0.9433]
    low, high = row["total_ci95"]
    assert low < row["total"] < high


def test_flip_rate_counts_tasks_whose_verdict_differs_between_trials():
    def r(env, seed, solved):
        return {"env_id": env, "difficulty": 1, "seed": seed, "verdict": "scored", "is_correct": solved}

    rewards = [r("pd", 1, True), r("pd", 1, False), r("pd", 2, True), r("pd", 2, True),
               r("pd", 3, False), r("pd", 3, False), r("pd", 4, True), r("cart", 1, True), r("cart", 1, True)]
    rates = flip_rates(rewards)
    assert rates["pd"] == {"tasks": 3, "flipped": 1, "flip_rate": 0.3333}  # seed 4 was tried once
    assert rates["cart"]["flip_rate"] == 0.0


def run_eval(catalog_path: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verishop", "eval", "--catalog", str(catalog_path), "--runs-dir",
                           str(tmp_path / "runs"), *args], capture_output=True, text=True, timeout=300)


def test_eval_with_trials_reports_intervals_flip_rates_and_a_passing_certificate(catalog_path, tmp_path):
    done = run_eval(catalog_path, tmp_path, "--json", "--agent", "greedy", "--env", "pd,policy", "--difficulty",
                    "0-3", "--episodes", "3", "--trials", "2")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    for row in summary["rows"]:
        low, high = row["solved_ci95"]
        assert low <= row["solved_share"] <= high
    assert set(summary["flip_rate"]) == {row["env_id"] for row in summary["rows"]}
    # A scripted agent and a seeded shop: nothing flips, and the shop certifies itself.
    assert all(f["flip_rate"] == 0.0 and f["tasks"] == 3 for f in summary["flip_rate"].values())
    certificate = summary["determinism"]
    assert certificate["deterministic"] is True
    assert (certificate["tasks"], certificate["trials"]) == (6, 12)
    assert certificate["replies_compared"] >= 6
    assert "every verdict flip is the agent's" in certificate["line"]

    # Edit one trial's customer reply: the certificate names the task and the move.
    run_dir = Path(summary["run_dir"])
    certificate_before = certify(run_dir)
    tampered = tmp_path / "tampered"
    shutil.copytree(run_dir, tampered)
    episode = next(d for d in sorted(tampered.iterdir()) if d.is_dir() and (d / "transcript.jsonl").is_file()
                   and '"respond_to_customer"' in (d / "transcript.jsonl").read_text())
    lines = (episode / "transcript.jsonl").read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"tool":"respond_to_customer"' in line.replace(" ", ""))
    event = json.loads(lines[index])
    event["result"]["customer_message"] += " (changed)"
    lines[index] = json.dumps(event)
    (episode / "transcript.jsonl").write_text("\n".join(lines) + "\n")
    broken = certify(tampered)
    assert certificate_before.deterministic and not broken.deterministic
    assert len(broken.differences) == 1 and "differently" in broken.differences[0]


def test_eval_tables_print_the_intervals_and_the_certificate_once(catalog_path, tmp_path):
    done = run_eval(catalog_path, tmp_path, "--agent", "oracle", "--env", "status", "--difficulty", "0-1",
                    "--episodes", "2", "--trials", "2")
    assert done.returncode == 0, done.stderr
    assert "solved 95% CI" in done.stdout and "total 95% CI" in done.stdout
    assert done.stdout.count("determinism certificate") == 1
    assert "flip rate" in done.stdout
