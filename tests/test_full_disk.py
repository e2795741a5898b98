"""One truth on a full disk, on a real (small) tmpfs: a write tool whose COMMIT fails is rolled
back and recorded as failed, so the agent's answer, the transcript and world.db agree; creating
an episode on a full disk answers 507 naming the disk, with Retry-After, and leaves no folder.
Skipped, saying why, where this process may not mount a tmpfs (it needs root)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from servers import started

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.episodes.recovery import lock_directory
from verishop.mcp_server.tools import create_server
from verishop.verifier.runner import Verifier

TMPFS_SIZE = "4m"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE}", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip() or done.returncode}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(disk: Path) -> Path:
    """Take every free block of `disk` (what is left is the slack in files' last blocks)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (1 << 16, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    f.write(b"\0" * size)
    assert os.statvfs(disk).f_bavail == 0
    return filler


def events(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "transcript.jsonl").read_text().splitlines()]


async def test_a_write_whose_commit_fails_is_rolled_back_and_recorded_as_failed(catalog_path: Path,
                                                                                small_disk: Path) -> None:
    hub = EpisodeHub(catalog_path, small_disk / "runs")
    try:
        scenario = hub.generate("pd", 2, 1)
        scenario = scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 100})})
        episode = await hub.open(scenario, default=True)
        async with Client(create_server(hub)) as client:
            found = (await client.call_tool("search_catalog", {"query": ""})).structured_content["results"]
            product_id = next(p["product_id"] for p in found if episode.product(p["product_id"]).stock >= 2)
            # The failed call's event must fit in the slack of the transcript's last block (a full disk
            # has no other room): a few more lookups move the transcript's end until it does.
            for _ in range(20):
                if -(episode.directory / "transcript.jsonl").stat().st_size % 4096 >= 1024:
                    break
                await client.call_tool("get_current_date", {})
            assert -(episode.directory / "transcript.jsonl").stat().st_size % 4096 >= 1024
            filler = fill(small_disk)  # the world store's write-ahead log has no block to grow into
            failed = await client.call_tool("add_to_cart", {"product_id": product_id, "quantity": 2})
            assert failed.is_error
            assert "disk" in failed.content[0].text and "not applied" in failed.content[0].text
            filler.unlink()  # the next calls work again
            view = (await client.call_tool("view_cart", {})).structured_content
            added = await client.call_tool("add_to_cart", {"product_id": product_id, "quantity": 1})
            assert not added.is_error, added.content[0].text
        calls = [e for e in events(episode.directory) if e["event"] == "tool_call"]
        adds = [e for e in calls if e["tool"] == "add_to_cart"]
        assert len(adds) == 2 and "result" not in adds[0] and "disk" in adds[0]["error"], adds
        assert view["lines"] == []  # what the agent sees next agrees with the answer and the transcript
        await hub.close(episode.episode_id, "closed_by_client")  # world.db is written at close
        with sqlite3.connect(f"file:{episode.directory / 'world.db'}?mode=ro", uri=True) as db:
            assert db.execute("SELECT quantity FROM cart WHERE product_id = ?", (product_id,)).fetchall() == [(1,)]
    finally:
        await hub.aclose()


async def test_a_world_the_full_disk_cannot_take_at_close_is_kept_and_written_once_it_can(catalog_path: Path,
                                                                                           small_disk: Path) -> None:
    """world.db is written at close: on a full disk it is not, the store keeps the world, and the
    folder stays locked without a closing event (the verifier waits, no recovery closes it).
    Once space returns, the next closing writes world.db and then the closing event."""
    hub = EpisodeHub(catalog_path, small_disk / "runs")
    try:
        episode = await hub.open(hub.generate("cart", 2, 5), default=True)
        async with Client(create_server(hub)) as client:
            found = (await client.call_tool("search_catalog", {"category_id": "cookware", "in_stock_only": True}))
            product_id = found.structured_content["results"][0]["product_id"]
            assert not (await client.call_tool("add_to_cart", {"product_id": product_id})).is_error
        filler = fill(small_disk)
        await hub.close(episode.episode_id, "closed_by_client")
        assert hub.closed[episode.episode_id] == "closed_by_client"
        assert not (episode.directory / "world.db").exists()
        assert events(episode.directory)[-1]["event"] != "episode_closed"
        assert lock_directory(episode.directory) is None  # still this hub's: no recovery closes it
        assert hub.store.get(episode.episode_id) is not None

        filler.unlink()
        later = await hub.open(hub.generate("pd", 1, 2))
        await hub.close(later.episode_id, "closed_by_client")
        closing = events(episode.directory)[-1]
        assert (closing["event"], closing["reason"]) == ("episode_closed", "closed_by_client")
        assert [e["seq"] for e in events(episode.directory)] == list(range(1, len(events(episode.directory)) + 1))
        with sqlite3.connect(f"file:{episode.directory / 'world.db'}?mode=ro", uri=True) as db:
            assert db.execute("SELECT product_id, quantity FROM cart").fetchall() == [(product_id, 1)]
        assert hub.store.get(episode.episode_id) is None
        with Verifier() as verifier:
            assert verifier.score(episode.directory).verdict == "scored"
    finally:
        await hub.aclose()


def test_creating_an_episode_on_a_full_disk_answers_507_naming_the_disk(catalog_path: Path, tmp_path: Path,
                                                                        small_disk: Path) -> None:
    runs = small_disk / "runs"
    with started(["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
                  "--runs-dir", str(runs)], tmp_path / "server.log",
                 {"VERISHOP_HOME": str(tmp_path / "home")}) as server:
        before = sorted(p.name for p in runs.iterdir())
        fill(small_disk)
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            r = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 4})
        assert r.status_code == 507, r.text
        assert int(r.headers["retry-after"]) > 0
        assert "disk" in r.json()["error"] and str(runs) in r.json()["error"], r.text
        assert sorted(p.name for p in runs.iterdir()) == before
        assert "Traceback" not in server.log()


def test_the_filler_really_fills_the_disk(small_disk: Path) -> None:
    fill(small_disk)
    with pytest.raises(OSError) as raised:
        (small_disk / "more").write_bytes(b"x" * 4096)
    assert raised.value.errno == errno.ENOSPC


def test_an_event_the_full_disk_cannot_hold_leaves_no_partial_line(small_disk: Path) -> None:
    from verishop.mcp_server.episodes.transcript import Transcript

    transcript = Transcript(small_disk / "transcript.jsonl")
    try:
        transcript.write("episode_opened", text="hello")
        before = (small_disk / "transcript.jsonl").read_bytes()
        fill(small_disk)  # what is left is the slack of the transcript's last block
        with pytest.raises(OSError) as raised:
            transcript.write("tool_call", result="x" * 16_384)
        assert raised.value.errno == errno.ENOSPC
        assert (small_disk / "transcript.jsonl").read_bytes() == before
        (small_disk / "filler").unlink()
        assert transcript.write("tool_call", result="ok") == 2  # numbering goes on without a gap
    finally:
        transcript.close()


async def test_a_call_refused_for_its_lookup_budget_on_a_full_disk_answers_the_refusal(
        catalog_path: Path, small_disk: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The refusal's transcript event cannot be written: the agent still gets the budget refusal
    (not a bare "Error executing tool"), and the log gets one line, no traceback."""
    from verishop.scenarios.budget import BUDGET_ERROR

    hub = EpisodeHub(catalog_path, small_disk / "runs")
    try:
        scenario = hub.generate("pd", 2, 1)
        scenario = scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 1})})
        episode = await hub.open(scenario, default=True)
        async with Client(create_server(hub)) as client:
            assert not (await client.call_tool("search_catalog", {"query": ""})).is_error
            fill(small_disk)  # what is left is the slack of the transcript's last block: a few events
            calls = 40
            for _ in range(calls):
                refused = await client.call_tool("search_catalog", {"query": "x" * 200})
                assert refused.is_error
                assert BUDGET_ERROR in refused.content[0].text, refused.content[0].text
        recorded = [e for e in events(episode.directory) if e["event"] == "tool_call"]
        assert len(recorded) < 1 + calls  # some refusals found the disk full
        assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records if r.exc_info]
    finally:
        (small_disk / "filler").unlink(missing_ok=True)
        await hub.aclose()
