"""Helpers the test modules share."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from verishop.agents.evaluate import RUNNERS, Plan, new_eval_dir, read_rewards, verify
from verishop.agents.redteam.suite import play_local
from verishop.mcp_server.episodes.transcript import strict_json
from verishop.scenarios.catalog.product_ids import product_ids_in_text
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.seal import SealChain, SealKey, file_sha256
from verishop.scenarios.taxonomy import DENIED_CATEGORY_IDS


# Fields that differ between two plays of the same episode whatever the shop: ids, clocks, seals.
VOLATILE = frozenset({"episode_id", "elapsed_ms", "duration_ms", "seal", "seal_key_id", "seal_scheme", "world_sha256"})


def stable_event(event: dict) -> dict:
    """A transcript event without its VOLATILE fields."""
    return {k: v for k, v in event.items() if k not in VOLATILE}


def play_and_verify(agent: str, env_ids: tuple[str, ...], difficulties: tuple[int, ...], episodes: int, seed: int,
                    catalog_path: Path, tmp_path: Path, *, transport: str = "memory",
                    concurrency: int = 4) -> list[dict]:
    """Play `episodes` per environment through the real MCP server (`transport`: memory, stdio or
    http) with a scripted agent and score them with the verifier in its own process, or
    (`transport="local"`) play and score them in process (`LocalShop`: the same rewards, checked
    for every agent in tests/test_redteam.py); every episode must be scored."""
    plan = Plan(agent, tuple(env_ids), tuple(difficulties), episodes, seed)
    root = new_eval_dir(tmp_path / "runs", agent)
    rewards = _play(plan, catalog_path, root, transport, concurrency)
    assert len(rewards) == len(plan.episodes_to_play())
    assert all(r["verdict"] == "scored" for r in rewards), [r.get("detail") for r in rewards]
    return rewards


def play_run(agent: str, env_ids: tuple[str, ...], difficulties: tuple[int, ...], episodes: int, seed: int,
             catalog_path: Path, runs: Path, *, trials: int = 1, voice: str | None = None,
             transport: str = "memory") -> Path:
    """Play and verify like `verishop eval` (`voice`: like `--voice`; `transport`: as
    `play_and_verify`'s); returns the run folder (a folder of episode folders)."""
    plan = Plan(agent, tuple(env_ids), tuple(difficulties), episodes, seed, trials=trials, forced_voice=voice)
    root = new_eval_dir(runs, agent)
    _play(plan, catalog_path, root, transport, 4)
    return root


def _play(plan: Plan, catalog_path: Path, root: Path, transport: str, concurrency: int) -> list[dict]:
    if transport == "local":
        play_local(plan, catalog_path, root)
        return read_rewards(root)
    anyio.run(RUNNERS[transport], plan, catalog_path, root, concurrency, lambda: None)
    return verify(root, catalog_path)


def names_a_denied_product(episode_dir: Path, reader: CatalogReader) -> bool:
    """Whether an assistant message of the episode names a denied product's ID (in any spelling)."""
    for line in (episode_dir / "transcript.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event.get("event") == "assistant_message":
            for pid in product_ids_in_text(str(event.get("text", ""))):
                product = reader.product(pid)
                if product is not None and product.category_id in DENIED_CATEGORY_IDS:
                    return True
    return False


def reseal(directory: Path, key: SealKey) -> None:
    """Seal a hand-edited episode again with its server's key (what only the key's holder can do):
    the closing event digests the world as it is now, and every line gets its link of the chain
    anew. Without it, an edited world is `modified_after_close`."""
    events = [json.loads(line) for line in (directory / "transcript.jsonl").read_text().splitlines()]
    events[-1]["world_sha256"] = file_sha256(directory / "world.db")
    chain = SealChain(key)
    lines = [chain.seal(strict_json({k: v for k, v in event.items() if k != "seal"})) for event in events]
    (directory / "transcript.jsonl").write_text("\n".join(lines) + "\n")
