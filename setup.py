"""The package list, derived: every folder with an `__init__.py` under a root of `[tool.setuptools]
package-dir` in pyproject.toml (all other settings live there). setuptools' `packages.find` cannot
follow that mapping, and a hand-kept list made every new package folder (`verishop/envs/<name>/`)
an edit here. Walking the mapped folders, not the links under verishop/, keeps the sdist's build
right on a checkout without symbolic links."""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).resolve().parent


def mapped_packages(package_dir: dict[str, str], root: Path) -> list[str]:
    """Every package under each mapped folder, by the dotted name it installs as."""
    # verishop/'s links to the design's folders (verishop/scenarios -> ../scenarios) name the same
    # packages as those folders' own roots; the set keeps each once, and setuptools takes each
    # package's files from the longest mapped prefix, so from scenarios/, link or no link.
    names: set[str] = set()
    for package, folder in package_dir.items():
        names.add(package)
        names.update(f"{package}.{sub}" for sub in find_packages(str(root / folder)))
    return sorted(names)


if __name__ == "__main__":
    PACKAGE_DIR = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    setup(packages=mapped_packages(PACKAGE_DIR, ROOT))
