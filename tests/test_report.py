"""`verishop report`: one self-contained HTML file built from real episodes that scripted agents
played through the MCP server and the verifier scored. Its structure is checked here; rendering
in a real browser is tests/test_report_browser.py."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from verishop.agents.passk import pass_hat_k, pass_k, pass_k_rows
from verishop.agents.report.episode import product_titles
from verishop.agents.report.load import load_run
from verishop.agents.report.page import render_report
from support import play_run

ENVS = ("pd", "sub", "cart", "return", "status", "policy", "bundle", "journey")
HOSTILE = '</pre><script>alert("x")</script><img src=x onerror=alert(1)>'


class Parsed(HTMLParser):
    """Tags, ids, links and images of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def all(self, tag: str, cls: str | None = None) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and (cls is None or cls in (a.get("class") or "").split())]

    @property
    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.tags if a.get("id")}


@pytest.fixture(scope="module")
def runs(catalog_path, tmp_path_factory) -> dict[str, Path]:
    """A greedy run (one trial) and an oracle run (two trials per task) over every environment."""
    root = tmp_path_factory.mktemp("report-runs")
    return {"greedy": play_run("greedy", ENVS, (0, 4), 2, 30, catalog_path, root / "greedy"),
            "oracle": play_run("oracle", ENVS, (0, 4), 2, 30, catalog_path, root / "oracle", trials=2)}


def build_report(runs: dict[str, Path], out: Path, *options: str) -> subprocess.CompletedProcess:
    """The real command, in its own process, like a user runs it; `out` is written."""
    args = [str(p) for p in runs.values()] + [f"--label={label}" for label in runs]
    return subprocess.run([sys.executable, "-m", "verishop", "report", *args, "--out", str(out), *options],
                          check=True, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def built(runs, tmp_path_factory) -> tuple[Path, dict]:
    """The module's report and the summary the same command printed with `--json`: the plots cost
    about a second each to draw, so one command serves both."""
    out = tmp_path_factory.mktemp("report") / "report.html"
    done = build_report(runs, out, "--json")
    return out, json.loads(done.stdout)


@pytest.fixture(scope="module")
def report(built) -> Path:
    return built[0]


@pytest.fixture(scope="module")
def summary(built) -> dict:
    """What `verishop report --json` printed, by run label."""
    return {run["label"]: run for run in built[1]["runs"]}


def test_the_report_is_one_file_that_loads_nothing_and_runs_nothing(report):
    text = report.read_text()
    page = Parsed(text)
    assert page.all("script") == [] and "<script" not in text.lower()
    csp = [m["content"] for m in page.all("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]
    assert all(a["href"].startswith("#") for a in page.all("a")), "every link stays inside the file"
    assert all(img["src"].startswith("data:image/svg+xml;base64,") for img in page.all("img"))
    assert page.all("link") == []


def test_every_plot_is_a_valid_svg_one_overview_and_one_per_environment(report):
    plots = Parsed(report.read_text()).all("img", "plot")
    assert len(plots) == 1 + len(ENVS)
    for img in plots:
        svg = ET.fromstring(base64.b64decode(img["src"].split(",", 1)[1]))
        assert svg.tag.endswith("svg")
        assert sum(1 for el in svg.iter() if el.tag.endswith("path")) > 20, "the plot draws something"
        assert img["alt"]


def test_every_episode_has_a_page_that_the_index_links_to(runs, report):
    page = Parsed(report.read_text())
    articles = page.all("article", "episode")
    episodes = sum(1 for run in runs.values() for p in run.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert len(articles) == episodes == 16 + 32
    links = {a["href"][1:] for a in page.all("a")}
    assert {a["id"] for a in articles} <= links
    assert links <= page.ids, "no dangling anchor"


def test_an_episode_page_shows_every_tool_call_submission_and_check(runs, report):
    run = load_run(runs["greedy"])
    text = report.read_text()
    page = Parsed(text)
    calls = sum(1 for e in run.episodes for ev in e.events if ev.get("event") == "tool_call")
    assert len(page.all("details", "call")) >= calls  # both runs' calls; the greedy ones at least
    checks = sum(len(e.reward["breakdown"]) for r in runs.values() for e in load_run(r).episodes)
    assert len(page.all("div", "check")) == checks, "each check of each episode is shown once, beside a turn"
    assert len(page.all("div", "submission")) >= sum(
        1 for e in run.episodes for ev in e.events if ev.get("event") == "assistant_message"
        and any(v for k, v in ev["submission"].items() if k != "done"))
    assert "expected" in text and "found" in text and " ms<" in text  # durations


def test_each_environment_shows_failed_requirements_by_source_for_every_run(runs, report):
    text = report.read_text()
    page = Parsed(text)
    assert len(page.all("table", "by-source")) == len(ENVS)
    greedy = load_run(runs["greedy"], "greedy")
    counts = {s: 0 for s in ("stated", "revealed", "withheld", "shop")}
    for e in greedy.episodes:
        for f in e.reward["failed_requirements"]:
            counts[f["source"]] += 1
    assert sum(counts.values()) > 0, "the greedy baseline fails some requirements"
    from verishop.agents.report.stats import failed_by_source
    rows = failed_by_source(greedy)
    assert {s: sum(r.counts[s] for r in rows.values()) for s in counts} == counts
    assert all(r.not_agent == 0 for r in rows.values()), "no failure is the customer's or the world's"
    # A failed check on an episode page names its requirement, source and who it is charged to.
    assert 'class="why"' in text and "charged to agent" in text


def test_pages_can_be_limited_to_unsolved_episodes_without_dangling_links(runs):
    loaded = [load_run(path, label) for label, path in runs.items()]
    unsolved = sum(not e.solved for run in loaded for e in run.episodes)
    page = Parsed(render_report(loaded, pages="unsolved"))
    assert 0 < len(page.all("article", "episode")) == unsolved
    assert {a["href"][1:] for a in page.all("a")} <= page.ids
    none = Parsed(render_report(loaded, pages="none"))
    assert none.all("article") == [] and {a["href"][1:] for a in none.all("a")} <= none.ids


def test_runs_are_compared_side_by_side_with_pass_k_for_repeated_tasks(report):
    text = report.read_text()
    assert "greedy: solved · total" in text and "oracle: solved · total" in text
    assert 'id="pass-k"' in text and "pass^2" in text
    assert "checks that fail most" in text


def test_text_from_transcripts_and_folder_names_is_escaped(runs, tmp_path):
    hostile_run = tmp_path / HOSTILE.replace("/", "_")[:60]
    shutil.copytree(runs["greedy"], hostile_run)
    episode = next(p for p in sorted(hostile_run.iterdir()) if p.is_dir())
    lines = (episode / "transcript.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    for event in events:
        if event["event"] == "customer_message":
            event["text"] = HOSTILE
        if event["event"] == "tool_call":
            event["arguments"] = {"query": HOSTILE}
    (episode / "transcript.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    reward = json.loads((episode / "reward.json").read_text())
    reward["breakdown"].append({"name": HOSTILE, "expected": HOSTILE, "found": {HOSTILE: 1}, "passed": False,
                                "some_new_field": 1})
    (episode / "reward.json").write_text(json.dumps(reward))
    text = render_report([load_run(hostile_run, label=HOSTILE)])
    page = Parsed(text)
    assert "<script" not in text and page.all("script") == []
    assert not [name for _, attrs in page.tags for name in attrs if name.startswith("on")], "no handler got through"
    assert all(img["src"].startswith("data:image/svg+xml;base64,") for img in page.all("img"))
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text


def test_an_unverified_episode_and_a_broken_transcript_line_are_shown_not_fatal(runs, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(runs["greedy"], copy)
    first, second = [p for p in sorted(copy.iterdir()) if p.is_dir()][:2]
    (first / "reward.json").unlink()
    with (second / "transcript.jsonl").open("a") as f:
        f.write("{not json\n")
    (copy / "failures.jsonl").write_text(json.dumps({"env_id": "cart-v1", "difficulty": 2, "seed": 9,
                                                     "kind": "RuntimeError", "message": "server died"}) + "\n")
    text = render_report([load_run(copy)])
    assert "missing" in text and "not JSON; skipped" in text
    assert "1 cart-v1 d=2 seed=9: RuntimeError" in text


def test_the_command_refuses_a_folder_without_episodes_and_mismatched_labels(tmp_path, runs):
    empty = tmp_path / "empty"
    empty.mkdir()
    command = [sys.executable, "-m", "verishop", "report", "--out", str(tmp_path / "r.html")]
    assert subprocess.run([*command, str(empty)], capture_output=True, timeout=60).returncode == 2
    mismatched = subprocess.run([*command, str(runs["greedy"]), "--label", "a", "--label", "b"], capture_output=True,
                                timeout=60)
    assert mismatched.returncode == 2 and b"--label" in mismatched.stderr


def test_pass_hat_k_is_the_unbiased_estimate_of_all_k_trials_succeeding():
    assert pass_hat_k(4, 4, 3) == 1.0
    assert pass_hat_k(4, 2, 1) == 0.5
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_hat_k(4, 2, 3) == 0.0
    with pytest.raises(ValueError):
        pass_hat_k(2, 3, 1)


def test_pass_k_averages_over_tasks_and_an_unscored_trial_is_a_failure():
    rewards = [{"env_id": "pd-v2", "difficulty": 0, "seed": 1, "verdict": "scored", "is_correct": True}] * 2 + [
        {"env_id": "pd-v2", "difficulty": 0, "seed": 2, "verdict": "scored", "is_correct": True},
        {"env_id": "pd-v2", "difficulty": 0, "seed": 2, "verdict": "incomplete", "is_correct": None}]
    assert pass_k(rewards, 1) == 0.75
    assert pass_k(rewards, 2) == 0.5
    assert pass_k(rewards, 3) is None
    rows = pass_k_rows(rewards)
    assert [(r["env_id"], r["difficulty"], r["pass^2"]) for r in rows] == [
        ("pd-v2", 0, 0.5), ("pd-v2", "all", 0.5), ("all", "all", 0.5)]


def test_the_episode_index_orders_difficulty_and_seed_as_numbers(runs):
    run = load_run(runs["greedy"])
    for episode, (difficulty, seed) in zip(run.episodes, [(10, 2), (2, 11), (2, 3), (10, 1)] * 8):
        episode.reward.update(env_id="pd-v10", difficulty=difficulty, seed=seed)
    index = render_report([run]).split('<section id="episodes">', 1)[1]
    cells = re.findall(r"<tr><td><a [^>]*>[^<]*</a></td><td>pd-v10</td><td[^>]*>(\d+)</td><td[^>]*>(\d+)</td>", index)
    shown = [(int(d), int(s)) for d, s in cells]
    assert len(shown) == len(run.episodes) and shown == sorted(shown), shown


def test_a_ranking_check_shows_each_product_s_title_beside_its_id(runs, report):
    run = load_run(runs["greedy"])
    text = report.read_text()
    titled = 0
    for episode in run.episodes:
        for check in episode.reward["breakdown"]:
            if check["name"] == "ranking_ndcg" and check["found"]:
                titles = product_titles(episode.events)
                first = check["found"][0]
                assert first in titles, "the agent recommended what a tool showed it"
                titled += escape(f"{first} · {titles[first]}") in text
    assert titled > 0


def test_each_turn_shows_the_respond_to_customer_call_before_the_message_it_sent(report):
    text = report.read_text()
    turns = re.findall(r'<section class="turn"><h4>turn \d+</h4>(.*?)</section>', text, re.S)
    ordered = [t for t in turns if 'class="msg assistant"' in t and "<code>respond_to_customer</code>" in t]
    assert ordered
    for turn in ordered:
        assert turn.index("<code>respond_to_customer</code>") < turn.index('class="msg assistant"')
        assert turn.index('class="msg assistant"') < turn.index('class="msg customer"')
    assert 'title="wall time of the call on the server">server ' in text


def test_the_report_shows_intervals_flip_rates_and_the_certificate_and_prints_them_as_json(runs, report, summary):
    text = report.read_text()  # the module's report: these runs, these labels, printed with --json
    assert "solved 95% CI" in text and "total 95% CI" in text
    assert "flip rate" in text and text.count('class="certificate"') == 1  # only the run with trials
    assert "every verdict flip is the agent&#x27;s" in text
    assert set(summary) == set(runs)
    for run in summary.values():
        for row in run["rows"]:
            low, high = row["solved_ci95"]
            assert low <= row["solved_share"] <= high
            if row["total"] is not None:
                assert row["total_ci95"][0] <= row["total"] <= row["total_ci95"][1]
    assert "flip_rate" not in summary["greedy"]
    assert summary["oracle"]["determinism"]["deterministic"] is True
    assert set(summary["oracle"]["flip_rate"]) == {row["env_id"] for row in summary["oracle"]["rows"]}
