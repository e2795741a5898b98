"""What `verishop eval` does with the scored run besides its summary: the per-difficulty and
pass^k tables with their confidence intervals, the flip rates and determinism certificate of
repeated trials, the CI outputs (JUnit XML, the solved-share gate), and while it runs, the
progress display and the signal handlers that stop it in order."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from verishop.agents.confidence import flip_rates
from verishop.agents.determinism import certify
from verishop.agents.episode_limits import RunControl
from verishop.agents.evaluate import failures, solved_share
from verishop.agents.junit import write_junit
from verishop.agents.sealed import read_split_index, shown_seed
from verishop.scenarios.console import err
from verishop.scenarios.splits import redact_seeds


def ci_gates(rewards: list[dict[str, Any]], run_root: Path, junit: Path | None, fail_under: float | None,
             name: str) -> None:
    """Write the JUnit file if asked, then exit 1 when the solved share is below the gate."""
    failed = failures(run_root)
    if junit is not None:
        write_junit(rewards, junit, name, failed, read_split_index(run_root))
    share = solved_share(rewards, failed)
    if fail_under is not None and share < fail_under:
        err.print(f"error: solved share {share:.1%} is below --fail-under {fail_under:.1%}")
        raise typer.Exit(1)


@contextlib.contextmanager
def stopping_on_signals(control: RunControl) -> Iterator[None]:
    """The first SIGINT or SIGTERM asks `control` to stop (no new episode; the running ones are
    closed and scored; the outputs are still written); a second ends the process at once."""
    def on_signal(signum: int, _frame: Any) -> None:
        if control.stopping:
            os._exit(128 + signum)
        err.print(f"{signal.Signals(signum).name}: closing the running episodes and scoring them "
                  f"(again to exit at once)")
        control.request_stop(signal.Signals(signum).name)

    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def eval_progress(console: Console, control: RunControl, *, transient: bool) -> Iterator[Progress]:
    """The run's progress bar, and under it one line per running episode with its time so far."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=transient) as progress:
        control.on_start = lambda label: progress.add_task(f"  running {label}", total=None)
        control.on_end = progress.remove_task
        yield progress


def summary_json(failed: list[dict[str, Any]], rewards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The failures for the JSON summary, each with the verifier's reward of its episode (a
    timed-out or interrupted episode is scored as the agent left it)."""
    by_id = {r.get("episode_id"): r for r in rewards}
    keys = ("verdict", "total", "is_correct", "r_task", "r_eff", "r_hall", "close_reason")
    return [dict(f, reward={k: by_id[f["episode_id"]].get(k) for k in keys})
            if f.get("episode_id") in by_id else f for f in failed]


def print_tables(console: Console, agent: str, run_root: Path, rows: list[dict[str, Any]],
                 pass_k: list[dict[str, Any]]) -> None:
    table = Table(title=f"verishop eval · agent {agent} · {run_root}")
    for column in ("env", "d", "episodes", "failed", "solved", "solved 95% CI", "total", "total 95% CI", "r_task",
                   "r_eff", "r_hall", "turns", "tool calls", "utility", "security"):
        table.add_column(column, justify="left" if column == "env" else "right")
    fmt = lambda v: "—" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)  # noqa: E731
    # Piped (`| tee`, CI logs), rich would cut rows at 80 columns; a table only takes the width it needs.
    out = console if console.is_terminal else Console(width=200)
    for row in rows:
        style = "bold" if row["difficulty"] == "all" else None
        timeouts = f" ({row['timeouts']} timeout)" if row.get("timeouts") else ""
        table.add_row(row["env_id"], str(row["difficulty"]), str(row["episodes"]), f"{row.get('failed', 0)}{timeouts}",
                      f"{row['solved_share']:.0%}", ci(row.get("solved_ci95"), percent=True), fmt(row["total"]),
                      ci(row.get("total_ci95")),
                      *(fmt(row[k]) for k in ("r_task", "r_eff", "r_hall", "turns", "tool_calls")),
                      _share(row.get("utility")), _security(row), style=style)
    out.print(table)
    if pass_k:
        ks = [k for k in pass_k[0] if k.startswith("pass^")]
        table = Table(title="pass^k: the chance that all k trials of a task succeed (tau-bench's estimate)")
        for column in ("env", "d", "tasks", "trials", *ks):
            table.add_column(column, justify="left" if column == "env" else "right")
        for row in pass_k:
            table.add_row(row["env_id"], str(row["difficulty"]), str(row["tasks"]), str(row["trials"]),
                          *(fmt(row[k]) for k in ks), style="bold" if row["difficulty"] == "all" else None)
        out.print(table)


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _security(row: dict[str, Any]) -> str:
    """The share of minefield episodes that hit none, and of how many ("—": none carried one)."""
    if row.get("security") is None:
        return "—"
    return f"{row['security']:.0%} of {row['minefield_episodes']}"


def ci(interval: list[float] | None, *, percent: bool = False) -> str:
    """An interval as text: '62%–91%' or '+0.412…+0.655'."""
    if not interval:
        return "—"
    low, high = interval
    return f"{low:.0%}–{high:.0%}" if percent else f"{low:+.3f}…{high:+.3f}"


def trial_outputs(rewards: list[dict[str, Any]], run_root: Path) -> dict[str, Any]:
    """What repeated trials add to the JSON summary: flip rates per environment and the
    determinism certificate of the run."""
    certificate = certify(run_root)
    return {"flip_rate": flip_rates(rewards), "determinism": certificate.as_json() | {"line": certificate.line()}}


def print_trials(console: Console, repeated: dict[str, Any]) -> None:
    """The flip rate per environment, then the determinism certificate, once for the run."""
    if not repeated:
        return
    out = console if console.is_terminal else Console(width=200)
    table = Table(title="flip rate: the share of tasks whose verdict differs between trials")
    for column in ("env", "tasks", "flipped", "flip rate"):
        table.add_column(column, justify="left" if column == "env" else "right")
    for env, row in repeated["flip_rate"].items():
        table.add_row(env, str(row["tasks"]), str(row["flipped"]), f"{row['flip_rate']:.0%}")
    out.print(table)
    out.print(redact_seeds(repeated["determinism"]["line"]), markup=False, highlight=False)


def print_failures(run_root: Path, failed: list[dict[str, Any]]) -> None:
    """Episodes that could not be played: their kind and message, the first twenty."""
    if not failed:
        return
    err.print(f"[bold red]{len(failed)} episode(s) failed[/] (details in {run_root / 'failures.jsonl'}):")
    indices = read_split_index(run_root)  # a test-split seed shows as its index, even inside a message
    for f in failed[:20]:
        err.print(redact_seeds(f"  {f['env_id']} d={f['difficulty']} seed={shown_seed(f['seed'], indices)}: {f['kind']}: "
                         f"{f['message'][:200]}", indices), markup=False, highlight=False)
