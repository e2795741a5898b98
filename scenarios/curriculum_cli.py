"""`verishop curriculum show`, and the curriculum options shared by `verishop serve` and
`verishop verifier serve` (both open the same file, by default `<runs-dir>/curriculum.db`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from verishop.scenarios.curriculum_store import FILE_NAME, CurriculumStore

CurriculumPath = Annotated[Path | None, typer.Option(
    "--curriculum", help=f"Curriculum file shared by server and verifier (default: <runs-dir>/{FILE_NAME}).",
    dir_okay=False)]
CurriculumChecks = Annotated[int | None, typer.Option(
    "--curriculum-checks", min=1, help="Episodes at a window's top per check (default 32; stored in the file).")]
CurriculumThreshold = Annotated[float | None, typer.Option(
    "--curriculum-threshold", min=0.0, max=1.0, help="Solved share that moves a window up (default 0.9).")]
CurriculumWidth = Annotated[int | None, typer.Option(
    "--curriculum-width", min=1, help="Most levels a window spans (default 5).")]

curriculum_app = typer.Typer(help="The adaptive curriculum: one difficulty window per environment.",
                             no_args_is_help=True)


def open_store(path: Path | None, runs_dir: Path, checks: int | None = None, threshold: float | None = None,
               width: int | None = None) -> CurriculumStore:
    """The curriculum file, with any parameters given on the command line written into it."""
    store = CurriculumStore(path or runs_dir / FILE_NAME)
    if (checks, threshold, width) != (None, None, None):
        store.set_params(episodes_per_check=checks, threshold=threshold, max_width=width)
    return store


@curriculum_app.command("show")
def show(
    curriculum: CurriculumPath = None,
    runs_dir: Annotated[Path | None, typer.Option(help="Runs folder whose curriculum.db to read "
                                                       "(default: $VERISHOP_HOME/runs).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Print every environment's difficulty window and the counters of its current check."""
    from rich.console import Console
    from rich.table import Table

    from verishop.scenarios.catalog.cache import runs_home
    from verishop.scenarios.envs import REGISTRY

    path = curriculum or (runs_dir or runs_home()) / FILE_NAME
    if not path.is_file():
        typer.echo(f"error: no curriculum file at {path}", err=True)
        raise typer.Exit(2)
    with CurriculumStore(path) as store:
        snapshot = store.snapshot(REGISTRY)
    if json_output:
        typer.echo(json.dumps(snapshot, indent=2))
        return
    params = snapshot["params"]
    table = Table(title=f"Curriculum ({path})")
    for column in ("env", "window", "at top", "solved at top", "episodes", "checks"):
        table.add_column(column, justify="left" if column == "env" else "right")
    for w in snapshot["windows"]:
        table.add_row(w["env_id"], f"[{w['low']}, {w['high']}]", f"{w['attempts']}/{params['episodes_per_check']}",
                      str(w["solved"]), str(w["episodes"]), str(w["checks"]))
    console = Console()
    if not console.is_terminal:  # piped or captured: don't squeeze the table to 80 columns
        console = Console(width=120)
    console.print(table)
    console.print(f"a window moves up when {params['threshold']:.0%} of {params['episodes_per_check']} episodes "
                  f"at its top are solved; at most {params['max_width']} levels wide, up to d={params['max_level']}")
