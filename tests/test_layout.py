"""The map holds (docs/ARCHITECTURE.md): who may import whom, by package and by an environment's
role file, and no module imports one that imports it back, in any package, counting imports
inside functions and under TYPE_CHECKING."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Folder in the repo -> the package it installs as (the three design folders are mapped).
PACKAGES = {"scenarios": "verishop.scenarios", "mcp_server": "verishop.mcp_server", "verifier": "verishop.verifier",
            "verishop": "verishop"}
ENVS = REPO / "verishop" / "envs"
SHOP_SIDE = ("generator", "customer", "answers")
# What each role file of an environment's folder may never import (tests/test_role_imports.py checks
# what each side loads at run time). Shop-side files hold the world and the customer; the check is
# the verifier's; the oracle and greedy are agents'.
ROLE_FORBIDS = {
    "generator": ("verishop.verifier", "verishop.mcp_server", "verishop.agents"),
    "customer": ("verishop.verifier", "verishop.mcp_server", "verishop.agents"),
    "answers": ("verishop.verifier", "verishop.mcp_server", "verishop.agents"),
    "check": ("verishop.mcp_server", "verishop.agents"),
    "oracle": ("verishop.verifier", "verishop.mcp_server"),
    "greedy": ("verishop.verifier", "verishop.mcp_server"),
}
# Roles of its own folder a role file may not import: a check never loads what plays; greedy never
# reads the goal (the oracle, the customer, the check).
ROLE_FORBIDS_OWN = {"check": ("oracle", "greedy", "customer"), "greedy": ("oracle", "customer", "check"),
                    "oracle": ("check",), "generator": ("check", "oracle", "greedy", "customer"),
                    "customer": ("check", "oracle", "greedy"), "answers": ("check", "oracle", "greedy", "customer")}


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


def _code_files(folder: str) -> list[Path]:
    return [p for p in (REPO / folder).rglob("*.py") if "tests" not in p.relative_to(REPO).parts[1:]]


def _edges(path: Path, modules: set[str]) -> set[str]:
    """The modules of `modules` that `path` imports. `from package import submodule` is an edge
    to the submodule only: a package's `__init__` importing its own submodules is no circle."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{alias.name}" for alias in node.names}
            found |= subs & modules
            if subs - modules:
                found.add(node.module)
    return found & modules


def _graph(*folders: str) -> dict[str, set[str]]:
    modules = {_module_name(p): p for folder in folders for p in _code_files(folder)}
    return {name: _edges(path, set(modules)) - {name} for name, path in modules.items()}


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


@pytest.mark.parametrize("folder", ["scenarios", "mcp_server", "verifier", "verishop"])
def test_no_package_has_an_import_circle(folder: str) -> None:
    assert _cycle(_graph(folder)) is None, " -> ".join(_cycle(_graph(folder)) or [])


def test_the_whole_house_has_no_import_circle_across_packages() -> None:
    graph = _graph(*PACKAGES)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_cycle_finder_sees_a_deferred_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from verishop.envs.policy.generator import Question\n")
    assert "verishop.envs.policy.generator" in _imports(module)


@pytest.mark.parametrize(("folder", "forbidden"), [
    ("scenarios", ("verishop.mcp_server", "verishop.verifier", "verishop.agents")),
    ("verifier", ("verishop.mcp_server", "verishop.agents")),
    ("mcp_server", ("verishop.verifier", "verishop.agents")),
])
def test_each_package_imports_only_what_the_map_allows(folder: str, forbidden: tuple[str, ...]) -> None:
    wrong = sorted(f"{path.relative_to(REPO)} imports {m}" for path in (REPO / folder).rglob("*.py")
                   for m in _imports(path) if m.startswith(forbidden))
    assert not wrong, wrong


def _folder_modules(name: str) -> bool:
    """Whether `name` is inside an environment's folder (not the registry `verishop.envs` itself)."""
    parts = name.split(".")
    return len(parts) >= 3 and parts[:2] == ["verishop", "envs"] and (ENVS / parts[2]).is_dir()


@pytest.mark.parametrize("folder", ["scenarios", "verifier", "mcp_server", "verishop/agents", "verishop/ray"])
def test_the_layers_reach_an_environment_only_through_the_registry(folder: str) -> None:
    """The core, the verifier, the server and the agents' machinery name no environment's folder:
    they load its roles by name from `verishop.envs` (the red team's attacks, which target given
    environments, may read their greedy, oracle, answers and generator, never a check)."""
    wrong = []
    for path in (REPO / folder).rglob("*.py"):
        for m in _imports(path):
            if not _folder_modules(m):
                continue
            redteam = path.is_relative_to(REPO / "verishop/agents/redteam")
            if redteam and not m.endswith((".check",)) and ".check." not in m:
                continue
            wrong.append(f"{path.relative_to(REPO)} imports {m}")
    assert not wrong, wrong


def _role_files() -> list[tuple[str, str, Path]]:
    """(environment folder, role, path) of every role file, helpers counted as shop side."""
    out = []
    for folder in sorted(p for p in ENVS.iterdir() if (p / "__init__.py").exists()):
        for path in sorted(folder.glob("*.py")):
            if path.stem == "__init__":
                continue
            role = path.stem if path.stem in ROLE_FORBIDS else "generator"  # a helper of the generator
            out.append((folder.name, role, path))
    return out


@pytest.mark.parametrize(("env", "role", "path"), _role_files(), ids=lambda v: v.name if isinstance(v, Path) else v)
def test_each_role_file_imports_only_what_its_role_allows(env: str, role: str, path: Path) -> None:
    own = f"verishop.envs.{env}"
    wrong = []
    for m in _imports(path):
        if m.startswith(ROLE_FORBIDS[role]):
            wrong.append(m)
        elif _folder_modules(m) and not (m == own or m.startswith(own + ".")):
            wrong.append(f"{m} (another environment's folder: use the registry)")
        elif any(m == f"{own}.{r}" or m.startswith(f"{own}.{r}.") for r in ROLE_FORBIDS_OWN[role]):
            wrong.append(f"{m} (its own folder's {m.removeprefix(own + '.').split('.')[0]})")
    assert not wrong, f"{path.relative_to(REPO)} ({role}) imports {wrong}"


def test_every_registered_environment_has_its_folder_and_roles() -> None:
    from verishop.envs import REGISTRY

    for spec in REGISTRY.values():
        folder = REPO / spec.folder.replace(".", "/")
        assert (folder / "__init__.py").exists(), spec.folder
        for role in ("generator", "customer", "check", "oracle"):
            assert (folder / f"{role}.py").exists(), f"{spec.env_id} has no {role}.py"
        assert (folder / "examples.jsonl").exists(), f"{spec.env_id} has no examples.jsonl"
        assert any((folder / "tests").glob("test_*.py")), f"{spec.env_id} has no tests of its own"


def test_nothing_imports_the_old_top_level_names() -> None:
    ours = {p.stem if p.stem != "__init__" else p.parent.name for p in (REPO / "verishop/agents").rglob("*.py")}

    def old(module: str) -> bool:  # `agents` alone is the OpenAI Agents SDK's name, which examples may use
        top, _, rest = module.partition(".")
        return top in ("scenarios", "mcp_server", "verifier") or (top == "agents" and rest.split(".")[0] in ours)

    files = [p for p in REPO.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(REPO).parts)
             and "integrations" not in p.parts]
    wrong = sorted(f"{p.relative_to(REPO)}: {m}" for p in files for m in _imports(p) if old(m))
    assert not wrong, wrong
