"""The verifier sidecar: scores each episode under a runs folder as soon as it closes, and
serves the rewards over HTTP.

At start it scores every closed episode that has no reward.json yet; then it watches the
folder (inotify, through `watchfiles.awatch`) and scores an episode when its transcript gains
`episode_closed`. Scoring runs in one worker thread, one episode at a time, off the event
loop. Subscribers (the curriculum) append to `on_scored`; they hear of every reward
written, incomplete ones included (check `reward.verdict`).

    GET  /health                  liveness and counters
    GET  /rewards/{episode_id}    the reward.json (404 until scored)
    POST /verify/{episode_id}     score now (404 unknown episode, 409 not closed yet)
"""

from __future__ import annotations

import inspect
import logging
import re
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from anyio.abc import ObjectSendStream, TaskGroup, TaskStatus
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from watchfiles import Change, awatch

from verifier.files import EPISODE_FILES, REWARD_FILE, TRANSCRIPT_FILE, is_episode_dir
from verifier.models import Reward
from verifier.runner import Settings, Verifier
from verifier.transcript import is_closed

log = logging.getLogger("verifier.service")

OnScored = Callable[[Reward], Awaitable[None] | None]
_EPISODE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
# A directory copied in whole may be written before inotify watches it; look again a few times.
SETTLE_DELAYS_S = (0.2, 0.5, 1.0, 2.0, 4.0)


MAX_FINGERPRINTS = 50_000


class VerifierService:
    def __init__(self, runs_dir: Path, settings: Settings = Settings()):
        self.runs_dir = Path(runs_dir).resolve()
        self.settings = settings
        self.on_scored: list[OnScored] = []
        self.scored = 0
        self.watching = False
        self._verifier = Verifier(settings)  # used from the one scoring thread only
        self._scoring = anyio.CapacityLimiter(1)
        # What each episode's files looked like when last scored: a change event that leaves
        # them as they were (a duplicate event, the start-up scan racing the watcher) is skipped.
        # Bounded: forgetting an old episode only costs a harmless re-score (same reward.json;
        # the curriculum counts an episode once).
        self._fingerprints: OrderedDict[str, tuple[int, ...]] = OrderedDict()

    def episode_dir(self, episode_id: str) -> Path | None:
        if not _EPISODE_ID.match(episode_id):
            return None
        directory = self.runs_dir / episode_id
        return directory if directory.is_dir() else None

    async def score(self, episode_id: str, *, force: bool = False) -> Reward | None:
        """Score one closed episode and tell the subscribers (None if unchanged since last time)."""
        directory = self.runs_dir / episode_id
        reward = await anyio.to_thread.run_sync(self._verify, directory, force, limiter=self._scoring)
        if reward is not None:
            self.scored += 1
            await self._notify(reward)
        return reward

    def _verify(self, directory: Path, force: bool) -> Reward | None:
        fingerprint = _fingerprint(directory)
        if not force and self._fingerprints.get(directory.name) == fingerprint:
            return None
        reward = self._verifier.verify(directory)
        self._fingerprints[directory.name] = fingerprint
        self._fingerprints.move_to_end(directory.name)
        while len(self._fingerprints) > MAX_FINGERPRINTS:
            self._fingerprints.popitem(last=False)
        return reward

    async def _notify(self, reward: Reward) -> None:
        for hook in list(self.on_scored):
            try:
                result = hook(reward)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("on_scored hook %r failed for %s", hook, reward.episode_id)

    async def consider(self, episode_id: str) -> bool:
        """Score the episode if it is closed; whether it is."""
        directory = self.episode_dir(episode_id)
        if directory is None or not is_closed(directory / TRANSCRIPT_FILE):
            return False
        await self.score(episode_id)
        return True

    async def scan(self) -> None:
        """Score closed episodes that have no reward yet."""
        for directory in sorted(self.runs_dir.iterdir()):
            if directory.is_dir() and is_episode_dir(directory) and not (directory / REWARD_FILE).exists():
                await self.consider(directory.name)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        stop = anyio.Event()
        async with anyio.create_task_group() as tg:
            send, receive = anyio.create_memory_object_stream[set[tuple[Change, str]]](16)
            tg.start_soon(self._watch, send, stop)
            # awatch creates its inotify watches synchronously on its first step, which the
            # task just started runs before this sleep returns: nothing closing after the scan
            # below can be missed.
            await anyio.sleep(0)
            self.watching = True
            task_status.started()
            try:
                await self.scan()
                async with receive:
                    async for batch in receive:
                        await self._handle(batch, tg)
            finally:
                self.watching = False
                stop.set()
                tg.cancel_scope.cancel()

    async def _watch(self, send: ObjectSendStream[set[tuple[Change, str]]], stop: anyio.Event) -> None:
        async with send:
            async for batch in awatch(self.runs_dir, watch_filter=self._relevant, stop_event=stop, step=50):
                await send.send(batch)

    def _relevant(self, change: Change, path: str) -> bool:
        p = Path(path)
        if p.parent == self.runs_dir:  # a new episode folder (not a file such as curriculum.db)
            return change == Change.added and not p.name.startswith(".") and not p.is_file()
        return p.name in EPISODE_FILES and p.parent.parent == self.runs_dir

    async def _handle(self, batch: set[tuple[Change, str]], tg: TaskGroup) -> None:
        touched: set[str] = set()
        arrived: set[str] = set()
        for _change, path in batch:
            p = Path(path)
            if p.parent == self.runs_dir:
                arrived.add(p.name)
                touched.add(p.name)
            else:
                touched.add(p.parent.name)
        for episode_id in sorted(touched):
            if not await self.consider(episode_id) and episode_id in arrived:
                tg.start_soon(self._settle, episode_id)

    async def _settle(self, episode_id: str) -> None:
        for delay_s in SETTLE_DELAYS_S:
            await anyio.sleep(delay_s)
            if await self.consider(episode_id):
                return

    def close(self) -> None:
        self._verifier.close()


def _fingerprint(directory: Path) -> tuple[int, ...]:
    stamp: list[int] = []
    for name in EPISODE_FILES:
        try:
            st = (directory / name).stat()
            stamp += [st.st_size, st.st_mtime_ns]
        except OSError:
            stamp += [-1, -1]
    return tuple(stamp)


def create_app(service: VerifierService) -> Starlette:
    async def health(_: Request) -> Response:
        return JSONResponse({"status": "ok", "runs_dir": str(service.runs_dir), "watching": service.watching,
                             "scored": service.scored})

    async def get_reward(request: Request) -> Response:
        episode_id = request.path_params["episode_id"]
        directory = service.episode_dir(episode_id)
        if directory is None:
            return JSONResponse({"error": f"no episode {episode_id!r} in {service.runs_dir}"}, status_code=404)
        try:
            body = (directory / REWARD_FILE).read_bytes()
        except FileNotFoundError:
            return JSONResponse({"error": f"episode {episode_id} is not scored yet"}, status_code=404)
        return Response(body, media_type="application/json")

    async def post_verify(request: Request) -> Response:
        episode_id = request.path_params["episode_id"]
        directory = service.episode_dir(episode_id)
        if directory is None:
            return JSONResponse({"error": f"no episode {episode_id!r} in {service.runs_dir}"}, status_code=404)
        if not is_closed(directory / TRANSCRIPT_FILE):
            return JSONResponse({"error": f"episode {episode_id} is not closed yet"}, status_code=409)
        reward = await service.score(episode_id, force=True)
        assert reward is not None
        return Response(reward.model_dump_json(), media_type="application/json")

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        try:
            async with anyio.create_task_group() as tg:
                await tg.start(service.run)
                yield
                tg.cancel_scope.cancel()
        finally:
            service.close()

    return Starlette(routes=[
        Route("/health", health),
        Route("/rewards/{episode_id}", get_reward),
        Route("/verify/{episode_id}", post_verify, methods=["POST"]),
    ], lifespan=lifespan)
