"""The in-process mode: the shop in the env's own process, no `verishop serve`, no sidecar.

verishop's `LocalShop` opens, plays and scores the episodes here, through its async twins
(`aopen`, `acall`, `aclose`, `areward`), on the event loop verifiers runs the env on. One thing
cannot be in process: verifiers' harness is a process of its own (a script it starts) that
reaches its tools over MCP at a URL. So the env serves each open episode's tools itself, at
`http://127.0.0.1:<port>/episodes/<episode_id>/mcp` on a loopback port the OS picks, one endpoint
per event loop for all its rollouts; every call there is `LocalEpisode.acall` on the episode the
path names: the shop's own tools, arguments, errors and results.

This module imports verishop, which must then be installed in this venv beside verifiers (whose
mcp pin, 2.0.0, is older than the one verishop declares: see the README); the HTTP mode does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path
from typing import Any

import mcp.types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic_core import to_json
from verishop.agents.local_shops import shared_shop
from verishop.local import LocalEpisode, LocalShop

HOST = "127.0.0.1"
_endpoints: dict[asyncio.AbstractEventLoop, LocalEndpoint] = {}


class LocalEndpoint:
    """The MCP endpoint of one event loop's in-process episodes (see the module docstring)."""

    def __init__(self, shop: LocalShop):
        self.shop = shop
        self.episodes: dict[str, LocalEpisode] = {}
        """The open episodes by ID: added by `open`, removed by `finish`."""
        self.port = 0
        self._tools = [self._listed(spec.name) for spec in shop.tool_specs()]
        server = Server("verishop", on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        # Loopback only, and each episode's path holds its unguessable ID; the Host check is the SDK's default off.
        self._manager = StreamableHTTPSessionManager(
            app=server, stateless=True, json_response=True,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task | None = None

    def url(self, episode_id: str) -> str:
        return f"http://{HOST}:{self.port}/episodes/{episode_id}/mcp"

    async def open(self, spec: dict[str, Any]) -> LocalEpisode:
        episode = await self.shop.aopen(**spec)
        self.episodes[episode.episode_id] = episode
        return episode

    async def finish(self, episode_id: str, runs_dir: str | None) -> tuple[dict[str, Any], str | None]:
        """Close the episode (if still open: `closed_by_client`) and score it in process: its
        reward.json as a dict and why it closed. With `runs_dir`, its run folder is written there."""
        episode = self.episodes.pop(episode_id, None)
        if episode is None:
            raise LookupError(f"no in-process episode {episode_id} in this process")
        reason = await episode.aclose()
        reward = await episode.areward()
        if runs_dir is not None:
            await asyncio.to_thread(episode.write_run, Path(runs_dir))  # scored already: only files
        return reward.model_dump(mode="json"), reason

    # -- the MCP side ------------------------------------------------------------------------------

    def _listed(self, name: str) -> types.Tool:
        tool = self.shop.tool(name)  # the server's own tool: its schema exactly as `verishop serve` lists it
        annotations = tool.annotations.model_dump(exclude_none=True) if tool.annotations else None
        return types.Tool(name=tool.name, description=tool.description, input_schema=tool.parameters,
                          output_schema=tool.output_schema,
                          annotations=types.ToolAnnotations(**annotations) if annotations else None)

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self._tools)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        episode_id = _episode_id(ctx.request)
        episode = self.episodes.get(episode_id)
        if episode is None:
            return _error(f"no open episode {episode_id!r} in this process")
        result = await episode.acall(params.name, dict(params.arguments or {}))
        if result.is_error:
            return _error(result.error or "")
        # The text `verishop serve` sends beside the structured result: that dict as compact JSON
        # (`verishop.mcp_server.schema.compact_result`).
        text = to_json(result.data).decode()
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=result.data)

    async def _asgi(self, scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "episodes" and parts[2] == "mcp":
            await self._manager.handle_request(scope, receive, send)
            return
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"not found"})

    async def start(self) -> None:
        sock = socket.socket()
        sock.bind((HOST, 0))
        self.port = sock.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(self._asgi, interface="asgi3", log_level="warning", lifespan="off"))
        started = asyncio.get_running_loop().create_future()

        async def serve() -> None:
            async with self._manager.run():
                serving = asyncio.ensure_future(self._server.serve(sockets=[sock]))
                while not self._server.started and not serving.done():
                    await asyncio.sleep(0.01)
                if not started.done():
                    started.set_result(None)
                await serving

        self._task = asyncio.ensure_future(serve())
        await asyncio.wait_for(asyncio.shield(started), timeout=30)
        if self._task.done():
            self._task.result()  # the server could not start: say why

    async def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, timeout=10)


async def endpoint(catalog: str | None) -> LocalEndpoint:
    """This event loop's endpoint over the process's shop on `catalog`, started on first use."""
    loop = asyncio.get_running_loop()
    async with _lock_for(loop):
        found = _endpoints.get(loop)
        if found is None or found._task is None or found._task.done():
            shop = await asyncio.to_thread(shared_shop, catalog)
            found = _endpoints[loop] = LocalEndpoint(shop)
            await found.start()
        elif found.shop is not shared_shop(catalog):
            raise ValueError("one in-process endpoint per event loop serves one catalog: this loop's plays on "
                             f"{found.shop.catalog_path}, not {catalog}")
        return found


def find(episode_id: str) -> LocalEndpoint | None:
    """The endpoint holding an open in-process episode (finalize's way back to it)."""
    return next((e for e in _endpoints.values() if episode_id in e.episodes), None)


_locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}


def _lock_for(loop: asyncio.AbstractEventLoop) -> asyncio.Lock:
    return _locks.setdefault(loop, asyncio.Lock())


def _episode_id(request: Any) -> str:
    path = str(getattr(getattr(request, "url", None), "path", "") or "")
    parts = path.strip("/").split("/")
    return parts[1] if len(parts) == 3 else ""


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
