"""The verifier sidecar: scores each episode under a runs folder as soon as it closes, and
serves the rewards over HTTP.

At start it scores every closed episode that has no reward.json yet; then it watches the
folder (inotify, through `watchfiles.awatch`) and scores an episode when its transcript gains
`episode_closed`. Scoring runs in one worker thread, one episode at a time, off the event
loop. Subscribers (the curriculum) append to `on_scored`; they hear of every reward
written, incomplete ones included (check `reward.verdict`).

The watcher is supervised: one episode's files never stop it (each gets its own verdict),
and if the watcher itself dies (the runs folder removed, inotify out of watches, a bug) it is
restarted with a backoff, rescanning on the way; meanwhile /health answers 503 and says why.

    GET  /health                  200 while watching, 503 and the reason while not; counters
    GET  /rewards/{episode_id}    the reward.json (404 until scored; only a regular file inside
                                  the runs folder is served, never through a link)
    POST /verify/{episode_id}     score now (404 unknown episode, 409 not closed yet)

Every route checks Host and Origin, and with a token every route but /health needs it
(verifier.access).
"""

from __future__ import annotations

import inspect
import logging
import os
import re
import stat
import time
import traceback
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

from verishop.verifier.access import Access, AccessMiddleware
from verishop.verifier.errors import Incomplete
from verishop.verifier.files import EPISODE_FILES, REWARD_FILE, is_episode_dir, is_final
from verishop.verifier.models import Reward
from verishop.verifier.runner import Settings, Verifier
from verishop.verifier.safeio import episode_folder, read_regular

log = logging.getLogger("verishop.verifier.service")

OnScored = Callable[[Reward], Awaitable[None] | None]
_EPISODE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
# A directory copied in whole may be written before inotify watches it; look again a few times.
SETTLE_DELAYS_S = (0.2, 0.5, 1.0, 2.0, 4.0)
# Waits before restarting a watcher that stopped, by how many times in a row it has stopped.
RESTART_DELAYS_S = (0.1, 0.5, 1.0, 2.0, 5.0)
# A watcher that ran this long before stopping starts again from the first delay.
HEALTHY_RUN_S = 30.0
# How often the watcher checks that the runs folder is still the one it watches (inotify says
# nothing when the folder is removed and made again, or moved away).
ROOT_CHECK_INTERVAL_S = 1.0


class WatcherLost(Exception):
    """The watched folder is gone or replaced; the supervisor restarts the watcher."""


MAX_FINGERPRINTS = 50_000


class VerifierService:
    def __init__(self, runs_dir: Path, settings: Settings = Settings(), *,
                 restart_delays_s: tuple[float, ...] = RESTART_DELAYS_S):
        self.runs_dir = Path(runs_dir).resolve()
        self.settings = settings
        self.on_scored: list[OnScored] = []
        self.scored = 0
        self.watching = False
        self.problem: str | None = "starting"  # why the watcher is not watching, for /health
        self.restarts = 0
        self.failed_episodes = 0  # episodes whose scoring raised (each is logged)
        self.restart_delays_s = restart_delays_s
        self._verifier = Verifier(settings)  # used from the one scoring thread only
        self._scoring = anyio.CapacityLimiter(1)
        # What each episode's files looked like when last scored: a change event that leaves
        # them as they were (a duplicate event, the start-up scan racing the watcher) is skipped.
        # Bounded: forgetting an old episode only costs a harmless re-score (same reward.json;
        # the curriculum counts an episode once).
        self._fingerprints: OrderedDict[str, tuple[int, ...]] = OrderedDict()

    def episode_dir(self, episode_id: str) -> Path | None:
        """The folder of `episode_id`: a real directory directly inside the runs folder (not a
        link, whatever it points to), or None."""
        if not _EPISODE_ID.match(episode_id):
            return None
        directory = self.runs_dir / episode_id
        try:
            if not stat.S_ISDIR(os.lstat(directory).st_mode) or directory.resolve().parent != self.runs_dir:
                return None
        except OSError:
            return None
        return directory

    def read_reward(self, directory: Path) -> bytes:
        """reward.json of an episode folder: a regular file, under the cap (Incomplete if not)."""
        with episode_folder(directory) as dir_fd:
            return read_regular(REWARD_FILE, "reward", self.settings.limits.reward_bytes, dir_fd)

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
        """Score the episode if it is closed; whether it is. Never raises for one episode's
        sake: a failure is logged and counted, and the watcher goes on."""
        directory = self.episode_dir(episode_id)
        if directory is None or not is_final(directory):
            return False
        try:
            await self.score(episode_id)
        except Exception:
            self.failed_episodes += 1
            log.exception("scoring %s failed", episode_id)
        return True

    async def scan(self) -> None:
        """Score closed episodes that have no reward yet (one unreadable entry skips only itself)."""
        for directory in sorted(self.runs_dir.iterdir()):
            if os.path.isdir(directory) and is_episode_dir(directory) \
                    and not os.path.lexists(directory / REWARD_FILE):
                await self.consider(directory.name)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Watch and score until cancelled, restarting the watcher whenever it stops.
        `task_status` is reported once the first watcher watches, or has failed to."""
        reported = False

        def report() -> None:
            nonlocal reported
            if not reported:
                reported = True
                task_status.started()

        stops_in_a_row = 0
        try:
            while True:
                began = time.monotonic()
                try:
                    await self._watch_and_score(report)
                    why = "the watcher stopped"
                except Exception as exc:
                    while isinstance(exc, ExceptionGroup) and exc.exceptions:  # the task group's first error
                        exc = exc.exceptions[0]
                    why = "".join(traceback.format_exception_only(type(exc), exc)).strip()[:500]
                    log.error("verifier watcher stopped: %s", why)
                if time.monotonic() - began >= HEALTHY_RUN_S:
                    stops_in_a_row = 0
                delay_s = self.restart_delays_s[min(stops_in_a_row, len(self.restart_delays_s) - 1)]
                stops_in_a_row += 1
                self.problem = f"not watching {self.runs_dir}: {why}; restarting in {delay_s:g} s"
                self.watching = False
                report()
                await anyio.sleep(delay_s)
                self.restarts += 1
        finally:  # cancelled: the service is shutting down
            self.watching = False
            self.problem = "the service is shutting down"

    async def _watch_and_score(self, report: Callable[[], None]) -> None:
        root = _identity(self.runs_dir)  # raises if the runs folder is not there
        stop = anyio.Event()
        async with anyio.create_task_group() as tg:
            send, receive = anyio.create_memory_object_stream[set[tuple[Change, str]]](16)
            tg.start_soon(self._watch, send, stop)
            # awatch creates its inotify watches synchronously on its first step, which the
            # task just started runs before this sleep returns: nothing closing after the scan
            # below can be missed.
            await anyio.sleep(0)
            tg.start_soon(self._check_root, root)
            self.watching = True
            self.problem = None
            report()
            try:
                await self.scan()
                async with receive:
                    async for batch in receive:
                        await self._handle(batch, tg)
            finally:  # `watching` and `problem` change together, in run(), so /health is never half-told
                stop.set()
                tg.cancel_scope.cancel()

    async def _watch(self, send: ObjectSendStream[set[tuple[Change, str]]], stop: anyio.Event) -> None:
        async with send:
            async for batch in awatch(self.runs_dir, watch_filter=self._relevant, stop_event=stop, step=50):
                await send.send(batch)

    async def _check_root(self, root: tuple[int, int]) -> None:
        while True:
            await anyio.sleep(ROOT_CHECK_INTERVAL_S)
            try:
                same = _identity(self.runs_dir) == root
            except OSError:
                same = False
            if not same:
                raise WatcherLost(f"{self.runs_dir} was removed or replaced")

    def _relevant(self, change: Change, path: str) -> bool:
        p = Path(path)
        if p == self.runs_dir:  # the folder itself removed: the watch is dead
            return True
        if p.parent == self.runs_dir:  # a new episode folder (not a file such as curriculum.db)
            return change == Change.added and not p.name.startswith(".") and not p.is_file()
        return p.name in EPISODE_FILES and p.parent.parent == self.runs_dir

    async def _handle(self, batch: set[tuple[Change, str]], tg: TaskGroup) -> None:
        touched: set[str] = set()
        arrived: set[str] = set()
        for change, path in batch:
            p = Path(path)
            if p == self.runs_dir:
                raise WatcherLost(f"{self.runs_dir} was {change.name}")
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


def _identity(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(f"{path} is not a directory")
    return st.st_dev, st.st_ino


def _fingerprint(directory: Path) -> tuple[int, ...]:
    stamp: list[int] = []
    for name in EPISODE_FILES:
        try:
            st = os.lstat(directory / name)
            stamp += [st.st_size, st.st_mtime_ns]
        except OSError:
            stamp += [-1, -1]
    return tuple(stamp)


def create_app(service: VerifierService, access: Access) -> Starlette:
    """The sidecar's HTTP app; `access` says which Host, Origin and token it answers to."""

    async def health(request: Request) -> Response:
        ok = service.watching
        body: dict[str, object] = {"status": "ok" if ok else "not ok", "watching": ok, "scored": service.scored,
                                   "restarts": service.restarts, "failed_episodes": service.failed_episodes}
        if not ok:
            body["why"] = service.problem
        if access.authorized(request.headers):  # paths only for those who may see them
            body["runs_dir"] = str(service.runs_dir)
        else:
            body["why"] = body.get("why") and str(body["why"]).replace(str(service.runs_dir), "the runs folder")
        return JSONResponse(body, status_code=200 if ok else 503)

    async def get_reward(request: Request) -> Response:
        episode_id = request.path_params["episode_id"]
        directory = service.episode_dir(episode_id)
        if directory is None:
            return JSONResponse({"error": f"no episode {_short(episode_id)!r} in {service.runs_dir}"},
                                status_code=404)
        try:
            body = service.read_reward(directory)
        except Incomplete as exc:
            if exc.reason in ("reward_missing", "episode_missing"):
                return JSONResponse({"error": f"episode {episode_id} is not scored yet"}, status_code=404)
            return JSONResponse({"error": f"episode {episode_id}: {exc.detail}; not served"}, status_code=403)
        return Response(body, media_type="application/json")

    async def post_verify(request: Request) -> Response:
        episode_id = request.path_params["episode_id"]
        directory = service.episode_dir(episode_id)
        if directory is None:
            return JSONResponse({"error": f"no episode {_short(episode_id)!r} in {service.runs_dir}"},
                                status_code=404)
        if not is_final(directory):
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

    app = Starlette(routes=[
        Route("/health", health),
        Route("/rewards/{episode_id}", get_reward),
        Route("/verify/{episode_id}", post_verify, methods=["POST"]),
    ], lifespan=lifespan)
    app.add_middleware(AccessMiddleware, access=access)
    return app


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:80] + "..."

