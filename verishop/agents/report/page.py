"""The report page: runs side by side, per environment plots and tables, the checks that fail
most, failed requirements by source, confidence intervals, pass^k with flip rates and the
determinism certificate, an index of episodes linking to each episode's page (an anchor in the
same file).

The file is self-contained: inline CSS, plots as data URIs, no script at all, and a
Content-Security-Policy that forbids loading anything, so a hostile transcript that slipped
past escaping could still neither run code nor call home."""

from __future__ import annotations

from html import escape
from typing import Any

from verishop.agents.confidence import flip_rates
from verishop.agents.determinism import certify
from verishop.agents.eval_output import ci
from verishop.agents.report import plots, stats
from verishop.agents.report.episode import render_episode
from verishop.agents.report.load import Run
from verishop.agents.report.style import CSS
from verishop.scenarios.splits import redact_seeds

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
PLOT_ALT = "solved share, mean total, tool calls and turns by difficulty; mean reward parts"
PAGES = ("all", "unsolved", "none")


def _fmt(value: Any, percent: bool = False) -> str:
    if value is None:
        return "—"
    if percent:
        return f"{value:.0%}"
    return f"{value:.3f}" if isinstance(value, float) else escape(str(value))


def _table(head: list[str], body: list[list[str]], cls: str = "") -> str:
    """Cells arrive escaped."""
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in body)
    return f'<table class="{cls}"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>'


def _anchors(runs: list[Run], pages: str) -> dict[int, str]:
    """The anchor of each episode that gets a page (`pages`: all, unsolved or none)."""
    return {id(e): f"ep-r{i}-e{j}" for i, run in enumerate(runs) for j, e in enumerate(run.episodes)
            if pages == "all" or (pages == "unsolved" and not e.solved)}


def _link(episode, anchors: dict[int, str]) -> str:
    name = escape(episode.episode_id)
    return f'<a href="#{anchors[id(episode)]}">{name}</a>' if id(episode) in anchors else name


def _runs_table(runs: list[Run]) -> str:
    body = []
    for run in runs:
        o = stats.overall(run)
        failed = "; ".join(f"{f.get('env_id')} d={f.get('difficulty')} seed={f.get('seed')}: {f.get('kind')}"
                           for f in run.failures[:5]) + (" …" if len(run.failures) > 5 else "")
        body.append([escape(run.label), f"<code>{escape(str(run.path))}</code>", str(o["episodes"]), str(o["scored"]),
                     _fmt(o["solved_share"], True), _fmt(o["total"]), str(o["trials"]),
                     f"{len(run.failures)} {escape(failed)}".strip()])
    return _table(["run", "folder", "episodes", "scored", "solved", "mean total", "trials per task",
                   "failed to run"], body)


def _side_by_side(runs: list[Run], rows: dict[str, list[dict]]) -> str:
    envs = sorted({r["env_id"] for run_rows in rows.values() for r in run_rows})
    body = []
    for env in envs:
        cells = [f'<a href="#env-{escape(env)}">{escape(env)}</a>']
        for run in runs:
            row = next((r for r in rows[run.label] if r["env_id"] == env and r["difficulty"] == "all"), None)
            cells.append("—" if row is None else f"{_fmt(row['solved_share'], True)} "
                         f"({escape(ci(row.get('solved_ci95'), percent=True))}) · {_fmt(row['total'])}")
        body.append(cells)
    return _table(["environment", *(f"{run.label}: solved · total" for run in runs)], body, "compare")


def _env_section(env: str, runs: list[Run], rows: dict[str, list[dict]], failing: dict[str, list],
                 anchors: dict[int, str], by_source: dict[str, dict[str, stats.BySource]]) -> str:
    series = {run.label: [r for r in rows[run.label] if r["env_id"] == env] for run in runs}
    series = {label: env_rows for label, env_rows in series.items() if env_rows}
    figure = plots.env_figure(series)
    keys = ("total", "r_task", "r_eff", "r_hall", "turns", "tool_calls")
    body = [[escape(label), _fmt(r["difficulty"]), str(r["episodes"]), _fmt(r["solved_share"], True),
             escape(ci(r.get("solved_ci95"), percent=True)), _fmt(r["total"]), escape(ci(r.get("total_ci95"))),
             *(_fmt(r[k]) for k in keys[1:]), _fmt(r.get("utility"), True), _security(r)]
            for label, env_rows in series.items() for r in env_rows]
    table = _table(["run", "d", "episodes", "solved", "solved 95% CI", "total", "total 95% CI", "r_task", "r_eff",
                    "r_hall", "turns", "tool calls", "utility", "security (minefield episodes)"], body, "numbers")
    checks = [[escape(run.label), f"<code>{escape(f.family)}</code>", f"{f.failed} of {f.episodes}",
               _link(f.example, anchors)]
              for run in runs for f in failing[run.label] if f.env_id == env]
    failing_html = (_table(["run", "check", "failed in (episodes)", "example"], checks) if checks
                    else "<p>No check failed.</p>")
    return (f'<section class="env" id="env-{escape(env)}"><h2>{escape(env)}</h2>'
            f'<img class="plot" alt="{escape(env)}: {PLOT_ALT}" src="{figure}"><h3>by difficulty</h3>{table}'
            f"<h3>checks that fail most</h3>{failing_html}{_by_source(env, runs, by_source)}</section>")


def _by_source(env: str, runs: list[Run], by_source: dict[str, dict[str, stats.BySource]]) -> str:
    """Failed requirements by where they came from, one row per run compared."""
    body = []
    for run in runs:
        row = by_source[run.label].get(env)
        if row is None:
            continue
        cells = [f"{row.counts[s]} ({row.counts[s] / row.episodes:.2f})" for s in stats.SOURCES]
        blamed = f'<span class="no">{row.not_agent}</span>' if row.not_agent else "0"
        body.append([escape(run.label), str(row.episodes), *cells, blamed])
    return (f'<h3>failed requirements by source</h3><div class="by-source">'
            + _table(["run", "episodes", *(f"{s} (per episode)" for s in stats.SOURCES),
                      "customer or environment (bugs)"], body, "numbers by-source")
            + "<p>stated: in the opening message · revealed: told when the agent asked · withheld: never asked "
              "for, so never told · shop: found only through the tools (stock, policy, orders)</p></div>")


def _pass_k_section(runs: list[Run]) -> str:
    parts = []
    for run in runs:
        rows = stats.pass_k_table(run)
        if not rows:
            continue
        ks = [k for k in rows[0] if k.startswith("pass^")]
        body = [[escape(str(r["env_id"])), _fmt(r["difficulty"]), str(r["tasks"]), str(r["trials"]),
                 *(_fmt(r[k]) for k in ks)] for r in rows]
        flips = [[escape(env), str(f["tasks"]), str(f["flipped"]), _fmt(f["flip_rate"], True)]
                 for env, f in flip_rates(run.rewards).items()]
        parts.append(f"<h3>{escape(run.label)}</h3>" + _table(["environment", "d", "tasks", "trials", *ks], body,
                                                               "numbers")
                     + _table(["environment", "tasks", "flipped", "flip rate"], flips, "numbers")
                     + f'<p class="certificate">{escape(certify(run.path).line())}</p>')
    if not parts:
        return ""
    return ('<section id="pass-k"><h2>pass^k</h2><p>The probability that all k trials of a task succeed '
            "(tau-bench's estimate C(c, k) / C(n, k) per task with c successes in n trials, averaged over "
            "tasks); pass^1 is the solved share. The flip rate is the share of tasks whose verdict differs "
            "between trials; the determinism certificate says whether the shop itself varied (scenario "
            f"digests and the customer's replies to identical moves).</p>{''.join(parts)}</section>")


def _number(value: object) -> tuple[int, float, str]:
    """A sort key that puts numbers in numeric order (2 before 10) and anything else after them."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))


def _security(row: dict[str, Any]) -> str:
    """The share of an env's minefield episodes that hit none ("—": none carried one)."""
    if row.get("security") is None:
        return "—"
    return f"{_fmt(row['security'], True)} of {row.get('minefield_episodes', 0)}"


def _minefields(reward: dict[str, Any]) -> str:
    """The minefields an episode carried, the one it hit in bold ("—": none)."""
    carried = [str(name) for name in reward.get("minefields") or []]
    hit = reward.get("minefield_hit")
    return ", ".join(f"<b>{escape(n)} (hit)</b>" if n == hit else escape(n) for n in carried) or "—"


def _episode_index(runs: list[Run], anchors: dict[int, str]) -> str:
    parts = []
    for run in runs:
        ordered = sorted(run.episodes, key=lambda e: (str(e.reward.get("env_id")), _number(e.reward.get("difficulty")),
                                                      _number(e.reward.get("seed")), e.episode_id))
        body = [[_link(e, anchors), escape(str(e.reward.get("env_id"))),
                 _fmt(e.reward.get("difficulty")), _fmt(e.reward.get("seed")), escape(e.voice or "—"),
                 '<span class="yes">✓</span>' if e.solved else '<span class="no">✗</span>',
                 _fmt(e.reward.get("total")), _fmt(e.reward.get("turns")), _fmt(e.reward.get("tool_calls")),
                 _fmt(e.reward.get("close_reason") or e.reward.get("verdict")), _minefields(e.reward)]
                for e in ordered]
        parts.append(f"<h3>{escape(run.label)}</h3>" + _table(
            ["episode", "environment", "d", "seed", "voice", "solved", "total", "turns", "tool calls", "closed",
             "minefields (hit)"], body, "index"))
    return f'<section id="episodes"><h2>episodes</h2>{"".join(parts)}</section>'


def render_report(runs: list[Run], title: str = "verishop report", pages: str = "all") -> str:
    rows = {run.label: stats.summary_rows(run) for run in runs}
    failing = {run.label: stats.failing_checks(run) for run in runs}
    by_source = {run.label: stats.failed_by_source(run) for run in runs}
    anchors = _anchors(runs, pages)
    envs = sorted({r["env_id"] for run_rows in rows.values() for r in run_rows})
    overview = plots.overview_figure(runs, rows)
    main = (f'<main class="overview"><h1>{escape(title)}</h1>{_runs_table(runs)}'
            f'<img class="plot" alt="solved share per environment" src="{overview}">'
            f"<h2>side by side</h2>{_side_by_side(runs, rows)}"
            f'{"".join(_env_section(env, runs, rows, failing, anchors, by_source) for env in envs)}'
            f"{_pass_k_section(runs)}{_episode_index(runs, anchors)}</main>")
    episodes = "".join(render_episode(e, anchors[id(e)], run.label) for run in runs for e in run.episodes
                       if id(e) in anchors)
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
            f'<style>{CSS}</style></head><body id="top">{main}<div class="episodes">{episodes}</div></body></html>')
    # No test-split seed anywhere on the page (tables, facts, transcript lines): each shows as its index.
    return redact_seeds(page, {seed: index for run in runs for seed, index in run.split_index.items()})
