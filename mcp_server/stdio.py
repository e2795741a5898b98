"""The stdio transport, answering garbage. The SDK's stdio reader hands a line that is not
JSON-RPC to the session as an exception, which the session only logs: the client waits for an
answer that never comes. Here such a line gets the JSON-RPC answer the spec gives it (-32700
parse error, id null) on the same writer, and the server reads on."""

from __future__ import annotations

import anyio
import mcp.types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

MAX_ECHO_CHARS = 80


def parse_error(exc: Exception) -> SessionMessage:
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    detail = detail if len(detail) <= MAX_ECHO_CHARS else detail[:MAX_ECHO_CHARS] + "…"
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
        code=types.PARSE_ERROR, message=f"Parse error: not a JSON-RPC message ({detail})")))


async def _answer_garbage(source: ObjectReceiveStream, sink: ObjectSendStream, writer: ObjectSendStream) -> None:
    async with sink:
        async for item in source:
            if isinstance(item, Exception):
                await writer.send(parse_error(item))
            else:
                await sink.send(item)


async def run_stdio(server: MCPServer) -> None:
    """`server.run_stdio_async()`, with a -32700 answer for every line that is not JSON-RPC."""
    lowlevel = server._lowlevel_server  # the SDK's own run_stdio_async drives it the same way
    async with stdio_server() as (read_stream, write_stream):
        sink, filtered = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_answer_garbage, read_stream, sink, write_stream)
            await lowlevel.run(filtered, write_stream, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
