"""The verifier sidecar scores episodes as they close: at start-up for those already closed,
then as closed episode folders appear in the watched runs folder; and it serves the rewards."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import hostile
import httpx2
import pytest
from test_verifier import Script, pd_scenario, perfect_pd, write_episode

import verishop.verifier.service as service_module
from servers import free_port, started
from verishop.verifier.access import Access, allowed_hosts
from verishop.verifier.models import Reward
from verishop.verifier.runner import Settings, Verifier
from verishop.verifier.service import VerifierService, create_app

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


# Issue 10: nothing in a runs folder silences the sidecar, it never reads or writes through a
# link, it answers only to its own Host and Origin, and with a token only to its holder.

def sidecar(tmp_path: Path, *args: str, env: dict[str, str] | None = None):
    (tmp_path / "runs").mkdir(exist_ok=True)
    return started(["verifier", "serve", "--runs-dir", str(tmp_path / "runs"), *args], tmp_path / "verifier.log",
                   {"VERISHOP_HOME": str(tmp_path / "home"), **(env or {})}, preexec_fn=hostile.memory_capped)


def reward_of(http: httpx2.Client, episode_id: str, log: Path) -> dict:
    return poll(lambda: (r := http.get(f"/rewards/{episode_id}")).status_code == 200 and r.json(),
                f"a reward for {episode_id}", log)


def test_hostile_episodes_get_verdicts_and_never_silence_the_watcher(staged, tmp_path):
    stage = tmp_path / "stage"
    poisons = {"ep_deep_last_line": (lambda d: hostile.deep_transcript_line(d, last=True), "transcript_too_deep"),
               "ep_dev_zero": (hostile.zero_transcript, "transcript_not_regular"),
               "ep_fifo": (hostile.fifo_transcript, "transcript_not_regular"),
               "ep_deep_scenario": (hostile.deep_scenario, "scenario_too_deep")}
    for name, (damage, _reason) in poisons.items():
        shutil.copytree(staged["ep_dropped"], stage / name)
        damage(stage / name)
    with sidecar(tmp_path) as server, httpx2.Client(base_url=server.base, timeout=5.0) as http:
        for name in poisons:  # appear while watching, one after the other, then a good one
            (stage / name).rename(tmp_path / "runs" / name)
        shutil.copytree(staged["ep_before"], tmp_path / "runs" / "ep_good")
        assert reward_of(http, "ep_good", server.log_path)["total"] == 1.0
        for name, (_damage, reason) in poisons.items():
            assert reward_of(http, name, server.log_path)["reason"] == reason, name
        health = http.get("/health")
        assert health.status_code == 200 and health.json()["watching"] is True
        server.proc.terminate()  # a FIFO in the runs folder must not make it deaf to SIGTERM
        assert server.proc.wait(timeout=20) is not None


def test_all_empty_files_and_a_100k_deep_last_line_get_the_verdict_the_cli_gives(staged, tmp_path):
    stage = tmp_path / "stage"
    for name in ("ep_all_empty", "ep_deep_100k"):
        shutil.copytree(staged["ep_dropped"], stage / name)
    for file in ("scenario.json", "transcript.jsonl", "world.db"):
        (stage / "ep_all_empty" / file).write_bytes(b"")
    hostile.deep_transcript_line(stage / "ep_deep_100k", depth=100_000, last=True)  # 200 KB, past the tail read
    with Verifier(Settings()) as cli:
        expected = {name: cli.score(stage / name).reason for name in ("ep_all_empty", "ep_deep_100k")}
    assert expected == {"ep_all_empty": "transcript_empty", "ep_deep_100k": "transcript_too_deep"}
    with sidecar(tmp_path) as server, httpx2.Client(base_url=server.base, timeout=5.0) as http:
        for name in expected:
            (stage / name).rename(tmp_path / "runs" / name)
        for name, reason in expected.items():
            assert reward_of(http, name, server.log_path)["reason"] == reason, name


def test_the_sidecar_never_reads_or_writes_through_a_link(staged, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "ep_passwd").mkdir()
    (runs / "ep_passwd" / "reward.json").symlink_to("/etc/passwd")
    outside = tmp_path / "outside" / "ep_outside"
    outside.mkdir(parents=True)
    (outside / "reward.json").write_text('{"secret": "outside the runs dir"}')
    (runs / "ep_outside").symlink_to(outside)
    shutil.copytree(staged["ep_before"], runs / "ep_before")
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    with sidecar(tmp_path) as server, httpx2.Client(base_url=server.base, timeout=5.0) as http:
        passwd = http.get("/rewards/ep_passwd")
        assert passwd.status_code == 403 and "root:" not in passwd.text
        linked = http.get("/rewards/ep_outside")
        assert linked.status_code == 404 and "secret" not in linked.text
        assert http.post("/verify/ep_outside").status_code == 404

        reward_of(http, "ep_before", server.log_path)
        # the name the old sidecar wrote its partial file to, linked to a file it must not touch
        (runs / "ep_before" / f".reward.json.{server.proc.pid}.partial").symlink_to(precious)
        again = http.post("/verify/ep_before")
        assert again.status_code == 200 and again.json()["total"] == 1.0
        assert precious.read_text() == "keep me"
        assert not (runs / "ep_before" / "reward.json").is_symlink()

        (runs / "ep_before" / "reward.json").unlink()
        (runs / "ep_before" / "reward.json").symlink_to(precious)
        refused = http.post("/verify/ep_before")
        assert refused.status_code == 200 and refused.json()["reason"] == "reward_not_regular"
        assert precious.read_text() == "keep me"
        assert http.get("/rewards/ep_before").status_code == 403


def test_host_and_origin_are_matched_exactly(tmp_path):
    with sidecar(tmp_path, "--allowed-host", "shop.test", "--allowed-host", "proxy.test:8443") as server, \
            httpx2.Client(base_url=server.base, timeout=5.0) as http:
        port = int(server.base.rsplit(":", 1)[1])
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}",
                     f"shop.test:{port}", "proxy.test:8443"):
            assert http.get("/rewards/ep_none", headers={"Host": host}).status_code == 404, host
        for host in ("127.0.0.1:evil", f"localhost:{port}@evil.com", f"evil.com:{port}", f"127.0.0.1:{port + 1}",
                     "127.0.0.1", f"127.0.0.1:{port}.evil.com", f"127.0.0.1.evil.com:{port}", "", "shop.test",
                     f"proxy.test:{port}", f"shop.test.evil.com:{port}"):
            response = http.get("/health", headers={"Host": host})
            assert response.status_code == 421, host
        for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
            assert http.get("/health", headers={"Origin": origin}).status_code == 200, origin
        for origin in ("http://evil.com", f"http://evil.com:{port}", f"http://127.0.0.1:{port}.evil.com",
                       f"http://localhost:{port}@evil.com", f"http://127.0.0.1:{port + 1}", "null"):
            assert http.post("/verify/ep_none", headers={"Origin": origin}).status_code == 403, origin


@pytest.mark.parametrize("how", ["flag", "env"])
def test_with_a_token_every_route_but_health_needs_it(tmp_path, how):
    args, env = (["--token", "s3cret-token"], None) if how == "flag" else ([], {"VERISHOP_TOKEN": "s3cret-token"})
    with sidecar(tmp_path, *args, env=env) as server, httpx2.Client(base_url=server.base, timeout=5.0) as http:
        health = http.get("/health")
        assert health.status_code == 200 and "runs_dir" not in health.json()
        assert "runs_dir" in http.get("/health", headers={"Authorization": "Bearer s3cret-token"}).json()
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-token"},
                        {"Authorization": "Basic s3cret-token"}):
            assert http.get("/rewards/ep_none", headers=headers).status_code == 401, headers
            assert http.post("/verify/ep_none", headers=headers).status_code == 401, headers
        good = {"Authorization": "Bearer s3cret-token"}
        assert http.get("/rewards/ep_none", headers=good).status_code == 404
        assert http.post("/verify/ep_none", headers=good).status_code == 404
        assert "s3cret-token" not in server.log()


def test_without_a_token_no_header_is_needed(tmp_path):
    with sidecar(tmp_path) as server, httpx2.Client(base_url=server.base, timeout=5.0) as http:
        assert http.get("/rewards/ep_none").status_code == 404


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7"])
def test_it_refuses_to_listen_beyond_loopback_without_a_token(tmp_path, host):
    env = {k: v for k, v in os.environ.items() if k != "VERISHOP_TOKEN"}
    done = subprocess.run([sys.executable, "-m", "verishop", "verifier", "serve", "--host", host,
                           "--port", str(free_port()), "--runs-dir", str(tmp_path / "runs")],
                          capture_output=True, text=True, timeout=60,
                          env={**env, "VERISHOP_HOME": str(tmp_path / "home"), "VERISHOP_TOKEN": ""})
    assert done.returncode == 2, done.stderr
    assert "without a token" in done.stderr and "VERISHOP_TOKEN" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_health_says_not_ok_while_the_runs_folder_is_gone_and_the_watcher_recovers(staged, tmp_path):
    runs = tmp_path / "runs"
    with sidecar(tmp_path) as server, httpx2.Client(base_url=server.base, timeout=5.0) as http:
        assert http.get("/health").json()["watching"] is True
        shutil.rmtree(runs)
        down = poll(lambda: (r := http.get("/health")).status_code == 503 and r.json(),
                    "/health to say not ok", server.log_path)
        assert down["status"] == "not ok" and down["watching"] is False and str(runs) in down["why"]
        runs.mkdir()
        shutil.copytree(staged["ep_before"], runs / "ep_back")
        poll(lambda: http.get("/health").status_code == 200, "the watcher to restart", server.log_path)
        assert reward_of(http, "ep_back", server.log_path)["total"] == 1.0
        shutil.copytree(staged["ep_dropped"], runs / "ep_dropped")  # and it watches the new folder
        assert reward_of(http, "ep_dropped", server.log_path)["total"] == 1.0
        assert http.get("/health").json()["restarts"] >= 1


async def test_a_watcher_that_dies_is_restarted_and_health_says_why_meanwhile(staged, tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    runs.mkdir()
    broken = True
    real_awatch = service_module.awatch

    def flaky_awatch(*args, **kwargs):
        if broken:
            raise RuntimeError("inotify watch limit reached")
        return real_awatch(*args, **kwargs)

    monkeypatch.setattr(service_module, "awatch", flaky_awatch)
    service = VerifierService(runs, restart_delays_s=(0.01,))
    app = create_app(service, Access(allowed_hosts("127.0.0.1", 8100)))
    transport = httpx2.ASGITransport(app=app)
    try:
        async with anyio.create_task_group() as tg, \
                httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8100") as http:
            await tg.start(service.run)

            async def health_is(status: int) -> dict:
                with anyio.fail_after(DEADLINE_S):
                    while (r := await http.get("/health")).status_code != status:
                        await anyio.sleep(POLL_INTERVAL_S)
                return r.json()

            down = await health_is(503)
            assert "inotify watch limit reached" in down["why"] and down["watching"] is False
            broken = False
            up = await health_is(200)
            assert up["restarts"] >= 1
            await anyio.to_thread.run_sync(shutil.copytree, staged["ep_dropped"], runs / "ep_dropped")
            with anyio.fail_after(DEADLINE_S):
                while (r := await http.get("/rewards/ep_dropped")).status_code != 200:
                    await anyio.sleep(POLL_INTERVAL_S)
            assert r.json()["total"] == 1.0
            tg.cancel_scope.cancel()
    finally:
        service.close()
