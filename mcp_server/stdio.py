"""The stdio transport, with backpressure, a line cap and JSON-RPC's error answers.

The SDK's stdio transport (`mcp.server.stdio`) reads stdin as fast as lines come and starts a task
per request; when the client does not read its answers, every task waits holding its answer and
the process grows without bound (2.1 GiB after 30 s of `tools/list`). It also reads a line whole
however long (a 200 MiB line peaked at 812 MiB) and hands a line that is not a message to the
session as an exception the session only logs. Here the reader and the writer are our own:

- at most `MAX_PENDING_REQUESTS` requests are read and not yet answered; the reader waits for an
  answer to be *written* before it reads the next request, so a client that never reads fills
  the pipes, its own writes block, and the server holds a bounded number of answers;
- a line is at most `MAX_LINE_BYTES` (HTTP's body cap); a longer one is skipped as it arrives,
  never held whole, and answered with -32600;
- every other line gets the answer JSON-RPC 2.0 gives it (`mcp_server/jsonrpc_lines.py`).

As in the SDK, fd 0 and 1 point at /dev/null and stderr while serving, so stray output from
handlers or children misses the wire; the wire is served from private duplicates.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from functools import partial

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage

from verishop.mcp_server.jsonrpc_lines import Refused, echoable_id, invalid_request, parse_line

MAX_LINE_BYTES = 1 << 20  # as HTTP's body cap (mcp_server/http/app.py, MAX_CONTROL_BODY_BYTES)
# Enough for any client's concurrency; each pending answer is at most tens of KiB (tools/list).
MAX_PENDING_REQUESTS = 32
READ_CHUNK_BYTES = 1 << 16
# After stdin ends, how long answers still owed may take to be written before the server stops.
DRAIN_DEADLINE_S = 10.0


class PendingAnswers:
    """The requests read and not answered yet: at most `limit`, counted per id."""

    def __init__(self, limit: int = MAX_PENDING_REQUESTS):
        self._free = anyio.Semaphore(limit)
        self._ids: collections.Counter[str | int] = collections.Counter()

    async def admit(self, request_id: str | int) -> None:
        await self._free.acquire()
        self._ids[request_id] += 1

    def settle(self, request_id: str | int) -> None:
        """The request is answered (or cancelled): its place frees. An id not pending is ignored."""
        if self._ids[request_id] <= 0:
            return
        self._ids[request_id] -= 1
        if not self._ids[request_id]:
            del self._ids[request_id]
        self._free.release()


@contextlib.contextmanager
def claimed_stdio() -> Iterator[tuple[int, int]]:
    """Private duplicates of fd 0 and 1 (the wire); fd 0 reads /dev/null and fd 1 writes to
    stderr meanwhile. The duplicates stay open: a thread may still block on one at exit."""
    sys.stdout.flush()
    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    os.dup2(2, 1)
    try:
        yield wire_in, wire_out
    finally:
        sys.stdout.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _pump_reads(fd: int, chunks: MemoryObjectSendStream[bytes], token: anyio.lowlevel.EventLoopToken) -> None:
    """Read `fd` in chunks into `chunks` until end of file (sent as b""). A daemon thread of its
    own: one blocked on a client that neither writes nor closes never holds up the process's
    exit (anyio's worker threads would). The stream has no buffer, so it reads one chunk ahead."""
    while True:
        try:
            chunk = os.read(fd, READ_CHUNK_BYTES)
        except OSError:
            chunk = b""
        try:
            anyio.from_thread.run(chunks.send, chunk, token=token)
        except Exception:  # noqa: BLE001 - the loop has ended or the reader has gone: stop reading
            return
        if not chunk:
            return


async def read_lines(fd: int, on_line: Callable[[bytes], Awaitable[None]],
                     on_too_long: Callable[[], Awaitable[None]], max_line_bytes: int = MAX_LINE_BYTES) -> None:
    """Call `on_line` for each line read from `fd` (without its newline; the last one may lack
    it) and `on_too_long` for each line over `max_line_bytes`, which is skipped as it arrives.
    Nothing more is read while a callback runs: that is the backpressure."""
    sink, chunks = anyio.create_memory_object_stream[bytes](0)
    threading.Thread(target=_pump_reads, args=(fd, sink, anyio.lowlevel.current_token()),
                     name="verishop-stdio-reader", daemon=True).start()
    line = bytearray()
    skipping = False
    async with chunks:
        while chunk := await chunks.receive():
            start = 0
            while start < len(chunk):
                end = chunk.find(b"\n", start)
                piece = chunk[start:] if end < 0 else chunk[start:end]
                start = len(chunk) if end < 0 else end + 1
                if not skipping and len(line) + len(piece) > max_line_bytes:
                    skipping = True
                    line.clear()
                if not skipping:
                    line += piece
                if end < 0:
                    break
                if skipping:
                    skipping = False
                    await on_too_long()
                else:
                    whole, line = bytes(line), bytearray()
                    await on_line(whole)
    if skipping:
        await on_too_long()
    elif line:
        await on_line(bytes(line))


async def _forward_lines(fd: int, to_session: MemoryObjectSendStream, to_client: MemoryObjectSendStream,
                         pending: PendingAnswers) -> None:
    async def on_line(line: bytes) -> None:
        if not line.strip():
            return
        try:
            session_message = parse_line(line)
        except Refused as refused:
            await to_client.send(refused.answer)
            return
        message = session_message.message
        if isinstance(message, types.JSONRPCRequest):
            await pending.admit(message.id)
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            request_id = echoable_id((message.params or {}).get("requestId"))
            if request_id is not None:
                pending.settle(request_id)  # a cancelled request may never be answered
        await to_session.send(session_message)

    async def on_too_long() -> None:
        await to_client.send(invalid_request(f"the line is over {MAX_LINE_BYTES} bytes "
                                             f"({MAX_LINE_BYTES >> 20} MiB); it was skipped").answer)

    async with to_session, to_client:
        await read_lines(fd, on_line, on_too_long)


async def _write_messages(fd: int, from_server: MemoryObjectReceiveStream, pending: PendingAnswers,
                          done: anyio.Event) -> None:
    client_gone = False
    async with from_server:
        async for session_message in from_server:
            message = session_message.message
            data = message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
            try:
                if not client_gone:
                    await anyio.to_thread.run_sync(partial(_write_all, fd, data), abandon_on_cancel=True)
            except OSError:  # the client closed its end (EPIPE): the rest is dropped, and settled
                client_gone = True
            if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                request_id = echoable_id(message.id)
                if request_id is not None:
                    pending.settle(request_id)
    done.set()


async def run_stdio(server: MCPServer) -> None:
    """`server.run_stdio_async()`, with backpressure, a line cap and JSON-RPC's error answers."""
    lowlevel = server._lowlevel_server  # the SDK's own run_stdio_async drives it the same way
    pending, written = PendingAnswers(), anyio.Event()
    with claimed_stdio() as (wire_in, wire_out):
        to_session, session_reads = anyio.create_memory_object_stream[SessionMessage](0)
        to_client, client_gets = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_write_messages, wire_out, client_gets, pending, written)
            tg.start_soon(_forward_lines, wire_in, to_session, to_client.clone(), pending)
            await lowlevel.run(session_reads, to_client, lowlevel.create_initialization_options())
            # stdin has ended and the session with it: answers still owed get a bounded time.
            to_client.close()
            with anyio.move_on_after(DRAIN_DEADLINE_S):
                await written.wait()
            tg.cancel_scope.cancel()
