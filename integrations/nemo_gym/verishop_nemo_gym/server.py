"""`VerishopResourcesServer`: verishop's shop in NeMo Gym 0.4's resources-server shape.

NeMo Gym's agent (`simple_agent`, or any agent that follows its contract) drives it per rollout:

    POST /seed_session  {"verishop": {"env", "difficulty", "seed"}, ...the row}  -> opens the episode
    POST /<tool>        the tool's arguments as the JSON body                    -> the tool's result
    POST /verify        {"response": ..., ...the row}                           -> reward = the verifier's total

One verishop episode per NeMo Gym session (the session cookie NeMo Gym's middleware sets). Each of
the shop's 30 tools is a POST route named after it; an unknown name gets the shop's own
`Unknown tool: <name>`. A tool error is the shop's message in `{"error": ...}` (HTTP 200, so the
model reads it and can correct itself, as NeMo Gym's agents expect); a successful call returns the
tool's result object. `verify` closes the episode if it is still open (`closed_by_client`) and
scores it with verishop's verifier: `reward` is `total`, its parts are fields of the response.

The episodes run in a verishop worker process (`python -m verishop.local.worker`, started with `verishop_python`
from the config or `$VERISHOP_PYTHON`), because NeMo Gym pins the MCP SDK below 2 and verishop is
built on 2.x: this module never imports verishop.
"""

from __future__ import annotations

from typing import Any

from fastapi import Body, FastAPI, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from starlette.concurrency import run_in_threadpool

from nemo_gym.base_resources_server import (
    RESERVED_MCP_TOOL_NAMES,
    BaseResourcesServerConfig,
    BaseSeedSessionRequest,
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from nemo_gym.server_utils import SESSION_ID_KEY

from verishop_nemo_gym.shop_process import ShopProcess, ShopProcessError, shared


class VerishopResourcesServerConfig(BaseResourcesServerConfig):
    verishop_python: str | None = None
    """The Python of a venv where verishop is installed; `$VERISHOP_PYTHON` when unset."""


class VerishopTask(BaseModel):
    """Which episode a row plays: verishop's `(env, difficulty, seed)`."""

    model_config = ConfigDict(extra="forbid")
    env: str
    difficulty: int = Field(ge=0)
    seed: int = Field(ge=0)


class VerishopSeedSessionRequest(BaseSeedSessionRequest):
    verishop: VerishopTask
    responses_create_params: dict[str, Any] | None = None


class VerishopVerifyRequest(BaseVerifyRequest):
    verishop: VerishopTask | None = None


class VerishopVerifyResponse(BaseVerifyResponse):
    verishop: VerishopTask | None = None
    env_id: str
    episode_id: str
    r_task: float | None = None
    r_eff: float | None = None
    r_hall: float | None = None
    is_correct: bool | None = None
    verdict: str
    reason: str | None = None
    close_reason: str | None = None
    tool_calls: int | None = None
    tool_errors: int | None = None


class VerishopResourcesServer(SimpleResourcesServer):
    config: VerishopResourcesServerConfig
    _sessions: dict[str, str] = PrivateAttr(default_factory=dict)  # NeMo Gym session id -> the shop's episode

    @property
    def _shop(self) -> ShopProcess:
        return shared(self.config.verishop_python)

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        for tool in self._shop.request("tools")["tools"]:
            name = tool["function"]["name"]
            if name in RESERVED_MCP_TOOL_NAMES:  # would be shadowed by the server's own endpoint
                raise RuntimeError(f"the shop's tool {name!r} collides with a NeMo Gym endpoint")
            app.post(f"/{name}", summary=name, description=tool["function"]["description"],
                     operation_id=name)(self._tool_route(name))
        app.post("/{name}", include_in_schema=False)(self.call_unknown_tool)
        return app

    async def seed_session(self, request: Request, body: VerishopSeedSessionRequest) -> BaseSeedSessionResponse:
        session_id = request.session[SESSION_ID_KEY]
        await self._release(session_id)
        task = body.verishop
        try:
            opened = await self._ask("open", env=task.env, difficulty=task.difficulty, seed=task.seed)
        except ShopProcessError as exc:
            raise HTTPException(status_code=400, detail=f"cannot open the verishop episode {task}: {exc}") from exc
        mismatch = _prompt_mismatch(body.responses_create_params, opened)
        if mismatch:
            await self._ask("close", episode=opened["episode"])
            raise HTTPException(status_code=400, detail=mismatch)
        self._sessions[session_id] = opened["episode"]
        return BaseSeedSessionResponse()

    def _tool_route(self, name: str):
        async def call_tool(request: Request, body: Any = Body(default=None)) -> dict[str, Any]:
            return await self._call(request, name, body)

        call_tool.__name__ = f"call_{name}"
        return call_tool

    async def call_unknown_tool(self, request: Request, name: str, body: Any = Body(default=None)) -> dict[str, Any]:
        return await self._call(request, name, body)

    async def _call(self, request: Request, name: str, arguments: Any) -> dict[str, Any]:
        episode = self._episode_of(request)
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return {"error": f"the arguments of {name} must be a JSON object, not {type(arguments).__name__}"}
        reply = await self._ask("call", episode=episode, tool=name, arguments=arguments)
        if reply.get("error") is not None:
            return {"error": reply["error"]}
        return reply["data"]

    async def verify(self, request: Request, body: VerishopVerifyRequest) -> VerishopVerifyResponse:
        session_id = request.session[SESSION_ID_KEY]
        episode = self._episode_of(request)
        scored = await self._ask("reward", episode=episode)
        self._sessions.pop(session_id, None)
        reward = scored["reward"]
        return VerishopVerifyResponse(
            **body.model_dump(), reward=float(reward["total"]), env_id=reward["env_id"], episode_id=episode,
            **{name: reward.get(name) for name in ("r_task", "r_eff", "r_hall", "is_correct", "verdict", "reason",
                                                    "tool_calls", "tool_errors")},
            close_reason=scored["close_reason"])

    def _episode_of(self, request: Request) -> str:
        episode = self._sessions.get(request.session[SESSION_ID_KEY])
        if episode is None:
            raise HTTPException(status_code=400, detail="no verishop episode in this session: call /seed_session "
                                                        "first (with the row's verishop: {env, difficulty, seed})")
        return episode

    async def _release(self, session_id: str) -> None:
        episode = self._sessions.pop(session_id, None)
        if episode is not None:
            await self._ask("close", episode=episode)

    async def _ask(self, op: str, **fields: Any) -> dict[str, Any]:
        # The pipe blocks; a thread keeps the event loop serving the other rollouts meanwhile.
        return await run_in_threadpool(self._shop.request, op, **fields)


def _prompt_mismatch(params: dict[str, Any] | None, opened: dict[str, Any]) -> str | None:
    """Why the row's prompt is not this episode's, or None. A row built on another catalog (or an
    older environment version) would show the model one customer and score it against another."""
    messages = (params or {}).get("input")
    if not isinstance(messages, list):
        return None
    users = [m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if users and users[0] != opened["opening_message"]:
        return (f"the row's first user message is not the opening of {opened['env_id']} d={opened['difficulty']} "
                f"seed={opened['seed']} ({opened['opening_message']!r}); rebuild the rows with "
                "`python -m verishop_nemo_gym.dataset` on the shop's catalog")
    return None
