"""The `verishop` command: one entry point, each subcommand implemented by the package
that owns it."""

from __future__ import annotations

from typing import Annotated

import typer

from verishop.agents.cli import demo, evaluate
from verishop.agents.export import export
from verishop.agents.report.cli import report
from verishop.mcp_server.cli import serve
from verishop.scenarios.cli import catalog_app, generate
from verishop.scenarios.curriculum_cli import curriculum_app
from verishop.verifier.cli import verifier_app, verify

app = typer.Typer(help="verishop: a simulated shop for training and testing AI shopping assistants.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
app.add_typer(catalog_app, name="catalog")
app.command("generate")(generate)
app.command("serve")(serve)
app.command("demo")(demo)
app.command("verify")(verify)
app.add_typer(verifier_app, name="verifier")
app.command("eval")(evaluate)
app.command("export")(export)
app.command("report")(report)
app.add_typer(curriculum_app, name="curriculum")


def _print_version(asked: bool) -> None:
    if asked:
        from verishop import __version__

        typer.echo(f"verishop {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print the installed version and exit.")] = False,
) -> None:
    """verishop: a simulated shop for training and testing AI shopping assistants."""


def main() -> None:
    app()
