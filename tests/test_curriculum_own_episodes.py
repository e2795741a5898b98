"""The curriculum learns only from its own episodes (issue 19, point 6), with real processes: an
IDE that disconnects from the default episode, Gymnasium-style resets that are never stepped
and the TRL factory's probe episode are scored by the sidecar but never counted; an episode
the curriculum chose, played and then abandoned is counted, as a failure."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from test_curriculum_e2e import pd_state, shop_and_verifier, wait_until
from verishop.agents.gym_env import ShopTextEnv
from verishop.agents.trl import make_environment_factory


def opening(directory: Path) -> dict:
    return json.loads((directory / "transcript.jsonl").read_text().splitlines()[0])


async def disconnect_from_default_episode(catalog_path: Path, runs: Path) -> None:
    """As an IDE does: start `verishop serve` over stdio, use a tool, go away."""
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "verishop", "serve", "--catalog", str(catalog_path), "--runs-dir", str(runs)])
    async with Client(params) as client:
        await client.call_tool("search_catalog", {"query": "charger"})


async def abandon_after_one_move(shop: str) -> str:
    """An episode the curriculum chooses (no difficulty), one tool call, then closed by the client."""
    async with httpx2.AsyncClient(base_url=shop, timeout=30.0) as http:
        info = (await http.post("/episodes", json={"env": "pd"})).json()
        assert "curriculum_window" in info
        async with httpx2.AsyncClient(timeout=30.0) as mcp_http:
            async with Client(streamable_http_client(info["mcp_url"], http_client=mcp_http)) as client:
                await client.call_tool("search_catalog", {"query": "charger"})
        await http.delete(f"/episodes/{info['episode_id']}")
    return info["episode_id"]


def test_only_episodes_the_curriculum_chose_and_that_were_played_are_counted(catalog_path: Path, tmp_path: Path):
    logs = [tmp_path / "shop.log", tmp_path / "verifier.log"]
    runs = tmp_path / "runs"
    with shop_and_verifier(tmp_path, catalog_path) as (shop, _):
        anyio.run(disconnect_from_default_episode, catalog_path, runs)

        # check_env resets: reset(seed=0) twice, then reset(), never a step, then close.
        env = ShopTextEnv(shop, env="pd")
        try:
            for seed in (0, 0, None):
                env.reset(seed=seed)
        finally:
            env.close()

        make_environment_factory(shop, env="pd")  # opens and closes its probe episode

        abandoned = anyio.run(abandon_after_one_move, shop)

        folders = lambda: sorted(d for d in runs.iterdir() if d.is_dir() and d.name.startswith("ep_"))  # noqa: E731
        assert len(folders()) == 6
        wait_until(lambda: all((d / "reward.json").is_file() for d in folders()), "every episode scored", logs)
        chosen = {d.name for d in folders() if opening(d).get("chosen_by") == "curriculum"}
        # The resets and the probe were chosen by the curriculum too (no difficulty given), but
        # nobody played them; the default episode was not chosen.
        assert len(chosen) == 5 and abandoned in chosen
        with httpx2.Client(base_url=shop, timeout=10.0) as http:
            state = wait_until(lambda: (s := pd_state(http))["episodes"] >= 1 and s, "the abandoned one counted", logs)
            assert (state["episodes"], state["attempts"], state["solved"]) == (1, 1, 0)
        rewards = {d.name: json.loads((d / "reward.json").read_text()) for d in folders()}
        assert rewards[abandoned]["chosen_by_curriculum"] is True and rewards[abandoned]["is_correct"] is False
        assert sum(r["chosen_by_curriculum"] for r in rewards.values()) == 5
