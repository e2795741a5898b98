"""The front door and the docs site's structure. `make docs` (mkdocs build --strict) checks the links
inside docs/; these check what it cannot see: README.md and the integrations' READMEs, which are not
pages of the site, and the nav, which must list every page (an unlisted page is only an INFO)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README_MAX_LINES = 400
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
FRONT_DOORS = ["README.md", "integrations/inspect/README.md", "integrations/verifiers/README.md"]


def _slug(heading: str) -> str:
    """Python-Markdown's toc slug (what MkDocs gives a heading as its anchor)."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", text, re.MULTILINE)}


def _relative_links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text())
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def _nav_pages() -> list[str]:
    nav = (REPO / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)\s*$", nav, re.MULTILINE)


def test_the_readme_fits_on_a_front_door_and_keeps_the_two_commands():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    assert "make run    # scripted agents play seeded episodes through the real MCP server\n" in text
    assert "make test   # the test suite" in text
    for quick_start in ("train an RL policy", "evaluate an agent and gate CI", "plug it into an IDE or agent framework"):
        assert f"## Quick start: {quick_start}" in text


@pytest.mark.parametrize("front_door", FRONT_DOORS)
def test_every_relative_link_of_a_readme_reaches_a_file_and_its_heading(front_door: str):
    page = REPO / front_door
    broken = []
    for target in _relative_links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, broken


def test_the_nav_lists_every_page_of_the_site_and_only_pages_that_exist():
    listed = _nav_pages()
    on_disk = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(set(listed)) == on_disk
    assert len(listed) == len(set(listed)), "a page is listed twice"


def test_the_slug_matches_what_mkdocs_makes_of_our_headings():
    assert _slug("All cores: `--workers`") == "all-cores-workers"
    assert _slug("Generation and the catalog's size (issue 11, goals 2, 3 and 6)") == \
        "generation-and-the-catalogs-size-issue-11-goals-2-3-and-6"
    assert "adaptive-curriculum" in _anchors(DOCS / "training.md")


def test_ci_builds_the_docs_after_the_unchanged_test_command():
    steps = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert steps == ["make test", "make docs"]
    assert "$(BIN)/mkdocs build --strict\n" in (REPO / "Makefile").read_text()
