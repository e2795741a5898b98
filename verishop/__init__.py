"""verishop: a simulated shop, an MCP server and a code-only verifier for shopping assistants."""

from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("verishop")  # one source of truth: pyproject.toml's [project] version
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

# The in-process shop, imported on first use: `import verishop` stays light for the CLI and the
# server's subprocesses (verishop.local pulls in the MCP tools, the generators and the verifier).
_LAZY = {"Env": "verishop.local.env", "ToolError": "verishop.local.env", "LocalShop": "verishop.local.shop",
         "LocalEpisode": "verishop.local.shop"}
__all__ = ["Env", "LocalEpisode", "LocalShop", "ToolError", "__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'verishop' has no attribute {name!r}")
