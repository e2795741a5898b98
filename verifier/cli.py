"""`verishop verify` (score episode directories) and `verishop verifier serve` (the sidecar).

Exit codes of `verify`: 0 every episode scored, 1 some episode incomplete, 2 usage error.
With `--compare`: 0 no verdict or total changed, 1 some did (each listed with its cause), 2 usage error.
Either way an episode whose sealed files changed after close is `modified_after_close` (exit 1),
an unreadable stored reward.json and an episode folder that is a link each get their own line.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from verishop.scenarios.curriculum_cli import CurriculumChecks, CurriculumPath, CurriculumThreshold, CurriculumWidth
from verishop.verifier.models import SOURCES, Reward, Weights

DEFAULT_WEIGHTS = "0.75,0.15,0.10"
# Past this many episodes the table shows one row per environment instead of per episode.
MAX_EPISODE_ROWS = 50

verifier_app = typer.Typer(help="The verifier as a service that scores episodes as they close.",
                           no_args_is_help=True)


def _weights(text: str) -> Weights:
    try:
        return Weights.parse(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc).splitlines()[0], param_hint="--weights") from None


def verify(
    run_dirs: Annotated[list[Path], typer.Argument(help="Episode directories, or folders of them (a runs dir).",
                                                   exists=True, file_okay=False, dir_okay=True)],
    json_lines: Annotated[bool, typer.Option("--json", help="Print one reward JSON per line.")] = False,
    catalog: Annotated[Path | None, typer.Option(help="Catalog file, instead of the one world.db names.",
                                                 exists=True, dir_okay=False)] = None,
    weights: Annotated[str, typer.Option(help="task,efficiency,hallucination weights.")] = DEFAULT_WEIGHTS,
    workers: Annotated[int, typer.Option(min=0, help="Processes (0: one per CPU for large runs).")] = 0,
    recompute_ideal: Annotated[bool, typer.Option(
        help="PD: rank against an ideal list recomputed from the catalog; report if the scenario's differs.")] = False,
    seal_key: Annotated[list[Path] | None, typer.Option(
        "--seal-key", help="A seal key file, or a folder of them, to check episode seals with (besides "
                           "$VERISHOP_SEAL_KEY_FILE and $VERISHOP_HOME/seal-keys/). Repeatable.")] = None,
    compare: Annotated[bool, typer.Option(
        "--compare", help="Re-score without writing and list every verdict or total that differs from the stored "
                          "reward.json, with its cause (a new version, another catalog, or a bug); exit 1 on any "
                          "change.")] = False,
) -> None:
    """Score episodes from their files and write reward.json next to each."""
    from verishop.verifier.checks import Options
    from verishop.verifier.errors import UsageError
    from verishop.verifier.runner import Settings, expand, verify_many

    settings = Settings(weights=_weights(weights), catalog=catalog, options=Options(recompute_ideal=recompute_ideal),
                        rehash_catalogs=compare, seal_keys=tuple(seal_key or ()))
    try:
        directories = expand(run_dirs)
    except UsageError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if compare:
        _compare(directories, settings, workers, json_lines)
    started = time.perf_counter()
    rewards = []
    for reward in verify_many(directories, settings, workers):
        rewards.append(reward)
        if json_lines:
            typer.echo(reward.model_dump_json())
    elapsed_s = time.perf_counter() - started
    if not json_lines:
        _print_table(rewards, elapsed_s)
    raise typer.Exit(1 if any(r.verdict != "scored" for r in rewards) else 0)


def _compare(directories: list[Path], settings, workers: int, json_lines: bool) -> None:
    import dataclasses
    import json

    from verishop.verifier.compare import compare, print_changes
    from verishop.verifier.runner import verify_many

    changes, _ = compare(directories, verify_many(directories, settings, workers, write=False))
    if json_lines:
        for change in changes:
            typer.echo(json.dumps(dataclasses.asdict(change)))
    else:
        print_changes(changes, len(directories))
    raise typer.Exit(1 if changes else 0)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:+.3f}"


def _print_table(rewards: list[Reward], elapsed_s: float) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:  # piped or captured: don't squeeze the table to 80 columns
        console = Console(width=160)
    scored = [r for r in rewards if r.verdict == "scored"]
    if len(rewards) <= MAX_EPISODE_ROWS:
        table = Table(title="Rewards")
        for column in ("episode", "env", "d", "verdict", "r_task", "r_eff", "r_hall", "total", "solved", "note"):
            table.add_column(column, justify="right" if column.startswith(("r_", "total", "d")) else "left",
                             no_wrap=column != "note")
        for r in rewards:
            note = r.hard_fail or (f"{r.reason}: {r.detail}" if r.reason else "")
            if r.seal == "unsealed":
                note = "; ".join(filter(None, [note, "unsealed (recorded before sealing)"]))
            table.add_row(r.episode_id, r.env_id or "?", "?" if r.difficulty is None else str(r.difficulty),
                          r.verdict, _fmt(r.r_task), _fmt(r.r_eff), _fmt(r.r_hall), _fmt(r.total),
                          "-" if r.is_correct is None else "yes" if r.is_correct else "no", note)
    else:
        table = Table(title="Rewards by environment")
        for column in ("env", "episodes", "incomplete", "mean total", "solved", *(f"failed {s}" for s in SOURCES),
                       "not agent"):
            table.add_column(column, justify="left" if column == "env" else "right")
        for env in sorted({r.env_id or "?" for r in rewards}):
            group = [r for r in rewards if (r.env_id or "?") == env]
            done = [r for r in group if r.verdict == "scored"]
            mean = sum(r.total or 0.0 for r in done) / len(done) if done else None
            solved = f"{sum(bool(r.is_correct) for r in done) / len(done):.0%}" if done else "-"
            by_source = _by_source(done)
            table.add_row(env, str(len(group)), str(len(group) - len(done)), _fmt(mean), solved,
                          *(str(by_source[s]) for s in SOURCES), str(_not_agent(done)))
        for r in [r for r in rewards if r.verdict != "scored"][:20]:
            console.print(f"[yellow]incomplete[/yellow] {r.episode_id}: {r.reason}: {r.detail}")
    console.print(table)
    if len(rewards) <= MAX_EPISODE_ROWS:
        _print_failures(console, scored)
    blamed = _not_agent(scored)
    if blamed:
        console.print(f"[red]{blamed} failed requirements charged to the customer or the environment: "
                      "a simulator bug, not the agent's fault[/red]")
    mean = sum(r.total or 0.0 for r in scored) / len(scored) if scored else 0.0
    rate = len(rewards) / elapsed_s if elapsed_s > 0 else float("inf")
    modified = sum(r.reason == "modified_after_close" for r in rewards)
    unsealed = sum(r.seal == "unsealed" for r in rewards)
    console.print(f"{len(scored)} scored, {len(rewards) - len(scored)} incomplete"
                  + (f" ({modified} modified after close)" if modified else "")
                  + (f", {unsealed} unsealed" if unsealed else "")
                  + f"; mean total {mean:+.3f}; {len(rewards)} episodes in {elapsed_s:.2f} s ({rate:,.0f}/s)")


@verifier_app.command("serve")
def serve(
    runs_dir: Annotated[Path | None, typer.Option(help="The folder of episode directories to watch "
                                                       "(default: $VERISHOP_HOME/runs).")] = None,
    host: Annotated[str, typer.Option(help="HTTP bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8100,
    catalog: Annotated[Path | None, typer.Option(help="Catalog file, instead of the one world.db names.",
                                                 exists=True, dir_okay=False)] = None,
    weights: Annotated[str, typer.Option(help="task,efficiency,hallucination weights.")] = DEFAULT_WEIGHTS,
    curriculum: CurriculumPath = None,
    curriculum_checks: CurriculumChecks = None,
    curriculum_threshold: CurriculumThreshold = None,
    curriculum_width: CurriculumWidth = None,
    token: Annotated[str | None, typer.Option(
        envvar="VERISHOP_TOKEN", show_envvar=True,
        help="Require 'Authorization: Bearer TOKEN' on every route but /health. "
             "Needed to listen on anything but loopback.")] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help="Another Host this sidecar answers to: NAME (at --port) or NAME:PORT, "
                               "e.g. the machine's DNS name when --host is 0.0.0.0. Repeatable.")] = None,
) -> None:
    """Score every closed episode under RUNS_DIR as it closes, feed the curriculum, and serve the rewards."""
    import logging

    import uvicorn

    from verishop.scenarios.catalog.cache import runs_home
    from verishop.scenarios.curriculum_cli import open_store
    from verishop.verifier.access import Access, allowed_hosts, is_loopback
    from verishop.verifier.curriculum import CurriculumFeed
    from verishop.verifier.runner import Settings
    from verishop.verifier.service import VerifierService, create_app

    token = token or None
    if token is None and not is_loopback(host):
        typer.echo(f"verishop verifier: refusing to listen on {host} without a token; "
                   "pass --token or set VERISHOP_TOKEN", err=True)
        raise typer.Exit(2)
    try:
        access = Access(allowed_hosts(host, port, tuple(allowed_host or ())), token)
    except ValueError as exc:
        typer.echo(f"verishop verifier: --allowed-host: {exc}", err=True)
        raise typer.Exit(2) from None
    logging.basicConfig(level=logging.WARNING)
    runs = (runs_dir or runs_home()).resolve()
    runs.mkdir(parents=True, exist_ok=True)
    service = VerifierService(runs, Settings(weights=_weights(weights), catalog=catalog))
    store = open_store(curriculum, runs, curriculum_checks, curriculum_threshold, curriculum_width)
    service.on_scored.append(CurriculumFeed(store))
    typer.echo(f"verishop verifier: watching {runs}; rewards at http://{host}:{port}/rewards/<episode_id>; "
               f"curriculum in {store.path}", err=True)
    try:
        uvicorn.run(create_app(service, access), host=host, port=port, log_level="warning", lifespan="on")
    finally:
        store.close()


def _by_source(rewards: list[Reward]) -> dict[str, int]:
    """Failed requirements per source, over `rewards` (the EComAgentBench view)."""
    counts = dict.fromkeys(SOURCES, 0)
    for r in rewards:
        for f in r.failed_requirements:
            counts[f.source] += 1
    return counts


def _not_agent(rewards: list[Reward]) -> int:
    return sum(f.actor != "agent" for r in rewards for f in r.failed_requirements)


def _print_failures(console, rewards: list[Reward]) -> None:
    """Why each scored episode failed: one row per failed requirement."""
    from rich.table import Table

    rows = [(r.episode_id, f) for r in rewards for f in r.failed_requirements]
    if not rows:
        return
    table = Table(title="Why episodes failed")
    for column in ("episode", "requirement", "source", "actor", "checks"):
        table.add_column(column, no_wrap=column in ("episode", "source", "actor"))
    for episode_id, f in rows:
        table.add_row(episode_id, f.requirement, f.source, f.actor, ", ".join(f.checks))
    console.print(table)
