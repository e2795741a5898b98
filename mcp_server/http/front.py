"""The supervisor's HTTP app (`verishop serve --workers N`, N > 1): the same control API as a
single server (mcp_server.http), answered by the workers (mcp_server.workers).

    POST   /episodes          placed on the least-loaded worker; its answer names that worker's
                              MCP URL, so tool calls go straight to it, never through here
    GET    /episodes/{id}     forwarded to the worker holding it (a crashed worker's replacement
    DELETE /episodes/{id}     answers "closed, server_crashed" from the transcript on disk)
    GET    /curriculum        forwarded to any worker: the store is one shared SQLite file
    GET    /health            the totals, and every worker's status, load, pid and port (with a
                              token, only for its holder)
    *      /mcp, /sse, /messages/   the default episode, proxied to worker 0 (for IDEs; not the hot path)

The workers check the token, the body and the scenario, so the answers are theirs, word for
word; this app adds placement, the total `--max-episodes`, and the Host/Origin check of its
own port. `run_supervisor` starts the workers and serves this app.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections import OrderedDict
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx2
import typer
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from verishop.mcp_server.http.access import AllowedHosts, HostGuard, has_token
from verishop.mcp_server.http.app import RETRY_AFTER_S, ControlSettings, read_capped, short
from verishop.mcp_server.http.limits import BodyLimit, install_fd_exhaustion_log, uvicorn_limits
from verishop.mcp_server.episodes.lifecycle import is_episode_id, raise_open_file_limit
from verishop.mcp_server.http.relay import Answer, RelayError
from verishop.mcp_server.http.memory import DEFAULT_SHARE, available_bytes
from verishop.mcp_server.transport import KEEP_ALIVE_S, Transport
from verishop.mcp_server.http.workers import PoolSettings, Worker, WorkerPool, WorkerStartFailed, worker_sockets

# Episode id -> the worker slot holding it. Bounded: an id that has fallen out is looked for on
# every worker (they read closed episodes back from disk).
PLACEMENTS_KEPT = 1 << 16
# Not forwarded either way: they describe one connection, not the request.
# (`expect: 100-continue` was answered here already; `origin` was checked here, against this port.)
HOP_HEADERS = frozenset({b"host", b"origin", b"connection", b"keep-alive", b"transfer-encoding", b"te",
                         b"upgrade", b"proxy-connection", b"content-length", b"expect"})
ANSWER_HEADERS = ("retry-after", "www-authenticate")  # passed on from a worker's answer


def worker_url(template: str | None, base: str, worker: Worker) -> str:
    """Where clients reach `worker`: the `--worker-url` template, or the scheme and host name
    that reached the supervisor (or its --public-url) with the worker's own port."""
    if template:
        return template.format(port=worker.port, index=worker.index).rstrip("/")
    parts = urlsplit(base)
    host = parts.hostname or "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}:{worker.port}"


def create_front_app(pool: WorkerPool, *, host: str, port: int, control: ControlSettings,
                     worker_template: str | None = None) -> ASGIApp:
    placements: OrderedDict[str, int] = OrderedDict()
    creating = 0

    def place(episode_id: str, worker: Worker) -> None:
        placements[episode_id] = worker.index
        placements.move_to_end(episode_id)
        while len(placements) > PLACEMENTS_KEPT:
            placements.popitem(last=False)

    def public_base(request: Request) -> str:
        return (control.public_url or str(request.base_url)).rstrip("/")

    def max_total() -> int:
        return control.max_episodes or sum(w.max_episodes for w in pool.workers)

    def open_total() -> int:
        return sum(w.open_episodes for w in pool.workers) + creating

    def forwarded_headers(request: Request) -> list[tuple[bytes, bytes]]:
        return [(k, v) for k, v in request.headers.raw if k.lower() not in HOP_HEADERS]

    def answer(r: Answer, payload: dict | None = None) -> Response:
        headers = {k: r.headers[k] for k in ANSWER_HEADERS if k in r.headers}
        if payload is not None:
            return JSONResponse(payload, r.status, headers=headers)
        return Response(r.body, r.status, headers=headers, media_type=r.headers.get("content-type"))

    def with_worker_urls(payload: dict, request: Request, worker: Worker) -> dict:
        if payload.get("status") == "open":
            base = worker_url(worker_template, public_base(request), worker)
            payload["mcp_url"] = f"{base}/episodes/{payload['episode_id']}/mcp"
            payload["sse_url"] = f"{base}/episodes/{payload['episode_id']}/sse"
        return payload

    def unavailable(why: str) -> Response:
        return JSONResponse({"error": why}, 503, headers={"Retry-After": str(RETRY_AFTER_S)})

    async def create(request: Request) -> Response:
        nonlocal creating
        if open_total() >= max_total():
            await pool.refresh_all()  # episodes close by themselves too: count before refusing
            if open_total() >= max_total():
                return unavailable(f"{max_total()} episodes are open, the most this server holds; close one "
                                   f"(DELETE /episodes/<id>) or retry later")
        # Reserved in the same step as the check, before any await (the body may arrive slowly).
        creating += 1
        try:
            body = await read_capped(request, control.max_body_bytes)
            if body is None:
                return JSONResponse({"error": f"request body over {control.max_body_bytes} bytes"}, 413)
            worker = pool.least_loaded()
            if worker is None:
                return unavailable("no worker is running; retry later")
            worker.creating += 1
            try:
                r = await worker.relay.request("POST", "/episodes", forwarded_headers(request), body)
            except RelayError:
                return unavailable(f"worker {worker.index} stopped while creating the episode; retry")
            finally:
                worker.creating -= 1
            if r.status == 201:
                worker.open_episodes += 1  # before the reservation ends: the total never dips
        finally:
            creating -= 1
        if r.status != 201:
            return answer(r)
        payload = json.loads(r.body)
        place(payload["episode_id"], worker)
        return answer(r, with_worker_urls(payload, request, worker))

    async def show(request: Request) -> Response:
        episode_id = request.path_params["episode_id"]
        if not is_episode_id(episode_id):  # it goes into a request line: only what the hub makes
            return JSONResponse({"error": f"no episode {short(repr(episode_id), 60)} on this server"}, 404)
        index = placements.get(episode_id)
        candidates = [pool.workers[index]] if index is not None else [w for w in pool.workers if w.ready]
        r = None
        for worker in candidates:
            try:
                r = await worker.relay.request(request.method, f"/episodes/{episode_id}",
                                               forwarded_headers(request))
            except RelayError:
                return unavailable(f"worker {worker.index} is being replaced; retry")
            if r.status != 404:
                break
        if r is None:
            return unavailable("no worker is running; retry later")
        if r.status != 200:
            return answer(r)
        payload = json.loads(r.body)
        if request.method == "DELETE" and index is not None and placements.pop(episode_id, None) is not None:
            # It may have closed by itself before (done, idle): the next health poll corrects the count.
            worker.open_episodes = max(0, worker.open_episodes - 1)
        return answer(r, with_worker_urls(payload, request, worker))

    async def curriculum_state(request: Request) -> Response:
        worker = pool.any_ready()
        if worker is None:
            return unavailable("no worker is running; retry later")
        try:
            r = await worker.relay.request("GET", "/curriculum", forwarded_headers(request))
        except RelayError:
            return unavailable(f"worker {worker.index} is being replaced; retry")
        return answer(r)

    async def health(request: Request) -> Response:
        await pool.refresh_all()
        payload = {"status": "ok" if all(w.ready for w in pool.workers) else "degraded",
                   "open_episodes": sum(w.open_episodes for w in pool.workers), "max_episodes": max_total()}
        if control.token is None or has_token(request, control.token):
            # Pids and ports map the machine: only for the token's holder on a server that has one.
            payload["workers"] = [w.describe() for w in pool.workers]
        return JSONResponse(payload)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            # Inside uvicorn's serve(): after it returns, uvicorn re-raises the signal it caught.
            await pool.stop()

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/curriculum", curriculum_state, methods=["GET"]),
        Route("/episodes", create, methods=["POST"]),
        Route("/episodes/{episode_id}", show, methods=["GET", "DELETE"]),
        Route("/mcp", DefaultEpisodeProxy(pool, control.max_body_bytes), methods=["GET", "POST", "DELETE"]),
        Route("/sse", DefaultEpisodeProxy(pool, control.max_body_bytes), methods=["GET"]),
        Mount("/messages", app=DefaultEpisodeProxy(pool, control.max_body_bytes)),
    ]
    app = BodyLimit(Starlette(routes=routes, lifespan=lifespan), control.max_body_bytes)
    return HostGuard(app, AllowedHosts.build(host, port, control.allowed_hosts))


class DefaultEpisodeProxy:
    """Streams a request for the default episode to worker 0 and its answer back (SSE included).
    Per-episode MCP URLs never come here: they name their worker."""

    def __init__(self, pool: WorkerPool, max_body_bytes: int):
        self.pool, self.max_body_bytes = pool, max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        worker = self.pool.workers[0]
        # Under a Mount, the scope's path is still the whole path (root_path only names the prefix).
        url = httpx2.URL(f"{self.pool.base(worker)}{scope['path']}", query=scope.get("query_string", b""))
        body = await read_capped(request, self.max_body_bytes)  # BodyLimit has answered 413 if None
        if body is None:
            return
        upstream = self.pool.http.build_request(request.method, url, content=body,
                                                headers=[(k, v) for k, v in request.headers.raw
                                                         if k.lower() not in HOP_HEADERS],
                                                timeout=httpx2.Timeout(None, connect=10.0))
        try:
            r = await self.pool.http.send(upstream, stream=True)
        except httpx2.TransportError:
            await JSONResponse({"error": "the default episode's worker is being replaced; retry"}, 503,
                               headers={"Retry-After": str(RETRY_AFTER_S)})(scope, receive, send)
            return
        headers = {k: v for k, v in r.headers.items() if k.encode() not in HOP_HEADERS}
        response = StreamingResponse(r.aiter_raw(), r.status_code, headers=headers,
                                     background=BackgroundTask(r.aclose))
        await response(scope, receive, send)


def _available_share() -> int | None:
    """The workers' default total budget: a share of the memory available before they start
    (each worker taking that share of what it sees would count the same memory N times)."""
    available = available_bytes()
    return None if available is None else int(available * DEFAULT_SHARE)


async def run_supervisor(worker_args: list[str], default_args: list[str] | None, count: int, first_port: int,
                         worker_template: str | None, host: str, port: int, transport: Transport, runs: Path,
                         control: ControlSettings, listener: socket.socket) -> None:
    """`verishop serve --workers N`: start the workers, then answer on `listener` until a signal
    (mcp_server.cli builds the arguments; `worker_args` are the `serve` options every worker gets,
    `default_args` those of worker 0's default episode)."""
    import uvicorn

    from verishop.scenarios.console import err

    raise_open_file_limit()  # a socket per client and per relayed connection
    try:
        sockets = worker_sockets(host, count, first_port)
    except OSError as exc:
        err.print(f"error: cannot listen for {count} workers on {host} from port {first_port}: "
                  f"{exc.strerror or exc} (choose another --worker-port, or 0)", markup=False, highlight=False,
                  soft_wrap=True)
        raise typer.Exit(2) from None
    settings = PoolSettings(host=host, worker_args=worker_args, runs_dir=runs, default_args=default_args,
                            token=control.token, split_secret=control.split_secret,
                            max_episodes=control.max_episodes, count=count,
                            max_memory_bytes=control.max_memory_bytes or _available_share())
    pool = WorkerPool(settings, sockets)
    try:
        await pool.start()
    except BaseException as exc:
        await pool.stop()
        if isinstance(exc, WorkerStartFailed):
            err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
        raise
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "[::]") else host
    base = (control.public_url or f"http://{shown}:{port}").rstrip("/")
    if default_args is not None:
        path = "mcp" if transport is Transport.http else "sse"
        guard = ", needs the token, like the control API" if control.token else ""
        err.print(f"verishop: default episode at {base}/{path} (held by worker 0{guard})", soft_wrap=True)
    err.print(f"verishop: control API at {base}/episodes (POST to create an episode"
              f"{', with the token' if control.token else ''}); {count} workers on ports "
              f"{', '.join(str(w.port) for w in pool.workers)}; runs in {runs}")
    app = create_front_app(pool, host=host, port=port, control=control, worker_template=worker_template)
    install_fd_exhaustion_log()
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                            timeout_keep_alive=KEEP_ALIVE_S, **uvicorn_limits(control.head_timeout_s))
    async with anyio.create_task_group() as tg:
        pool.supervise(tg)
        try:
            await uvicorn.Server(config).serve(sockets=[listener])
        finally:
            await pool.stop()
            tg.cancel_scope.cancel()
