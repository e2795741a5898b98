"""The scripted agents' session (`verishop.agents.session.ShopSession`) over an in-process episode:
the oracle, the baselines and the red team play `LocalShop` episodes as they play a server's."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from verishop.agents.session import Observer, ToolFailed
from verishop.local.shop import LocalEpisode, LocalShop


@dataclass
class LocalSession:
    episode: LocalEpisode
    observers: list[Observer] = field(default_factory=list)

    @property
    def client(self) -> _Prompts:
        """What the agents read beside the tools: the server's `shop_assistant` prompt."""
        return _Prompts(self.episode)

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.episode.acall(tool, arguments)
        for observe in self.observers:
            observe(tool, arguments, result.data, result.error)
        if result.error is not None:
            raise ToolFailed(result.error)
        return result.data or {}


@dataclass
class _Prompts:
    episode: LocalEpisode

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """The server's one prompt (`verishop.mcp_server.tools._shop_prompt`), shaped as an MCP
        client's `get_prompt` result."""
        if name != "shop_assistant":
            raise LookupError(f"no prompt {name!r}: the shop has one, shop_assistant")
        info = self.episode.info
        text = f"{info.system_prompt}\nThe customer says:\n{info.opening_message}"
        return SimpleNamespace(messages=[SimpleNamespace(role="user", content=SimpleNamespace(type="text", text=text))])


async def play_scripted(shop: LocalShop, agent: str, **spec: Any) -> LocalEpisode:
    """Open an episode (`spec`: as `LocalShop.open` takes it), play the scripted `agent` (oracle,
    greedy, null, a red-team agent ...) until it stops or a tool refuses it, and close what it left
    open, as `verishop eval` does. Returns the closed episode."""
    # Imported when needed: the scripted agents are many modules (oracles, baselines, red team).
    from verishop.agents.scripted import make_agent

    episode = await shop.aopen(**spec)
    try:
        await make_agent(agent, episode.scenario).play(LocalSession(episode))
    except ToolFailed:
        pass
    await episode.aclose("agent_stopped")
    return episode
