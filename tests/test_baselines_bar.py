"""Baselines worth beating (issue 28, break 9): greedy reads the policy text, commits substitutes
and finds categories on an imported shop, and the red team's bar is the better of greedy and the
best simple heuristic (frequency priors, the oldest or newest order), per environment.

Every agent here is goal-blind: it sees only what an MCP client sees. The episodes are played
through the real MCP server and scored by the verifier in its own process, on seeds no other
test uses (8600..).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verishop.agents.redteam import HEURISTIC
from verishop.agents.redteam.suite import Cell, bar, play_all, table
from verishop.scenarios.catalog.feeds.run import run_import
from support import play_and_verify

SHOP = Path(__file__).parent.parent / "examples" / "shop"
ALL_DIFFICULTIES = tuple(range(13))


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shop") / "merchant.db"
    run_import([SHOP / "merchant.tsv"], path, policy=SHOP / "policy.yaml")
    return path


def _solved(rewards: list[dict], env: str) -> int:
    return sum(bool(r["is_correct"]) for r in rewards if r["env_id"].startswith(f"{env}-"))


def test_the_bar_is_the_better_of_greedy_and_the_best_heuristic_per_environment():
    cells = {"greedy": {"policy": Cell(26, 5, -0.30), "status": Cell(26, 20, 0.50)},
             "prior": {"policy": Cell(26, 7, -0.20), "status": Cell(26, 3, -0.40)},
             "oldest": {"policy": Cell(26, 5, -0.30), "status": Cell(26, 9, 0.60)},
             "spray": {"policy": Cell(26, 7, -0.10), "status": Cell(26, 25, 0.90)}}
    assert bar(cells, "policy") == (7, -0.20)  # a prior beats greedy: the prior is the bar
    assert bar(cells, "status") == (20, 0.60)  # each of the two figures is the better one's
    assert set(HEURISTIC) >= {"prior", "oldest", "newest"}


@pytest.fixture(scope="module")
def generated_plays(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Cell]]:
    # In the plain voice: how greedy reads each voice is measured per voice (docs/environments.md).
    rewards = play_all(("greedy", *HEURISTIC), ("policy", "status", "return", "journey"), ALL_DIFFICULTIES, 13,
                       8600, catalog_path, tmp_path_factory.mktemp("bar"), voice="plain", transport="local")
    return table(rewards)


@pytest.mark.parametrize("env", ["policy", "status", "return", "journey"])
def test_greedy_solves_at_least_what_every_simple_heuristic_solves(generated_plays, env: str):
    greedy = generated_plays["greedy"][env]
    for heuristic in HEURISTIC:
        mine = generated_plays[heuristic][env]
        assert mine.solved <= greedy.solved, (heuristic, env, mine, greedy)
        assert mine.mean_total <= greedy.mean_total + 1e-9, (heuristic, env, mine, greedy)


def test_greedy_answers_policy_questions_from_the_policy_text_yet_stays_below_the_oracle(generated_plays):
    """Reading the clauses (search, the clause, the number or option the question asks for, the
    extensions the customer stated) answers what the opening states in full; what the customer
    held back or typo noise garbled it still misses, as it asks nothing."""
    greedy = generated_plays["greedy"]["policy"]
    assert 0.35 <= greedy.solved_share <= 0.85, greedy


def test_greedy_reads_a_fully_stated_policy_question_right_at_low_difficulty(catalog_path, tmp_path):
    rewards = play_and_verify("greedy", ("policy",), (0, 1), 24, 8700, catalog_path, tmp_path)
    assert _solved(rewards, "policy") >= 20, [(r["seed"], r["total"]) for r in rewards if not r["is_correct"]]


def _recommended(episode: Path) -> list[str]:
    ids = []
    for line in (episode / "transcript.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event.get("event") == "assistant_message":
            ids += event["submission"].get("recommended_product_ids") or []
    return ids


def test_greedy_commits_substitutes_on_an_imported_shop(shop, tmp_path):
    rewards = play_and_verify("greedy", ("sub",), ALL_DIFFICULTIES, 13, 8800, shop, tmp_path)
    runs = next((tmp_path / "runs").iterdir())
    empty = [r["seed"] for r in rewards if not _recommended(runs / r["episode_id"])]
    assert not empty, f"greedy recommended nothing in {len(empty)} of {len(rewards)} episodes: {empty}"
    assert _solved(rewards, "sub") >= 2


@pytest.fixture(scope="module")
def imported_plays(shop, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Cell]]:
    rewards = play_all(("greedy", *HEURISTIC), ("pd", "status", "policy", "bundle"), ALL_DIFFICULTIES, 13, 8900,
                       shop, tmp_path_factory.mktemp("imported"), transport="local")
    return table(rewards)


@pytest.mark.parametrize(("env", "heuristics"), [("status", ("prior", "oldest", "newest")), ("policy", ("prior",))])
def test_greedy_beats_every_simple_heuristic_on_an_imported_shop(imported_plays, env: str, heuristics: tuple):
    """Each heuristic that plays its own move in `env` (the others play greedy's there)."""
    greedy = imported_plays["greedy"][env]
    best = max(imported_plays[h][env].solved for h in heuristics)
    assert greedy.solved > best, (env, greedy, {h: imported_plays[h][env] for h in heuristics})


@pytest.mark.parametrize(("env", "at_least"), [("pd", 3), ("bundle", 1)])
def test_greedy_finds_an_imported_shops_categories_through_search(imported_plays, env: str, at_least: int):
    """The customer names a category in the shop's own words ("Hello, I'm shopping for notebooks"):
    greedy finds it from what a search for those words returns, not from the generated taxonomy."""
    assert imported_plays["greedy"][env].solved >= at_least, imported_plays["greedy"][env]


def test_greedys_clause_reading_gives_the_rule_functions_window_when_everything_is_stated():
    """Greedy's reading of the clause texts (no rule function, no goal) agrees with the rules the
    generator computes answers with, for every item kind, membership, holiday, gift and defect."""
    import random
    from datetime import date

    from verishop.envs.policy.greedy import _extensions
    from verishop.agents.baselines.policy_text import Clauses, read_situation
    from verishop.envs.policy.generator import ELECTRONICS, NON_ELECTRONICS
    from verishop.scenarios.policy import extend_policy, make_policy, return_window
    from verishop.scenarios.taxonomy import category

    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        policy = extend_policy(rng, make_policy(rng))
        clauses = Clauses({c.policy_id: c.text for c in policy.clauses})
        for category_id in ELECTRONICS + NON_ELECTRONICS:
            noun = category(category_id).nouns[0].lower()
            tier, gift, defective, holiday = rng.choice((None, "Plus", "Premier")), rng.random() < .5, \
                rng.random() < .5, rng.random() < .5
            delivered = date(2025, 11, 20) if holiday else date(2026, 3, 2)
            said = read_situation(" ".join([f"I'm a Verishop {tier} member." if tier else "",
                                            f"I bought the {noun} as a gift." if gift else "",
                                            f"The {noun} arrived defective." if defective else "",
                                            f"Delivery was on {delivered:%B} {delivered.day}, {delivered.year}."]))
            expected = return_window(policy, category_id, tier=tier, holiday=holiday, gift=gift, defective=defective)
            assert clauses.base_window(noun) + _extensions(said, clauses) == expected, (seed, noun, said)
            checked += 1
    assert checked == 30 * len(ELECTRONICS + NON_ELECTRONICS)
