"""verishop: a simulated shop, an MCP server and a code-only verifier for shopping assistants."""

__version__ = "0.1.0"
