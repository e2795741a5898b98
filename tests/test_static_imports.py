"""A clone reads like an installed `verishop`: a static tool that knows nothing of setuptools'
`package-dir` (an IDE's go-to-definition, pyright, an import-graph viewer) resolves every
`verishop.…` import from the repo root by the standard layout, and lands on the very file Python
imports. The real resolver (basedpyright over the whole repo) runs in `make test-static`; this file
is its fast stand-in in the default suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from test_layout import _imports as imports_of

REPO = Path(__file__).resolve().parents[1]
# Folders no tool should read: venvs, caches, build output, the docs site.
SKIPPED_DIRS = {"build", "dist", "site", "node_modules", "__pycache__"}


def _repo_python_files() -> list[Path]:
    """Every .py file of the clone as `git ls-files` would show it, without following links."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS]
        found.extend(Path(folder, f) for f in files if f.endswith(".py"))
    return sorted(found)


def _verishop_imports(path: Path) -> set[str]:
    """The `verishop.…` names a file imports: modules, and `from m import x` as `m` and `m.x`."""
    return {n for n in imports_of(path) if n == "verishop" or n.startswith("verishop.")}


def standard_layout_file(module: str, root: Path = REPO) -> Path | None:
    """Where a path-based tool finds `module` from `root`: a/b/c.py or a/b/c/__init__.py, under
    packages that each have an __init__.py. None if it finds nothing."""
    *packages, last = module.split(".")
    folder = root
    for part in packages:
        folder = folder / part
        if not (folder / "__init__.py").is_file():
            return None
    for candidate in (folder / f"{last}.py", folder / last / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def test_the_standard_layout_finder_follows_only_real_packages(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text("")
    (tmp_path / "pkg" / "sub" / "leaf.py").write_text("")  # sub/ has no __init__.py
    assert standard_layout_file("pkg.mod", tmp_path) == tmp_path / "pkg" / "mod.py"
    assert standard_layout_file("pkg", tmp_path) == tmp_path / "pkg" / "__init__.py"
    assert standard_layout_file("pkg.sub.leaf", tmp_path) is None
    assert standard_layout_file("pkg.missing", tmp_path) is None


def test_every_verishop_import_in_the_repo_resolves_from_the_repo_root() -> None:
    unresolved: dict[str, list[str]] = {}
    for path in _repo_python_files():
        for name in sorted(_verishop_imports(path)):
            module, _, attribute = name.rpartition(".")
            # `from verishop.x import y`: y is a submodule or a name defined in verishop.x.
            if standard_layout_file(name) is None and (not attribute or standard_layout_file(module) is None):
                unresolved.setdefault(name, []).append(str(path.relative_to(REPO)))
    assert not unresolved, f"{len(unresolved)} names do not resolve, e.g. {sorted(unresolved.items())[:5]}"


def test_the_repo_holds_each_source_file_once() -> None:
    # Every folder that package-dir maps into verishop is reached by the standard layout through a
    # relative link to the design's folder, never through a copy.
    mapped = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    assert {"verishop.scenarios", "verishop.mcp_server", "verishop.verifier"} <= set(mapped)
    for package, folder in mapped.items():
        assert (REPO / folder / "__init__.py").is_file(), f"the design's {folder}/ is kept"
        seen = REPO.joinpath(*package.split("."))
        if package != "verishop":
            assert seen.is_symlink() and not Path(os.readlink(seen)).is_absolute(), seen
        assert seen.resolve() == (REPO / folder).resolve(), seen


# Imports every module of the three design folders (verishop.agents and verishop.ray are plain folders
# under verishop/ and import nothing under two names), then prints each loaded module of ours (and any design
# folder loaded under its own top-level name) with its file.
_IMPORT_ALL = """
import importlib, pkgutil, sys
import verishop.cli
for root in ("verishop.scenarios", "verishop.mcp_server", "verishop.verifier"):
    for info in pkgutil.walk_packages(importlib.import_module(root).__path__, root + "."):
        try:
            importlib.import_module(info.name)
        except ModuleNotFoundError as error:  # an optional extra (ray, gymnasium) that is not installed
            if (error.name or "").split(".")[0] in ("verishop", "scenarios", "mcp_server", "verifier"):
                raise
for name, module in sorted(sys.modules.items()):
    if name.split(".")[0] in ("verishop", "scenarios", "mcp_server", "verifier"):
        print(name, getattr(module, "__file__", None) or "-")
"""


def _loaded_modules(*python_flags: str) -> dict[str, str]:
    done = subprocess.run([sys.executable, *python_flags, "-c", _IMPORT_ALL], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


def _assert_one_name_per_file_and_the_static_file(loaded: dict[str, str]) -> None:
    assert [name for name in loaded if name.split(".")[0] != "verishop"] == [], "a design folder as a top-level name"
    by_file: dict[str, list[str]] = {}
    for name, file in loaded.items():
        if file == "-":
            continue
        by_file.setdefault(os.path.realpath(file), []).append(name)
        static = standard_layout_file(name)
        assert static is not None and static.samefile(file), f"{name}: Python loads {file}, a tool reads {static}"
    twice = {file: names for file, names in by_file.items() if len(names) > 1}
    assert not twice, f"files loaded under two module names: {twice}"


def test_python_without_the_cwd_loads_each_file_once_and_where_a_tool_reads_it() -> None:
    loaded = _loaded_modules("-P")  # what an installed console script or `python -P -m verishop` sees
    assert {"verishop.scenarios.envs", "verishop.mcp_server.tools", "verishop.verifier.runner"} <= set(loaded)
    _assert_one_name_per_file_and_the_static_file(loaded)


def test_python_from_the_repo_root_loads_each_file_once_and_where_a_tool_reads_it() -> None:
    loaded = _loaded_modules()  # `python -c` puts the cwd, the repo root, first on sys.path
    assert "verishop.scenarios.envs" in loaded
    _assert_one_name_per_file_and_the_static_file(loaded)


# The real resolver: basedpyright (pyright, bundled with its own Node.js) over the repo with the
# repo's pyrightconfig.json. Half a minute or more on 2 cores, so opt-in: `make test-static`.
def _basedpyright(cwd: Path, *args: str) -> dict:
    command = Path(sys.executable).parent / "basedpyright"
    if not command.is_file():
        pytest.fail("basedpyright is not installed: pip install -e '.[static]' (or run `make test-static`)")
    done = subprocess.run([str(command), "--outputjson", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    assert "{" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout[done.stdout.index("{"):])  # after any notice it prints first


def _unresolved_verishop_imports(report: dict) -> list[str]:
    return sorted(f"{Path(d['file']).relative_to(REPO) if Path(d['file']).is_relative_to(REPO) else d['file']}: "
                  f"{d['message']}" for d in report["generalDiagnostics"]
                  if d.get("rule") == "reportMissingImports" and '"verishop' in d["message"])


@pytest.mark.static
def test_pyright_reports_an_unresolved_verishop_import_when_there_is_one(tmp_path: Path) -> None:
    # Its silence over the repo means something only if it speaks here, from a project that sees
    # the clone as a plain folder on its path.
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"extraPaths": [str(REPO)]}))
    (tmp_path / "probe.py").write_text("import verishop.scenarios.rng\nimport verishop.scenarios.no_such_module\n"
                                       "from verishop.verifier import runner\n")
    unresolved = [d["message"] for d in _basedpyright(tmp_path, "probe.py")["generalDiagnostics"]
                  if d.get("rule") == "reportMissingImports"]
    assert unresolved == ['Import "verishop.scenarios.no_such_module" could not be resolved']


@pytest.mark.static
def test_pyright_resolves_every_verishop_import_in_the_repo() -> None:
    report = _basedpyright(REPO)
    assert report["summary"]["filesAnalyzed"] >= len(_repo_python_files()), "pyrightconfig.json leaves out a folder"
    assert _unresolved_verishop_imports(report) == []
