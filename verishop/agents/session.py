"""A thin client-side view of one episode: call a shop tool over MCP, get its structured
result back, and let an observer see every call (the demo prints them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp import Client


class ToolFailed(Exception):
    """The shop answered a tool call with an error (its text is the message)."""


Observer = Callable[[str, dict[str, Any], dict[str, Any] | None, str | None], None]


@dataclass
class ShopSession:
    client: Client
    observers: list[Observer] = field(default_factory=list)

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        text = result.content[0].text if result.content else ""
        if result.is_error:
            for observe in self.observers:
                observe(tool, arguments, None, text)
            raise ToolFailed(text)
        data = result.structured_content or {}
        for observe in self.observers:
            observe(tool, arguments, data, None)
        return data


@dataclass
class KeepOpen:
    """A session that drops `done=true` from messages to the customer: how a goal-aware agent plays
    one request of a journey with a play written for a whole episode (a request's `done=true`
    would close the conversation before the next request)."""

    shop: Any

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        if tool == "respond_to_customer":
            arguments.pop("done", None)
        return await self.shop.call(tool, **arguments)
