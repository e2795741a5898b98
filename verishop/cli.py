"""The `verishop` command: one entry point, each subcommand implemented by the package
that owns it.

Each subcommand's module is imported only when that subcommand runs (or `--help` lists them all),
so a command loads only its own side of the house: `verishop verify` no server and no agent,
`verishop serve` no verifier (tests/test_role_imports.py), and every command starts faster.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Annotated

import click
import typer
from typer.core import TyperGroup

SUBCOMMANDS: dict[str, str] = {
    "generate": "verishop.scenarios.cli:generate",
    "serve": "verishop.mcp_server.cli:serve",
    "demo": "verishop.agents.cli:demo",
    "verify": "verishop.verifier.cli:verify",
    "eval": "verishop.agents.cli:evaluate",
    "export": "verishop.agents.export:export",
    "report": "verishop.agents.report.cli:report",
    "catalog": "verishop.scenarios.cli:catalog_app",
    "verifier": "verishop.verifier.cli:verifier_app",
    "curriculum": "verishop.scenarios.curriculum_cli:curriculum_app",
}
"""Each subcommand, in the order `--help` lists them (commands, then groups, as typer did when they
were registered on the app): `module:attribute`, a function (a command) or a `typer.Typer` (a group)."""


@cache
def subcommand(name: str) -> click.Command:
    """The subcommand `name`, imported now and built exactly as if it had been registered on the
    app: a command or group added to a holder app, then taken back out of it."""
    module, attribute = SUBCOMMANDS[name].split(":")
    target = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer()
    holder.callback()(lambda: None)  # with a callback, the holder is a group whatever it holds
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
    else:
        holder.command(name)(target)
    return typer.main.get_group(holder).commands[name]


class _Subcommands(Mapping[str, click.Command]):
    """The group's commands by name; a command is imported when it is looked up, not when listed."""

    def __getitem__(self, name: str) -> click.Command:
        if name not in SUBCOMMANDS:
            raise KeyError(name)
        return subcommand(name)

    def __iter__(self) -> Iterator[str]:
        return iter(SUBCOMMANDS)

    def __len__(self) -> int:
        return len(SUBCOMMANDS)


class LazyGroup(TyperGroup):
    """The top-level group, whose subcommands are `SUBCOMMANDS`, each imported on first use."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.commands = _Subcommands()  # type: ignore[assignment]  # read-only: nothing adds commands


app = typer.Typer(cls=LazyGroup, help="verishop: a simulated shop for training and testing AI shopping assistants.",
                  no_args_is_help=True, pretty_exceptions_enable=False)


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
