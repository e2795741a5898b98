"""The docs' recipes run as written (issue 31, point 4). A shell block preceded by the line
`<!-- recipe: runs -->` in README.md or docs/*.md is meant to be pasted: each of its commands is
run from a clone's root (with its partial `verishop/` folder in the working directory, where a
newcomer stands) and from another folder, and must exit 0. Mark only cheap blocks (seconds)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MARK = "<!-- recipe: runs -->"
BLOCK = re.compile(re.escape(MARK) + r"\n```(?:sh|bash)\n(.*?)^```", re.S | re.M)
RECIPE_TIMEOUT_S = 300


def recipes() -> list[tuple[str, str]]:
    found = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for block in BLOCK.findall(page.read_text()):
            for command in block.replace("\\\n", " ").splitlines():
                command = command.split(" # ")[0].strip()
                if command and not command.startswith("#"):
                    found.append((page.name, command))
    return found


def test_the_docs_mark_recipes_to_run():
    pages = {page for page, _ in recipes()}
    assert {"README.md", "evaluate-your-agent.md"} <= pages


@pytest.mark.parametrize("where", ["clone root", "another folder"])
@pytest.mark.parametrize(("page", "command"), recipes(), ids=lambda v: v if len(v) < 30 else v[:60])
def test_a_marked_recipe_runs_as_written(tmp_path: Path, page: str, command: str, where: str):
    folder = tmp_path / "work"
    folder.mkdir()
    shutil.copytree(REPO / "examples", folder / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    if where == "clone root":  # the partial package folder a clone holds at its root
        shutil.copytree(REPO / "verishop", folder / "verishop", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / ".venv").symlink_to(REPO / ".venv")
    env = {**os.environ, "PATH": f"{REPO / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=RECIPE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{page}: {command}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
