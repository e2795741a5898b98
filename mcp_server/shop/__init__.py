"""The shop's operations as plain async functions of an `Episode`: look up, check
preconditions, mutate, return. They know nothing of MCP; `verishop.mcp_server.tools` wraps them."""
