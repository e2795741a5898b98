"""What one HTTP process holds for a client it does not know yet: bounded bodies, bounded time
to send a request, a bounded number of connections, and one log line (not a traceback per
accept) when the process is out of file descriptors.

- Connections: uvicorn's own `limit_concurrency` answers 503 beyond `connection_cap()`.
- Header size: h11's `max_incomplete_event_size` (uvicorn's `h11_max_incomplete_event_size`).
- Header time: neither uvicorn nor h11 has a deadline for a request's head (uvicorn's keep-alive
  timer only runs between requests), so `DeadlineH11Protocol` adds one: a connection whose
  request head is not complete within `HEAD_DEADLINE_S` (`serve --head-timeout-s`) of its first
  byte (or of its opening) is closed. Without it, 1,000 half-sent heads held 1,000 descriptors
  until the process ran out.
- Body size and time: `BodyLimit`, an ASGI middleware in front of every route (the MCP
  endpoints buffer whole bodies anyway; uvicorn has no body limit): 413 past `max_body_bytes`
  (declared or streamed), 408 when the body is not complete within `BODY_DEADLINE_S`. On stop,
  a request whose body is still arriving is dropped at once (`DeadlineH11Protocol.shutdown`).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
import time
from typing import Any

import anyio
import h11
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from verishop.mcp_server.transport import HEAD_DEADLINE_S

log = logging.getLogger(__name__)

BODY_DEADLINE_S = 30.0
MAX_HEAD_BYTES = 64 * 1024
MIN_CONNECTIONS = 64
FD_LOG_EVERY_S = 10.0


def connection_cap() -> int:
    """Connections (and requests) one process serves at once: half its open-file limit, so the
    other half stays for episode files, the catalog and the workers' relays."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 16
    return max(MIN_CONNECTIONS, soft // 2)


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's head (see the module doc)."""

    head_deadline_s = HEAD_DEADLINE_S
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            self._arm_head_timer()  # a head has begun (or not): it gets its deadline once
        else:
            self._cancel_head_timer()  # the head is complete: the body's deadline is BodyLimit's

    def on_response_complete(self) -> None:
        super().on_response_complete()  # the keep-alive timer covers the wait for the next head
        self._cancel_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """On stop, a request whose body has not all arrived is dropped at once: uvicorn would
        wait for it (up to `BODY_DEADLINE_S`, as long as the supervisor waited for its workers).
        Requests whose body is in are still answered; idle connections close as in uvicorn."""
        if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            self.transport.close()  # the app's receive() gets http.disconnect: BodyLimit returns
            return
        super().shutdown()

    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_deadline_s, self._head_too_slow)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


class BodyLimit:
    """ASGI middleware: reads a request's body before the app runs, within `max_body_bytes`
    (else 413) and `body_deadline_s` (else 408), then hands it on in one message. Every route
    buffers whole bodies anyway (JSON-RPC, the control API); this way none of them ever sees a
    body that is too big or too slow."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, body_deadline_s: float = BODY_DEADLINE_S):
        self.app, self.max_body_bytes, self.body_deadline_s = app, max_body_bytes, body_deadline_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._refuse(413, scope, receive, send)
            return
        body = bytearray()
        message: Message = {"type": "http.request", "more_body": True}  # until the first arrives
        with anyio.move_on_after(self.body_deadline_s):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return  # nobody left to answer
                body += message.get("body", b"")
                if len(body) > self.max_body_bytes:
                    await self._refuse(413, scope, receive, send)
                    return
                if not message.get("more_body", False):
                    break
        if message.get("more_body", False) or message["type"] != "http.request":
            await self._refuse(408, scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # a disconnect, whenever it comes
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, status: int, scope: Scope, receive: Receive, send: Send) -> None:
        why = (f"request body over {self.max_body_bytes} bytes" if status == 413 else
               f"request body not complete within {self.body_deadline_s:.0f}s")
        await JSONResponse({"error": why}, status)(scope, receive, send)


class FdExhaustionLog:
    """An event-loop exception handler: at most one line per `every_s` while accept() fails for
    want of file descriptors (asyncio retries each second and would log a traceback each time);
    everything else goes to the loop's default handler."""

    def __init__(self, every_s: float = FD_LOG_EVERY_S, clock=time.monotonic):
        self.every_s, self.clock = every_s, clock
        self.last_s: float | None = None
        self.suppressed = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
            now = self.clock()
            if self.last_s is not None and now - self.last_s < self.every_s:
                self.suppressed += 1
                return
            more = f" ({self.suppressed} more since the last line)" if self.suppressed else ""
            log.error("out of file descriptors (%s): new connections wait; raise `ulimit -n` or lower "
                      "--max-episodes%s", exc.strerror or exc, more)
            self.last_s, self.suppressed = now, 0
            return
        loop.default_exception_handler(context)


def uvicorn_limits(head_deadline_s: float = HEAD_DEADLINE_S) -> dict[str, Any]:
    """The uvicorn.Config arguments of these limits (uvicorn has none for bodies: BodyLimit)."""
    protocol = type("DeadlineH11Protocol", (DeadlineH11Protocol,), {"head_deadline_s": head_deadline_s})
    return {"http": protocol, "limit_concurrency": connection_cap(), "h11_max_incomplete_event_size": MAX_HEAD_BYTES}


def install_fd_exhaustion_log() -> None:
    asyncio.get_running_loop().set_exception_handler(FdExhaustionLog())
