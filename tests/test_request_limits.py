"""What a client the server does not know can hold: a body over the cap is refused before it is
buffered (on the supervisor's proxy too), a request head that never completes is dropped, and
running out of file descriptors is one log line per interval, not a traceback per accept."""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from servers import Process, started

from verishop.mcp_server.http.app import MAX_CONTROL_BODY_BYTES
from verishop.mcp_server.http.limits import BodyLimit, FdExhaustionLog

ANSWER_DEADLINE_S = 15.0
HEAD_TIMEOUT_S = 1.0  # `serve --head-timeout-s` (the default, 10 s, would only slow the test)
HUGE_BYTES = 150 << 20


@pytest.fixture(scope="module", params=["1", "2"])
def server(request: pytest.FixtureRequest, catalog_path: Path,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Process]:
    root = tmp_path_factory.mktemp(f"limits{request.param}")
    with started(["serve", "--transport", "http", "--catalog", str(catalog_path), "--runs-dir", str(root / "runs"),
                  "--workers", request.param, "--head-timeout-s", str(HEAD_TIMEOUT_S)], root / "server.log", {"VERISHOP_HOME": str(root / "home")}) as s:
        yield s


def connect(server: Process) -> socket.socket:
    host, port = server.base.removeprefix("http://").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=ANSWER_DEADLINE_S)
    return sock


def head(path: str, port: int, extra: str) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\n{extra}\r\n").encode()


def status_of(sock: socket.socket) -> int:
    """The status of the answer on `sock`, read within ANSWER_DEADLINE_S (socket timeout)."""
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0


@pytest.mark.parametrize("path", ["/mcp", "/episodes"])
def test_a_declared_huge_body_is_refused_before_it_is_sent(server: Process, path: str) -> None:
    port = int(server.base.rsplit(":", 1)[1])
    with connect(server) as sock:
        sock.sendall(head(path, port, f"content-length: {HUGE_BYTES}\r\n") + b"{" * 65536)
        assert status_of(sock) == 413  # answered with 150 MiB still unsent


@pytest.mark.parametrize("path", ["/mcp", "/episodes"])
def test_a_chunked_body_over_the_cap_is_refused_as_it_streams(server: Process, path: str) -> None:
    port = int(server.base.rsplit(":", 1)[1])
    chunk = b"{" * (256 << 10)
    with connect(server) as sock:
        sock.sendall(head(path, port, "transfer-encoding: chunked\r\n"))
        sent = 0
        while sent <= 2 * MAX_CONTROL_BODY_BYTES:
            try:
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                break  # the server answered and closed
            sent += len(chunk)
        assert status_of(sock) == 413


def test_a_request_head_that_never_completes_is_dropped(server: Process) -> None:
    with connect(server) as sock:
        sock.settimeout(HEAD_TIMEOUT_S + ANSWER_DEADLINE_S)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
        began = time.monotonic()
        assert sock.recv(4096) == b""  # closed by the server, not by our timeout
        waited = time.monotonic() - began
        assert HEAD_TIMEOUT_S * 0.9 <= waited < HEAD_TIMEOUT_S + ANSWER_DEADLINE_S, waited  # its deadline, not sooner


def test_running_out_of_descriptors_logs_one_line_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    handler = FdExhaustionLog(every_s=10.0, clock=lambda: now[0])
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="verishop.mcp_server.http.limits"):
            for i in range(1000):  # asyncio retries accept() each second; here 1000 failures in 25 s
                now[0] = i * 0.025
                handler(loop, {"message": "socket.accept() out of system resource",
                               "exception": OSError(errno.EMFILE, "Too many open files")})
    finally:
        loop.close()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3, lines  # at 0 s, 10 s and 20 s
    assert all("\n" not in line and "out of file descriptors" in line for line in lines)
    assert "399 more" in lines[1]



async def test_a_body_slower_than_its_deadline_gets_408_and_the_app_never_runs() -> None:
    reached: list[dict] = []

    async def app(scope, receive, send) -> None:
        reached.append(scope)

    pending = [{"type": "http.request", "body": b'{"env": ', "more_body": True}]
    never = anyio.Event()

    async def receive() -> dict:
        if pending:
            return pending.pop(0)
        await never.wait()  # the rest of the body never comes
        raise AssertionError("unreachable")

    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    limited = BodyLimit(app, max_body_bytes=1000, body_deadline_s=0.2)
    with anyio.fail_after(ANSWER_DEADLINE_S):
        await limited({"type": "http", "method": "POST", "path": "/episodes", "headers": []}, receive, send)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 408
    assert b"not complete within" in sent[1]["body"] and reached == []
