"""The HTTP server: many episodes at once, each at its own URL path, plus a JSON control API.

    POST   /episodes                     create one: {"env" | "collection", "difficulty", "seed"} or {"scenario": {...}}
                                         (without "difficulty" the curriculum chooses)
    GET    /episodes/{id}                its status
    DELETE /episodes/{id}                close it (files become final)
    *      /episodes/{id}/mcp            Streamable HTTP MCP endpoint of that episode
    GET    /episodes/{id}/sse            SSE MCP endpoint of that episode (+ /messages/)
    *      /mcp, /sse                    the default episode, when the server was started with one
                                         (with the token, when the server has one)
    GET    /curriculum                   every environment's difficulty window and counters
    GET    /health

The 2026 MCP protocol is stateless, so an episode is never inferred from an MCP session:
the path names it, and the router turns the path into the `x-episode-id` header that the
tools read (dropping any such header a client sent). Host and Origin are checked exactly on
every route, the control API included, against DNS rebinding (`verishop.mcp_server.http.access`).

The control API (POST, GET and DELETE /episodes, GET /curriculum) needs `Authorization: Bearer
<token>` when the server has a token, and so does the default episode (its URL is no secret);
an episode's MCP URL is its own capability. It holds at
most `max_episodes` open episodes (then 503 with Retry-After), reads at most 1 MiB of any body
(the MCP endpoints' included: mcp_server.http.limits),
checks a client's scenario before writing anything (422 with the first problem), and its
errors echo at most a short prefix of the input.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sys
import traceback
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from verishop.mcp_server.http.access import AllowedHosts, HostGuard, has_token, token_refusal
from verishop.mcp_server.http.admission import InvalidScenario, check_scenario
from verishop.mcp_server.http.limits import BodyLimit
from verishop.mcp_server.errors import CatalogChanged, ShopError, is_disk_full
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.episodes.lifecycle import default_max_episodes
from verishop.mcp_server.http.memory import MemoryBudget, default_budget_bytes
from verishop.mcp_server.tools import EPISODE_HEADER, create_server
from verishop.mcp_server.transport import HEAD_DEADLINE_S
from verishop.scenarios.curriculum import Window
from verishop.scenarios.curriculum_store import FILE_NAME, CurriculumStore
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.splits import Split, redact_seeds, split_of, split_seed
from verishop.scenarios.envs import REGISTRY, collection, get_env
from verishop.scenarios.rng import make_rng
from verishop.scenarios.models import Scenario

log = logging.getLogger(__name__)
MAX_CONTROL_BODY_BYTES = 1 << 20  # a generated scenario is about 20 KB; a journey's under 200 KB
MAX_ERROR_CHARS = 300
RETRY_AFTER_S = 5
MAX_SEED = 2**63 - 1


class CreateEpisode(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str | None = Field(None, max_length=40, description="Environment, e.g. 'pd' or 'pd-v2'.")
    collection: str | None = Field(None, max_length=10, description="C1, C2, C4 or C8: the seed (or the "
                                                                    "curriculum) picks one of its environments.")
    difficulty: int | None = Field(None, ge=0, le=MAX_DIFFICULTY, description="Omit to let the curriculum choose.")
    seed: int | None = Field(None, ge=0, le=MAX_SEED, description="Default: 0 with a difficulty, fresh random "
                                                                   "without.")
    scenario: Scenario | None = None
    split: Split | None = Field(None, description="train, dev or test: 'seed' is then the episode's index in the "
                                                  "split, mapped to a seed of that split's own space (the test "
                                                  "split needs the server's split secret).")
    chosen_by: Literal["curriculum"] | None = Field(
        None, description="Ignored (accepted for older clients): a client's claim never makes an episode "
                          "count for the curriculum; only the curriculum's own record of what it assigned does.")

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


async def plan_episode(spec: CreateEpisode, hub: EpisodeHub, curriculum: CurriculumStore,
                       split_secret: str | None = None) -> tuple[Scenario, Window | None]:
    """The scenario a create request asks for, and the curriculum window it came from, if any.
    With a split, the request's seed is the episode's index in it (scenarios/splits.py)."""
    if spec.scenario is not None:
        if spec.split is not None:
            raise ValueError("a scenario is served as written: give either scenario or split, not both")
        return spec.scenario, None
    if spec.difficulty is not None:
        env_id = spec.environment()
        return await hub.generate_async(env_id, spec.difficulty, _seed(spec, env_id, spec.difficulty,
                                                                       spec.seed or 0, split_secret)), None
    seed = spec.seed if spec.seed is not None else secrets.randbelow(2**31)
    candidates = spec.candidates()
    env_id, difficulty, window = await anyio.to_thread.run_sync(
        curriculum.choose, candidates, make_rng("curriculum", candidates, seed))
    scenario = await hub.generate_async(env_id, difficulty, _seed(spec, env_id, difficulty, seed, split_secret))
    # The curriculum's own record that it assigned this (env, d, seed): the only thing that makes
    # the episode count when it is scored (scenarios/curriculum_store.py).
    await anyio.to_thread.run_sync(curriculum.assign, scenario.env_id, scenario.difficulty, scenario.seed)
    return scenario, window


def _seed(spec: CreateEpisode, env_id: str, difficulty: int, seed: int, split_secret: str | None) -> int:
    return seed if spec.split is None else split_seed(spec.split, env_id, difficulty, seed, split_secret)


class EpisodeRouter:
    """Forwards `/episodes/{id}/...` (or the default episode's root paths) to the MCP apps with
    the episode named in the `x-episode-id` header."""

    def __init__(self, hub: EpisodeHub, mcp_app: ASGIApp, sse_app: ASGIApp, *, default: bool = False,
                 token: str | None = None):
        self.hub, self.mcp_app, self.sse_app, self.default, self.token = hub, mcp_app, sse_app, default, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.default:
            # The default episode's URL is known to everyone, so it is no capability: on a server
            # with a token it needs the token, checked before a successor could be opened.
            if refused := token_refusal(Request(scope, receive), self.token):
                await refused(scope, receive, send)
                return
            episode_id = await self.hub.default_episode_id()
        else:
            episode_id = scope.get("path_params", {}).get("episode_id")
        if episode_id is None or (episode_id not in self.hub.episodes and episode_id not in self.hub.closed):
            await JSONResponse({"error": f"no episode {short(repr(episode_id), 60)} on this server"}, 404)(
                scope, receive, send)
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


def episode_payload(base: str, hub: EpisodeHub, episode_id: str, *, private: bool) -> dict:
    """An episode's status. `private` (the creator, or a holder of the control token) adds its
    seed and run_dir: with them and `verishop generate`, anyone could read the hidden goal."""
    if episode_id in hub.closed:
        return {"episode_id": episode_id, "status": "closed", "close_reason": hub.closed[episode_id]}
    ep = hub.episodes[episode_id]
    payload = {
        "episode_id": episode_id,
        "status": "open",
        "env_id": ep.scenario.env_id,
        "difficulty": ep.scenario.difficulty,
        "mcp_url": f"{base}/episodes/{episode_id}/mcp",
        "sse_url": f"{base}/episodes/{episode_id}/sse",
        "system_prompt": ep.scenario.system_prompt,
        "opening_message": ep.scenario.opening_message,
        "max_turns": ep.scenario.axes.max_turns,
        "turns_used": ep.turns_used,
    }
    if private:
        payload.update(seed=ep.scenario.seed, run_dir=str(ep.directory))
    if split_of(ep.scenario.seed) == "test":
        # Not even the creator sees a private test episode's seed: with it and `verishop generate`
        # anyone could read the goal. The evaluator holding the secret can re-create it.
        payload.update(seed=None, split="test")
    return payload


@dataclass(frozen=True)
class ControlSettings:
    """Who may use the control API and how much of it. Built at the entry point (`verishop serve`)."""

    token: str | None = field(default=None, repr=False)  # required on the control API when set
    allowed_hosts: tuple[str, ...] = ()  # Host values beyond the loopback names and the bind address
    public_url: str | None = None  # the base of every mcp_url, e.g. https://shop.example.org
    max_episodes: int | None = None  # open at once; None: sized from the open-file limit and the memory budget
    max_memory_bytes: int | None = None  # this process's memory budget; None: from the memory available at start
    max_body_bytes: int = MAX_CONTROL_BODY_BYTES
    split_secret: str | None = field(default=None, repr=False)  # the private test split's (scenarios/splits.py)
    head_timeout_s: float = HEAD_DEADLINE_S  # a connection's request head must be complete within it


def short(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def first_problem(exc: ValidationError) -> tuple[str, bool]:
    """The first validation error as one short line (never the input), and whether it lies in
    a client's scenario."""
    error = exc.errors(include_url=False, include_input=False, include_context=False)[0]
    where = ".".join(short(str(part), 40) for part in error["loc"])
    in_scenario = bool(error["loc"]) and error["loc"][0] == "scenario"
    return short(f"{where}: {error['msg']}" if where else error["msg"]), in_scenario


async def read_capped(request: Request, limit: int) -> bytes | None:
    """The request body, or None when it is larger than `limit` bytes (read no further)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def create_http_app(hub: EpisodeHub, *, host: str = "127.0.0.1", port: int = 8000,
                    mcp: MCPServer | None = None, curriculum: CurriculumStore | None = None,
                    control: ControlSettings | None = None) -> ASGIApp:
    """The ASGI app. The caller owns `hub`; the app closes its open episodes on shutdown.
    The curriculum file defaults to `<runs>/curriculum.db`, where the verifier sidecar feeds it."""
    mcp = mcp or create_server(hub)
    curriculum = curriculum or CurriculumStore(hub.runs_dir / FILE_NAME)
    control = control or ControlSettings()
    token = control.token
    memory = MemoryBudget(control.max_memory_bytes or default_budget_bytes())
    max_episodes = control.max_episodes or min(default_max_episodes(), memory.episodes_that_fit() or sys.maxsize)
    allowed = AllowedHosts.build(host, port, control.allowed_hosts)
    # HostGuard (below) checks Host and Origin exactly in front of every route; the SDK's own
    # check matches by prefix, so it is off here (its Content-Type check stays).
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    mcp_app = mcp.streamable_http_app(streamable_http_path="/mcp", stateless_http=True,
                                      transport_security=security, host=host)
    sse_app = mcp.sse_app(transport_security=security, host=host)
    content_type = TransportSecurityMiddleware(security)
    creating = 0

    def base_url(request: Request) -> str:
        return (control.public_url or str(request.base_url)).rstrip("/")

    async def create(request: Request) -> Response:
        nonlocal creating
        if refused := token_refusal(request, token) or await content_type.validate_request(request, is_post=True):
            return refused
        if len(hub.episodes) + creating >= max_episodes:
            return JSONResponse({"error": f"{max_episodes} episodes are open, the most this server holds; close "
                                          f"one (DELETE /episodes/<id>) or retry later"}, 503,
                                headers={"Retry-After": str(RETRY_AFTER_S)})
        if why := memory.refusal():
            return JSONResponse({"error": why}, 503, headers={"Retry-After": str(RETRY_AFTER_S)})
        # The slot is taken in the same step as the check, before any await: a creation whose
        # body is still arriving already counts, so concurrent ones cannot all pass the check.
        creating += 1
        try:
            body = await read_capped(request, control.max_body_bytes)
            if body is None:
                return JSONResponse({"error": f"request body over {control.max_body_bytes} bytes"}, 413)
            spec = CreateEpisode.model_validate_json(body)
            if spec.scenario is not None:
                check_scenario(spec.scenario, hub.catalog)
            scenario, window = await plan_episode(spec, hub, curriculum, control.split_secret)
            # Only the server's own draw marks an episode as the curriculum's (spec.chosen_by is ignored).
            episode = await hub.open(scenario, chosen_by_curriculum=window is not None)
        except ValidationError as exc:
            problem, in_scenario = first_problem(exc)
            return JSONResponse({"error": f"invalid {'scenario' if in_scenario else 'request'}: {problem}"},
                                422 if in_scenario else 400)
        except InvalidScenario as exc:
            return JSONResponse({"error": short(str(exc))}, 422)
        except CatalogChanged as exc:  # the operator's to fix: retrying does not help
            return JSONResponse({"error": short(str(exc))}, 503)
        except (KeyError, ShopError, ValueError) as exc:
            return JSONResponse({"error": short(str(exc).strip("'\""))}, 400)
        except MemoryError:  # hub.open has removed what it made; the process goes on
            log.error("creating an episode failed: out of memory")
            return JSONResponse({"error": "the server is out of memory; close an episode (DELETE /episodes/<id>) "
                                          "or retry later"}, 503, headers={"Retry-After": str(RETRY_AFTER_S)})
        except Exception as exc:  # noqa: BLE001 - logged; the client gets a short answer, the server goes on
            if is_disk_full(exc):  # hub.open has removed what it made
                log.error("creating an episode failed: the disk holding %s is full", hub.runs_dir)
                return JSONResponse({"error": f"no space left on the disk holding the episode folders ({hub.runs_dir})"
                                              f": free some space there, or retry later"}, 507,
                                    headers={"Retry-After": str(RETRY_AFTER_S)})
            # Its traceback may name the seed (a generator's message): never a test-split one.
            log.error("creating an episode failed: %s", redact_seeds(traceback.format_exc()))
            return JSONResponse({"error": "internal error: the episode could not be created"}, 500)
        finally:
            creating -= 1
        payload = episode_payload(base_url(request), hub, episode.episode_id, private=True)
        if window is not None:
            payload["curriculum_window"] = [window.low, window.high]
        return JSONResponse(payload, 201)

    async def show(request: Request) -> Response:
        if refused := token_refusal(request, token):
            return refused
        episode_id = request.path_params["episode_id"]
        if episode_id not in hub.episodes and episode_id not in hub.closed:
            return JSONResponse({"error": f"no episode {short(repr(episode_id), 60)} on this server"}, 404)
        if request.method == "DELETE" and episode_id in hub.episodes:
            await hub.close(episode_id, "closed_by_client")
        return JSONResponse(episode_payload(base_url(request), hub, episode_id, private=has_token(request, token)))

    async def curriculum_state(request: Request) -> Response:
        if refused := token_refusal(request, token):
            return refused
        return JSONResponse(await anyio.to_thread.run_sync(curriculum.snapshot, tuple(REGISTRY)))

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "open_episodes": len(hub.episodes), "max_episodes": max_episodes})

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with mcp.session_manager.run():
            try:
                yield
            finally:
                await hub.close_all("server_stopped")
                # Here, not only in the caller's `finally`: on SIGTERM uvicorn re-raises the signal
                # once serve() returns, and the process ends before that `finally` runs.
                hub.store.close()

    per_episode = EpisodeRouter(hub, mcp_app, sse_app)
    default = EpisodeRouter(hub, mcp_app, sse_app, default=True, token=token)
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
    return HostGuard(BodyLimit(Starlette(routes=routes, lifespan=lifespan), control.max_body_bytes), allowed)
