"""What bounds one episode of `verishop eval`: its `--episode-timeout`, and a stop (SIGINT or
SIGTERM) that cuts every running episode short. Either way the runner closes the episode (its
files become final) and the verifier scores what the agent did; the episode is recorded as failed
with reason `timeout` or `interrupted`.

A user's agent is somebody else's code, and it may block in sync code (a `requests` call to a
hung model server, `time.sleep`, a lock) where no cancellation reaches it. So each episode of a
user's agent runs on its own event loop in its own daemon thread, and its MCP session is a proxy
whose calls run on eval's loop (`SessionProxy`). eval's loop stays free: it keeps time, hears
the signals, closes the episode. A thread cannot be killed: a cut-off agent is asked to stop (its
task is cancelled, which ends one that awaits) and otherwise abandoned; `exit_now` then ends the
process without waiting for it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import inspect
import math
import os
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

TIMEOUT = "timeout"
INTERRUPTED = "interrupted"
DEFAULT_EPISODE_TIMEOUT_S = 600.0


@dataclass
class RunControl:
    """Shared by eval's runner and its signal handlers. `on_start(label)` / `on_end(handle)` show
    the running episodes (the progress display); `stopped_by` names the signal that stopped the run."""

    episode_timeout_s: float = DEFAULT_EPISODE_TIMEOUT_S  # 0: no limit
    on_start: Callable[[str], Any] = lambda label: None
    on_end: Callable[[Any], None] = lambda handle: None
    stopped_by: str | None = None
    abandoned: list[threading.Thread] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None
    _stopped: asyncio.Event | None = None

    def bind(self) -> None:
        """Call on eval's loop before any episode starts."""
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        if self.stopped_by is not None:
            self._stopped.set()

    def request_stop(self, name: str) -> None:
        """From a signal handler (or any thread): start no episode more, cut the running ones short."""
        self.stopped_by = name
        if self._loop is not None and self._stopped is not None:
            with contextlib.suppress(RuntimeError):  # the loop has finished: nothing runs any more
                self._loop.call_soon_threadsafe(self._stopped.set)

    @property
    def stopping(self) -> bool:
        return self.stopped_by is not None

    async def bounded(self, play: Callable[[], Awaitable[None]]) -> str | None:
        """Run `play`; None when it finished, TIMEOUT or INTERRUPTED when it was cut short."""
        assert self._stopped is not None, "bind() first"
        outcome: str | None = None
        stopped = self._stopped

        async with anyio.create_task_group() as tg:
            async def watch_stop() -> None:
                nonlocal outcome
                await stopped.wait()
                outcome = outcome or INTERRUPTED
                tg.cancel_scope.cancel()

            tg.start_soon(watch_stop)
            with anyio.move_on_after(self.episode_timeout_s or math.inf) as deadline:
                await play()
            if deadline.cancelled_caught and outcome is None:
                outcome = TIMEOUT
            tg.cancel_scope.cancel()
        return outcome

    def cut_off_message(self, outcome: str) -> str:
        if outcome == TIMEOUT:
            return (f"the agent ran past --episode-timeout {self.episode_timeout_s:g}s; the episode was closed and "
                    f"scored as the agent left it")
        return f"eval received {self.stopped_by}; the episode was closed and scored as the agent left it"


class SessionProxy:
    """An episode's MCP session for an agent on another thread's loop: every coroutine method
    (`call_tool`, `list_tools`, ...) runs on eval's loop, where the session lives."""

    def __init__(self, session: Any, loop: asyncio.AbstractEventLoop):
        self._session, self._loop = session, loop

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._session, name)
        if not inspect.iscoroutinefunction(value):
            return value

        async def on_eval_loop(*args: Any, **kwargs: Any) -> Any:
            future = asyncio.run_coroutine_threadsafe(value(*args, **kwargs), self._loop)
            return await asyncio.wrap_future(future)

        return on_eval_loop


async def play_in_thread(control: RunControl, play: Callable[[Any], Awaitable[Any]], episode: Any) -> None:
    """`await play(episode)` on a fresh loop in a daemon thread, its session proxied to this loop.
    Its exception is raised here; if this wait is cancelled (timeout, stop) the agent's task is
    cancelled, and a thread that does not end is abandoned (`RunControl.abandoned`)."""
    loop = asyncio.get_running_loop()
    done: concurrent.futures.Future[None] = concurrent.futures.Future()
    theirs = dataclasses.replace(episode, session=SessionProxy(episode.session, loop))
    started: dict[str, Any] = {}

    async def main() -> None:
        started["loop"], started["task"] = asyncio.get_running_loop(), asyncio.current_task()
        await play(theirs)

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - handed to eval's loop
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                done.set_exception(exc)
        else:
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                done.set_result(None)

    thread = threading.Thread(target=run, name=f"verishop agent {episode.env_id} d{episode.difficulty}", daemon=True)
    thread.start()
    try:
        await asyncio.wrap_future(done)
    finally:
        if not done.done() or done.cancelled():
            if "loop" in started:
                with contextlib.suppress(RuntimeError):  # its loop already finished
                    started["loop"].call_soon_threadsafe(started["task"].cancel)
            control.abandoned.append(thread)


def exit_now_if_abandoned(control: RunControl, code: int) -> None:
    """End the process with `code` without waiting for an agent thread that never returned
    (interpreter shutdown would wait for its executor threads; a stuck thread holds them)."""
    if any(thread.is_alive() for thread in control.abandoned):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
