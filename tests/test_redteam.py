"""The red team (issue 9, point 10): goal-blind agents that attack the reward, and a correct
agent that talks like a person, on seeds no other test uses.

One module-scoped run plays every agent on the same episodes: 8 per environment, difficulties
spread over 0..12, in process (`LocalShop`: the server's tools and the verifier's checks); with
`-m slow`, 26 per environment, every difficulty twice, through the real MCP server and scored by the
verifier in its own process. A sample of every agent's episodes is played the other way too, and
must earn the same rewards. Then, per environment:
(a) no hostile agent solves more episodes, nor earns a higher mean total, than the bar: the better
    of greedy and the best simple heuristic (`prior`, `oldest`, `newest`; issue 28, break 9);
(b) inventing IDs or name-dropping seen ones never earns a higher mean total than doing nothing;
(c) a denied product named in a message is a hard fail, in every episode where it was named, in
    any spelling of its ID or title (`denied-spelled`);
(d) an honest agent (greedy, natural, natural-idioms) is never a hard fail;
(e) the natural agent (sentences, number words, no IDs restated after an action) solves ≥ 95%,
    and `natural-idioms` (idioms, spoken money, status histories, restated figures) ≥ 98%.
`python bench/redteam.py` prints the same table for the README.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from verishop.agents.redteam import HEURISTIC, HOSTILE
from verishop.agents.redteam import idioms
from verishop.agents.redteam.idioms import STATUS_HISTORIES
from verishop.agents.redteam.phrasing import STATUS_SENTENCES, number_words
from verishop.agents.redteam.suite import AGENTS, BAR_AGENTS, ENVS, Cell, bar, play_all, render, table
from verishop.agents.scripted import make_agent
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.envs import generate
from support import names_a_denied_product

NATURAL_SOLVED_AT = 0.95
IDIOMS_SOLVED_AT = 0.98  # issue 19: idioms, spoken money, histories and restated figures


@dataclass(frozen=True)
class Run:
    episodes: int  # per environment and agent
    difficulties: tuple[int, ...]
    seed: int
    transport: str  # verishop.agents.redteam.suite.TRANSPORTS

    @property
    def other_transport(self) -> str:
        return "memory" if self.transport == "local" else "local"


QUICK = Run(8, (0, 2, 4, 6, 7, 9, 11, 12), 7000, "local")
LARGE = Run(26, tuple(range(13)), 7100, "memory")


@dataclass(frozen=True)
class Plays:
    run: Run
    root: Path
    rewards: dict[str, list[dict]]
    cells: dict[str, dict[str, Cell]]

    def row(self, agent: str, env: str) -> str:
        c = self.cells[agent][env]
        return f"{agent} in {env}: {c.solved}/{c.episodes} solved, mean total {c.mean_total:+.3f}"


@pytest.fixture(scope="module", params=[pytest.param(QUICK, id="quick"),
                                        pytest.param(LARGE, id="large", marks=pytest.mark.slow)])
def plays(request, catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Plays:
    run: Run = request.param
    root = tmp_path_factory.mktemp("redteam")
    rewards = play_all(AGENTS, ENVS, run.difficulties, run.episodes, run.seed, catalog_path, root,
                       transport=run.transport)
    for agent, rs in rewards.items():
        assert len(rs) == run.episodes * len(ENVS), agent
        assert all(r["verdict"] == "scored" for r in rs), (agent, [r.get("detail") for r in rs])
    cells = table(rewards)
    print(f"\n{render(cells)}")  # shown with -s: the table the README pastes
    return Plays(run, root, rewards, cells)


def test_every_agent_earns_the_same_rewards_in_process_as_through_the_server_and_its_verifier(
        plays: Plays, catalog_path: Path, tmp_path: Path):
    """The tables are played one way; a sample (each agent's last episode in every environment)
    is played the other way, and every field of its rewards but the episode id agrees."""
    run, last = plays.run, plays.run.episodes - 1
    sample = play_all(AGENTS, ENVS, (run.difficulties[last % len(run.difficulties)],), 1, run.seed + last,
                      catalog_path, tmp_path, transport=run.other_transport)

    def by_play(rewards: list[dict]) -> dict[tuple, dict]:
        return {(r["env_id"], r["difficulty"], r["seed"]): {k: v for k, v in r.items() if k != "episode_id"}
                for r in rewards}

    for agent in AGENTS:
        theirs = by_play(sample[agent])
        mine = {key: reward for key, reward in by_play(plays.rewards[agent]).items() if key in theirs}
        assert len(theirs) == len(ENVS) and mine.keys() == theirs.keys(), agent
        differ = {key: {field: (mine[key].get(field), theirs[key].get(field))
                        for field in mine[key].keys() | theirs[key].keys()
                        if mine[key].get(field) != theirs[key].get(field)}
                  for key in mine if mine[key] != theirs[key]}
        assert not differ, f"{agent}: {run.transport} against {run.other_transport}: {differ}"


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("agent", HOSTILE)
def test_no_hostile_agent_beats_the_better_of_greedy_and_the_best_heuristic(plays: Plays, agent: str, env: str):
    mine = plays.cells[agent][env]
    solved, mean_total = bar(plays.cells, env)
    why = "; ".join(plays.row(a, env) for a in (agent, *BAR_AGENTS))
    assert mine.solved <= solved, why
    assert mine.mean_total <= mean_total + 1e-9, why


def test_the_bar_is_played_by_greedy_and_every_heuristic():
    assert set(BAR_AGENTS) == {"greedy", *HEURISTIC} and set(BAR_AGENTS) <= set(AGENTS)


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("agent", ("invent", "namedrop"))
def test_inventing_or_namedropping_ids_never_beats_doing_nothing(plays: Plays, agent: str, env: str):
    mine, null = plays.cells[agent][env], plays.cells["null"][env]
    assert mine.mean_total <= null.mean_total + 1e-9, f"{plays.row(agent, env)}; {plays.row('null', env)}"


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("agent", ("denied", "denied-spelled"))
def test_a_denied_product_named_in_a_message_in_any_spelling_is_a_hard_fail(plays: Plays, agent: str, env: str,
                                                                            reader: CatalogReader):
    named = [r for r in plays.rewards[agent] if r["env_id"].startswith(f"{env}-")
             and names_a_denied_product(plays.root / agent / r["episode_id"], reader)]
    assert named, f"the denied agent named no denied product in {env}: the attack was not tried"
    missed = [(r["difficulty"], r["seed"], r["total"]) for r in named
              if r.get("hard_fail") is None or r["total"] != -1.0 or r["is_correct"]]
    assert not missed, f"{len(missed)} of {len(named)} episodes naming a denied product were not hard fails " \
                       f"(difficulty, seed, total): {missed}"


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("agent", ("greedy", "natural", "natural-idioms"))
def test_an_honest_agent_is_never_a_hard_fail(plays: Plays, agent: str, env: str):
    """Safety reads every spelling and partial title (issue 28): it must never take an honest
    agent's words for a denied product."""
    failed = [(r["difficulty"], r["seed"], r["hard_fail"]) for r in plays.rewards[agent]
              if r["env_id"].startswith(f"{env}-") and r.get("hard_fail")]
    assert failed == []


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("agent, solved_at", [("natural", NATURAL_SOLVED_AT), ("natural-idioms", IDIOMS_SOLVED_AT)])
def test_a_correct_agent_talking_like_a_person_is_scored_as_solved(plays: Plays, agent: str, solved_at: float,
                                                                   env: str):
    cell = plays.cells[agent][env]
    failed = [(r["difficulty"], r["seed"], [c["name"] for c in r["breakdown"] if not c["passed"]])
              for r in plays.rewards[agent] if r["env_id"].startswith(f"{env}-") and not r["is_correct"]]
    assert cell.solved_share >= solved_at, f"{plays.row(agent, env)}; failed (d, seed, checks): {failed}"


@pytest.mark.parametrize("env", ("status", "policy"))
def test_the_idioms_agent_really_answers_in_idioms(plays: Plays, env: str):
    """Its answers are the idioms' sentences, not the plain ones: the table above measures them."""
    plain = {s for forms in STATUS_SENTENCES.values() for s in forms}
    answers = [json.loads(line)["submission"]["answer"]
               for r in plays.rewards["natural-idioms"] if r["env_id"].startswith(f"{env}-")
               for line in (plays.root / "natural-idioms" / r["episode_id"] / "transcript.jsonl").read_text().splitlines()
               if json.loads(line).get("event") == "assistant_message" and json.loads(line)["submission"].get("answer")]
    assert answers and not plain & set(answers)
    idiomatic = {s for forms in (*STATUS_HISTORIES.values(), idioms._YES, idioms._NO, *idioms._FEE.values(),
                                 *idioms._SHIP.values(), *idioms._STILL.values(), *idioms._CANCEL.values())
                 for s in forms}
    spoken = [a for a in answers if a in idiomatic or re.search(r"not \d+|dollars|usual window|weeks|percent| [a-z]+-[a-z]+\.$", a)]
    assert len(spoken) >= len(answers) // 2, answers


@pytest.mark.parametrize("agent", HOSTILE + HEURISTIC)
def test_hostile_agents_never_hold_the_goal(agent: str, reader: CatalogReader):
    scenario = generate("status", 4, 7000, reader)
    held = vars(make_agent(agent, scenario)).values()
    assert all(value is not scenario and value is not scenario.goal for value in held)


def test_number_words_read_as_people_write_them():
    assert [number_words(n) for n in (5, 14, 30, 45, 100, 194)] == [
        "five", "fourteen", "thirty", "forty-five", "one hundred", "one hundred ninety-four"]

