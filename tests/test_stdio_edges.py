"""The stdio transport at its edges (issue 37, breaks 1 and 2), against a real `verishop serve`
subprocess driven through raw pipes:

- a client that never reads: the server stops reading once its pending answers are bounded, so
  its memory stays bounded however long the client writes;
- a line far over the cap is discarded without being held whole, answered with -32600, and the
  server reads on;
- JSON-RPC 2.0 error codes: -32700 only for text that is not JSON, -32600 for JSON that is not a
  request, -32602 for params that are not an object, and an answer for every request that has an
  id (echoed when the server can, else null).

Waits are bounded by `select` timeouts; nothing sleeps.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


ANSWER_DEADLINE_S = 60.0
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "edges", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
MIB = 1 << 20
MAX_PENDING_AT_LEAST = 8  # the server holds some answers before it stops reading
MAX_LINE_BYTES = MIB  # the documented cap, HTTP's body cap (docs/reliability.md)


class StdioServer:
    """A `verishop serve` subprocess spoken to line by line."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self._pending = b""

    def send(self, message: dict | bytes) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def answer(self, deadline_s: float = ANSWER_DEADLINE_S) -> dict:
        """The next line the server writes, within `deadline_s`."""
        fd = self.process.stdout.fileno()
        end = time.monotonic() + deadline_s
        while b"\n" not in self._pending:
            left = end - time.monotonic()
            assert left > 0, f"no answer within {deadline_s}s (so far {self._pending[:200]!r})"
            readable, _, _ = select.select([fd], [], [], left)
            if readable:
                chunk = os.read(fd, 1 << 16)
                assert chunk, "the server closed its stdout"
                self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)

    def peak_rss_mib(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024


@contextmanager
def stdio_server(catalog_path: Path, tmp_path: Path) -> Iterator[StdioServer]:
    env = {k: v for k, v in os.environ.items() if k != "VERISHOP_TOKEN"} | {"VERISHOP_HOME": str(tmp_path / "home")}
    process = subprocess.Popen(
        [sys.executable, "-m", "verishop", "serve", "--transport", "stdio", "--env", "pd", "--difficulty", "1",
         "--seed", "1", "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(tmp_path / "server.log", "wb"), env=env)
    server = StdioServer(process)
    try:
        server.send(INITIALIZE)
        assert server.answer()["id"] == 0
        server.send(INITIALIZED)
        yield server
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except (BrokenPipeError, ValueError):
                pass


def write_without_reading(server: StdioServer, seconds: float) -> tuple[int, bytes]:
    """Write `tools/list` requests (each answer is tens of KiB; each request is padded to 4 KiB, so
    that the few the pipes hold are answered fast afterwards) for `seconds` without reading a
    single answer; return how many bytes the server accepted and the rest of the last request."""
    fd = server.process.stdin.fileno()
    os.set_blocking(fd, False)
    request = b"".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/list",
                                   "params": {"_meta": {"pad": "x" * 4000}}}).encode() + b"\n" for i in range(1, 101))
    accepted, pending = 0, memoryview(request)
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        _, writable, _ = select.select([], [fd], [], left)
        if not writable:
            continue
        try:
            accepted += (n := os.write(fd, pending))
        except BlockingIOError:
            continue
        pending = pending[n:] or memoryview(request)
    os.set_blocking(fd, True)
    rest = bytes(pending)
    return accepted, rest[:rest.index(b"\n") + 1]


def test_a_client_that_never_reads_stops_the_server_reading_and_its_memory_stays_bounded(
        catalog_path: Path, tmp_path: Path) -> None:
    with stdio_server(catalog_path, tmp_path) as server:
        server.send({"jsonrpc": "2.0", "id": "warm", "method": "tools/list"})
        assert server.answer()["id"] == "warm"
        before = server.peak_rss_mib()
        accepted, rest = write_without_reading(server, seconds=3.0)
        after = server.peak_rss_mib()
        # A bounded number of pending answers, then the pipes fill and the client's writes block.
        assert accepted < 2 * MIB, f"the server read {accepted / MIB:.1f} MiB it could not answer"
        assert after - before < 32, f"peak RSS grew from {before:.0f} to {after:.0f} MiB"
        # Reading again, the client gets every answer, in full, and the server goes on (the rest
        # is written from a thread: the server reads it only as its answers are read).
        last = json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"}).encode()
        writer = threading.Thread(target=server.send, args=(rest + last,))
        writer.start()
        seen = set()
        while "last" not in seen:
            answer = server.answer()
            assert "result" in answer, answer
            seen.add(answer["id"])
        writer.join(timeout=ANSWER_DEADLINE_S)
        assert len(seen) > MAX_PENDING_AT_LEAST, len(seen)


def test_a_line_over_the_cap_is_refused_without_being_held_and_the_server_reads_on(
        catalog_path: Path, tmp_path: Path) -> None:
    with stdio_server(catalog_path, tmp_path) as server:
        before = server.peak_rss_mib()
        huge = b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"pad": "' + b"x" * (64 * MIB) + b'"}}'
        server.send(huge)
        refused = server.answer()
        assert refused["id"] is None and refused["error"]["code"] == -32600, refused
        assert str(MAX_LINE_BYTES) in refused["error"]["message"] or "MiB" in refused["error"]["message"]
        after = server.peak_rss_mib()
        assert after - before < 32, f"a 64 MiB line raised peak RSS from {before:.0f} to {after:.0f} MiB"
        server.send({"jsonrpc": "2.0", "id": 8, "method": "ping"})
        assert server.answer() == {"jsonrpc": "2.0", "id": 8, "result": {}}


def test_a_line_just_under_the_cap_is_still_read(catalog_path: Path, tmp_path: Path) -> None:
    with stdio_server(catalog_path, tmp_path) as server:
        head = b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"pad": "'
        tail = b'"}}'
        server.send(head + b"x" * (MAX_LINE_BYTES - len(head) - len(tail)) + tail)
        answer = server.answer()
        assert answer["id"] == 9 and "error" not in answer, answer


MALFORMED = [  # (line, error code, answer id)
    (b"this is not json", -32700, None),
    (b'{"jsonrpc": "2.0", "id": 3, "method": ', -32700, None),
    (b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32700, None),
    (b"\xff\xfe not utf-8", -32700, None),
    (b"[" * 100_000 + b"]" * 100_000, -32700, None),
    (b"42", -32600, None),
    (b"[]", -32600, None),
    (b'"ping"', -32600, None),
    (b'[{"jsonrpc": "2.0", "id": 4, "method": "ping"}]', -32600, None),
    (b'{"id": 5, "method": "ping"}', -32600, 5),
    (b'{"jsonrpc": "1.0", "id": "five", "method": "ping"}', -32600, "five"),
    (b'{"jsonrpc": "2.0", "id": 6, "method": 12}', -32600, 6),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600, None),
    (b'{"jsonrpc": "2.0", "id": 1e999, "method": "ping"}', -32600, None),
    (b'{"jsonrpc": "2.0", "id": [1], "method": "ping"}', -32600, None),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, None),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600, None),
    (b'{"jsonrpc": "2.0", "id": 2.5, "method": "ping"}', -32600, None),
    (b'{"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": 5}', -32602, 10),
    (b'{"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": ["a"]}', -32602, 11),
]


def test_each_malformed_line_gets_the_json_rpc_error_the_spec_gives_it(catalog_path: Path, tmp_path: Path) -> None:
    with stdio_server(catalog_path, tmp_path) as server:
        for n, (line, code, answer_id) in enumerate(MALFORMED):
            server.send(line)
            answer = server.answer()
            assert answer.get("jsonrpc") == "2.0" and answer["id"] == answer_id, (line[:80], answer)
            assert answer["error"]["code"] == code, (line[:80], answer)
            assert len(answer["error"]["message"]) < 300  # names the fault, does not echo the line
            server.send(b"   ")  # a blank line is no message: no answer
            server.send({"jsonrpc": "2.0", "id": f"after-{n}", "method": "ping"})
            assert server.answer() == {"jsonrpc": "2.0", "id": f"after-{n}", "result": {}}  # and reads on


def test_a_client_that_closes_its_end_early_leaves_a_clean_stop(catalog_path: Path, tmp_path: Path) -> None:
    with stdio_server(catalog_path, tmp_path) as server:
        server.process.stdout.close()  # the answers have nowhere to go: EPIPE
        for n in range(40):
            server.send({"jsonrpc": "2.0", "id": n, "method": "tools/list"})
        server.process.stdin.close()
        assert server.process.wait(timeout=ANSWER_DEADLINE_S) == 0
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log and "server stopped" in log, log[-2000:]
    transcript = next((tmp_path / "runs").glob("ep_*/transcript.jsonl")).read_text().splitlines()
    assert json.loads(transcript[-1])["reason"] == "client_disconnected"
