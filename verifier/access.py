"""Who may talk to the sidecar: the Host and Origin a request names (against DNS rebinding),
and the bearer token when one is set.

Hosts are compared exactly: the header is parsed into a name and a port, and that pair must
be one of the allowed ones. `127.0.0.1:evil`, `localhost:8100@evil.com` or a missing port
that the server does not listen on are refused (421), as is an Origin that is not an
allowed `http(s)://name:port` (403). With a token, every route but /health needs
`Authorization: Bearer <token>` (401 otherwise); tokens are compared in constant time.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
# Routes a caller without the token may reach: liveness says nothing an attacker could use.
OPEN_PATHS = frozenset({"/health"})
_NAME = re.compile(r"^(?:\[(?P<ip6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?))"
                   r"(?::(?P<port>[0-9]{1,5}))?$")
_ORIGIN = re.compile(r"^(?P<scheme>https?)://(?P<rest>[^/?#@\s]+)$")
DEFAULT_PORTS = {"http": 80, "https": 443}

HostPort = tuple[str, int]


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the service on this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_host(value: str, default_port: int = 80) -> HostPort | None:
    """(name, port) of a Host header (`name[:port]`, `[v6]:port`), or None if malformed."""
    match = _NAME.match(value.strip().lower())
    if match is None:
        return None
    name = match["ip6"] or match["name"]
    if match["ip6"] is not None:
        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            return None
    port = int(match["port"]) if match["port"] is not None else default_port
    return (name, port) if 0 < port < 65536 else None


def parse_origin(value: str) -> HostPort | None:
    match = _ORIGIN.match(value.strip().lower())
    if match is None:
        return None
    return parse_host(match["rest"], DEFAULT_PORTS[match["scheme"]])


def allowed_hosts(bind_host: str, port: int, extra: tuple[str, ...] = ()) -> frozenset[HostPort]:
    """The Host values a server bound to `bind_host:port` answers to: every loopback name when
    it listens on loopback or on every address, else the address it listens on; plus `extra`
    (`name` at `port`, or `name:port`; IPv6 in brackets), e.g. the machine's DNS name behind a wildcard bind."""
    bind = bind_host.strip("[]").lower()
    names = LOOPBACK_NAMES if is_loopback(bind) or bind in WILDCARD_BINDS else (bind,)
    allowed = {(name, port) for name in names}
    for entry in extra:
        parsed = parse_host(entry, port)
        if parsed is None:
            raise ValueError(f"not a host name or host:port: {entry[:100]!r}")
        allowed.add(parsed)
    return frozenset(allowed)


@dataclass(frozen=True)
class Access:
    hosts: frozenset[HostPort]
    token: str | None = None

    def refusal(self, scope: Scope) -> JSONResponse | None:
        """Why this request is refused, as the response to send; None if it may go on."""
        headers = Headers(scope=scope)
        host = parse_host(headers.get("host", ""))
        if host is None or host not in self.hosts:
            return JSONResponse({"error": "Invalid Host header"}, status_code=421)
        origin = headers.get("origin")
        if origin is not None and parse_origin(origin) not in self.hosts:
            return JSONResponse({"error": "Invalid Origin header"}, status_code=403)
        if scope.get("path") not in OPEN_PATHS and not self.authorized(headers):
            return JSONResponse({"error": "this sidecar needs Authorization: Bearer <token>"}, status_code=401,
                                headers={"WWW-Authenticate": "Bearer"})
        return None

    def authorized(self, headers: Headers) -> bool:
        """Whether the request may see everything: no token is set, or it carries the token."""
        if not self.token:
            return True
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(given.strip().encode(), self.token.encode())


class AccessMiddleware:
    """Applies `Access` to every HTTP request before any route runs."""

    def __init__(self, app: ASGIApp, access: Access):
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.access.refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)
