"""What `pip install verishop` puts on a machine: one top-level import name, `verishop`, with
every module of the repo's source folders in it, so nothing can shadow another package (the OpenAI
Agents SDK imports as `agents`) and no subpackage is left out of the wheel.

The wheel is built here the way `python -m build` does it (sdist first, then the wheel from the
unpacked sdist), without build isolation so it needs no network: a few seconds."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
VERSION = PYPROJECT["project"]["version"]


def _source_packages() -> dict[str, Path]:
    """Every folder holding Python code under a mapped root, by the dotted name it installs as; an
    environment's own `tests/` folder is not a package and stays out of the wheel."""
    found: dict[str, Path] = {}
    for name, folder in SETUPTOOLS["package-dir"].items():
        root = REPO / folder
        for code_dir in sorted({p.parent for p in root.rglob("*.py") if "__pycache__" not in p.parts
                                and "tests" not in p.relative_to(root).parts}):
            found.setdefault(".".join((name, *code_dir.relative_to(root).parts)), code_dir)
    return found


def _setup_py():
    spec = importlib.util.spec_from_file_location("verishop_setup_py", REPO / "setup.py")
    assert spec and spec.loader
    setup_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup_py)  # setup() itself runs only as a script
    return setup_py


def _packaged() -> list[str]:
    """The package list setuptools receives: setup.py derives it from the package-dir mapping."""
    return _setup_py().mapped_packages(SETUPTOOLS["package-dir"], REPO)


def test_the_packaged_list_names_every_package_folder_once():
    packaged = _packaged()
    assert len(packaged) == len(set(packaged))
    assert sorted(_source_packages()) == packaged


def test_a_new_package_folder_is_packaged_without_editing_any_list(tmp_path: Path):
    # The shape of the repo in small: a real folder under verishop/, a mapped design folder, and the
    # link to it that static tools read.
    for folder in ("verishop", "verishop/envs", "verishop/envs/toy",
                   "scenarios", "scenarios/envs", "scenarios/envs/deep"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "verishop" / "scenarios").symlink_to("../scenarios", target_is_directory=True)
    packaged = _setup_py().mapped_packages({"verishop": "verishop", "verishop.scenarios": "scenarios"}, tmp_path)
    assert packaged == ["verishop", "verishop.envs", "verishop.envs.toy", "verishop.scenarios",
                        "verishop.scenarios.envs", "verishop.scenarios.envs.deep"]


def test_every_package_installs_under_the_one_name_verishop():
    assert all(p == "verishop" or p.startswith("verishop.") for p in _packaged())
    assert all(k == "verishop" or k.startswith("verishop.") for k in SETUPTOOLS["package-dir"])
    for folder in SETUPTOOLS["package-dir"].values():
        assert (REPO / folder / "__init__.py").is_file(), folder
    assert "packages" not in SETUPTOOLS, "a hand-kept list beside setup.py's would drift from the folders"


def test_every_package_folder_has_an_init_file():
    # Without one, setuptools would still list the folder but importers of a namespace package
    # could pick up a same-named folder elsewhere on the path.
    missing = [dotted for dotted, folder in _source_packages().items() if not (folder / "__init__.py").is_file()]
    assert missing == []


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist


def test_the_wheel_installs_only_the_verishop_import_name(built):
    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert {n.split("/")[0] for n in names} == {"verishop", f"verishop-{VERSION}.dist-info"}
    assert not any(n.endswith(".pth") for n in names), "a .pth file would put other names on sys.path"


def test_the_wheel_holds_every_module_of_the_source_folders(built):
    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {n for n in archive.namelist() if n.endswith(".py")}
    expected = {"/".join((*dotted.split("."), py.name))
                for dotted, folder in _source_packages().items() for py in folder.glob("*.py")}
    assert sorted(expected - in_wheel) == []
    assert sorted(in_wheel - expected) == [], "stale files from an old build/ folder"


def test_the_wheel_carries_every_environment_s_example_rollouts(built):
    from verishop.envs import REGISTRY

    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    expected = {f"{spec.folder.replace('.', '/')}/examples.jsonl" for spec in REGISTRY.values()}
    assert sorted(expected - names) == []


def test_the_wheel_declares_the_command_version_and_extras(built):
    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        info = f"verishop-{VERSION}.dist-info"
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        metadata = archive.read(f"{info}/METADATA").decode()
    assert "verishop = verishop.cli:main" in entry_points
    assert f"\nVersion: {VERSION}\n" in metadata
    extras = {line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Provides-Extra: ")}
    assert {"report", "gym", "train", "trl", "ray", "adapters", "dev"} <= extras


def test_the_sdist_carries_the_sources_changelog_examples_and_tests(built):
    _, sdist = built
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    for required in ("pyproject.toml", "README.md", "CHANGELOG.md", "examples/my_agent.py",
                     "examples/agents_sdk_agent.py", "scenarios/__init__.py", "mcp_server/tools.py",
                     "verifier/__init__.py", "verishop/cli.py", "conftest.py", "setup.py",
                     "verishop/envs/status/tests/test_status.py", "verishop/envs/status/examples.jsonl"):
        assert required in names, required
    # The links under verishop/ are for tools reading a clone; the sdist carries each file once.
    assert not [n for n in names if n.startswith(("verishop/scenarios/", "verishop/mcp_server/", "verishop/verifier/"))]


def test_the_version_command_prints_the_installed_version():
    from importlib.metadata import version

    done = subprocess.run([sys.executable, "-m", "verishop", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"verishop {version('verishop')}"
    assert version("verishop") == VERSION
