"""Who may reach the HTTP server: exact Host and Origin matching, and the control token.

Host and Origin are parsed (name and port) and compared exactly with the allowed set, never
by prefix: `127.0.0.1:evil` and `localhost:8000@evil.com` are not hosts of this server. The
check runs in front of every route, the MCP endpoints included, against DNS rebinding.

The control token guards the control API (creating, reading, closing episodes, the
curriculum); an episode's MCP URL is its own unguessable capability and needs no token.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# A host name or IPv4 address, or a bracketed IPv6 address, then an optional numeric port.
_HOST = re.compile(r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::(?P<port>[0-9]{1,5}))?$")


def is_loopback(bind: str) -> bool:
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_host(value: str, default_port: int) -> tuple[str, int] | None:
    """(lowercased name, port) of a Host header value such as `localhost:8000` or `[::1]:80`,
    or None if it is not exactly that shape."""
    match = _HOST.match(value.strip())
    if match is None:
        return None
    port = int(match["port"]) if match["port"] is not None else default_port
    if not 0 < port < 65536:
        return None
    return match["name"].lower().rstrip("."), port


def bracket(name: str) -> str:
    """How an address is written in a Host header (IPv6 in brackets)."""
    try:
        return f"[{name}]" if ipaddress.ip_address(name).version == 6 else name
    except ValueError:
        return name


@dataclass(frozen=True)
class AllowedHosts:
    pairs: frozenset[tuple[str, int]]

    @classmethod
    def build(cls, bind: str, port: int, extra: Iterable[str] = ()) -> AllowedHosts:
        """The loopback names at `port`, the bind address itself when it is a specific one, and
        each of `extra` (`name` meaning `name:port`, or `name:port`)."""
        names = list(LOOPBACK_NAMES)
        try:
            if not ipaddress.ip_address(bind.strip("[]")).is_unspecified:
                names.append(bracket(bind.strip("[]")))
        except ValueError:
            names.append(bind)  # a host name
        pairs = {(n.lower(), port) for n in names}
        for entry in extra:
            parsed = parse_host(entry, port)
            if parsed is None:
                raise ValueError(f"not a host or host:port: {entry[:60]!r}")
            pairs.add(parsed)
        return cls(frozenset(pairs))

    def allows_host(self, value: str | None, default_port: int = 80) -> bool:
        return value is not None and parse_host(value, default_port) in self.pairs

    def allows_origin(self, value: str | None) -> bool:
        if value is None:
            return True  # same-origin requests and non-browser clients send none
        try:
            parts = urlsplit(value)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or parts.path not in ("", "/") or parts.query:
            return False
        return self.allows_host(parts.netloc, 443 if parts.scheme == "https" else 80)


class HostGuard:
    """ASGI middleware: 421 for a Host, 403 for an Origin that is not exactly one of ours."""

    def __init__(self, app: ASGIApp, allowed: AllowedHosts):
        self.app, self.allowed = app, allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = Headers(scope=scope)
            if not self.allowed.allows_host(headers.get("host")):
                await JSONResponse({"error": "invalid Host header"}, 421)(scope, receive, send)
                return
            if not self.allowed.allows_origin(headers.get("origin")):
                await JSONResponse({"error": "invalid Origin header"}, 403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def token_refusal(request: Request, token: str | None) -> Response | None:
    """None when the request may use the control API: no token is configured, or it carries
    `Authorization: Bearer <token>` (compared in constant time); else a 401."""
    if token is None:
        return None
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
        return None
    return JSONResponse({"error": "this control API needs the server's token: Authorization: Bearer <token>"},
                        401, headers={"WWW-Authenticate": "Bearer"})


def has_token(request: Request, token: str | None) -> bool:
    return token is not None and token_refusal(request, token) is None


def public_url_refusal(public_url: str, bind: str, port: int, extra: Iterable[str], *, workers: bool) -> str | None:
    """Why clients of `public_url` would get 421 from this server (None if they would not): the
    Host they send (its netloc) must pass the check above; with workers, whose URLs keep the
    name and take each worker's port, the bare name must be allowed too."""
    parts = urlsplit(public_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"--public-url {public_url[:80]!r} is not an http:// or https:// URL with a host"
    allowed = AllowedHosts.build(bind, port, extra)
    if not allowed.allows_host(parts.netloc):
        name, host_port = parse_host(parts.netloc, 80) or (parts.netloc, 80)
        return (f"--public-url {public_url[:80]}: its clients send 'Host: {parts.netloc}', which this server "
                f"refuses (421); add '{name}:{host_port}' to --allowed-hosts")
    if workers and not AllowedHosts.build(bind, port + 1, extra).allows_host(f"{parts.hostname}:{port + 1}"):
        return (f"--public-url {public_url[:80]}: each worker's URL is {parts.hostname} with the worker's own port, "
                f"which the workers refuse (421); add '{bracket(parts.hostname)}' (the bare name: any worker's "
                f"port) to --allowed-hosts, or give --worker-url")
    return None
