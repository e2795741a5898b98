"""The supervisor's requests to one worker: small JSON requests and answers of the control API
over kept-alive HTTP/1.1 connections on loopback.

Not httpx: its connection pool checks every pooled connection's socket on each request, which
cost the supervisor about half a millisecond per forwarded request under a trainer's load, a
tenth of what the worker spends on the episode itself, taken from the same cores. Here an idle
connection is simply reused; one that the worker closed meanwhile (its keep-alive ran out, or
a replacement took over the port) fails before any byte of an answer, and the request is then
sent once more on a new connection, which is safe because the worker never saw it.

The worker is our own uvicorn, so only what it sends is read: a status line, headers, and a body
with Content-Length or chunked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import anyio

MAX_IDLE_CONNECTIONS = 64
MAX_HEAD_BYTES = 64 * 1024


class RelayError(Exception):
    """The worker could not be reached or broke off its answer."""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes


class _Stale(Exception):
    """A reused connection closed before the request was read: send it again."""


class Relay:
    def __init__(self, host: str, port: int, max_idle: int = MAX_IDLE_CONNECTIONS):
        self.host, self.port, self.max_idle = host, port, max_idle
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def request(self, method: str, path: str, headers: Sequence[tuple[bytes, bytes]] = (),
                      body: bytes = b"", timeout_s: float = 120.0) -> Answer:
        head = [f"{method} {path} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\ncontent-length: {len(body)}\r\n"
                .encode("latin-1")]
        head += [name + b": " + value + b"\r\n" for name, value in headers]
        message = b"".join(head) + b"\r\n" + body
        try:
            with anyio.fail_after(timeout_s):
                return await self._send(message)
        except TimeoutError:
            raise RelayError(f"the worker on port {self.port} did not answer within {timeout_s:g}s") from None

    async def _send(self, message: bytes) -> Answer:
        while self._idle:
            connection = self._idle.pop()
            try:
                return await self._exchange(connection, message, reused=True)
            except _Stale:
                continue
        try:
            connection = await asyncio.open_connection(self.host.strip("[]"), self.port)
        except OSError as exc:
            raise RelayError(f"cannot reach the worker on port {self.port}: {exc}") from None
        try:
            return await self._exchange(connection, message, reused=False)
        except _Stale:
            raise RelayError(f"the worker on port {self.port} closed the connection") from None

    async def _exchange(self, connection: tuple[asyncio.StreamReader, asyncio.StreamWriter], message: bytes, *,
                        reused: bool) -> Answer:
        reader, writer = connection
        keep = False
        try:
            writer.write(message)
            try:
                raw_head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as exc:
                if not exc.partial:
                    raise _Stale from None
                raise RelayError(f"the worker on port {self.port} broke off its answer") from None
            except (ConnectionError, asyncio.LimitOverrunError) as exc:
                if reused and isinstance(exc, ConnectionError):
                    raise _Stale from None
                raise RelayError(f"the worker on port {self.port}: {exc}") from None
            lines = raw_head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            while 100 <= status < 200:  # an interim answer: the real one follows
                lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                status = int(lines[0].split(" ", 2)[1])
            headers = {name.strip().lower(): value.strip()
                       for name, _, value in (line.partition(":") for line in lines[1:] if line)}
            body = await self._body(reader, headers)
            keep = headers.get("connection", "").lower() != "close"
            return Answer(status, headers, body)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            raise RelayError(f"the worker on port {self.port} broke off its answer: {exc}") from None
        finally:
            if keep and len(self._idle) < self.max_idle:
                self._idle.append(connection)
            else:
                writer.close()

    @staticmethod
    async def _body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
        if "content-length" in headers:
            return await reader.readexactly(int(headers["content-length"]))
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while size := int((await reader.readline()).split(b";", 1)[0].strip(), 16):
                chunks.append(await reader.readexactly(size))
                await reader.readline()
            while (await reader.readline()).strip():  # trailers, then the blank line
                pass
            return b"".join(chunks)
        headers["connection"] = "close"  # the body runs to the end of the connection
        return await reader.read()

    def close(self) -> None:
        """Drop the idle connections (the worker is gone, or we are stopping)."""
        idle, self._idle = self._idle, []
        for _, writer in idle:
            writer.close()
