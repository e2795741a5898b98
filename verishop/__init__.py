"""verishop: a simulated shop, an MCP server and a code-only verifier for shopping assistants."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("verishop")  # one source of truth: pyproject.toml's [project] version
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
