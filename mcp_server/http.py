"""The HTTP server: many episodes at once, each at its own URL path, plus a JSON control API.

    POST   /episodes                     create one: {"env" | "collection", "difficulty", "seed"} or {"scenario": {...}}
                                         (without "difficulty" the curriculum chooses)
    GET    /episodes/{id}                its status
    DELETE /episodes/{id}                close it (files become final)
    *      /episodes/{id}/mcp            Streamable HTTP MCP endpoint of that episode
    GET    /episodes/{id}/sse            SSE MCP endpoint of that episode (+ /messages/)
    *      /mcp, /sse                    the default episode, when the server was started with one
    GET    /curriculum                   every environment's difficulty window and counters
    GET    /health

The 2026 MCP protocol is stateless, so an episode is never inferred from an MCP session:
the path names it, and the router turns the path into the `x-episode-id` header that the
tools read (dropping any such header a client sent). Host and Origin are checked on every
route, the control API included, against DNS rebinding.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_server.errors import ShopError
from mcp_server.hub import EpisodeHub
from mcp_server.tools import EPISODE_HEADER, create_server
from scenarios.curriculum import Window
from scenarios.curriculum_store import FILE_NAME, CurriculumStore
from scenarios.difficulty import MAX_DIFFICULTY
from scenarios.envs import REGISTRY, collection, get_env
from scenarios.rng import make_rng
from scenarios.models import Scenario


class CreateEpisode(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str | None = Field(None, description="Environment, e.g. 'pd' or 'pd-v2'.")
    collection: str | None = Field(None, description="C1, C2, C4 or C8: the seed (or the curriculum) picks one "
                                                     "of its environments.")
    difficulty: int | None = Field(None, ge=0, le=MAX_DIFFICULTY, description="Omit to let the curriculum choose.")
    seed: int | None = Field(None, ge=0, description="Default: 0 with a difficulty, fresh random without.")
    scenario: Scenario | None = None

    def environment(self) -> str:
        if self.env and self.collection:
            raise ValueError("give either env or collection, not both")
        if self.collection:
            members = collection(self.collection)
            rng = make_rng("collection", self.collection.upper(), self.seed or 0)
            return members[rng.randrange(len(members))].env_id
        return self.env or "pd"

    def candidates(self) -> tuple[str, ...]:
        """The environment ids the curriculum may pick from."""
        if self.env and self.collection:
            raise ValueError("give either env or collection, not both")
        if self.collection:
            return tuple(spec.env_id for spec in collection(self.collection))
        return (get_env(self.env or "pd").env_id,)


async def plan_episode(spec: CreateEpisode, hub: EpisodeHub,
                       curriculum: CurriculumStore) -> tuple[Scenario, Window | None]:
    """The scenario a create request asks for, and the curriculum window it came from, if any."""
    if spec.scenario is not None:
        return spec.scenario, None
    if spec.difficulty is not None:
        return await hub.generate_async(spec.environment(), spec.difficulty, spec.seed or 0), None
    seed = spec.seed if spec.seed is not None else secrets.randbelow(2**31)
    candidates = spec.candidates()
    env_id, difficulty, window = await anyio.to_thread.run_sync(
        curriculum.choose, candidates, make_rng("curriculum", candidates, seed))
    return await hub.generate_async(env_id, difficulty, seed), window


def security_settings(host: str, port: int) -> TransportSecuritySettings:
    names = ["127.0.0.1", "localhost", "[::1]"] if host in ("127.0.0.1", "localhost", "::1") else [host]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names] + [f"{n}:{port}" for n in names],
        allowed_origins=[f"http://{n}:*" for n in names],
    )


class EpisodeRouter:
    """Forwards `/episodes/{id}/...` (or the default episode's root paths) to the MCP apps with
    the episode named in the `x-episode-id` header."""

    def __init__(self, hub: EpisodeHub, mcp_app: ASGIApp, sse_app: ASGIApp, *, default: bool = False):
        self.hub, self.mcp_app, self.sse_app, self.default = hub, mcp_app, sse_app, default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        episode_id = scope.get("path_params", {}).get("episode_id") if not self.default else self.hub.default_id
        if episode_id is None or (episode_id not in self.hub.episodes and episode_id not in self.hub.closed):
            await JSONResponse({"error": f"no episode {episode_id!r} on this server"}, 404)(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != EPISODE_HEADER.encode()]
        headers.append((EPISODE_HEADER.encode(), episode_id.encode()))
        if self.default:
            scope = dict(scope, headers=headers, root_path="")
        else:
            scope = dict(scope, headers=headers)
        route_path = scope["path"][len(scope.get("root_path", "")):]
        app = self.mcp_app if route_path.rstrip("/").endswith("/mcp") else self.sse_app
        await app(scope, receive, send)


def episode_payload(request: Request, hub: EpisodeHub, episode_id: str) -> dict:
    base = str(request.base_url).rstrip("/")
    if episode_id in hub.closed:
        return {"episode_id": episode_id, "status": "closed", "close_reason": hub.closed[episode_id]}
    ep = hub.episodes[episode_id]
    return {
        "episode_id": episode_id,
        "status": "open",
        "env_id": ep.scenario.env_id,
        "difficulty": ep.scenario.difficulty,
        "seed": ep.scenario.seed,
        "mcp_url": f"{base}/episodes/{episode_id}/mcp",
        "sse_url": f"{base}/episodes/{episode_id}/sse",
        "system_prompt": ep.scenario.system_prompt,
        "opening_message": ep.scenario.opening_message,
        "max_turns": ep.scenario.axes.max_turns,
        "turns_used": ep.turns_used,
        "run_dir": str(ep.directory),
    }


def create_http_app(hub: EpisodeHub, *, host: str = "127.0.0.1", port: int = 8000,
                    mcp: MCPServer | None = None, curriculum: CurriculumStore | None = None) -> Starlette:
    """The ASGI app. The caller owns `hub`; the app closes its open episodes on shutdown.
    The curriculum file defaults to `<runs>/curriculum.db`, where the verifier sidecar feeds it."""
    mcp = mcp or create_server(hub)
    curriculum = curriculum or CurriculumStore(hub.runs_dir / FILE_NAME)
    security = security_settings(host, port)
    mcp_app = mcp.streamable_http_app(streamable_http_path="/mcp", stateless_http=True,
                                      transport_security=security, host=host)
    sse_app = mcp.sse_app(transport_security=security, host=host)
    guard = TransportSecurityMiddleware(security)

    async def create(request: Request) -> Response:
        if refused := await guard.validate_request(request, is_post=True):
            return refused
        try:
            spec = CreateEpisode.model_validate_json(await request.body())
            scenario, window = await plan_episode(spec, hub, curriculum)
            episode = await hub.open(scenario)
        except ValidationError as exc:
            return JSONResponse({"error": "invalid request",
                                 "details": exc.errors(include_url=False, include_input=False)}, 400)
        except (KeyError, ShopError, ValueError) as exc:
            return JSONResponse({"error": str(exc).strip("'\"")}, 400)
        payload = episode_payload(request, hub, episode.episode_id)
        if window is not None:
            payload["curriculum_window"] = [window.low, window.high]
        return JSONResponse(payload, 201)

    async def show(request: Request) -> Response:
        if refused := await guard.validate_request(request):
            return refused
        episode_id = request.path_params["episode_id"]
        if episode_id not in hub.episodes and episode_id not in hub.closed:
            return JSONResponse({"error": f"no episode {episode_id!r} on this server"}, 404)
        if request.method == "DELETE" and episode_id in hub.episodes:
            await hub.close(episode_id, "closed_by_client")
        return JSONResponse(episode_payload(request, hub, episode_id))

    async def curriculum_state(request: Request) -> Response:
        if refused := await guard.validate_request(request):
            return refused
        return JSONResponse(await anyio.to_thread.run_sync(curriculum.snapshot, tuple(REGISTRY)))

    async def health(request: Request) -> Response:
        if refused := await guard.validate_request(request):
            return refused
        return JSONResponse({"status": "ok", "open_episodes": len(hub.episodes)})

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with mcp.session_manager.run():
            try:
                yield
            finally:
                await hub.close_all("server_stopped")

    per_episode = EpisodeRouter(hub, mcp_app, sse_app)
    default = EpisodeRouter(hub, mcp_app, sse_app, default=True)
    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/curriculum", curriculum_state, methods=["GET"]),
        Route("/episodes", create, methods=["POST"]),
        Route("/episodes/{episode_id}", show, methods=["GET", "DELETE"]),
        Mount("/episodes/{episode_id}", app=per_episode),
        Route("/mcp", default, methods=["GET", "POST", "DELETE"]),
        Route("/sse", default, methods=["GET"]),
        Mount("/messages", app=default),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
