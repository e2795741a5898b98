"""`verishop report RUN_DIR... --out report.html`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def report(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run folders (folders of episode folders, as "
                                                         "`verishop eval` writes them) or episode folders.")],
    out: Annotated[Path, typer.Option(help="The HTML file to write.")] = Path("report.html"),
    label: Annotated[list[str] | None, typer.Option(help="A name per run folder, in order (default: the "
                                                        "folder's name); repeat the option.")] = None,
    title: Annotated[str, typer.Option(help="The page's title.")] = "verishop report",
    pages: Annotated[str, typer.Option(help="Which episodes get a page: all, unsolved or none (a run of "
                                            "thousands of episodes makes a file of tens of MB).")] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="Also print one machine-readable summary per run "
                                                         "(rows with solved_ci95 and total_ci95, flip rates, "
                                                         "the determinism certificate).")] = False,
) -> None:
    """Write one self-contained HTML report (opens with no network) comparing runs side by side."""
    from verishop.scenarios.console import err

    if pages not in ("all", "unsolved", "none"):
        raise typer.BadParameter(f"expected all, unsolved or none, got {pages!r}", param_hint="--pages")
    labels = list(label or [])
    if labels and len(labels) != len(run_dirs):
        raise typer.BadParameter(f"{len(labels)} labels for {len(run_dirs)} run folders", param_hint="--label")
    try:
        from verishop.agents.report.load import load_run, unique_labels
        from verishop.agents.report.page import render_report
    except ImportError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False)  # "verishop[report]" is not markup
        raise typer.Exit(2) from None
    try:
        runs = [load_run(path, name) for path, name in zip(run_dirs, unique_labels(run_dirs, labels), strict=True)]
    except FileNotFoundError as exc:
        raise typer.BadParameter(str(exc), param_hint="RUN_DIR") from None
    out.write_text(render_report(runs, title, pages), encoding="utf-8")
    if as_json:
        import json

        from verishop.agents.report.stats import run_summary

        typer.echo(json.dumps({"runs": [run_summary(run) for run in runs]}))
    episodes = sum(len(run.episodes) for run in runs)
    err.print(f"report: {out} ({len(runs)} run{'s' * (len(runs) > 1)}, {episodes} episodes, "
              f"{out.stat().st_size / 1e6:.1f} MB)")
