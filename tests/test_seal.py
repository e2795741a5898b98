"""Tamper-evident episodes (issue 28, point 6; issue 37, point 5): the server seals each transcript
event and the final world with a keyed digest chain whose key lives outside the runs folder;
`verify` and `verify --compare` report any later edit as "modified after close", re-verifying
included, and tell it apart from a verifier change; an episode from before sealing is "unsealed".
A real `verishop eval` makes the episodes; each test edits a copy as an attacker would."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.scenarios.seal import KEY_FILE_ENV, SealKeyError
from verishop.verifier.runner import Settings, Verifier

EPISODES = 3


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verishop", *args], capture_output=True, text=True, timeout=300,
                          env=env)


@pytest.fixture(scope="module")
def home_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Children with a VERISHOP_HOME of their own and no operator key: the per-runs-folder default."""
    env = {k: v for k, v in os.environ.items() if k != KEY_FILE_ENV}
    env["VERISHOP_HOME"] = str(tmp_path_factory.mktemp("home"))
    return env


@pytest.fixture(scope="module")
def sealed_run(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory, home_env: dict[str, str]) -> Path:
    runs = tmp_path_factory.mktemp("sealed")
    done = cli("eval", "--json", "--catalog", str(catalog_path), "--runs-dir", str(runs), "--agent", "oracle",
               "--env", "pd,cart", "--difficulty", "0", "--episodes", str(EPISODES), env=home_env)
    assert done.returncode == 0, done.stderr
    return Path(json.loads(done.stdout)["run_dir"])


@pytest.fixture
def run(sealed_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(sealed_run, copy)
    return copy


def episodes(run: Path) -> list[Path]:
    return sorted(d for d in run.iterdir() if d.is_dir() and (d / "transcript.jsonl").is_file())


def verify(run: Path, env: dict[str, str], *extra: str) -> tuple[subprocess.CompletedProcess, dict[str, dict]]:
    done = cli("verify", "--json", *extra, str(run), env=env)
    rewards = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done, {r["episode_id"]: r for r in rewards}


def compare(run: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, list[dict]]:
    done = cli("verify", "--compare", "--json", str(run), env=env)
    return done, [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def rewrite_lines(path: Path, edit) -> None:
    lines = path.read_text().splitlines()
    path.write_text("\n".join(edit(lines)) + "\n")


def test_every_event_is_sealed_with_a_key_kept_outside_the_runs_folder(sealed_run: Path, home_env: dict[str, str]):
    keys = list(Path(home_env["VERISHOP_HOME"], "seal-keys").glob("*.key"))
    assert len(keys) == 1 and stat.S_IMODE(keys[0].stat().st_mode) == 0o600
    assert not list(sealed_run.parent.rglob("*.key")), "no key may live in the runs folder"
    for directory in episodes(sealed_run):
        events = [json.loads(line) for line in (directory / "transcript.jsonl").read_text().splitlines()]
        assert all(len(e["seal"]) == 64 for e in events)
        assert events[0]["seal_key_id"] and events[-1]["event"] == "episode_closed"
        assert events[-1]["world_sha256"] == hashlib.sha256((directory / "world.db").read_bytes()).hexdigest()
    done, rewards = verify(sealed_run, home_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {r["seal"] for r in rewards.values()} == {"intact"}


def test_an_edited_transcript_event_is_modified_after_close_through_verify_and_compare(run: Path,
                                                                                       home_env: dict[str, str]):
    target = episodes(run)[0]

    def edit(lines: list[str]) -> list[str]:
        event = json.loads(lines[1])  # the customer's opening message, seal and all
        event["text"] = event["text"] + " Anything will do."
        lines[1] = json.dumps(event, separators=(",", ":"))
        return lines

    rewrite_lines(target / "transcript.jsonl", edit)
    done, rewards = verify(run, home_env)  # the attacker re-verifies: reward.json is rewritten
    assert done.returncode == 1
    assert (rewards[target.name]["verdict"], rewards[target.name]["reason"]) == ("incomplete", "modified_after_close")
    assert "transcript line 2" in rewards[target.name]["detail"]
    assert all(r["seal"] == "intact" for name, r in rewards.items() if name != target.name)
    done, changes = compare(run, home_env)  # stored and recomputed now agree: only the seal tells
    assert done.returncode == 1, done.stdout
    assert [(c["episode_id"], c["kind"], c["what"]) for c in changes] == \
        [(target.name, "modified_after_close", ["modified after close"])]
    table = cli("verify", "--compare", str(run), env=home_env)
    assert table.returncode == 1 and "modified after close" in table.stdout and "TAMPERED" in table.stdout


def test_a_reseal_with_another_key_or_a_removed_event_is_still_caught(run: Path, home_env: dict[str, str]):
    first, second = episodes(run)[:2]
    forged_key = b"\x01" * 32

    def reseal(lines: list[str]) -> list[str]:  # an attacker who knows the scheme but not the key
        previous, out = "", []
        for line in lines:
            body = line[:line.rindex(',"seal":')] + "}"
            previous = hmac.new(forged_key, previous.encode() + body.encode(), hashlib.sha256).hexdigest()
            out.append(body[:-1] + f',"seal":"{previous}"}}')
        return out

    rewrite_lines(first / "transcript.jsonl", reseal)
    rewrite_lines(second / "transcript.jsonl", lambda lines: lines[:2] + lines[3:])
    done, rewards = verify(run, home_env)
    assert done.returncode == 1
    assert rewards[first.name]["reason"] == rewards[second.name]["reason"] == "modified_after_close"


def test_an_edited_world_is_modified_after_close(run: Path, home_env: dict[str, str]):
    target = episodes(run)[0]
    with sqlite3.connect(target / "world.db") as db:
        db.execute("DELETE FROM cart")
        db.execute("INSERT INTO meta (key, value) VALUES ('edited', '1')")
    db.close()
    done, rewards = verify(run, home_env)
    assert done.returncode == 1
    assert rewards[target.name]["reason"] == "modified_after_close" and "world.db" in rewards[target.name]["detail"]


def test_an_edited_scenario_is_modified_after_close_even_with_its_digest_updated(run: Path,
                                                                                 home_env: dict[str, str]):
    target = episodes(run)[0]
    scenario = json.loads((target / "scenario.json").read_text())
    scenario["max_turns_note"] = "edited"
    (target / "scenario.json").write_text(json.dumps(scenario))
    digest = hashlib.sha256((target / "scenario.json").read_bytes()).hexdigest()

    def point_at_the_new_scenario(lines: list[str]) -> list[str]:
        opened = json.loads(lines[0])
        opened["scenario_sha256"] = digest
        lines[0] = json.dumps(opened, separators=(",", ":"))
        return lines

    other = episodes(run)[1]
    (other / "scenario.json").write_text((other / "scenario.json").read_text() + " ")
    rewrite_lines(target / "transcript.jsonl", point_at_the_new_scenario)
    done, rewards = verify(run, home_env)
    assert done.returncode == 1
    assert rewards[target.name]["reason"] == rewards[other.name]["reason"] == "modified_after_close"
    assert "scenario.json" in rewards[other.name]["detail"]


def test_a_verifier_change_with_intact_seals_is_a_verifier_change_not_tampering(run: Path,
                                                                                home_env: dict[str, str]):
    target = episodes(run)[0]
    stored = json.loads((target / "reward.json").read_text())
    stored["manifest"]["verifier_version"] -= 1  # scored by the previous verifier
    stored["total"] = round(stored["total"] - 0.25, 6)
    (target / "reward.json").write_text(json.dumps(stored))
    done, changes = compare(run, home_env)
    assert done.returncode == 1
    assert [(c["episode_id"], c["kind"], c["bug"]) for c in changes] == [(target.name, "verifier_change", False)]
    assert changes[0]["why"].startswith("verifier version") and "seals intact" in changes[0]["why"]


def strip_seals(lines: list[str], episode_id: str | None = None) -> list[str]:
    """The transcript as a server from before sealing wrote it (under another id, if given)."""
    out = []
    for line in lines:
        event = json.loads(line)
        for key in ("seal", "seal_key_id", "seal_scheme", "world_sha256"):
            event.pop(key, None)
        if episode_id is not None and "episode_id" in event:
            event["episode_id"] = episode_id
        out.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
    return out


def test_an_episode_from_before_sealing_is_unsealed_not_tampered(run: Path, home_env: dict[str, str]):
    # An older server's episode: no seal anywhere, an id no key's ledger lists.
    old = run / "ep_0123456789abcdef01234567"
    episodes(run)[0].rename(old)
    rewrite_lines(old / "transcript.jsonl", lambda lines: strip_seals(lines, old.name))
    (old / "reward.json").unlink()
    done, rewards = verify(run, home_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (rewards[old.name]["verdict"], rewards[old.name]["seal"]) == ("scored", "unsealed")
    done, changes = compare(run, home_env)
    assert done.returncode == 0 and changes == []


def test_stripping_every_seal_does_not_pass_a_sealed_episode_off_as_an_old_one(run: Path,
                                                                              home_env: dict[str, str]):
    target = episodes(run)[0]
    rewrite_lines(target / "transcript.jsonl", strip_seals)
    done, rewards = verify(run, home_env)
    assert done.returncode == 1
    assert rewards[target.name]["reason"] == "modified_after_close" and "removed" in rewards[target.name]["detail"]


def test_a_sealed_episode_is_not_scored_without_its_key(run: Path, home_env: dict[str, str], tmp_path: Path):
    elsewhere = {**home_env, "VERISHOP_HOME": str(tmp_path / "other-home")}
    done, rewards = verify(run, elsewhere)
    assert done.returncode == 1
    assert {r["reason"] for r in rewards.values()} == {"seal_key_missing"}
    key = next(Path(home_env["VERISHOP_HOME"], "seal-keys").glob("*.key"))
    done, rewards = verify(run, elsewhere, "--seal-key", str(key))
    assert done.returncode == 0 and {r["seal"] for r in rewards.values()} == {"intact"}


def test_a_key_inside_the_runs_folder_is_refused(catalog_path: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch):
    runs = tmp_path / "runs"
    monkeypatch.setenv(KEY_FILE_ENV, str(runs / "keys" / "seal.key"))
    with pytest.raises(SealKeyError, match="inside the runs folder"):
        EpisodeHub(catalog_path, runs)
    assert not (runs / "keys" / "seal.key").exists()


async def test_the_in_process_hub_seals_the_same_way(hub: EpisodeHub):
    episode = await hub.open(hub.generate("pd", 0, 5))
    await hub.close(episode.episode_id, "agent_done")
    with Verifier(Settings()) as verifier:
        reward = verifier.score(episode.directory)
    assert (reward.seal, reward.reason) == ("intact", None)
    lines = (episode.directory / "transcript.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["seal_key_id"] == hub.seal_key.key_id and all('"seal":"' in line for line in lines)


def test_compare_lists_an_unreadable_stored_reward_and_goes_on(run: Path, home_env: dict[str, str]):
    first, second, third = episodes(run)[:3]
    text = json.loads((first / "reward.json").read_text())
    text["total"] = "abc"
    (first / "reward.json").write_text(json.dumps(text))
    (second / "reward.json").write_text("[1, 2, 3]")
    stored = json.loads((third / "reward.json").read_text())
    stored["is_correct"] = not stored["is_correct"]
    (third / "reward.json").write_text(json.dumps(stored))
    done, changes = compare(run, home_env)
    assert done.returncode == 1, done.stderr
    kinds = {c["episode_id"]: c["kind"] for c in changes}
    assert kinds == {first.name: "unreadable_reward", second.name: "unreadable_reward", third.name: "verifier_bug"}
    table = cli("verify", "--compare", str(run), env=home_env)
    assert table.returncode == 1 and first.name in table.stdout and "Traceback" not in table.stderr


def test_an_episode_folder_that_is_a_link_gets_its_line(run: Path, home_env: dict[str, str], tmp_path: Path):
    target = episodes(run)[0]
    outside = tmp_path / "outside"
    shutil.move(target, outside)
    target.symlink_to(outside, target_is_directory=True)
    done, changes = compare(run, home_env)
    assert done.returncode == 1
    assert [(c["episode_id"], c["kind"]) for c in changes] == [(target.name, "refused_link")]
    done, rewards = verify(run, home_env)
    assert done.returncode == 1 and rewards[target.name]["verdict"] == "incomplete"
    assert len(rewards) == len(episodes(run))


async def test_an_open_episode_with_a_line_being_written_is_not_closed_not_modified(hub: EpisodeHub):
    episode = await hub.open(hub.generate("pd", 0, 6))
    with open(episode.directory / "transcript.jsonl", "ab") as transcript:
        transcript.write(b'{"seq":3,"event":"tool_call","turn":0,"tool":"search_cat')  # a write in flight
    with Verifier(Settings()) as verifier:
        assert verifier.score(episode.directory).reason == "episode_not_closed"
