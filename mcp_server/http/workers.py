"""Worker processes: `verishop serve --workers N` runs N shop processes under one supervisor.

    supervisor (public port: control API, /health, /curriculum, the default episode's routes)
      ├── worker 0  (its own port: /episodes/{id}/mcp of the episodes it holds, + the default episode)
      ├── worker 1
      └── ...

Each worker is a whole single-process server (`verishop serve --workers 1`) over the same runs
dir, catalog, token and curriculum file. The supervisor binds every worker's listening socket
itself and hands it over by file descriptor, so a worker's port is known before it starts and
stays the same when a replacement takes over the slot.

Liveness, both ways:
- a worker that exits without being asked is replaced. Its open episodes no longer have an
  owner; their directories are locked only by live processes (mcp_server.recovery), so
  recovering the shared runs dir closes exactly the dead worker's episodes (`server_crashed`)
  and leaves the other workers' alone;
- a worker holds the read end of a pipe whose write end only the supervisor has. When the
  supervisor dies, SIGKILL included, the kernel closes it; the worker reads end-of-file and
  stops as on SIGTERM (mcp_server.cli). A pipe works on every POSIX system and, unlike
  PR_SET_PDEATHSIG, does not fire when merely the thread that spawned the worker ends.

Workers run in their own session, so a Ctrl-C in the terminal reaches the supervisor only; it
stops them with SIGTERM and each closes its open episodes as `server_stopped`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
from anyio.abc import Process, TaskGroup

from verishop.mcp_server.episodes.lifecycle import is_episode_id
from verishop.mcp_server.episodes.recovery import Recovered, recover
from verishop.mcp_server.http.limits import BODY_DEADLINE_S
from verishop.mcp_server.http.relay import Relay, RelayError
from verishop.mcp_server.transport import bind_socket

log = logging.getLogger(__name__)

WORKER_START_DEADLINE_S = 60.0
# A stopping worker answers the requests whose body is in (each within its own deadlines) and
# closes its episodes; past this, it is killed. Longer than a body's deadline, so a slow request
# cannot turn a clean stop into a kill.
WORKER_STOP_DEADLINE_S = BODY_DEADLINE_S + 15.0
HEALTH_POLL_S = 1.0
HEALTH_PROBE_S = 0.05
HEALTH_TIMEOUT_S = 2.0
# A worker that keeps dying right after its start is restarted less and less often.
RESTART_BACKOFF_S = (0.0, 0.5, 2.0, 5.0)
STABLE_AFTER_S = 30.0


class WorkerStartFailed(RuntimeError):
    pass


@dataclass
class Worker:
    """One slot of the pool: its socket and port outlive the processes that serve it."""

    index: int
    listener: socket.socket
    relay: Relay
    process: Process | None = None
    ready: bool = False
    restarts: int = 0
    quick_exits: int = 0  # in a row, each within STABLE_AFTER_S of its start
    started_at_s: float = 0.0
    open_episodes: int = 0  # as of the last health answer, plus creations seen since
    max_episodes: int = 0
    creating: int = 0
    parent_pipe: int | None = None  # the write end whose closing tells the worker we are gone

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    @property
    def load(self) -> int:
        return self.open_episodes + self.creating

    def describe(self) -> dict:
        return {"index": self.index, "pid": self.process.pid if self.process else None, "port": self.port,
                "status": "ok" if self.ready else "starting", "open_episodes": self.open_episodes,
                "max_episodes": self.max_episodes, "restarts": self.restarts}


@dataclass
class PoolSettings:
    """What every worker is started with (built by `verishop serve`)."""

    host: str
    worker_args: list[str]  # `serve ...` options shared by all workers
    runs_dir: Path
    default_args: list[str] | None  # worker 0's options for the default episode; None: no default episode
    token: str | None = None
    split_secret: str | None = None  # the test split's, passed in the environment like the token
    max_episodes: int | None = None  # the total; None: each worker sizes its own from its open-file limit
    count: int = 1
    max_memory_bytes: int | None = None  # the total; each worker gets its share (mcp_server/http/memory.py)

    def max_episodes_of(self, index: int) -> int:
        """Worker `index`'s share of the total (0: its own size): the shares add up to the total,
        so the workers' own checks cannot exceed it, even for a client posting to a worker's port."""
        if self.max_episodes is None:
            return 0
        share, rest = divmod(self.max_episodes, self.count)
        return share + (index < rest)


def local_address(host: str) -> str:
    """How the supervisor reaches a worker bound to `host`: the address itself, or loopback
    for an any-address bind (`0.0.0.0`, `::`)."""
    import ipaddress

    bare = host.strip("[]")
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return host  # a name, e.g. localhost
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else "127.0.0.1")
    return f"[{address}]" if address.version == 6 else str(address)


def worker_sockets(host: str, count: int, first_port: int) -> list[socket.socket]:
    """Bound listening sockets for the workers (ports `first_port`, +1, ... or free ones)."""
    sockets: list[socket.socket] = []
    try:
        for i in range(count):
            sock = bind_socket(host, first_port + i if first_port else 0)
            sock.listen(socket.SOMAXCONN)
            sockets.append(sock)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class WorkerPool:
    def __init__(self, settings: PoolSettings, listeners: Sequence[socket.socket]):
        self.settings = settings
        self.local_host = local_address(settings.host)
        self.workers = [Worker(i, sock, Relay(self.local_host, sock.getsockname()[1]))
                        for i, sock in enumerate(listeners)]
        self.stopping = False
        # Only for the default episode's routes, which may stream (SSE); the control API uses
        # each worker's relay.
        self.http = httpx2.AsyncClient(timeout=httpx2.Timeout(120.0, connect=10.0),
                                       limits=httpx2.Limits(max_connections=None, max_keepalive_connections=16))

    def base(self, worker: Worker) -> str:
        return f"http://{self.local_host}:{worker.port}"

    # -- starting and replacing ------------------------------------------------------------

    async def start(self) -> None:
        """Recover the runs dir, start every worker and wait (bounded) until all answer."""
        report_recovered(await anyio.to_thread.run_sync(recover, self.settings.runs_dir, is_episode_id))
        failures: list[WorkerStartFailed] = []

        async def start_one(worker: Worker) -> None:
            try:
                await self._spawn_ready(worker)
            except WorkerStartFailed as exc:
                failures.append(exc)

        async with anyio.create_task_group() as starting:  # at once: their imports overlap
            for worker in self.workers:
                starting.start_soon(start_one, worker)
        if failures:
            raise failures[0]

    def supervise(self, tg: TaskGroup) -> None:
        """Replace dead workers and keep their loads current, in `tg`, until it is cancelled."""
        for worker in self.workers:
            tg.start_soon(self._watch, worker)
        tg.start_soon(self._poll_health)

    async def _spawn_ready(self, worker: Worker) -> None:
        await self._spawn(worker)
        await self._wait_ready(worker)

    def command(self, worker: Worker, parent_fd: int) -> list[str]:
        args = [sys.executable, "-P", "-m", "verishop", *self.settings.worker_args, "--listen-fd",
                str(worker.listener.fileno()), "--parent-fd", str(parent_fd),
                "--max-episodes", str(self.settings.max_episodes_of(worker.index))]
        if self.settings.max_memory_bytes is not None:
            args += ["--max-memory", str(max(1, self.settings.max_memory_bytes // self.settings.count))]
        if worker.index == 0 and self.settings.default_args is not None:
            args += self.settings.default_args
        else:
            args.append("--no-default-episode")
        return args

    async def _spawn(self, worker: Worker) -> None:
        self._close_pipe(worker)  # a predecessor's that died at start
        worker.ready, worker.started_at_s = False, time.monotonic()
        worker.open_episodes = worker.creating = 0
        env = {k: v for k, v in os.environ.items() if k not in ("VERISHOP_TOKEN", "VERISHOP_SPLIT_SECRET")}
        if self.settings.token:
            env["VERISHOP_TOKEN"] = self.settings.token  # not in argv, where `ps` shows it
        if self.settings.split_secret:
            env["VERISHOP_SPLIT_SECRET"] = self.settings.split_secret
        read_end, write_end = os.pipe()
        try:
            worker.process = await anyio.open_process(
                self.command(worker, read_end), stdin=subprocess.DEVNULL, stdout=None, stderr=None, env=env,
                pass_fds=(worker.listener.fileno(), read_end), start_new_session=True)
        except OSError as exc:  # out of processes or file descriptors: the watcher tries again
            os.close(write_end)
            raise WorkerStartFailed(f"cannot start worker {worker.index}: {exc}") from None
        finally:
            os.close(read_end)
        worker.parent_pipe = write_end

    async def _wait_ready(self, worker: Worker) -> None:
        deadline = time.monotonic() + WORKER_START_DEADLINE_S
        process = worker.process
        while process is not None and process.returncode is None:
            if await self._refresh(worker):
                worker.ready = True
                return
            if time.monotonic() > deadline:
                with _suppress_gone():
                    process.kill()  # hung: its watcher sees the exit and starts another
                raise WorkerStartFailed(f"worker {worker.index} did not answer on port {worker.port} within "
                                        f"{WORKER_START_DEADLINE_S:.0f}s")
            await anyio.sleep(HEALTH_PROBE_S)
        raise WorkerStartFailed(f"worker {worker.index} exited at start (code {process and process.returncode}); "
                                f"its error is above")

    async def _watch(self, worker: Worker) -> None:
        """Replace `worker` whenever its process exits unasked."""
        while True:
            process = worker.process
            assert process is not None
            code = await process.wait()
            self._close_pipe(worker)
            worker.ready = False
            worker.relay.close()
            if self.stopping:
                return
            recovered = await anyio.to_thread.run_sync(recover, self.settings.runs_dir, is_episode_id)
            report_recovered(recovered, f"worker {worker.index} (pid {process.pid}) exited with code {code}",
                             always=True)
            await self._restart(worker)
            if self.stopping:
                return

    async def _restart(self, worker: Worker) -> None:
        """Start a replacement, at once the first time, later and later if each dies young."""
        while not self.stopping:
            young = time.monotonic() - worker.started_at_s < STABLE_AFTER_S
            worker.quick_exits = worker.quick_exits + 1 if young else 0
            await anyio.sleep(RESTART_BACKOFF_S[min(max(worker.quick_exits - 1, 0), len(RESTART_BACKOFF_S) - 1)])
            if self.stopping:
                return
            worker.restarts += 1
            try:
                await self._spawn_ready(worker)
                return
            except WorkerStartFailed as exc:
                log.error("%s", exc)
                if worker.process is not None and worker.process.returncode is None:
                    return  # started but slow: _wait_ready killed it, and the watcher sees that exit

    async def _poll_health(self) -> None:
        """Keep each worker's load current: episodes also close by themselves (done, idle,
        the customer leaving), which the supervisor does not see."""
        while True:
            await anyio.sleep(HEALTH_POLL_S)
            await self.refresh_all()

    async def refresh_all(self) -> None:
        async with anyio.create_task_group() as tg:
            for worker in self.workers:
                if worker.ready:
                    tg.start_soon(self._refresh, worker)

    async def _refresh(self, worker: Worker) -> bool:
        try:
            r = await worker.relay.request("GET", "/health", timeout_s=HEALTH_TIMEOUT_S)
        except (RelayError, TimeoutError):
            return False
        if r.status != 200:
            return False
        health = json.loads(r.body)
        worker.open_episodes, worker.max_episodes = health["open_episodes"], health["max_episodes"]
        return True

    # -- placing ---------------------------------------------------------------------------

    def least_loaded(self) -> Worker | None:
        ready = [w for w in self.workers if w.ready]
        # A worker at its own share is the last choice: it would refuse.
        return min(ready, key=lambda w: (w.load >= w.max_episodes > 0, w.load, w.index)) if ready else None

    def any_ready(self) -> Worker | None:
        return next((w for w in self.workers if w.ready), None)

    # -- stopping --------------------------------------------------------------------------

    async def stop(self) -> None:
        """SIGTERM every worker (each closes its episodes as server_stopped), wait, then SIGKILL
        what is left. Safe to call twice."""
        self.stopping = True
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for worker in self.workers:
                    tg.start_soon(self._stop_one, worker)
            await self.http.aclose()
            for worker in self.workers:
                worker.relay.close()
                worker.listener.close()

    async def _stop_one(self, worker: Worker) -> None:
        process = worker.process
        if process is not None and process.returncode is None:
            with _suppress_gone():
                process.send_signal(signal.SIGTERM)
            with anyio.move_on_after(WORKER_STOP_DEADLINE_S):
                await process.wait()
            if process.returncode is None:
                with _suppress_gone():
                    process.kill()
                await process.wait()
        self._close_pipe(worker)

    @staticmethod
    def _close_pipe(worker: Worker) -> None:
        if worker.parent_pipe is not None:
            os.close(worker.parent_pipe)
            worker.parent_pipe = None


def _suppress_gone() -> contextlib.AbstractContextManager:
    return contextlib.suppress(ProcessLookupError)


def report_recovered(found: Recovered, why: str = "", *, always: bool = False) -> None:
    """Say on stderr which episodes recovery closed (and, with `always`, that there were none)."""
    from verishop.scenarios.console import err

    cause = f"{why}: " if why else ""
    if found.crashed or always:
        names = f": {', '.join(found.crashed[:5])}{' ...' if len(found.crashed) > 5 else ''}" if found.crashed else ""
        err.print(f"verishop: {cause}closed {len(found.crashed)} episode(s) left open by a crashed server (reason "
                  f"server_crashed){names}; starting a replacement" if why else
                  f"verishop: closed {len(found.crashed)} episode(s) left open by a crashed server (reason "
                  f"server_crashed){names}", markup=False, highlight=False, soft_wrap=True)
    for episode_id in found.interrupted:
        err.print(f"verishop: episode {episode_id} was interrupted while its world was created; closed with "
                  f"reason creation_interrupted", markup=False, highlight=False, soft_wrap=True)
