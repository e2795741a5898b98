"""`verishop serve`: the shop over stdio, Streamable HTTP or SSE."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import anyio
import typer

from verishop.scenarios.catalog.cache import runs_home
from verishop.scenarios.curriculum_cli import (CurriculumChecks, CurriculumPath, CurriculumThreshold, CurriculumWidth,
                                      open_store)
from verishop.scenarios.difficulty import MAX_DIFFICULTY, axes_for
from verishop.scenarios.curriculum_store import CurriculumStore
from verishop.scenarios.envs import get_env
from verishop.scenarios.models import Scenario
from verishop.scenarios.voice_cli import (CustomerVoiceKey, CustomerVoiceModel, CustomerVoiceOption, CustomerVoiceRecord,
                                          CustomerVoiceTemperature, CustomerVoiceTimeout, CustomerVoiceUrl, VoiceSettings,
                                          voice_settings)
from verishop.mcp_server.transport import HEAD_DEADLINE_S, KEEP_ALIVE_S, Transport, bind_socket

if TYPE_CHECKING:
    from verishop.mcp_server.http.app import ControlSettings


MAX_WORKERS = 256
IDE_LOOKUPS_PER_TURN = axes_for(MAX_DIFFICULTY).tool_calls_per_turn  # as mcp_server.defaults, without its imports


def serve(
    transport: Annotated[Transport, typer.Option(help="stdio: one episode per process; http/sse: many.")]
    = Transport.stdio,
    env: Annotated[str, typer.Option(help="Environment of the episode served at start.")] = "pd",
    difficulty: Annotated[int, typer.Option(min=0, max=MAX_DIFFICULTY)] = 0,
    seed: Annotated[int, typer.Option(min=0)] = 0,
    scenario: Annotated[Path | None, typer.Option(help="Serve this scenario.json instead.")] = None,
    runs_dir: Annotated[Path | None, typer.Option(help="Where episode folders go "
                                                       "(default: $VERISHOP_HOME/runs).")] = None,
    catalog: Annotated[Path | None, typer.Option(help="Catalog file (default: the cached one).")] = None,
    catalog_hash: Annotated[str | None, typer.Option(
        envvar="VERISHOP_CATALOG_HASH", show_envvar=True,
        help="Refuse to start unless the catalog has this content hash (`verishop catalog info`): every "
             "machine of a cluster then serves the same catalog. With it, the products are hashed again at "
             "every start (8 s at 2M products); without it, once per copy or build.")] = None,
    host: Annotated[str, typer.Option(help="HTTP bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    no_default_episode: Annotated[bool, typer.Option("--no-default-episode", help="HTTP: create episodes only "
                                                                                "through POST /episodes.")] = False,
    idle_timeout_s: Annotated[float, typer.Option(min=0, help="HTTP: close an episode after this many seconds "
                                                             "without a tool call (reason idle_timeout); "
                                                             "0 never.")] = 900,
    token: Annotated[str | None, typer.Option(envvar="VERISHOP_TOKEN", show_envvar=True,
                                              help="HTTP: the control API (POST/GET/DELETE /episodes, /curriculum) "
                                                   "then needs 'Authorization: Bearer <token>'. Required to bind "
                                                   "a non-loopback --host.")] = None,
    split_secret: Annotated[str | None, typer.Option(envvar="VERISHOP_SPLIT_SECRET", show_envvar=True,
                                                     help="HTTP: the private test split's secret, so that POST "
                                                          "/episodes can serve {\"split\": \"test\"} "
                                                          "(docs/scores.md).")] = None,
    allowed_hosts: Annotated[str, typer.Option(help="HTTP: more Host header values to accept, comma-separated "
                                                    "(name or name:port), e.g. 'shop.lan,192.168.1.20'. "
                                                    "The loopback names and the bind address are always "
                                                    "accepted.")] = "",
    public_url: Annotated[str | None, typer.Option(help="HTTP: the base URL clients reach this server at, used "
                                                        "in every mcp_url (e.g. http://shop.lan:8000). Its host must "
                                                        "be one --allowed-hosts accepts (else clients get 421): the "
                                                        "server refuses to start otherwise and says what to add.")]
    = None,
    head_timeout_s: Annotated[float, typer.Option(
        min=0.1, help="HTTP/SSE: close a connection whose request head (line and headers) is not complete this "
                      "many seconds after it began: a client that never finishes one holds a descriptor.")]
    = HEAD_DEADLINE_S,
    max_episodes: Annotated[int, typer.Option(min=0, help="HTTP: open episodes at once, beyond which POST "
                                                          "/episodes answers 503; 0 sizes it from the "
                                                          "open-file limit. With workers it is the total: each "
                                                          "worker holds its share, and there are at most this "
                                                          "many workers.")] = 0,
    max_memory: Annotated[str, typer.Option(
        help="HTTP: the memory the shop may use, e.g. 2G or 512M (with workers, the total: each worker holds its "
             "share). POST /episodes answers 503 with Retry-After while one more episode would not fit. Default: "
             "three quarters of the memory available at start (docs/reliability.md).")] = "",
    lookups_per_turn: Annotated[int, typer.Option(
        min=0, max=100, help="The default episode's lookups (read-only tool calls) between two messages to the "
                             f"customer. The default, {IDE_LOOKUPS_PER_TURN} (the most any difficulty allows), lets "
                             "a client trying the tools by hand chain calls; 0 keeps the difficulty's own "
                             "budget. A --scenario file keeps its own.")] = IDE_LOOKUPS_PER_TURN,
    curriculum: CurriculumPath = None,
    curriculum_checks: CurriculumChecks = None,
    curriculum_threshold: CurriculumThreshold = None,
    curriculum_width: CurriculumWidth = None,
    customer_voice: CustomerVoiceOption = "scripted",
    customer_voice_url: CustomerVoiceUrl = None,
    customer_voice_model: CustomerVoiceModel = None,
    customer_voice_key: CustomerVoiceKey = None,
    customer_voice_timeout_s: CustomerVoiceTimeout = 10.0,
    customer_voice_record: CustomerVoiceRecord = None,
    customer_voice_temperature: CustomerVoiceTemperature = 0.7,
    workers: Annotated[int | None, typer.Option(
        min=1, max=MAX_WORKERS, show_default="the number of cores",
        help="HTTP/SSE: shop processes. With more than one, a supervisor on --port answers the control API "
             "and places each new episode on the least-loaded worker; the episode's mcp_url names that "
             "worker's own port, so tool calls go straight to it. 1: one process, no supervisor.")] = None,
    worker_port: Annotated[int, typer.Option(
        min=0, max=65535, help="HTTP with --workers > 1: worker i listens on this port + i (on --host); 0: a "
                               "free port each, chosen at start.")] = 0,
    worker_url: Annotated[str | None, typer.Option(
        help="HTTP with --workers > 1: the base URL clients reach worker i at, with {port} and {index}, e.g. "
             "'https://shop.example.org/w{index}' behind a proxy. Default: the scheme and host name of the "
             "request (or of --public-url) with the worker's port.")] = None,
    listen_fd: Annotated[int | None, typer.Option(hidden=True, help="Internal (a worker): serve on this "
                                                                     "inherited listening socket.")] = None,
    parent_fd: Annotated[int | None, typer.Option(hidden=True, help="Internal (a worker, or a server `eval` "
                                                                     "starts): stop when this inherited pipe "
                                                                     "reaches end-of-file.")] = None,
) -> None:
    """Serve the shop's MCP tools. A bare `verishop serve` serves one default episode over stdio.
    Over HTTP it runs one process per core by default (--workers)."""
    from verishop.mcp_server.http.access import AllowedHosts, is_loopback, public_url_refusal
    from verishop.scenarios.console import checked_catalog, ensure_writable, err, resolve_catalog

    logging.basicConfig(level=logging.WARNING)
    if parent_fd is not None and listen_fd is None:
        # Started by `eval` (verishop.agents.parent_bound): stop, as on SIGTERM, once it is gone.
        stop_when_parent_exits(parent_fd)
        parent_fd = None
    if transport is Transport.stdio and (workers or 1) > 1:
        raise typer.BadParameter("applies to --transport http or sse (stdio serves one client per process)",
                                 param_hint="--workers")
    if transport is not Transport.stdio and not is_loopback(host) and not token:
        err.print(f"error: --host {host} is reachable from other machines: set a control token with --token or "
                  f"VERISHOP_TOKEN", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    voice = voice_settings(customer_voice, customer_voice_url, customer_voice_model, customer_voice_key,
                           customer_voice_timeout_s, customer_voice_record, customer_voice_temperature)
    extra_hosts = tuple(h.strip() for h in allowed_hosts.split(",") if h.strip())
    try:
        AllowedHosts.build(host, port, extra_hosts)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--allowed-hosts") from None
    count = workers or default_workers()
    if public_url is not None and (refusal := public_url_refusal(
            public_url, host, port, extra_hosts, workers=listen_fd is None and count > 1 and worker_url is None)):
        err.print(f"error: {refusal}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    if scenario is None:
        try:
            get_env(env)
        except KeyError as exc:  # the same boxed usage error as `verishop eval --env`
            raise typer.BadParameter(str(exc.args[0]), param_hint="--env") from None
    runs = ensure_writable(runs_dir or runs_home(), "episode folders",
                           "set VERISHOP_HOME to a writable folder or pass --runs-dir")
    catalog_file = resolve_catalog(catalog)
    if listen_fd is None:  # a worker's supervisor has checked it (hashing it N times over would cost N × 8 s at 2M)
        # A pinned hash is checked against the products themselves: whoever can edit the file can
        # rewrite the stamp beside it too, so a stamp vouches for nothing a pin asks for.
        checked_catalog(catalog_file, catalog_hash, trust_stamp=catalog_hash is None)
    chosen = None
    if scenario is not None:
        try:
            chosen = Scenario.model_validate_json(scenario.read_text())
        except (OSError, ValueError) as exc:
            raise typer.BadParameter(f"cannot read scenario {scenario}: {exc}", param_hint="--scenario") from None
    if transport is Transport.stdio:
        anyio.run(_serve_stdio, catalog_file, runs, chosen, env, difficulty, seed, lookups_per_turn, voice)
        err.print("server stopped")
        return
    with_default = not no_default_episode or chosen is not None
    from verishop.mcp_server.http.app import ControlSettings

    max_memory_bytes = _memory_size(max_memory)
    control = ControlSettings(token=token or None, public_url=public_url, allowed_hosts=extra_hosts,
                              max_episodes=max_episodes or None, split_secret=split_secret or None,
                              max_memory_bytes=max_memory_bytes, head_timeout_s=head_timeout_s)
    if max_episodes and listen_fd is None:
        count = min(count, max_episodes)  # each worker holds a share of the total: at least one episode
    if listen_fd is None and count > 1:
        if worker_url is not None and "{port}" not in worker_url and "{index}" not in worker_url:
            raise typer.BadParameter("needs {port} or {index}, else every worker would get the same URL",
                                     param_hint="--worker-url")
        if chosen is not None:
            _check_scenario_file(chosen, catalog_file)  # here, not in worker 0: one error, exit code 2
        listener = _listen(host, port)
        # The supervisor writes the curriculum parameters once; the workers open the same file.
        open_store(curriculum, runs, curriculum_checks, curriculum_threshold, curriculum_width).close()
        shared = ["serve", "--transport", transport.value, "--workers", "1", "--runs-dir", str(runs), "--catalog",
                  str(catalog_file), "--host", host, "--idle-timeout-s", str(idle_timeout_s),
                  "--head-timeout-s", str(head_timeout_s), "--allowed-hosts",
                  allowed_hosts, "--curriculum",
                  str(curriculum or runs / "curriculum.db"), *voice.serve_args()]
        default_args = None
        if with_default:
            default_args = ["--env", env, "--difficulty", str(difficulty), "--seed", str(seed), "--lookups-per-turn",
                            str(lookups_per_turn)]
            if scenario is not None:
                default_args += ["--scenario", str(scenario.resolve())]
        from verishop.mcp_server.http.front import run_supervisor

        os.environ.update(voice.serve_env())  # the workers inherit the endpoint's key, never in their argv

        anyio.run(run_supervisor, shared, default_args, count, worker_port, worker_url, host, port, transport,
                  runs, control, listener)
    else:
        worker = listen_fd is not None
        listener = socket.socket(fileno=listen_fd) if worker else _listen(host, port)
        store = open_store(curriculum, runs, curriculum_checks, curriculum_threshold, curriculum_width)
        anyio.run(_serve_http, catalog_file, runs, chosen if with_default else None, env, difficulty, seed,
                  lookups_per_turn, with_default, host, listener.getsockname()[1], transport, idle_timeout_s,
                  store, control, listener, parent_fd, voice)
        if worker:
            return
    err.print("server stopped")


def _memory_size(text: str) -> int | None:
    from verishop.mcp_server.http.memory import parse_size

    if not text:
        return None
    try:
        return parse_size(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--max-memory") from None


def _check_scenario_file(chosen: Scenario, catalog: Path) -> None:
    from verishop.mcp_server.http.admission import check_scenario
    from verishop.mcp_server.errors import ShopError
    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.console import err

    with CatalogReader(catalog) as reader:
        try:
            check_scenario(chosen, reader)
        except ShopError as exc:
            err.print(f"error: {str(exc).strip(chr(39))}", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _recover(hub) -> None:
    """Close what a crashed server left open in this runs dir, and say so."""
    from verishop.mcp_server.http.workers import report_recovered

    report_recovered(hub.recover())


async def _open_default(hub, chosen: Scenario | None, env: str, difficulty: int, seed: int, lookups_per_turn: int):
    """The default episode, and its successor whenever it closes (mcp_server.defaults)."""
    from verishop.mcp_server.http.admission import check_scenario
    from verishop.mcp_server.episodes.defaults import DefaultEpisodes
    from verishop.mcp_server.errors import ShopError
    from verishop.scenarios.console import err

    # A scenario file is served exactly as written, once (the demo and `eval --transport stdio`
    # play theirs so); the generated default gets the IDE's budget and a successor.
    budget = None if chosen is not None else lookups_per_turn or None
    defaults = DefaultEpisodes(hub, env, difficulty, seed, chosen, budget)
    try:
        if chosen is not None:
            check_scenario(chosen, hub.catalog)  # a scenario file is input, like a client's
        episode = await defaults.open_next()
    except (KeyError, ShopError) as exc:
        await hub.aclose()
        err.print(f"error: {str(exc).strip(chr(39))}")
        raise typer.Exit(2) from None
    if chosen is None:
        defaults.renew_on_close()
    return episode


async def _serve_stdio(catalog: Path, runs: Path, chosen: Scenario | None, env: str, difficulty: int,
                       seed: int, lookups_per_turn: int, voice: VoiceSettings | None = None) -> None:
    from verishop.mcp_server.episodes.hub import EpisodeHub
    from verishop.mcp_server.stdio import run_stdio
    from verishop.mcp_server.tools import INSTRUCTIONS, create_server
    from verishop.scenarios.console import err
    from verishop.scenarios.splits import seed_label

    hub = EpisodeHub(catalog, runs, voice=voice)
    _recover(hub)
    episode = await _open_default(hub, chosen, env, difficulty, seed, lookups_per_turn)
    # A test-split seed is never printed (with the public generator it is the goal): its label is.
    err.print(f"verishop: episode {episode.episode_id} ({episode.scenario.env_id}, d={episode.scenario.difficulty}, "
              f"seed={seed_label(episode.scenario.seed)}) in {episode.directory}")
    instructions = f"{INSTRUCTIONS}\n\nThe customer's opening message:\n{episode.scenario.opening_message}"
    try:
        await run_stdio(create_server(hub, instructions=instructions))
    finally:
        await hub.aclose("client_disconnected")




def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything else happens, so that a port in use is one
    line on stderr and exit code 2 (not a default episode announced, then a traceback)."""
    from verishop.scenarios.console import err

    try:
        return bind_socket(host, port)
    except OSError as exc:
        reason = "the port is in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
        err.print(f"error: cannot listen on {host}:{port}: {reason} (choose another with --port)", markup=False,
                  highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


async def _serve_http(catalog: Path, runs: Path, chosen: Scenario | None, env: str, difficulty: int, seed: int,
                      lookups_per_turn: int, with_default: bool, host: str, port: int, transport: Transport,
                      idle_timeout_s: float,
                      curriculum: CurriculumStore | None, control: ControlSettings,
                      listener: socket.socket, parent_fd: int | None = None,
                      voice: VoiceSettings | None = None) -> None:
    """One shop process. With `parent_fd` it is a worker of a supervisor (mcp_server.workers):
    the supervisor recovers the runs dir and announces the URLs, and the worker stops when the
    supervisor is gone."""
    import uvicorn

    from verishop.mcp_server.http.app import create_http_app
    from verishop.mcp_server.http.limits import install_fd_exhaustion_log, uvicorn_limits
    from verishop.mcp_server.episodes.hub import EpisodeHub
    from verishop.mcp_server.episodes.lifecycle import close_idle_episodes, raise_open_file_limit
    from verishop.scenarios.console import err

    worker = parent_fd is not None
    before, after = raise_open_file_limit()
    if after > before and not worker:
        err.print(f"verishop: open-file limit raised from {before} to {after} (several files per episode)")
    hub = EpisodeHub(catalog, runs, voice=voice)
    if not worker:
        _recover(hub)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "[::]") else host
    base = (control.public_url or f"http://{shown}:{port}").rstrip("/")
    try:
        if with_default:
            episode = await _open_default(hub, chosen, env, difficulty, seed, lookups_per_turn)
            if not worker:
                path = "mcp" if transport is Transport.http else "sse"
                guard = " (needs the token, like the control API)" if control.token else ""
                err.print(f"verishop: default episode {episode.episode_id} at {base}/{path}{guard}", soft_wrap=True)
        if not worker:
            err.print(f"verishop: control API at {base}/episodes (POST to create an episode"
                      f"{', with the token' if control.token else ''}); runs in {runs}")
        app = create_http_app(hub, host=host, port=port, curriculum=curriculum, control=control)
        # A 5 s keep-alive (uvicorn's default) races clients that reuse pooled connections while
        # hundreds of episodes keep the loop busy: the server drops a connection as a request arrives.
        install_fd_exhaustion_log()
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                                timeout_keep_alive=KEEP_ALIVE_S, **uvicorn_limits(control.head_timeout_s))
        server = uvicorn.Server(config)
        async with anyio.create_task_group() as tg:
            if idle_timeout_s > 0:
                tg.start_soon(close_idle_episodes, hub, idle_timeout_s)
            if parent_fd is not None:
                tg.start_soon(_stop_when_orphaned, server, parent_fd)
            await server.serve(sockets=[listener])
            tg.cancel_scope.cancel()
    finally:
        await hub.aclose()


def stop_when_parent_exits(parent_fd: int) -> None:
    """A daemon thread waits for end-of-file on `parent_fd` (the kernel closes the parent's end
    when it dies, SIGKILL included), then sends this process SIGTERM: the supervisor stops its
    workers, each server closes its episodes as server_stopped, exactly as a SIGTERM would."""
    import signal
    import threading

    def wait_for_parent() -> None:
        with contextlib.suppress(OSError):
            while os.read(parent_fd, 64):  # the parent never writes; any byte is ignored
                pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=wait_for_parent, name="verishop parent watch", daemon=True).start()


async def _stop_when_orphaned(server, parent_fd: int) -> None:
    """Stop `server` (as SIGTERM would: episodes close as server_stopped) once the supervisor's
    end of the pipe closes, which the kernel does when the supervisor dies, SIGKILL included."""
    while True:
        await anyio.wait_readable(parent_fd)  # on the event loop: no thread waits for this
        if not os.read(parent_fd, 64):  # the supervisor never writes; any byte is ignored
            break
    server.should_exit = True
