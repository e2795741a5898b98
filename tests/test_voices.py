"""The customer's voices (issue 35): a persona per episode, its own words, the same decisions.

Each voiced version (`pd-v10` …) draws a voice from the seed on the difficulty axis and records
it; the versions before voices (`pd-v9` …) keep their bytes, scenarios and transcripts alike. A
voice rewords what the customer says and never what it decides: the same tags, the same details
told, every fact of a reply in the plain voice's words (the verifier finds them there).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from support import play_run
from verishop.envs import ENVIRONMENTS, PLAIN_VOICED, EnvSpec
from verishop.scenarios.customers import CustomerState, SimulatedCustomer, precise_questions
from verishop.scenarios.envs import generate, get_env
from verishop.scenarios.models import Scenario, Submission
from verishop.scenarios.voices import LEVEL, VOICES, draw, weights
from verishop.scenarios.voices.words import FRAMES, LEADS, STOCK, STOCK_KEYS

from test_words_agree_with_verdicts import HAPPY

PLAIN_EXAMPLES = Path(__file__).parent / "data" / "plain_voice_examples.json"
_SENTENCE = re.compile(r"(?<=[.?!])\s+")


def quiet(scenario: Scenario, voice: str | None = None) -> Scenario:
    """The scenario with the customer's typo noise off (its words compare), in `voice`."""
    update: dict[str, object] = {"axes": scenario.axes.model_copy(update={"p_noise": 0.0})}
    if voice is not None:
        update["voice"] = voice
    return scenario.model_copy(update=update)


# --- the persona: drawn, recorded, on the difficulty axis ---------------------------------------


def test_the_same_seed_gives_the_same_voice_opening_and_replies(reader):
    for spec in ENVIRONMENTS:
        for seed in (1, 2):
            a, b = generate(spec.env_id, 9, seed, reader), generate(spec.env_id, 9, seed, reader)
            assert a.to_json() == b.to_json() and a.voice == draw(spec.env_id, 9, seed)
            first, second = SimulatedCustomer(a, reader.product), SimulatedCustomer(b, reader.product)
            for message in ("Which brand would you like?", "Anything else?", "What's the weather like?"):
                assert first.reply(message, Submission()) == second.reply(message, Submission())


def test_every_customer_speaks_plainly_at_difficulty_0_and_every_voice_is_drawn_above_it(reader):
    assert {draw("pd-v10", 0, seed) for seed in range(200)} == {"plain"}
    drawn = Counter(draw("pd-v10", d, seed) for d in range(1, 13) for seed in range(60))
    assert set(drawn) == set(VOICES), drawn
    assert generate("pd", 0, 1, reader).voice == "plain"


def test_harder_voices_are_likelier_at_higher_difficulty():
    def share(d: int, level: int) -> float:
        voices = [draw("sub-v9", d, seed) for seed in range(600)]
        return sum(LEVEL[v] == level for v in voices) / len(voices)

    assert share(1, 0) > share(6, 0) > share(12, 0)
    assert share(1, 3) < share(6, 3) < share(12, 3)
    total = sum(weights(12))
    assert weights(12)[VOICES.index("plain")] / total < 0.05


def test_a_forced_voice_is_recorded_and_a_plain_version_refuses_any_other(reader):
    scenario = generate("cart", 4, 3, reader, voice="formal")
    assert scenario.voice == "formal" and json.loads(scenario.to_json())["voice"] == "formal"
    assert Scenario.model_validate_json(scenario.to_json()) == scenario
    assert generate("cart-v6", 4, 3, reader, voice="plain").to_json() == generate("cart-v6", 4, 3, reader).to_json()
    with pytest.raises(ValueError, match="cart-v6 speaks only the plain voice"):
        generate("cart-v6", 4, 3, reader, voice="formal")
    with pytest.raises(ValueError, match="unknown voice 'pirate'; known: plain, terse"):
        generate("cart", 4, 3, reader, voice="pirate")


def test_a_name_plays_the_voiced_version_and_an_old_id_its_plain_one(reader):
    for plain in PLAIN_VOICED:
        assert get_env(plain.name).voiced and get_env(plain.env_id) is plain
        scenario = generate(plain.env_id, 8, 5, reader)
        assert scenario.env_id == plain.env_id and scenario.voice is None and '"voice"' not in scenario.to_json()


# --- the plain versions keep their bytes ------------------------------------------------------


def test_the_plain_versions_play_their_recorded_examples_byte_for_byte(catalog_path: Path, tmp_path: Path):
    """Each plain version's examples as committed before voices (their SHA-256, in
    tests/data/plain_voice_examples.json), played again: scenario, transcript, world and reward."""
    from verishop.agents.record_examples import Play, record_one
    from verishop.envs.examples import dumps

    recorded = json.loads(PLAIN_EXAMPLES.read_text())
    assert sorted(recorded) == sorted(spec.env_id for spec in PLAIN_VOICED)
    for env_id, plays in recorded.items():
        agent, difficulty, seed, digest = max(plays, key=lambda p: p[1])  # its hardest: noise, minefields
        line = dumps(record_one(get_env(env_id), Play(agent, difficulty, seed), catalog_path, tmp_path / env_id))
        assert hashlib.sha256(line.encode()).hexdigest() == digest, (env_id, agent, difficulty, seed)


# --- same decisions, different words ------------------------------------------------------------


def decisions(state: object) -> object:
    """What a customer's state has decided (what it told, its objections, what it remembers; a
    journey's every request's), without the scenario it holds."""
    if isinstance(state, CustomerState):
        return (state.turns_taken, state.objections, sorted(map(repr, state.revealed)), decisions(state.memory))
    if isinstance(state, dict):
        return {k: decisions(v) for k, v in state.items()}
    return repr(state)


def _facts(plain: str) -> list[str]:
    """The sentences of a plain reply a voice keeps word for word (all but its stock ones)."""
    for lead in LEADS:
        plain = plain.removeprefix(f"{lead} ")
    return [s for s in _SENTENCE.split(plain) if s and s not in STOCK_KEYS]


def _conversation(scenario: Scenario) -> list[tuple[str, Submission]]:
    asks = [(q, Submission()) for q in precise_questions(scenario.goal)]
    return [*asks, ("What's the weather like where you are?", Submission()), ("Which brand do you like", Submission()),
            ("Anything else I should know?", Submission()), ("Here you go.", Submission(
                recommended_product_ids=("P00000000",))), ("Anything else I should know?", Submission()),
            ("All done, goodbye!", Submission(done=True))]


@pytest.mark.parametrize("spec", ENVIRONMENTS, ids=lambda s: s.name)
def test_a_voice_rewords_every_reply_but_tells_decides_and_states_the_same(reader, spec: EnvSpec):
    reworded = 0
    for seed in (1, 2, 3):
        for d in (4, 10):
            plain = quiet(generate(spec.env_id, d, seed, reader), "plain")
            for voice in VOICES[1:]:
                a, b = SimulatedCustomer(plain, reader.product), SimulatedCustomer(quiet(plain, voice), reader.product)
                for message, sub in _conversation(plain):
                    said, voiced = a.reply(message, sub), b.reply(message, sub)
                    assert (said.tag, said.task, said.then) == (voiced.tag, voiced.task, voiced.then), (voice, message)
                    assert decisions(a.state) == decisions(b.state), (voice, message)
                    for fact in _facts(said.text):
                        assert fact in voiced.text, (voice, fact, voiced.text)
                    reworded += said.text != voiced.text
                    if said.ends_episode:
                        break
    assert reworded >= 40, "the voices reword"


def test_no_voice_praises_when_it_accepts_or_gives_up():
    """Whether a close is happy is the behaviour's choice (the words-agree-with-the-verdict rule)."""
    for voice, acts in FRAMES.items():
        for act in ("accept", "give_up", "nudge", "approve"):
            for words in (*acts[act][0], *acts[act][1]):
                assert not HAPPY.search(words), (voice, act, words)
        for key in ("thanks", "okay", "bye", "nothing_left"):
            for words in STOCK[voice][key]:
                assert not HAPPY.search(words) or key == "nothing_left", (voice, key, words)
    assert set(FRAMES) == set(STOCK) == set(VOICES) - {"plain"}
    assert all(set(STOCK[v]) == set(STOCK_KEYS.values()) | set(LEADS.values()) for v in STOCK)


@pytest.mark.parametrize("voice", VOICES)
def test_the_oracle_solves_every_environment_in_every_voice(voice: str, catalog_path: Path, tmp_path: Path):
    root = play_run("oracle", tuple(spec.env_id for spec in ENVIRONMENTS), (3, 11), 2, 40, catalog_path,
                    tmp_path / "runs", voice=voice, transport="local")
    rewards = [json.loads((p / "reward.json").read_text()) for p in root.iterdir() if (p / "reward.json").is_file()]
    assert len(rewards) == 2 * len(ENVIRONMENTS)
    assert {json.loads((p / "scenario.json").read_text())["voice"] for p in root.iterdir() if p.is_dir()} == {voice}
    unsolved = [(r["env_id"], r["difficulty"], r["seed"]) for r in rewards if not r["is_correct"] or r["r_task"] < 1]
    assert unsolved == []


# --- opening shapes ---------------------------------------------------------------------------

_NUMBER = re.compile(r"\b(?:\d[\d.,:]*\w*|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b",
                     re.IGNORECASE)
_MONEY = re.compile(r"[$€£]\s?\S+|\b\S+ (?:dollars|bucks)\b")
_FACTISH = re.compile(r"\b(?:[A-Z][\w'-]*|\w+@\S+|[A-Z0-9]+-?\d+)\b")


def shape(opening: str, frame: set[str]) -> str:
    """The opening with its facts masked: numbers (in digits or words), amounts, capitalised words
    past a sentence's first (names, brands, titles, months), and every word that is not a frame
    word (one most openings share: a product's kind, an address, a story's words are facts)."""
    text = _MONEY.sub(" _ ", opening)
    text = _NUMBER.sub(" _ ", text)
    words = []
    for sentence in _SENTENCE.split(text):
        for i, word in enumerate(re.findall(r"[\w'@-]+|[?.!:,]", sentence)):
            masked = "_" if (i > 0 and _FACTISH.fullmatch(word)) or word.lower() not in frame else word.lower()
            if not (masked == "_" and words and words[-1] == "_"):
                words.append(masked)
    return " ".join(words)


@pytest.mark.parametrize("spec", ENVIRONMENTS, ids=lambda s: s.name)
def test_every_environment_opens_in_at_least_a_dozen_shapes(reader, spec: EnvSpec):
    """At d = 0 (no typo noise), each voice forced over 16 seeds; the typo-prone voice left out
    too, so that shapes differ by more than typos."""
    openings = {voice: [generate(spec.env_id, 0, seed, reader, voice=voice).opening_message for seed in range(16)]
                for voice in VOICES}
    # A frame word is said in the openings of at least 5 of the 16 seeds (a seed's facts are said
    # in all its voices: counted once).
    seeds_saying = Counter(w for seed in range(16) for w in {w.lower() for texts in openings.values()
                                                             for w in re.findall(r"[\w'@-]+", texts[seed])})
    frame = {w for w, n in seeds_saying.items() if n >= 5}
    shapes = {shape(text, frame) for texts in openings.values() for text in texts}
    without_typos = {shape(text, frame) for voice, texts in openings.items() if voice != "typo-prone" for text in texts}
    plain = {shape(text, frame) for text in openings["plain"]}
    # Measured: 90 (cart) to 112 shapes without the typo-prone voice, the plain voice's 7 to 16.
    assert len(without_typos) >= max(12, 3 * len(plain)) and len(shapes) > len(without_typos), sorted(shapes)[:20]


# --- the persona in the outputs ---------------------------------------------------------------


def test_the_report_and_the_eval_rows_show_each_episode_s_voice(catalog_path: Path, tmp_path: Path):
    from verishop.agents.evaluate import read_rewards, summarize
    from verishop.agents.report.load import load_run
    from verishop.agents.report.page import render_report

    root = play_run("greedy", ("pd", "cart-v6"), (2,), 1, 5, catalog_path, tmp_path / "runs", voice="plain")
    chatty = play_run("greedy", ("pd",), (7,), 2, 5, catalog_path, tmp_path / "chatty", voice="chatty")
    rows = {(r["env_id"], r["difficulty"]): r for r in summarize(read_rewards(chatty))}
    assert rows["pd-v10", "all"]["voices"] == {"chatty": 2}
    rows = {(r["env_id"], r["difficulty"]): r for r in summarize(read_rewards(root))}
    assert rows["pd-v10", "all"]["voices"] == {"plain": 1} and rows["cart-v6", "all"]["voices"] == {}
    run = load_run(chatty)
    assert [e.voice for e in run.episodes] == ["chatty", "chatty"]
    page = render_report([run])
    assert "<dt>customer voice</dt><dd>chatty</dd>" in page and "<td>chatty</td>" in page
    assert [e.voice for e in load_run(root).episodes if e.reward["env_id"] == "cart-v6"] == [None]


def test_a_relative_date_in_an_opening_names_the_day_the_plain_opening_names():
    """"on the 26th of last month", "from yesterday", "by Friday": read back against the episode's
    today, each is the day the plain words said, for every day of two years."""
    from datetime import date, timedelta

    from verishop.scenarios.voices.openings import _DATE, _MONTHS, _WEEKDAYS, _nearest, _relative

    def read_back(words: str, today: date) -> date:
        if m := re.fullmatch(r"(?:on|of|from) the (\d+)\w\w of (this|last) month", words):
            first = today.replace(day=1) if m.group(2) == "this" else (today.replace(day=1) - timedelta(days=1)).replace(day=1)
            return first.replace(day=int(m.group(1)))
        if re.fullmatch(r"(?:on |from )?yesterday", words):
            return today - timedelta(days=1)
        if words == "by tomorrow":
            return today + timedelta(days=1)
        if m := re.fullmatch(r"by (\w+day)", words):
            return next(today + timedelta(days=k) for k in range(1, 8) if _WEEKDAYS[(today + timedelta(days=k)).weekday()] == m.group(1))
        raise AssertionError(words)

    changed = 0
    for offset in range(0, 730, 3):
        today = date(2025, 1, 1) + timedelta(days=offset)
        for delta in (-40, -20, -9, -2, -1, 1, 2, 5, 6, 9):
            day = today + timedelta(days=delta)
            for how in ("on", "of", "from", "by"):
                if (how == "by") != (delta > 0):
                    continue
                plain = f"{how} {_MONTHS[day.month - 1]} {day.day}"
                said = _relative(_DATE.fullmatch(plain), today)
                if said != plain:
                    changed += 1
                    assert read_back(said, today) == day == _nearest(today, day.month, day.day, how != "by"), (today, plain, said)
    assert changed > 500


def test_the_command_line_forces_a_voice_and_refuses_one_it_cannot_give(catalog_path: Path, tmp_path: Path):
    from typer.testing import CliRunner

    from verishop.cli import app

    made = CliRunner().invoke(app, ["generate", "--env", "pd", "--difficulty", "3", "--seed", "2", "--voice", "chatty",
                                    "--catalog", str(catalog_path)])
    assert made.exit_code == 0 and json.loads(made.stdout)["voice"] == "chatty"
    for args, says in ((["generate", "--env", "pd-v9", "--voice", "chatty"], "pd-v9 speaks only the plain voice"),
                       (["generate", "--env", "pd", "--voice", "pirate"], "unknown voice 'pirate'"),
                       (["eval", "--env", "pd", "--voice", "terse", "--transport", "http"], "memory and stdio"),
                       (["eval", "--env", "pd-v9,cart", "--voice", "terse"], "pd-v9 speak only the plain voice")):
        refused = CliRunner().invoke(app, [*args, "--catalog", str(catalog_path), *(
            ["--runs-dir", str(tmp_path)] if args[0] == "eval" else [])])
        assert refused.exit_code == 2 and says in " ".join(refused.output.replace("│", " ").split()), refused.output
    assert not any(tmp_path.iterdir()), "a refused eval plays nothing"
