"""The map holds: who may import whom (docs/ARCHITECTURE.md), and no module of the server imports
one that imports it back, counting imports inside functions and under TYPE_CHECKING."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Folder in the repo -> the package it installs as.
PACKAGES = {"scenarios": "verishop.scenarios", "mcp_server": "verishop.mcp_server", "verifier": "verishop.verifier",
            "verishop/agents": "verishop.agents"}


def _module_name(path: Path) -> str:
    for folder, package in PACKAGES.items():
        root = REPO / folder
        if path.is_relative_to(root):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join([package, *parts])
    raise ValueError(path)


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, wherever the import statement stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _graph(folder: str) -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in (REPO / folder).rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_server_has_no_import_circle() -> None:
    assert _cycle(_graph("mcp_server")) is None, " -> ".join(_cycle(_graph("mcp_server")) or [])


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize(("folder", "forbidden"), [
    ("scenarios", ("verishop.mcp_server", "verishop.verifier", "verishop.agents")),
    ("verifier", ("verishop.mcp_server", "verishop.agents")),
    ("mcp_server", ("verishop.verifier", "verishop.agents")),
])
def test_each_package_imports_only_what_the_map_allows(folder: str, forbidden: tuple[str, ...]) -> None:
    wrong = sorted(f"{path.relative_to(REPO)} imports {m}" for path in (REPO / folder).rglob("*.py")
                   for m in _imports(path) if m.startswith(forbidden))
    assert not wrong, wrong


def test_nothing_imports_the_old_top_level_names() -> None:
    ours = {p.stem if p.stem != "__init__" else p.parent.name for p in (REPO / "verishop/agents").rglob("*.py")}

    def old(module: str) -> bool:  # `agents` alone is the OpenAI Agents SDK's name, which examples may use
        top, _, rest = module.partition(".")
        return top in ("scenarios", "mcp_server", "verifier") or (top == "agents" and rest.split(".")[0] in ours)

    files = [p for p in REPO.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(REPO).parts)
             and "integrations" not in p.parts]
    wrong = sorted(f"{p.relative_to(REPO)}: {m}" for p in files for m in _imports(p) if old(m))
    assert not wrong, wrong
