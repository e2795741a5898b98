"""Re-scoring with a diff: every reward.json carries a manifest, and `verishop verify --compare`
re-scores stored episodes and lists every verdict or total that changed, with its cause."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from verishop.scenarios.models import Scenario
from verishop.verifier.models import REWARD_SCHEMA_VERSION, VERIFIER_VERSION
from verishop.verifier.runner import Settings, Verifier


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verishop", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def scored_run(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real evaluation, scored by the verifier: the stored rewards to compare with."""
    runs = tmp_path_factory.mktemp("rescore")
    done = cli("eval", "--json", "--catalog", str(catalog_path), "--runs-dir", str(runs), "--agent", "oracle",
               "--env", "pd,cart,policy", "--difficulty", "0-6", "--episodes", "4")
    assert done.returncode == 0, done.stderr
    return Path(json.loads(done.stdout)["run_dir"])


def episodes(run: Path) -> list[Path]:
    return sorted(d for d in run.iterdir() if d.is_dir() and (d / "reward.json").is_file())


def rewards(run: Path) -> dict[str, str]:
    return {d.name: (d / "reward.json").read_text() for d in episodes(run)}


def compare(run: Path, *extra: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    done = cli("verify", "--compare", "--json", *extra, str(run))
    return done, [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_every_reward_carries_its_manifest(scored_run: Path, catalog_path: Path):
    catalog_hash = sqlite3.connect(catalog_path).execute(
        "SELECT value FROM meta WHERE key = 'content_hash'").fetchone()[0]
    for directory in episodes(scored_run):
        reward = json.loads((directory / "reward.json").read_text())
        scenario = Scenario.model_validate_json((directory / "scenario.json").read_text())
        assert reward["manifest"] == {"env_id": scenario.env_id, "reward_schema_version": REWARD_SCHEMA_VERSION,
                                      "verifier_version": VERIFIER_VERSION, "catalog_content_hash": catalog_hash,
                                      "scenario_digest": scenario.sha256()}


def test_re_scoring_under_the_same_versions_changes_nothing_and_exits_0(scored_run: Path):
    before = rewards(scored_run)
    done, changes = compare(scored_run)
    assert done.returncode == 0, done.stdout + done.stderr
    assert changes == []
    assert rewards(scored_run) == before, "--compare must not write"
    table = cli("verify", "--compare", str(scored_run))
    assert table.returncode == 0 and f"{len(before)} episodes re-scored: {len(before)} unchanged" in table.stdout


def test_a_changed_catalog_lists_every_change_with_the_catalog_as_cause_and_exits_1(scored_run: Path,
                                                                                   catalog_path: Path,
                                                                                   tmp_path: Path):
    # The same catalog file with every price doubled, its meta (and so its recorded hash) untouched:
    # only hashing its rows again shows it is not the catalog the episodes were scored on.
    changed = tmp_path / "changed.db"
    shutil.copyfile(catalog_path, changed)
    with sqlite3.connect(changed) as db:
        db.execute("UPDATE products SET price_cents = price_cents * 2")
    before = rewards(scored_run)
    done, changes = compare(scored_run, "--catalog", str(changed))
    assert done.returncode == 1, done.stdout + done.stderr
    assert rewards(scored_run) == before, "--compare must not write"

    # Every episode whose result differs under the changed catalog is listed, and no other.
    with Verifier(Settings(catalog=changed)) as verifier:
        expected = set()
        for directory in episodes(scored_run):
            old, new = json.loads(before[directory.name]), verifier.score(directory)
            if (old["verdict"], old["is_correct"], old["total"]) != (new.verdict, new.is_correct, new.total):
                expected.add(directory.name)
    assert expected, "doubling every price must change some verdict or total"
    assert {c["episode_id"] for c in changes} == expected
    for change in changes:
        assert change["why"].startswith("catalog content hash") and not change["bug"], change
        assert any(part.startswith(("total", "solved", "verdict")) for part in change["what"])


def test_the_same_inputs_with_a_different_result_is_reported_as_a_bug(scored_run: Path, tmp_path: Path):
    copy = tmp_path / "run"
    shutil.copytree(scored_run, copy)
    target = episodes(copy)[0]
    stored = json.loads((target / "reward.json").read_text())
    stored["total"] = round(stored["total"] - 0.5, 6)
    (target / "reward.json").write_text(json.dumps(stored))
    done, changes = compare(copy)
    assert done.returncode == 1
    assert [(c["episode_id"], c["bug"]) for c in changes] == [(target.name, True)]
    assert "same inputs" in changes[0]["why"]


def test_a_reward_from_before_manifests_is_listed_as_of_unknown_inputs(scored_run: Path, tmp_path: Path):
    copy = tmp_path / "run"
    shutil.copytree(scored_run, copy)
    target = episodes(copy)[0]
    stored = json.loads((target / "reward.json").read_text())
    del stored["manifest"]
    stored["is_correct"] = not stored["is_correct"]
    (target / "reward.json").write_text(json.dumps(stored))
    (episodes(copy)[1] / "reward.json").unlink()
    done, changes = compare(copy)
    assert done.returncode == 1
    why = {c["episode_id"]: c["why"] for c in changes}
    assert "no manifest" in why[target.name]
    assert "no stored reward.json" in why[episodes(scored_run)[1].name]


def test_re_scoring_over_a_process_pool_writes_nothing_and_agrees(scored_run: Path):
    from verishop.verifier.runner import verify_many

    before = rewards(scored_run)
    directories = episodes(scored_run)
    pooled = list(verify_many(directories, Settings(), workers=2, write=False))
    assert rewards(scored_run) == before
    for directory, reward in zip(directories, pooled, strict=True):
        stored = json.loads(before[directory.name])
        assert (reward.episode_id, reward.total, reward.manifest.model_dump()) == \
            (directory.name, stored["total"], stored["manifest"])
