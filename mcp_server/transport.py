"""How the server is reached: the transports `serve` offers and the listening sockets they use.

Its own module so that `cli` (which chooses) and `http.front` / `http.workers` (which listen)
depend on it instead of on each other."""

from __future__ import annotations

import socket
from enum import Enum

KEEP_ALIVE_S = 75  # uvicorn's keep-alive for idle client connections, every process alike
HEAD_DEADLINE_S = 10.0  # a request head's time to complete (mcp_server.http.limits), `serve --head-timeout-s`


class Transport(str, Enum):
    stdio = "stdio"
    http = "http"
    sse = "sse"

def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to host:port (0: a free port), inheritable by a worker process."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
    # without it every small response waits out a 40 ms delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except BaseException:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock
