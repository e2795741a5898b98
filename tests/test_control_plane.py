"""The control plane's key and limits, and the front door, against real `verishop serve`
subprocesses: the token (on and off), serving on 0.0.0.0 with allowed hosts and a public URL,
--max-episodes, a port in use, a non-loopback bind without a token, an unwritable home."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from servers import Process, free_port, started

from verishop.mcp_server.episodes.lifecycle import FILES_PER_EPISODE, RESERVED_FILES

TOKEN = "s3cret-token-for-tests"
PUBLIC = "https://shop.example.org/verishop"
EXIT_DEADLINE_S = 60


def serve(catalog_path: Path, root: Path, *extra: str, env: dict[str, str] | None = None):
    return started(["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
                    "--runs-dir", str(root / "runs"), *extra], root / "server.log",
                   {"VERISHOP_HOME": str(root / "home"), **(env or {})})


@pytest.fixture(scope="module")
def guarded(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Process]:
    """Bound to every interface, with a token from the environment, one extra host name and a
    public URL."""
    root = tmp_path_factory.mktemp("guarded")
    with serve(catalog_path, root, "--host", "0.0.0.0", "--allowed-hosts", "shop.test,shop.example.org:80",
               "--public-url", PUBLIC, env={"VERISHOP_TOKEN": TOKEN}) as server:
        yield server


def port_of(server: Process) -> int:
    return int(server.base.rsplit(":", 1)[1])


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def test_the_control_api_needs_the_token(guarded: Process) -> None:
    body = {"env": "pd", "difficulty": 1, "seed": 2}
    with httpx2.Client(base_url=guarded.base, timeout=30) as http:
        for headers in ({}, bearer("wrong"), bearer(TOKEN + "x"), {"authorization": TOKEN},
                        {"authorization": f"Basic {TOKEN}"}):
            r = http.post("/episodes", json=body, headers=headers)
            assert r.status_code == 401, (headers, r.text)
            assert r.headers["www-authenticate"] == "Bearer"
        assert http.get("/curriculum").status_code == 401
        created = http.post("/episodes", json=body, headers=bearer())
        assert created.status_code == 201, created.text
        ep = created.json()
        assert ep["seed"] == 2 and ep["run_dir"]
        for method in ("GET", "DELETE"):
            assert http.request(method, f"/episodes/{ep['episode_id']}").status_code == 401
        shown = http.get(f"/episodes/{ep['episode_id']}", headers=bearer()).json()
        assert shown["seed"] == 2 and shown["run_dir"] == ep["run_dir"]
        assert http.get("/curriculum", headers=bearer()).status_code == 200
        assert http.get("/health").status_code == 200


async def test_the_mcp_url_is_its_own_capability_and_uses_the_public_url(guarded: Process) -> None:
    async with httpx2.AsyncClient(base_url=guarded.base, timeout=30) as http:
        ep = (await http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 3}, headers=bearer())).json()
    assert ep["mcp_url"] == f"{PUBLIC}/episodes/{ep['episode_id']}/mcp"
    url = f"{guarded.base}/episodes/{ep['episode_id']}/mcp"  # the same path, reached directly
    with anyio.fail_after(30):
        async with httpx2.AsyncClient(timeout=30) as mcp_http:  # no token
            async with Client(streamable_http_client(url, http_client=mcp_http), raise_exceptions=True) as client:
                r = await client.call_tool("get_current_date", {})
                assert not r.is_error


def test_a_wildcard_bind_answers_its_listed_names_and_refuses_forged_hosts(guarded: Process) -> None:
    port = port_of(guarded)
    with httpx2.Client(base_url=guarded.base, timeout=30) as http:
        for good in (f"127.0.0.1:{port}", f"localhost:{port}", f"shop.test:{port}"):
            assert http.get("/health", headers={"host": good}).status_code == 200, good
        for forged in (f"0.0.0.0:{port}", "0.0.0.0:x", f"shop.test:{port}@evil.com", f"evil.test:{port}",
                       f"shop.test:{port + 1}"):
            assert http.get("/health", headers={"host": forged}).status_code == 421, forged


def test_a_client_scenario_needs_the_token(guarded: Process, catalog_path: Path) -> None:
    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.envs import generate

    with CatalogReader(catalog_path) as reader:
        scenario = generate("pd", 2, 5, reader).model_dump(mode="json")
    with httpx2.Client(base_url=guarded.base, timeout=30) as http:
        assert http.post("/episodes", json={"scenario": scenario}).status_code == 401
        assert http.post("/episodes", json={"scenario": scenario}, headers=bearer()).status_code == 201


def test_beyond_max_episodes_creation_is_503_with_retry_after(catalog_path: Path, tmp_path: Path) -> None:
    with serve(catalog_path, tmp_path, "--max-episodes", "2") as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            ids = [http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": s}).json()["episode_id"]
                   for s in range(2)]
            before = sorted(os.listdir(tmp_path / "runs"))
            r = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 9})
            assert r.status_code == 503 and int(r.headers["retry-after"]) > 0, r.text
            assert sorted(os.listdir(tmp_path / "runs")) == before
            assert http.delete(f"/episodes/{ids[0]}").status_code == 200
            assert http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 9}).status_code == 201
            assert http.get("/health").json()["max_episodes"] == 2


def run_serve(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verishop", "serve", *args], capture_output=True, text=True,
                          timeout=EXIT_DEADLINE_S, env={**os.environ, **env}, stdin=subprocess.DEVNULL)


def test_a_port_in_use_is_one_line_and_exit_code_2(catalog_path: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = run_serve(["--transport", "http", "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs"),
                         "--port", str(port)], {"VERISHOP_HOME": str(tmp_path)})
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and str(port) in lines[0] and "in use" in lines[0], out.stderr
    assert not list((tmp_path / "runs").iterdir())  # no default episode was opened


def test_binding_beyond_loopback_without_a_token_refuses_to_start(catalog_path: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "VERISHOP_TOKEN"}
    out = subprocess.run([sys.executable, "-m", "verishop", "serve", "--transport", "http", "--host", "0.0.0.0",
                          "--port", str(free_port()), "--catalog", str(catalog_path), "--runs-dir",
                          str(tmp_path / "runs")], capture_output=True, text=True, timeout=EXIT_DEADLINE_S,
                         env={**env, "VERISHOP_HOME": str(tmp_path)}, stdin=subprocess.DEVNULL)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "--token" in lines[0] and "VERISHOP_TOKEN" in lines[0], out.stderr


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_an_unwritable_home_names_the_path_and_what_to_set(tmp_path: Path, transport: str) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be")
    home = blocker / "verishop"
    out = run_serve(["--transport", transport, "--port", str(free_port())], {"VERISHOP_HOME": str(home)})
    assert out.returncode == 2, out.stderr
    message = " ".join(out.stderr.split())
    assert str(home) in message and "VERISHOP_HOME" in message, out.stderr
    assert "Traceback" not in out.stderr


async def test_the_shop_client_sends_its_token(guarded: Process) -> None:
    from verishop.agents.client import ShopClient, ShopClientError

    async with ShopClient(guarded.base, token=TOKEN) as shop:
        info = await shop.create(env="pd", difficulty=1, seed=4)
        assert info.episode_id
    async with ShopClient(guarded.base) as shop:
        with pytest.raises(ShopClientError, match="401"):
            await shop.create(env="pd", difficulty=1, seed=4)


def test_the_listening_socket_is_tcp_so_responses_are_not_delayed() -> None:
    """asyncio sets TCP_NODELAY only on sockets whose protocol says TCP; a socket made with
    protocol 0 made every small response wait out a 40 ms delayed ACK."""
    from verishop.mcp_server.cli import _listen

    sock = _listen("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()


def test_a_crafted_scenario_file_is_refused_at_start(catalog_path: Path, tmp_path: Path) -> None:
    """`verishop serve --scenario FILE` (stdio, one episode) checks the file like a client's."""
    import json

    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.envs import generate

    with CatalogReader(catalog_path) as reader:
        scenario = json.loads(generate("return", 6, 1, reader).to_json())
    scenario["today"] = "9999-12-31"
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    out = run_serve(["--scenario", str(path), "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs")],
                    {"VERISHOP_HOME": str(tmp_path)})
    assert out.returncode == 2, out.stderr
    assert "invalid scenario: today = 9999-12-31" in " ".join(out.stderr.split())
    assert not list((tmp_path / "runs").iterdir())


def test_under_a_256_file_limit_the_server_refuses_what_it_cannot_hold(catalog_path: Path, tmp_path: Path) -> None:
    """The old server, limited to 256 open files, answered 24 of 2,000 creations with HTTP 500
    and left folders without a transcript: now the limit sizes --max-episodes, and beyond it
    creation is 503, every folder is a whole episode, and the open ones keep working."""
    import resource

    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    root = tmp_path
    with started(["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
                  "--runs-dir", str(root / "runs")], root / "server.log", {"VERISHOP_HOME": str(root / "home")},
                 preexec_fn=limit_files) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            most = http.get("/health").json()["max_episodes"]
            assert most == (256 - RESERVED_FILES) // FILES_PER_EPISODE == (256 - 64) // 6
            codes = [http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": s}).status_code
                     for s in range(most + 3)]
            assert codes == [201] * most + [503] * 3
            assert http.get("/health").status_code == 200
    folders = list((root / "runs").iterdir())
    assert len([f for f in folders if f.name.startswith("ep_")]) == most
    assert all((f / "transcript.jsonl").is_file() for f in folders if f.name.startswith("ep_"))
