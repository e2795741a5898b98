"""Every way an episode's files can be missing or broken gives verdict "incomplete" with a
specific reason (and null numbers), and `verishop verify` exits 1; usage errors exit 2."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import hostile
import pytest
from test_verifier import pd_scenario, perfect_pd, write_episode
from typer.testing import CliRunner

from verishop.verifier.models import Reward
from verishop.verifier import runner
from verishop.verifier.runner import Settings, Verifier
from verishop.verifier.safeio import Limits, json_depth_exceeds
from verishop.cli import app


def run_cli(*args: str):
    return CliRunner().invoke(app, ["verify", *args])


@pytest.fixture
def good(reader, catalog_path, tmp_path) -> Path:  # noqa: F811
    scenario = pd_scenario(reader)
    return write_episode(tmp_path / "runs", scenario, perfect_pd(reader, scenario), catalog_path)


def lines(directory: Path) -> list[str]:
    return (directory / "transcript.jsonl").read_text().splitlines(keepends=True)


def set_lines(directory: Path, new: list[str]) -> None:
    (directory / "transcript.jsonl").write_text("".join(new))


def _rewrite_scenario(directory: Path, **changes) -> None:
    data = json.loads((directory / "scenario.json").read_text())
    data.update(changes)
    (directory / "scenario.json").write_text(json.dumps(data, indent=2))


def _swap_lines(directory: Path, i: int, j: int) -> None:
    new = lines(directory)
    new[i], new[j] = new[j], new[i]
    set_lines(directory, new)


def _wrong_catalog_hash(directory: Path) -> None:
    db = sqlite3.connect(directory / "world.db")
    catalog = Path(dict(db.execute("SELECT key, value FROM meta"))["catalog_path"])
    copy = directory.parent.parent / "other-catalog.db"
    shutil.copy(catalog, copy)
    other = sqlite3.connect(copy)
    other.execute("UPDATE meta SET value = 'not-the-same-catalog' WHERE key = 'content_hash'")
    other.commit()
    other.close()
    db.execute("UPDATE meta SET value = ? WHERE key = 'catalog_path'", (str(copy),))
    db.commit()
    db.close()


BREAKAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "missing transcript": (lambda d: (d / "transcript.jsonl").unlink(), "transcript_missing"),
    "missing scenario": (lambda d: (d / "scenario.json").unlink(), "scenario_missing"),
    "missing world": (lambda d: (d / "world.db").unlink(), "world_missing"),
    "empty transcript": (lambda d: (d / "transcript.jsonl").write_text(""), "transcript_empty"),
    "blank transcript": (lambda d: (d / "transcript.jsonl").write_text("\n\n"), "transcript_empty"),
    "empty scenario": (lambda d: (d / "scenario.json").write_text(""), "scenario_invalid"),
    "truncated last line, never closed": (
        lambda d: set_lines(d, [*lines(d)[:-1], lines(d)[-1][:17]]), "episode_not_closed"),
    "corrupt middle line": (
        lambda d: set_lines(d, [*lines(d)[:2], '{"seq": 3, "event": "tool_ca\n', *lines(d)[3:]]),
        "transcript_corrupt"),
    "a middle line that is not an event": (
        lambda d: set_lines(d, [*lines(d)[:2], "[1, 2]\n", *lines(d)[3:]]), "transcript_corrupt"),
    "out-of-order seq": (lambda d: _swap_lines(d, 2, 3), "transcript_out_of_order"),
    "event before episode_opened": (lambda d: _swap_lines(d, 0, 1), "transcript_no_opening"),
    "no episode_closed": (lambda d: set_lines(d, lines(d)[:-1]), "episode_not_closed"),
    "corrupt world.db": (lambda d: (d / "world.db").write_bytes(b"this is not sqlite" * 100), "world_corrupt"),
    "world.db without tables": (lambda d: sqlite3.connect(d / "world.db").execute("DROP TABLE cart"),
                                "world_corrupt"),
    "unknown scenario schema version": (lambda d: _rewrite_scenario(d, schema_version=99),
                                        "scenario_schema_unknown"),
    "invalid scenario": (lambda d: _rewrite_scenario(d, difficulty="hard"), "scenario_invalid"),
    "scenario edited after the episode": (lambda d: _rewrite_scenario(d, seed=123456), "scenario_mismatch"),
    "catalog hash mismatch": (_wrong_catalog_hash, "catalog_mismatch"),
    "catalog gone": (lambda d: sqlite3.connect(d / "world.db").execute(
        "UPDATE meta SET value = '/nonexistent/catalog.db' WHERE key = 'catalog_path'").connection.commit(),
        "catalog_missing"),
}


@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_broken_episode_is_incomplete_with_its_reason(good, verifier, breakage):  # noqa: F811
    breaks, reason = BREAKAGES[breakage]
    breaks(good)
    reward = verifier.verify(good)
    assert (reward.verdict, reward.reason) == ("incomplete", reason), reward.detail
    assert reward.detail
    assert (reward.r_task, reward.r_eff, reward.r_hall, reward.total, reward.is_correct) == (None,) * 5
    if reason == "episode_not_closed":  # its server may still be playing it: no reward.json to mistake
        assert not (good / "reward.json").exists()
    else:
        assert Reward.model_validate_json((good / "reward.json").read_text()) == reward

    result = run_cli(str(good), "--json")
    assert result.exit_code == 1, result.output
    assert json.loads(result.output.splitlines()[-1])["reason"] == reason


def test_incomplete_rewards_keep_the_episode_identity(good, verifier):  # noqa: F811
    (good / "transcript.jsonl").unlink()
    reward = verifier.verify(good)
    assert (reward.episode_id, reward.env_id, reward.difficulty) == ("ep_test", "pd-v10", 0)


def test_a_line_cut_short_after_closing_is_tolerated_and_noted(good, verifier):  # noqa: F811
    set_lines(good, [*lines(good), '{"seq": 99, "ev'])
    reward = verifier.verify(good)
    assert reward.verdict == "scored" and reward.total == 1.0
    assert any("cut short" in note for note in reward.notes)


def test_a_cut_line_notes_why_the_episode_is_not_closed(good, verifier):  # noqa: F811
    set_lines(good, [*lines(good)[:-1], lines(good)[-1][:17]])
    reward = verifier.verify(good)
    assert reward.reason == "episode_not_closed"
    assert "no episode_closed" in reward.detail


def test_verify_on_an_open_episode_writes_no_reward_into_its_folder(good):  # noqa: F811
    set_lines(good, lines(good)[:-1])  # as a live server leaves it between two calls
    result = run_cli(str(good), "--json")
    assert result.exit_code == 1
    printed = json.loads(result.output.splitlines()[-1])
    assert printed["reason"] == "episode_not_closed" and "not written" in printed["detail"]
    assert sorted(p.name for p in good.iterdir()) == ["scenario.json", "transcript.jsonl", "world.db"]


def test_a_catalog_override_is_checked_by_hash(good, tmp_path):
    _wrong_catalog_hash(good)
    other = tmp_path / "other-catalog.db"
    with Verifier(Settings(catalog=other)) as v:
        assert v.score(good).reason == "catalog_mismatch"
    result = run_cli(str(good), "--catalog", str(other))
    assert result.exit_code == 1 and "catalog_mismatch" in result.output


def test_a_good_catalog_override_rescues_a_moved_catalog(good, catalog_path):
    BREAKAGES["catalog gone"][0](good)
    result = run_cli(str(good), "--json", "--catalog", str(catalog_path))
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["total"] == 1.0


def test_cli_scores_a_folder_of_episodes_and_prints_a_table(reader, catalog_path, tmp_path):  # noqa: F811
    scenario = pd_scenario(reader)
    for i in range(3):
        write_episode(tmp_path / "runs", scenario, perfect_pd(reader, scenario, f"ep_{i}"), catalog_path,
                      episode_id=f"ep_{i}")
    result = run_cli(str(tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    assert "3 scored, 0 incomplete" in result.output and "ep_2" in result.output
    assert all((tmp_path / "runs" / f"ep_{i}" / "reward.json").is_file() for i in range(3))

    (tmp_path / "runs" / "ep_1" / "world.db").write_bytes(b"garbage")
    result = run_cli(str(tmp_path / "runs"), "--json")
    assert result.exit_code == 1
    verdicts = [json.loads(line)["verdict"] for line in result.output.splitlines()]
    assert verdicts == ["scored", "incomplete", "scored"]


@pytest.mark.parametrize("args", [
    ["/nonexistent/run/dir"],
    ["{good}", "--weights", "1,2"],
    ["{good}", "--weights", "a,b,c"],
    ["{good}", "--catalog", "/nonexistent/catalog.db"],
    ["{empty}"],
])
def test_usage_errors_exit_2(good, tmp_path, args):
    (tmp_path / "empty").mkdir()
    result = run_cli(*[a.format(good=good, empty=tmp_path / "empty") for a in args])
    assert result.exit_code == 2, result.output
    assert not (good / "reward.json").exists()


def test_custom_weights_on_the_cli(good):
    result = run_cli(str(good), "--json", "--weights", "1,0,0")
    assert result.exit_code == 0
    reward = json.loads(result.output)
    assert reward["total"] == 1.0 and reward["weights"] == {"task": 1.0, "eff": 0.0, "hall": 0.0}


# Hostile files (issue 10): each is refused before it is read or parsed, with its own reason,
# in bounded time and memory; the batch it is part of goes on.

def _link_scenario(d: Path) -> None:
    real = d.parent / "elsewhere.json"
    (d / "scenario.json").rename(real)
    (d / "scenario.json").symlink_to(real)


def _fifo_world(d: Path) -> None:
    (d / "world.db").unlink()
    os.mkfifo(d / "world.db")


def _linked_wal(d: Path) -> None:
    (d / "world.db-wal").symlink_to("/dev/zero")


def _sparse(d: Path, name: str, size: int) -> None:
    with open(d / name, "r+b") as f:
        f.truncate(size)


def _catalog_is_a_fifo(d: Path) -> None:
    os.mkfifo(d.parent / "catalog.fifo")
    db = sqlite3.connect(d / "world.db")
    db.execute("UPDATE meta SET value = ? WHERE key = 'catalog_path'", (str(d.parent / "catalog.fifo"),))
    db.commit()
    db.close()


LIMITS = Limits()
HOSTILE: dict[str, tuple[Callable[[Path], None], str]] = {
    # linked to /dev/zero: in test_hostile_episodes_in_a_batch..., a process with a memory cap
    "transcript is a FIFO": (hostile.fifo_transcript, "transcript_not_regular"),
    "transcript is a directory": (lambda d: ((d / "transcript.jsonl").unlink(), (d / "transcript.jsonl").mkdir()),
                                  "transcript_not_regular"),
    "transcript over its cap": (lambda d: _sparse(d, "transcript.jsonl", LIMITS.transcript_bytes + 1),
                                "transcript_too_large"),
    "a 5,000-deep transcript line": (hostile.deep_transcript_line, "transcript_too_deep"),
    "scenario is a link": (_link_scenario, "scenario_not_regular"),
    "a 200,000-deep scenario": (hostile.deep_scenario, "scenario_too_deep"),
    "scenario over its cap": (lambda d: _sparse(d, "scenario.json", LIMITS.scenario_bytes + 1),
                              "scenario_too_large"),
    "world.db is a FIFO": (_fifo_world, "world_not_regular"),
    "world.db-wal linked to /dev/zero": (_linked_wal, "world_not_regular"),
    "world.db over its cap": (lambda d: _sparse(d, "world.db", LIMITS.world_bytes + 1), "world_too_large"),
    "the catalog world.db names is a FIFO": (_catalog_is_a_fifo, "catalog_missing"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_file_is_refused_with_its_reason_without_blocking(good, verifier, case):  # noqa: F811
    damage, reason = HOSTILE[case]
    damage(good)
    reward = hostile.within(30, lambda: verifier.verify(good), f"verifying an episode whose {case}")
    assert (reward.verdict, reward.reason) == ("incomplete", reason), reward.detail
    assert Reward.model_validate_json((good / "reward.json").read_text()) == reward
    # the identity comes from scenario.json when it is readable, and only then
    assert (reward.env_id is None) == ("scenario" in case), reward.env_id


def test_an_episode_folder_that_is_a_link_is_refused_and_nothing_is_written_through_it(good, verifier, tmp_path):
    link = tmp_path / "runs" / "ep_link"
    link.symlink_to(good)
    reward = verifier.verify(link)
    assert (reward.verdict, reward.reason) == ("incomplete", "episode_not_a_directory")
    assert not (good / "reward.json").exists()


def test_a_linked_reward_json_is_refused_and_its_target_untouched(good, verifier, tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    (good / "reward.json").symlink_to(target)
    reward = verifier.verify(good)
    assert (reward.verdict, reward.reason) == ("incomplete", "reward_not_regular")
    assert target.read_text() == "keep me" and (good / "reward.json").is_symlink()


def test_a_link_planted_at_the_partial_file_name_is_never_written_through(good, verifier, tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    (good / f".reward.json.{os.getpid()}.partial").symlink_to(target)  # the name the old verifier used
    reward = verifier.verify(good)
    assert reward.verdict == "scored" and reward.total == 1.0
    assert target.read_text() == "keep me"
    assert not (good / "reward.json").is_symlink()
    assert Reward.model_validate_json((good / "reward.json").read_text()) == reward


def test_lower_caps_apply(good):
    limits = Limits(transcript_bytes=100, json_depth=2)
    with Verifier(Settings(limits=limits)) as v:
        assert v.verify(good).reason == "transcript_too_large"
    with Verifier(Settings(limits=Limits(json_depth=2))) as v:
        assert v.verify(good).reason == "transcript_too_deep"


def test_the_depth_scan_ignores_brackets_inside_strings():
    text = json.dumps({"a": "[[[[[[[[", "b": ['\\"{{{{{{', [[1]]]}).encode()
    assert not json_depth_exceeds(text, 4) and json_depth_exceeds(text, 3)  # {"b": [ .., [[1]] ]}
    assert json_depth_exceeds(hostile.nested(200_000), 64) and not json_depth_exceeds(hostile.nested(64), 64)


BATCH = {"ep_0_good": None, "ep_1_deep_scenario": hostile.deep_scenario, "ep_2_fifo": hostile.fifo_transcript,
         "ep_3_zero": hostile.zero_transcript, "ep_4_deep_line": hostile.deep_transcript_line, "ep_5_good": None}


@pytest.mark.parametrize("workers", [1, 2])
def test_hostile_episodes_in_a_batch_get_their_own_verdicts_and_the_rest_are_scored(reader, catalog_path, tmp_path,
                                                                                      workers):  # noqa: F811
    scenario = pd_scenario(reader)
    runs = tmp_path / "runs"
    for name, damage in BATCH.items():
        directory = write_episode(runs, scenario, perfect_pd(reader, scenario, name), catalog_path, episode_id=name)
        if damage:
            damage(directory)
    try:  # a real process: a hang or a crash must show as such, not take the test runner with it
        done = subprocess.run([sys.executable, "-m", "verishop", "verify", str(runs), "--json", "--workers",
                               str(workers)], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "VERISHOP_HOME": str(tmp_path / "home")},
                              preexec_fn=hostile.memory_capped)
    except subprocess.TimeoutExpired:
        pytest.fail("verishop verify did not finish within 120 s")
    assert done.returncode == 1, done.stderr
    rewards = {r["episode_id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert {k: (r["verdict"], r["reason"]) for k, r in rewards.items()} == {
        "ep_0_good": ("scored", None), "ep_1_deep_scenario": ("incomplete", "scenario_too_deep"),
        "ep_2_fifo": ("incomplete", "transcript_not_regular"), "ep_3_zero": ("incomplete", "transcript_not_regular"),
        "ep_4_deep_line": ("incomplete", "transcript_too_deep"), "ep_5_good": ("scored", None)}
    assert rewards["ep_5_good"]["total"] == 1.0
    assert all((runs / name / "reward.json").is_file() for name in BATCH)


def _die_on_marked_chunk(directories: list[Path], write: bool = True) -> list[Reward]:
    if any(d.name == "ep_kill" for d in directories):
        os._exit(1)  # a worker killed mid-chunk (OOM killer, a segfault in a library)
    return runner._verify_chunk_unpatched(directories, write)


def test_a_pool_worker_that_dies_costs_no_verdict(reader, catalog_path, tmp_path, monkeypatch):  # noqa: F811
    scenario = pd_scenario(reader)
    names = ["ep_a", "ep_kill", "ep_b", "ep_c"]
    for name in names:
        write_episode(tmp_path / "runs", scenario, perfect_pd(reader, scenario, name), catalog_path, episode_id=name)
    # pool workers are forked, so they see the patched chunk function
    monkeypatch.setattr(runner, "_verify_chunk_unpatched", runner._verify_chunk, raising=False)
    monkeypatch.setattr(runner, "_verify_chunk", _die_on_marked_chunk)
    rewards = list(runner.verify_many([tmp_path / "runs" / n for n in names], Settings(), workers=2))
    assert [(r.episode_id, r.verdict, r.total) for r in rewards] == [(n, "scored", 1.0) for n in names]


def test_a_folder_whose_name_is_not_utf8_gets_its_verdict_like_any_other(reader, catalog_path, tmp_path):  # noqa: F811
    scenario = pd_scenario(reader)
    runs = tmp_path / "runs"
    write_episode(runs, scenario, perfect_pd(reader, scenario, "ep_a"), catalog_path, episode_id="ep_a")
    odd = runs / os.fsdecode(b"ep_\xff")
    shutil.copytree(runs / "ep_a", odd)
    result = run_cli(str(runs), "--json")
    verdicts = [(r["episode_id"], r["verdict"]) for r in map(json.loads, result.output.splitlines())]
    assert ("ep_a", "scored") in verdicts and len(verdicts) == 2, result.output
    assert (odd / "reward.json").is_file()
