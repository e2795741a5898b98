"""The curriculum end to end, with real processes: the HTTP server chooses episodes from the
windows, the oracle plays them over MCP, the verifier sidecar scores them and moves the
windows; both processes share one curriculum file, which survives restarting them."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from verishop.agents.scripted import make_agent
from verishop.agents.session import ShopSession
from verishop.scenarios.models import Scenario
from servers import started

DEADLINE_S = 30.0
POLL_INTERVAL_S = 0.05
CHECKS = 4
EPISODES_PER_ROUND = 4
MAX_EPISODES = 64


def wait_until(fn, what: str, logs: list[Path]):
    """Call fn until it returns something truthy, for at most DEADLINE_S."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what} not within {DEADLINE_S} s:\n" + "\n".join(p.read_text(errors="replace") for p in logs))
        time.sleep(POLL_INTERVAL_S)


@contextlib.contextmanager
def shop_and_verifier(root: Path, catalog_path: Path, *extra: str) -> Iterator[tuple[str, str]]:
    runs, curriculum, env = root / "runs", root / "state" / "curriculum.db", {"VERISHOP_HOME": str(root / "home")}
    shop = ["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
            "--runs-dir", str(runs), "--curriculum", str(curriculum), *extra]
    verifier = ["verifier", "serve", "--runs-dir", str(runs), "--curriculum", str(curriculum), *extra]
    (runs).mkdir(parents=True, exist_ok=True)
    with started(verifier, root / "verifier.log", env) as sidecar, started(shop, root / "shop.log", env) as server:
        yield server.base, sidecar.base


async def play_oracle(shop: str, body: dict) -> dict:
    """Create an episode through the control API, let the oracle play it over MCP, close it."""
    async with httpx2.AsyncClient(base_url=shop, timeout=30.0) as http:
        created = await http.post("/episodes", json=body)
        assert created.status_code == 201, created.text
        info = created.json()
        scenario = Scenario.model_validate_json(Path(info["run_dir"], "scenario.json").read_text())
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=60.0)) as mcp_http:
            async with Client(streamable_http_client(info["mcp_url"], http_client=mcp_http)) as client:
                await make_agent("oracle", scenario).play(ShopSession(client))
        assert (await http.delete(f"/episodes/{info['episode_id']}")).json()["status"] == "closed"
    return info


async def play_round(shop: str, bodies: list[dict]) -> list[dict]:
    infos: list[dict] = []

    async def one(body: dict) -> None:
        infos.append(await play_oracle(shop, body))

    async with anyio.create_task_group() as tg:
        for body in bodies:
            tg.start_soon(one, body)
    return infos


def pd_state(http: httpx2.Client) -> dict:
    return next(w for w in http.get("/curriculum").json()["windows"] if w["env_id"] == "pd-v10")


def test_the_oracle_climbs_the_curriculum_and_the_state_survives_restarts(catalog_path: Path, tmp_path: Path):
    logs = [tmp_path / "shop.log", tmp_path / "verifier.log"]
    windows: list[tuple[int, int]] = []
    played: list[dict] = []
    with shop_and_verifier(tmp_path, catalog_path, "--curriculum-checks", str(CHECKS)) as (shop, verifier):
        with httpx2.Client(base_url=shop, timeout=10.0) as http, \
                httpx2.Client(base_url=verifier, timeout=10.0) as judge:
            first = pd_state(http)
            assert (first["low"], first["high"], first["episodes"]) == (0, 0, 0)
            assert http.get("/curriculum").json()["params"]["episodes_per_check"] == CHECKS
            windows.append((0, 0))
            while windows[-1][1] < 2 and len(played) < MAX_EPISODES:
                # The first round leaves the seed to the server (fresh random); later ones fix it, so
                # the climb is the same on every run.
                bodies = [{"collection": "C1"} if not played else {"collection": "C1", "seed": len(played) + i}
                          for i in range(EPISODES_PER_ROUND)]
                infos = anyio.run(play_round, shop, bodies)
                assert all(i["env_id"] == "pd-v10" and i["curriculum_window"] == list(windows[-1]) for i in infos)
                assert all(windows[-1][0] <= i["difficulty"] <= windows[-1][1] for i in infos)
                if not played:
                    assert len({i["seed"] for i in infos}) == EPISODES_PER_ROUND  # fresh seeds
                played += infos
                expected = len(played)
                state = wait_until(lambda: (s := pd_state(http))["episodes"] == expected and s,  # noqa: B023
                                   f"the sidecar to record {expected} episodes", logs)
                if (state["low"], state["high"]) != windows[-1]:
                    windows.append((state["low"], state["high"]))
            assert windows[:3] == [(0, 0), (0, 1), (0, 2)], windows
            before = http.get("/curriculum").json()

            # Re-verifying an episode rescores it but never counts it twice.
            again = judge.post(f"/verify/{played[0]['episode_id']}")
            assert again.status_code == 200 and again.json()["is_correct"] is True
            assert http.get("/curriculum").json() == before

    # Restart both processes, without the parameter flags: the file keeps windows and parameters.
    with shop_and_verifier(tmp_path, catalog_path) as (shop, verifier):
        with httpx2.Client(base_url=shop, timeout=10.0) as http:
            assert http.get("/curriculum").json() == before
            pd_before = next(w for w in before["windows"] if w["env_id"] == "pd-v10")
            after = anyio.run(play_round, shop, [{"collection": "C1", "seed": 999}])[0]
            assert after["curriculum_window"] == [pd_before["low"], pd_before["high"]]
            # The restarted sidecar goes on feeding the same file.
            wait_until(lambda: pd_state(http)["episodes"] == len(played) + 1, "the restarted sidecar to record", logs)

            # A plain environment without a difficulty uses its own window; with one, nothing changes.
            cart = http.post("/episodes", json={"env": "cart"}).json()
            assert (cart["env_id"], cart["difficulty"], cart["curriculum_window"]) == ("cart-v7", 0, [0, 0])
            fixed = http.post("/episodes", json={"env": "pd", "difficulty": 7}).json()
            assert (fixed["difficulty"], fixed["seed"], "curriculum_window" in fixed) == (7, 0, False)
            for episode in (cart, fixed):
                http.delete(f"/episodes/{episode['episode_id']}")

    shown = subprocess.run([sys.executable, "-m", "verishop", "curriculum", "show", "--curriculum",
                            str(tmp_path / "state" / "curriculum.db")],
                           capture_output=True, text=True, timeout=60, check=False)
    assert shown.returncode == 0, shown.stderr
    pd_row = next(line for line in shown.stdout.splitlines() if "pd-v10" in line)
    assert f"[{windows[-1][0]}, {windows[-1][1]}]" in pd_row
