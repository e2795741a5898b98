"""The shop's tools and their arguments are stated once (issue 29, point 7), in
`verishop.scenarios.tool_names`: the server registers exactly those tools with exactly those
arguments, cannot register another, and the verifier, the checks, oracles and baselines of every
environment name a tool only through that module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from mcp import Client

from verishop.mcp_server.schema import ToolSet
from verishop.mcp_server.tools import READ_ONLY, create_server
from verishop.scenarios import tool_names

REPO = Path(__file__).resolve().parent.parent


async def test_the_server_lists_exactly_the_named_tools_with_the_named_arguments(hub):
    await hub.open(hub.generate("pd", 0, 1), default=True)
    async with Client(create_server(hub)) as client:
        listed = (await client.list_tools()).tools
    assert {t.name: tuple(t.input_schema["properties"]) for t in listed} == dict(tool_names.ARGUMENTS)
    read_only = {t.name for t in listed if t.annotations.read_only_hint}
    assert read_only == tool_names.LOOKUPS | {tool_names.GET_CONVERSATION}
    assert not read_only & tool_names.WRITES


def test_the_groups_partition_the_named_tools():
    groups = (tool_names.LOOKUPS, tool_names.WRITES, tool_names.CONVERSATIONAL)
    assert sum(len(g) for g in groups) == len(tool_names.TOOLS) == len(frozenset().union(*groups))
    assert frozenset().union(*groups) == frozenset(tool_names.TOOLS)
    assert tool_names.CART_ADDS < tool_names.CART_CHANGES < tool_names.WRITES


def test_a_tool_not_named_there_cannot_be_registered():
    tools = ToolSet()

    async def refund_everything(ctx) -> None:
        """Not a shop tool."""

    with pytest.raises(ValueError, match="refund_everything.*scenarios/tool_names.py"):
        tools(READ_ONLY)(refund_everything)
    assert tools.tools == []


def test_a_named_tool_with_other_arguments_cannot_be_registered():
    tools = ToolSet()

    async def view_cart(ctx, coupon: str = "") -> None:
        """The cart, with an argument the table does not state."""

    with pytest.raises(ValueError, match="view_cart.*coupon"):
        tools(READ_ONLY)(view_cart)


def _tool_literals(path: Path, root: Path = REPO) -> list[str]:
    """Where `path` spells a tool's name as a string literal (a whole string equal to one; prose
    mentioning a tool inside a longer message is not a name)."""
    names = set(tool_names.TOOLS)
    return [f"{path.relative_to(root)}:{node.lineno} {node.value!r}" for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and node.value in names]


def _files_naming_tools() -> list[Path]:
    roles = [p for p in sorted((REPO / "verishop" / "envs").glob("*/*.py"))
             if p.stem in ("check", "oracle", "greedy", "customer", "generator")]
    code = [p for folder in ("verifier", "mcp_server", "scenarios") for p in sorted((REPO / folder).rglob("*.py"))]
    return [p for p in roles + code if p != REPO / "scenarios" / "tool_names.py"]


def test_the_verifier_the_server_and_each_environment_name_tools_only_through_tool_names():
    found = [hit for path in _files_naming_tools() for hit in _tool_literals(path)]
    assert found == []


def test_the_literal_finder_finds_a_tool_name_and_skips_prose(tmp_path: Path):
    module = tmp_path / "probe.py"
    module.write_text('"""Calls add_to_cart."""\nX = "add_to_cart"\nY = f"answer with {X} or respond_to_customer"\n')
    assert _tool_literals(module, tmp_path) == ["probe.py:2 'add_to_cart'"]
