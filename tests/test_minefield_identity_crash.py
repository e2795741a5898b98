"""The identity minefield across a server crash (issue 33): whether the customer was identified
is read from the transcript, by the server's lock (set only once the matching call is recorded)
and by the verifier alike, so an episode a killed server left open, closed by crash recovery, is
scored on what its transcript shows: identified, then an order looked up, passes the identity
check; an order tool before identifying fails it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from servers import started

from verishop.envs import generate
from verishop.mcp_server.episodes.lifecycle import is_episode_id
from verishop.mcp_server.episodes.recovery import recover


async def test_a_crashed_episode_is_scored_on_the_identification_its_transcript_shows(catalog_path: Path,
                                                                                       tmp_path: Path, reader):
    runs, env = tmp_path / "runs", {"VERISHOP_HOME": str(tmp_path / "home")}
    args = ["serve", "--transport", "http", "--catalog", str(catalog_path), "--runs-dir", str(runs),
            "--no-default-episode"]
    email = {seed: generate("status", 10, seed, reader).customer.email for seed in (1, 2)}
    run_dirs = {}
    with started(args, tmp_path / "server.log", env, cwd=tmp_path) as server:
        for seed, identifies_first in ((1, True), (2, False)):
            async with httpx2.AsyncClient(base_url=server.base, timeout=30.0) as http:
                ep = (await http.post("/episodes", json={"env": "status", "difficulty": 10, "seed": seed})).json()
            run_dirs[identifies_first] = Path(ep["run_dir"])
            with anyio.fail_after(60):
                async with httpx2.AsyncClient(timeout=30.0) as mcp_http:
                    async with Client(streamable_http_client(ep["mcp_url"], http_client=mcp_http)) as client:
                        if not identifies_first:
                            refused = await client.call_tool("list_orders", {})
                            assert refused.is_error and "identify the customer first" in refused.content[0].text
                        found = await client.call_tool("find_customer", {"email": email[seed]})
                        assert not found.is_error, found.content[0].text
                        assert not (await client.call_tool("list_orders", {})).is_error
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(timeout=10)
    assert sorted(recover(runs, is_episode_id).crashed) == sorted(d.name for d in run_dirs.values())
    subprocess.run([sys.executable, "-m", "verishop", "verify", "--json", "--catalog", str(catalog_path),
                    *(str(d) for d in run_dirs.values())], capture_output=True, timeout=180, env={**os.environ, **env})
    for identifies_first, run_dir in run_dirs.items():
        reward = json.loads((run_dir / "reward.json").read_text())
        assert reward["verdict"] == "scored" and reward["minefields"][0] == "identity", reward
        check = next(c for c in reward["breakdown"] if c["name"] == "identity")
        assert check["passed"] is identifies_first, check
        assert reward["hard_fail"] is None
