"""No unauthenticated door: on a server with a token, the default episode (/mcp, /sse,
/messages/) needs the token like the control API does, and nothing a peer without it does
creates a file; the banner says so. One process and a supervisor with two workers."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest
from servers import started

TOKEN = "door-token-for-tests"
RPC_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-11-25"}


def rpc(method: str, params: dict, id_: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def respond_done() -> dict:
    return rpc("tools/call", {"name": "respond_to_customer", "arguments": {"message": "Bye.", "done": True}})


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_default_episode_needs_the_token_and_a_peer_without_it_creates_no_file(
        catalog_path: Path, tmp_path: Path, workers: str) -> None:
    runs = tmp_path / "runs"
    with started(["serve", "--transport", "http", "--catalog", str(catalog_path), "--runs-dir", str(runs),
                  "--workers", workers], tmp_path / "server.log",
                 {"VERISHOP_HOME": str(tmp_path / "home"), "VERISHOP_TOKEN": TOKEN}) as server:
        before = files_under(runs)
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            for _ in range(5):  # ending the default episode used to open a successor each time
                for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": TOKEN}):
                    r = http.post("/mcp", json=respond_done(), headers={**RPC_HEADERS, **headers})
                    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer", r.text
            assert http.post("/mcp", json=rpc("tools/list", {}), headers=RPC_HEADERS).status_code == 401
            assert http.get("/sse").status_code == 401
            assert http.post("/messages/?session_id=00", json=rpc("tools/list", {})).status_code == 401
            assert files_under(runs) == before
            allowed = http.post("/mcp", json=rpc("tools/call", {"name": "get_conversation", "arguments": {}}),
                                headers={**RPC_HEADERS, "authorization": f"Bearer {TOKEN}"})
            assert allowed.status_code == 200, allowed.text
            data = next(json.loads(line[5:]) for line in allowed.text.splitlines() if line.startswith("data:"))
            assert data["result"]["structuredContent"]["status"] == "open"
        banner = " ".join(server.log().split())
    assert "default episode" in banner and "needs the token" in banner, banner
