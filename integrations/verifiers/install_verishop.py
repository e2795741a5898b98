"""Install verishop into this venv for the in-process mode, beside verifiers.

    integrations/verifiers/.venv/bin/python integrations/verifiers/install_verishop.py [REPO]

verifiers 0.4 pins mcp==2.0.0 and verishop declares mcp>=2.3, so pip cannot resolve both. The
in-process mode uses none of what verishop needs 2.3 for (its MCP server's transports): the
shop's tools run on 2.0.0, as `make test-verifiers` checks on every run. So verishop goes in
without its dependencies (`--no-deps`, editable from REPO, default: this repository), and then
every one of its declared runtime dependencies except mcp, read from its pyproject.toml so the
list never drifts. pip will report the mcp mismatch in `pip check`: that is this choice.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path


def main(repo: Path) -> None:
    pyproject = tomllib.loads((repo / "pyproject.toml").read_text())
    needs = [d for d in pyproject["project"]["dependencies"] if not d.replace(" ", "").startswith("mcp")]
    pip = [sys.executable, "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, *needs], check=True)
    subprocess.run([*pip, "--no-deps", "-e", str(repo)], check=True)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve())
