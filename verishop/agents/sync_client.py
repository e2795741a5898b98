"""The blocking twin of `verishop.agents.client.ShopClient`, for scripts and synchronous trainers (TRL,
Gymnasium). It runs the async client in an event loop on a background thread (anyio's blocking
portal); each episode's MCP connection is entered and exited by one task of that loop, as anyio
requires, so an episode can stay open across any number of blocking calls.

    with SyncShopClient("http://127.0.0.1:8000") as shop:
        with shop.episode(env="pd", seed=7) as ep:
            ep.call("get_conversation").unwrap()
        print(shop.reward(ep.info.episode_id, run_dir=ep.info.run_dir)["total"])
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

import anyio

from verishop.agents.client import Episode, ShopClient, ToolResult, ToolSpec


class SyncEpisode:
    """`Episode` for synchronous code: every method blocks until the async one finishes."""

    def __init__(self, episode: Episode, portal: Any):
        self._episode, self._portal = episode, portal
        self.info = episode.info
        """What the server said when it created the episode (`EpisodeInfo`)."""

    @property
    def close_reason(self) -> str | None:
        """Why the episode ended; None while it is open."""
        return self._episode.close_reason

    def tools(self) -> list[ToolSpec]:
        """The episode's tools."""
        return self._portal.call(self._episode.tools)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools as OpenAI function-calling schemas."""
        return self._portal.call(self._episode.openai_tools)

    def call(self, name: str, arguments: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        """Call a shop tool; a tool error comes back as `ToolResult.error`, never raised."""
        return self._portal.call(lambda: self._episode.call(name, arguments, **kwargs))

    def close(self) -> str:
        """Close the episode (its files become final); returns why it closed."""
        return self._portal.call(self._episode.close)

    def reward(self, timeout_s: float = 30.0) -> dict[str, Any]:
        """The episode's reward.json once the verifier has scored it."""
        return self._portal.call(lambda: self._episode.reward(timeout_s))


class SyncShopClient:
    """`ShopClient` with blocking methods (see the module docstring)."""

    def __init__(self, base_url: str, *, verifier_url: str | None = None, timeout_s: float = 60.0,
                 token: str | None = None):
        """The arguments of `ShopClient`; the client is ready at once (no `with` needed, though
        `with SyncShopClient(...) as shop:` closes it at the end)."""
        stack = contextlib.ExitStack()
        self._portal = stack.enter_context(anyio.from_thread.start_blocking_portal())
        self._async = ShopClient(base_url, verifier_url=verifier_url, timeout_s=timeout_s, token=token)
        self._portal.call(self._async.__aenter__)
        self._open: set[_PortalEpisode] = set()
        # A script that raises (or forgets close()) must still exit: at interpreter exit the
        # portal's generator would otherwise be finalized while its loop thread is frozen, and
        # hang. This runs at close(), when the client is collected, or at exit, whichever is first.
        self._closer = weakref.finalize(self, _shut_down, self._portal, self._async, stack, self._open)

    def close(self) -> None:
        """Close the episodes still open, then the connections and the event loop (idempotent)."""
        self._closer()

    def __enter__(self) -> SyncShopClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def health(self) -> dict[str, Any]:
        """`GET /health`."""
        return self._portal.call(self._async.health)

    @contextlib.contextmanager
    def episode(self, **spec: Any) -> Iterator[SyncEpisode]:
        """Open an episode (the arguments of `ShopClient.create`); closed on exit if still open:
        `with shop.episode(env="pd", difficulty=3, seed=7) as ep:`."""
        with self.open_episode(**spec) as episode:
            yield episode

    def open_episode(self, **spec: Any) -> contextlib.AbstractContextManager[SyncEpisode]:
        """A context manager entered and exited in the portal's loop (one task owns the MCP
        connection, as anyio requires), usable across calls: enter it, keep it, exit it later."""
        return _PortalEpisode(self._portal, self._async.episode(**spec), self._open)

    def reward(self, episode_id: str, *, run_dir: str | None = None, timeout_s: float = 30.0) -> dict[str, Any]:
        """The episode's reward.json (see `ShopClient.reward`)."""
        return self._portal.call(lambda: self._async.reward(episode_id, run_dir=run_dir, timeout_s=timeout_s))


class _PortalEpisode:
    def __init__(self, portal: Any, manager: contextlib.AbstractAsyncContextManager[Episode],
                 open_episodes: set[_PortalEpisode]):
        self._portal = portal
        self._wrapped = portal.wrap_async_context_manager(manager)
        self._open = open_episodes

    def __enter__(self) -> SyncEpisode:
        episode = SyncEpisode(self._wrapped.__enter__(), self._portal)
        self._open.add(self)
        return episode

    def __exit__(self, *exc: Any) -> bool | None:
        if self not in self._open:
            return None
        self._open.discard(self)
        return self._wrapped.__exit__(*exc)


def _shut_down(portal: Any, client: ShopClient, stack: contextlib.ExitStack, open_episodes: set[_PortalEpisode]) -> None:
    """Close every open episode (each as `closed_by_client`), the HTTP client, then stop the loop.
    A failure (the server already gone) must not keep the rest from closing."""
    try:
        for episode in list(open_episodes):
            with contextlib.suppress(Exception):
                episode.__exit__(None, None, None)
        with contextlib.suppress(Exception):
            portal.call(client.__aexit__, None, None, None)
    finally:
        with contextlib.suppress(RuntimeError):
            portal.call(portal.stop, True)
        stack.close()
