"""`verishop.Env`: one in-process episode at a time, the shop's tools as methods (issue 36).

    env = verishop.Env("pd", difficulty=3)        # no difficulty: the in-memory curriculum chooses
    print(env.reset(seed=7))                       # the customer's opening message
    found = env.search_catalog(query="desk lamp", limit=5)
    reply = env.respond_to_customer(message="...", recommended_product_ids=[...], done=True)
    env.done, env.reward                           # True, the verifier's total in [-1, 1]
    env.write_run("runs/")                         # the folder `verishop verify` re-scores identically

Each tool method takes the tool's arguments as keywords and returns its structured result (a dict),
or raises `ToolError` with the shop's message (what an MCP client would read: the call is on the
transcript, as it would be over MCP). `env.call(name, arguments)` does the same by name;
`env.tools` lists the tools (`ToolSpec`: name, description, JSON schema). Episodes are scored as
they end: `reward` is None until then, `reward_details` holds the whole reward.json.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from verishop.agents.client import ToolSpec
from verishop.local.shop import LocalEpisode, LocalShop, LocalShopError
from verishop.mcp_server.tools import _shop_tools


class ToolError(Exception):
    """A shop tool refused the call; the message is the shop's (an agent should read it)."""


class Env:
    """See the module docstring. The tool methods are added to the class from the shop's tool list."""

    def __init__(self, env: str | None = "pd", *, collection: str | None = None, difficulty: int | None = None,
                 catalog: Path | str | None = None, shop: LocalShop | None = None, seal: bool = True):
        """`env` or `collection` and `difficulty` are the defaults of every `reset` (without a
        difficulty the curriculum chooses); `catalog`: a catalog file (default: the cached default
        catalog); `shop`: a `LocalShop` to share between several `Env`s (this Env then leaves it open)."""
        if env and collection:
            raise LocalShopError("give either env or collection, not both")
        self._defaults = {"env": None if collection else env, "collection": collection, "difficulty": difficulty}
        self._owns_shop = shop is None
        self.shop = shop if shop is not None else LocalShop(catalog, seal=seal)
        self.episode: LocalEpisode | None = None
        """The current episode (None before the first `reset`)."""
        self.reward_details: dict[str, Any] | None = None
        """The whole reward.json of the current episode, once it has ended."""

    # -- the episode --------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, *, env: str | None = None, collection: str | None = None,
              difficulty: int | None = None, split: str | None = None, scenario: Any = None) -> str:
        """Start a new episode (the previous one, if still open, is closed and scored first);
        returns what the customer says first."""
        if self.episode is not None and self.episode.is_open:
            self._finish()
        if scenario is not None:
            spec: dict[str, Any] = {"scenario": scenario}
        else:
            spec = {**self._defaults, **({"env": env, "collection": collection} if env or collection else {}),
                    **({"difficulty": difficulty} if difficulty is not None else {}), "seed": seed, "split": split}
        self.episode = self.shop.open(**{k: v for k, v in spec.items() if v is not None})
        self.reward_details = None
        return self.episode.info.opening_message

    @property
    def system_prompt(self) -> str:
        return self._current().info.system_prompt

    @property
    def opening_message(self) -> str:
        return self._current().info.opening_message

    @property
    def tools(self) -> list[ToolSpec]:
        return self.shop.tool_specs()

    @property
    def done(self) -> bool:
        """Whether the current episode has ended (the agent said done, the customer left or was
        satisfied, the turn budget ran out, or `close()`)."""
        return self.episode is not None and not self.episode.is_open

    @property
    def close_reason(self) -> str | None:
        return self.episode.close_reason if self.episode is not None else None

    @property
    def reward(self) -> float | None:
        """The verifier's total for the ended episode (None while it is open, or unscored)."""
        if not self.done:
            return None
        details = self._finish()
        total = details.get("total")
        return None if total is None else float(total)

    def call(self, name: str, arguments: dict[str, Any] | None = None, /, **kwargs: Any) -> dict[str, Any]:
        """Call a shop tool by name; its structured result, or `ToolError` with the shop's message."""
        result = self._current().call(name, arguments, **kwargs)
        if result.error is not None:
            raise ToolError(result.error)
        return result.data or {}

    def close(self) -> None:
        """End the current episode (scored) and, if this Env made its shop, close the shop."""
        if self.episode is not None and self.episode.is_open:
            self._finish()
        if self._owns_shop:
            self.shop.close()

    def write_run(self, runs_dir: Path | str) -> Path:
        """Write the ended episode's run folder (scenario, transcript, world, reward) into `runs_dir`."""
        episode = self._current()
        if episode.is_open:
            raise LocalShopError("the episode is still open: end it (done=true, or close()) first")
        return episode.write_run(runs_dir)

    def __enter__(self) -> Env:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _current(self) -> LocalEpisode:
        if self.episode is None:
            raise LocalShopError("no episode yet: call reset() first")
        return self.episode

    def _finish(self) -> dict[str, Any]:
        if self.reward_details is None:
            self.reward_details = self._current().reward()
        return self.reward_details


def _tool_method(name: str, description: str, parameters: dict[str, Any]) -> Any:
    required = set(parameters.get("required", ()))
    properties = parameters.get("properties", {})
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY,
                             default=inspect.Parameter.empty if arg in required else properties[arg].get("default"))
           for arg in sorted(properties, key=lambda a: a not in required)])

    def method(self: Env, **arguments: Any) -> dict[str, Any]:
        return self.call(name, arguments)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"{description}\n\nReturns the tool's structured result; raises ToolError with the shop's message."
    method.__signature__ = signature  # type: ignore[attr-defined]
    return method


for _tool in _shop_tools():
    setattr(Env, _tool.name, _tool_method(_tool.name, " ".join((_tool.description or "").split()), _tool.parameters))
del _tool
