"""The customer's words agree with the verifier's verdict (issue 35, point 4).

Goal-blind agents (greedy and red-team attackers) and the oracle play every registered
environment over many seeds and difficulties, in process (`LocalShop`: the server's tools, the
verifier's checks; tests/test_redteam.py holds it to the server's rewards); the verifier scores each
episode. The last thing the customer said must not contradict that verdict: no happy or praising
goodbye on an episode scored unsolved, no objection on one scored solved. Where the verdict needs
what the customer cannot know (a ranking against an ideal list, a policy figure, an order's
status, an optimum, an exact amount, who the shop checked it was), its words stay neutral.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from support import play_run
from verishop.envs import REGISTRY
from verishop.scenarios.voices import VOICES

# The praise the customers' `done` replies said before issue 35 (grep the `"done"` turns of
# verishop/envs/*/customer.py): "looks perfect", "that's all I needed", "great replacements",
# "exactly what I wanted", "that answers my question", "that's everything (I need)", "sorted".
HAPPY = re.compile(r"\b(perfect|great|exactly what|all I needed|answers my question|that's everything|"
                   r"everything I need|sorted|excellent|wonderful|just what I)\b", re.IGNORECASE)
OBJECTIONS = frozenset({"correct", "dissatisfied", "quit"})
AGENTS = ("greedy", "spray", "enumerate", "oracle")
DIFFICULTIES = (0, 1, 2, 3, 4, 5, 6, 8)
EPISODES = 8


def last_customer_message(episode_dir: Path) -> dict:
    events = [json.loads(line) for line in (episode_dir / "transcript.jsonl").read_text().splitlines()]
    said = [e for e in events if e.get("event") == "customer_message"]
    return said[-1]


def contradiction(message: dict, solved: bool) -> str | None:
    """How the customer's last words contradict the verdict, or None."""
    words = message.get("said") or message["text"]
    if not solved and message.get("tag") == "done" and HAPPY.search(words):
        return f"happy close on an unsolved episode: {words!r}"
    if solved and message.get("tag") in OBJECTIONS:
        return f"objection ({message.get('tag')}) on a solved episode: {words!r}"
    return None


def test_a_praising_close_and_an_objection_are_told_apart_from_neutral_words() -> None:
    assert contradiction({"text": "The X looks perfect. Thanks, that's all I needed!", "tag": "done"}, False)
    assert contradiction({"text": "Hmm, that's over my budget.", "tag": "correct"}, True)
    assert contradiction({"text": "Thanks, I'll go with that.", "tag": "done"}, False) is None
    assert contradiction({"text": "Okay, thank you.", "tag": "done"}, False) is None
    assert contradiction({"text": "Okay. Could you tell me exactly what you'll change?", "tag": "continue"},
                         False) is None


@pytest.mark.parametrize("agent", AGENTS)
def test_the_customers_last_words_never_contradict_the_verdict_in_any_environment(
        agent: str, catalog_path: Path, tmp_path: Path) -> None:
    root = play_run(agent, tuple(REGISTRY), DIFFICULTIES, EPISODES, 3500, catalog_path, tmp_path / "runs",
                    transport="local")
    found: Counter[str] = Counter()
    examples: dict[str, str] = {}
    played = 0
    for episode_dir in sorted(p for p in root.iterdir() if p.is_dir() and (p / "reward.json").is_file()):
        reward = json.loads((episode_dir / "reward.json").read_text())
        assert reward["verdict"] == "scored", reward
        played += 1
        problem = contradiction(last_customer_message(episode_dir), bool(reward["is_correct"]))
        if problem is not None:
            found[reward["env_id"]] += 1
            examples.setdefault(reward["env_id"], f"d{reward['difficulty']} seed {reward['seed']}: {problem}")
    assert played == EPISODES * len(REGISTRY)
    assert not found, f"{agent}: contradictions per environment {dict(found)}; e.g. {examples}"


@pytest.mark.parametrize("voice", VOICES)
def test_the_customers_last_words_never_contradict_the_verdict_in_any_voice(
        voice: str, catalog_path: Path, tmp_path: Path) -> None:
    """Issue 35: every voice forced on every environment, for the goal-blind agent that ends most
    episodes unsolved with a close (greedy) and the one that ends them solved (the oracle)."""
    found: list[str] = []
    played = 0
    for agent in ("greedy", "oracle"):
        root = play_run(agent, tuple(REGISTRY), (1, 5, 9), 3, 4100, catalog_path, tmp_path / agent, voice=voice,
                        transport="local")
        for episode_dir in sorted(p for p in root.iterdir() if p.is_dir() and (p / "reward.json").is_file()):
            reward = json.loads((episode_dir / "reward.json").read_text())
            assert reward["verdict"] == "scored", reward
            played += 1
            problem = contradiction(last_customer_message(episode_dir), bool(reward["is_correct"]))
            if problem is not None:
                found.append(f"{agent} {reward['env_id']} d{reward['difficulty']} seed {reward['seed']}: {problem}")
    assert played == 2 * 3 * len(REGISTRY)
    assert not found, found
