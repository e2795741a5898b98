"""The smaller breaks of issue 23: a --public-url the server's own Host check would refuse is
refused at start (and the help says so); an unauthenticated GET /health with workers names no
pid or port; garbage on a stdio server's stdin gets a JSON-RPC -32700 parse error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from servers import started

EXIT_DEADLINE_S = 60
TOKEN = "small-breaks-token"


def run_cli(args: list[str], home: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "VERISHOP_TOKEN"} | {"VERISHOP_HOME": str(home),
                                                                          "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "verishop", *args], capture_output=True, timeout=EXIT_DEADLINE_S,
                          env=env, input=stdin if stdin is not None else b"")


@pytest.mark.parametrize(("public_url", "allowed", "workers"), [
    ("https://shop.example.org/verishop", "", "1"),
    ("https://shop.example.org/verishop", "other.example.org", "1"),
    ("http://shop.lan:9000", "shop.lan", "1"),  # a bare name means shop.lan at the server's own port
    ("http://shop.lan:9000", "shop.lan:9000", "2"),  # workers' URLs keep the name, take their own ports
])
def test_a_public_url_the_server_would_refuse_is_refused_at_start(catalog_path: Path, tmp_path: Path,
                                                                   public_url: str, allowed: str, workers: str) -> None:
    done = run_cli(["serve", "--transport", "http", "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs"),
                    "--public-url", public_url, "--allowed-hosts", allowed, "--workers", workers, "--port", "8000"],
                   tmp_path)
    stderr = done.stderr.decode()
    assert done.returncode == 2, stderr
    assert "--public-url" in stderr and "--allowed-hosts" in stderr and "421" in stderr, stderr
    assert "Traceback" not in stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").glob("ep_*"))


def test_a_public_url_with_matching_allowed_hosts_is_served(catalog_path: Path, tmp_path: Path) -> None:
    public = "http://shop.lan:9000"
    with started(["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
                  "--runs-dir", str(tmp_path / "runs"), "--public-url", public, "--allowed-hosts",
                  "shop.lan:9000,shop.lan", "--workers", "2"], tmp_path / "server.log",
                 {"VERISHOP_HOME": str(tmp_path / "home")}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            created = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 1}, headers={
                "host": "shop.lan:9000"})
            assert created.status_code == 201, created.text
            mcp_url = httpx2.URL(created.json()["mcp_url"])
            worker = http.get(f"http://127.0.0.1:{mcp_url.port}/health", headers={"host": f"shop.lan:{mcp_url.port}"})
            assert worker.status_code == 200, worker.text  # the worker accepts the Host its URL makes


def test_the_public_url_help_names_the_allowed_hosts_it_needs(tmp_path: Path) -> None:
    done = run_cli(["serve", "--help"], tmp_path)
    text = " ".join(done.stdout.decode().split())
    assert "--public-url" in text
    start = text.index("--public-url")
    assert "--allowed-hosts" in text[start:start + 600], text[start:start + 600]


def test_unauthenticated_health_with_workers_lists_no_pids_or_ports(catalog_path: Path, tmp_path: Path) -> None:
    with started(["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
                  "--runs-dir", str(tmp_path / "runs"), "--workers", "2"], tmp_path / "server.log",
                 {"VERISHOP_HOME": str(tmp_path / "home"), "VERISHOP_TOKEN": TOKEN}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            public = http.get("/health")
            private = http.get("/health", headers={"authorization": f"Bearer {TOKEN}"})
    assert public.status_code == 200 and private.status_code == 200
    body = public.json()
    assert set(body) >= {"status", "open_episodes", "max_episodes"}
    assert "workers" not in body and "pid" not in public.text and "port" not in public.text, body
    workers = private.json()["workers"]
    assert len(workers) == 2 and all(w["pid"] and w["port"] for w in workers)  # the token holder sees them


def test_stdio_garbage_gets_a_parse_error_answer(catalog_path: Path, tmp_path: Path) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                             "clientInfo": {"name": "t", "version": "1"}}}
    stdin = b"this is not json\n" + json.dumps(initialize).encode() + b"\n"
    done = run_cli(["serve", "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs")], tmp_path, stdin)
    answers = [json.loads(line) for line in done.stdout.decode().splitlines() if line.strip()]
    assert answers[0]["error"]["code"] == -32700 and answers[0]["id"] is None, answers
    assert answers[1]["id"] == 1 and "result" in answers[1], answers  # and the server goes on
