"""The verifier sidecar scores episodes as they close: at start-up for those already closed,
then as closed episode folders appear in the watched runs folder; and it serves the rewards."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from test_verifier import Script, pd_scenario, perfect_pd, write_episode

from verifier.models import Reward
from verifier.service import VerifierService
from servers import started

DEADLINE_S = 30.0
POLL_INTERVAL_S = 0.05


def poll(fn, what: str, log: Path | None = None):
    """Call fn until it returns something truthy, for at most DEADLINE_S."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what} not within {DEADLINE_S} s" + (f":\n{log.read_text(errors='replace')}" if log else ""))
        time.sleep(POLL_INTERVAL_S)


@pytest.fixture
def staged(reader, catalog_path, tmp_path) -> dict[str, Path]:  # noqa: F811
    """Episode folders built outside the watched folder: two closed, one still open."""
    scenario = pd_scenario(reader)
    stage = tmp_path / "stage"
    closed = {name: write_episode(stage, scenario, perfect_pd(reader, scenario, name), catalog_path, episode_id=name)
              for name in ("ep_before", "ep_dropped")}
    still_open = Script(scenario, "ep_open").tool("get_conversation")
    return {**closed, "ep_open": write_episode(stage, scenario, still_open, catalog_path, episode_id="ep_open")}


def test_sidecar_scores_closed_episodes_as_they_appear(staged, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copytree(staged["ep_before"], runs / "ep_before")  # closed before the sidecar starts
    log = tmp_path / "verifier.log"
    with started(["verifier", "serve", "--runs-dir", str(runs)], log, {"VERISHOP_HOME": str(tmp_path / "home")}) \
            as sidecar:
        with httpx2.Client(base_url=sidecar.base, timeout=5.0) as http:
            before = poll(lambda: http.get("/rewards/ep_before").status_code == 200 and http.get("/rewards/ep_before"),
                          "the start-up scan to score ep_before", log)
            assert Reward.model_validate_json(before.content).total == 1.0

            assert http.get("/rewards/ep_dropped").status_code == 404
            shutil.copytree(staged["ep_dropped"], runs / "ep_dropped")  # dropped in while watching
            dropped = poll(lambda: (r := http.get("/rewards/ep_dropped")).status_code == 200 and r,
                           "the watcher to score ep_dropped", log)
            reward = Reward.model_validate_json(dropped.content)
            assert (reward.episode_id, reward.total, reward.is_correct) == ("ep_dropped", 1.0, True)

            shutil.copytree(staged["ep_open"], runs / "ep_open")
            assert http.post("/verify/ep_open").status_code == 409
            assert http.get("/rewards/ep_open").status_code == 404
            assert http.post("/verify/ep_nowhere").status_code == 404
            assert http.get("/rewards/ep_nowhere").status_code == 404
            assert http.get("/rewards/..").status_code == 404
            now = http.post("/verify/ep_before")
            assert now.status_code == 200 and now.json()["total"] == 1.0
            assert http.get("/health").json()["scored"] >= 3


async def test_subscribers_hear_of_each_scored_episode(staged, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    service = VerifierService(runs)
    heard: list[Reward] = []
    arrived = anyio.Event()

    async def subscriber(reward: Reward) -> None:
        heard.append(reward)
        arrived.set()

    service.on_scored.append(subscriber)
    service.on_scored.append(lambda reward: 1 / 0)  # a failing subscriber must not stop the others
    try:
        async with anyio.create_task_group() as tg:
            await tg.start(service.run)
            await anyio.to_thread.run_sync(shutil.copytree, staged["ep_dropped"], runs / "ep_dropped")
            with anyio.fail_after(DEADLINE_S):
                await arrived.wait()
            tg.cancel_scope.cancel()
    finally:
        service.close()
    assert [r.episode_id for r in heard] == ["ep_dropped"] and heard[0].total == 1.0
    assert (runs / "ep_dropped" / "reward.json").is_file()
