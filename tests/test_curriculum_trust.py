"""The curriculum trusts only itself (issue 28, point 5), with real processes: an episode counts
only if the curriculum's own record says it assigned that (env, difficulty, seed); a client
that names its own difficulty and claims `"chosen_by": "curriculum"` moves nothing, and one seed
replayed four times (to learn its answer) counts once, across restarts too."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2

from test_curriculum_e2e import pd_state, play_oracle, shop_and_verifier, wait_until


def opening(run_dir: str) -> dict:
    return json.loads(Path(run_dir, "transcript.jsonl").read_text().splitlines()[0])


def scored(info: dict) -> bool:
    return Path(info["run_dir"], "reward.json").is_file()


def test_a_client_that_claims_the_curriculum_chose_its_episode_moves_nothing(catalog_path: Path, tmp_path: Path):
    logs = [tmp_path / "shop.log", tmp_path / "verifier.log"]
    with shop_and_verifier(tmp_path, catalog_path, "--curriculum-checks", "2") as (shop, _):
        claims = [anyio.run(play_oracle, shop, {"env": "pd", "difficulty": 0, "seed": 100 + i,
                                                "chosen_by": "curriculum"}) for i in range(2)]
        assert all("chosen_by" not in opening(info["run_dir"]) for info in claims)
        # An episode the server's curriculum did choose, closed after the claims: once it is
        # counted, the sidecar has handled every claim before it.
        own = anyio.run(play_oracle, shop, {"env": "pd", "seed": 7})
        assert opening(own["run_dir"])["chosen_by"] == "curriculum"
        with httpx2.Client(base_url=shop, timeout=10.0) as http:
            wait_until(lambda: (s := pd_state(http))["episodes"] >= 1 and s, "the curriculum's own", logs)
            # The sidecar may score the claims after the curriculum's own episode (a loaded
            # machine): the state is read once every claim is scored too.
            wait_until(lambda: all(scored(info) for info in claims), "every claim scored", logs)
            state = pd_state(http)
        assert all(json.loads(Path(i["run_dir"], "reward.json").read_text())["is_correct"] for i in claims)
        # Two solved claims would have completed a check of 2 and lifted the window to [0, 1].
        assert (state["episodes"], state["attempts"], state["solved"], state["high"]) == (1, 1, 1, 0)


def test_one_seed_replayed_four_times_counts_once_even_after_a_restart(catalog_path: Path, tmp_path: Path):
    logs = [tmp_path / "shop.log", tmp_path / "verifier.log"]
    with shop_and_verifier(tmp_path, catalog_path, "--curriculum-checks", "4") as (shop, _):
        replays = [anyio.run(play_oracle, shop, {"env": "pd", "seed": 42}) for _ in range(4)]
        assert len({(i["env_id"], i["difficulty"], i["seed"]) for i in replays}) == 1
        fresh = anyio.run(play_oracle, shop, {"env": "pd", "seed": 43})
        wait_until(lambda: all(scored(info) for info in [*replays, fresh]), "every episode scored", logs)
        with httpx2.Client(base_url=shop, timeout=10.0) as http:
            state = wait_until(lambda: (s := pd_state(http))["episodes"] >= 2 and s, "the fresh seed counted", logs)
        # Four solved replays of one seed would have completed a check of 4: the window stays.
        assert (state["episodes"], state["attempts"], state["high"]) == (2, 2, 0)

    with shop_and_verifier(tmp_path, catalog_path) as (shop, _):
        anyio.run(play_oracle, shop, {"env": "pd", "seed": 42})
        anyio.run(play_oracle, shop, {"env": "pd", "seed": 44})
        with httpx2.Client(base_url=shop, timeout=10.0) as http:
            state = wait_until(lambda: (s := pd_state(http))["episodes"] >= 3 and s, "the next fresh seed", logs)
        assert (state["episodes"], state["attempts"]) == (3, 3)
