"""Scripted evaluations: play seeded episodes through the real MCP server, have the verifier
(a separate process) score them, and summarise per environment and difficulty.

Transports: `memory` (in-process MCP, one server bound to each episode), `http` (a real
`verishop serve --transport http` subprocess and its control API), `stdio` (one server
subprocess per episode).

One episode that fails (its generation, its server, the agent's code) never takes the rest
down: it is recorded in `<run_root>/failures.jsonl` (kind and message), the evaluation carries
on, and the summary counts it as failed.

Each episode is bounded by `RunControl` (`verishop.agents.episode_limits`): past
`--episode-timeout`, or when a signal stops the run, it is closed, recorded as failed (kind
`timeout` or `interrupted`) and still scored. No new episode starts once the run is stopping.
Every process started here stops when eval exits, however it exits (`parent_bound`).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import anyio

from verishop.agents.confidence import bootstrap_mean_interval, wilson_interval
from verishop.agents.episode_limits import TIMEOUT, RunControl, play_in_thread
from verishop.agents.parent_bound import release_child, spawn_parent_bound, watch_for_orphans
from verishop.agents.scripted import make_agent
from verishop.agents.session import ShopSession, ToolFailed
from verishop.agents.user_agent import Episode, UserAgent
from verishop.scenarios.seal import child_env as seal_child_env
from verishop.scenarios.models import Scenario
from verishop.scenarios.splits import SECRET_ENV, SplitError, is_sealed, split_seed
from verishop.scenarios.voice_cli import VoiceSettings

FAILURES_FILE = "failures.jsonl"
MESSAGE_CHARS = 500


@dataclass(frozen=True)
class Plan:
    agent: str
    envs: tuple[str, ...]
    difficulties: tuple[int, ...]
    episodes: int
    seed: int
    agent_options: dict[str, Any] = field(default_factory=dict)  # e.g. the openai agent's endpoint
    trials: int = 1  # each (env, difficulty, seed) is played this many times: pass^k needs several
    split: str | None = None  # train, dev or test: seed + i is then an index into the split
    split_secret: str | None = field(default=None, repr=False)  # the test split's
    user_agent: UserAgent | None = None  # `--agent MODULE:NAME`: plays instead of the built-in `agent`
    voice: VoiceSettings = VoiceSettings()  # who words the customer's replies (`--customer-voice`)
    forced_voice: str | None = None  # `--voice NAME`: every customer speaks in it instead of the voice drawn (issue 35)

    def episodes_to_play(self) -> list[tuple[str, int, int]]:
        """(env, difficulty, seed) for each episode: difficulties cycle, seeds count up (or, in
        a split, the split's seed of each index), each task repeated `trials` times."""
        plays = []
        for env in self.envs:
            for i in range(self.episodes):
                difficulty = self.difficulties[i % len(self.difficulties)]
                seed = self.seed + i
                if self.split is not None:
                    seed = split_seed(self.split, env, difficulty, seed, self.split_secret)
                plays += [(env, difficulty, seed)] * self.trials
        return plays

    @cached_property
    def index_of_seed(self) -> dict[int, int]:
        """Each split seed's index in its split (empty without a split): what an agent and the
        outputs are shown instead of a test-split seed."""
        if self.split is None:
            return {}
        return {split_seed(self.split, env, self.difficulties[i % len(self.difficulties)], self.seed + i,
                           self.split_secret): self.seed + i for env in self.envs for i in range(self.episodes)}

    def check_sealed(self, transport: str) -> None:
        """Under the test split a user's agent plays over HTTP only, where all it holds is its
        episode's MCP URL: in memory its session is the server itself (each goal a few attributes
        away), over stdio its session holds the server's command line (the run folder's path)."""
        if self.split == "test" and self.user_agent is not None and transport != "http":
            held = "the server (and its goals)" if transport == "memory" else "the path of the run folder"
            raise SplitError(f"the test split is sealed: on the {transport} transport your agent's session would "
                             f"hold {held}; use --transport http")


async def _play(plan: Plan, scenario: Scenario, client, control: RunControl, *, mcp_url: str | None = None,
                episode_id: str | None = None) -> None:
    if plan.user_agent is not None:
        # On its own thread and loop: an agent blocked in sync code cannot stall eval (episode_limits).
        # Sealed: under the test split the agent gets the episode's index in it, never its seed.
        await play_in_thread(control, plan.user_agent, Episode(
            env_id=scenario.env_id, difficulty=scenario.difficulty,
            seed=None if is_sealed(scenario.seed) else scenario.seed,
            system_prompt=scenario.system_prompt, opening_message=scenario.opening_message,
            max_turns=scenario.axes.max_turns, session=client, mcp_url=mcp_url, episode_id=episode_id,
            split=plan.split, index=plan.index_of_seed.get(scenario.seed)))
        return
    try:
        await make_agent(plan.agent, scenario, **plan.agent_options).play(ShopSession(client))
    except ToolFailed:
        pass  # an agent's failed call is part of its score, not a crash of the evaluation


def record_failure(runs: Path, env: str, difficulty: int, seed: int, exc: BaseException | None,
                   episode_id: str | None = None, *, kind: str | None = None, message: str = "") -> None:
    """Append one failed episode to `<runs>/failures.jsonl` (one write, so concurrent episodes
    never interleave a line)."""
    from verishop.scenarios.envs import get_env

    try:
        env_id = get_env(env).env_id
    except KeyError:
        env_id = env
    if exc is not None:
        exc = _root_cause(exc)
        kind, message = kind or type(exc).__name__, message or str(exc)
    line = json.dumps({"env_id": env_id, "difficulty": difficulty, "seed": seed, "episode_id": episode_id,
                       "kind": kind, "message": message[:MESSAGE_CHARS]}, allow_nan=False)
    with open(runs / FAILURES_FILE, "a") as f:
        f.write(line + "\n")


def _root_cause(exc: BaseException) -> BaseException:
    """The first error inside the task groups that wrap it (an MCP client's, an agent's own), so the
    record says what went wrong rather than "unhandled errors in a TaskGroup"."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def failures(run_root: Path) -> list[dict[str, Any]]:
    path = run_root / FAILURES_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def _record_cut_off(runs: Path, control: RunControl, key: tuple[str, int, int], outcome: str | None,
                    episode_id: str | None) -> None:
    if outcome is not None:
        record_failure(runs, *key, None, episode_id, kind=outcome, message=control.cut_off_message(outcome))


async def run_memory(plan: Plan, catalog: Path, runs: Path, concurrency: int, advance: Callable[[], None],
                     control: RunControl | None = None) -> None:
    from verishop.mcp_server.episodes.hub import EpisodeHub
    from verishop.mcp_server.inprocess import InProcessClient
    from verishop.mcp_server.tools import create_server

    control = control or RunControl()
    control.bind()
    hub = EpisodeHub(catalog, runs, voice=plan.voice)
    limiter = anyio.Semaphore(concurrency)

    async def one(index: int, env: str, difficulty: int, seed: int) -> None:
        async with limiter:
            if control.stopping:
                return
            shown = control.on_start(f"{env} d{difficulty} #{index}")
            episode, outcome = None, None
            try:
                scenario = (hub.generate(env, difficulty, seed) if plan.forced_voice is None
                            else hub.generate(env, difficulty, seed, voice=plan.forced_voice))
                episode = await hub.open(scenario)
                try:
                    async with InProcessClient(create_server(hub, episode_id=episode.episode_id)) as client:
                        outcome = await control.bounded(
                            lambda: _play(plan, scenario, client, control, episode_id=episode.episode_id))
                finally:
                    if episode.episode_id in hub.episodes:
                        await hub.close(episode.episode_id, outcome or "agent_stopped")
                _record_cut_off(runs, control, (env, difficulty, seed), outcome, episode.episode_id)
            except Exception as exc:  # noqa: BLE001 - recorded; the other episodes go on
                record_failure(runs, env, difficulty, seed, exc, episode and episode.episode_id)
            finally:
                control.on_end(shown)
            advance()

    # If eval is killed (SIGKILL: no finally runs), a watcher process closes what it left open.
    with watch_for_orphans(runs):
        try:
            async with anyio.create_task_group() as tg:
                for index, (env, difficulty, seed) in enumerate(plan.episodes_to_play()):
                    tg.start_soon(one, index, env, difficulty, seed)
        finally:
            await hub.aclose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve_command(*args: str) -> list[str]:
    # -P: the folder eval runs in is not searched first, so a clone's partial `verishop/` folder
    # can never shadow the installed package in the server (a newcomer running from the clone root).
    return [sys.executable, "-P", "-m", "verishop", "serve", *args]


async def run_http(plan: Plan, catalog: Path, runs: Path, concurrency: int, advance: Callable[[], None],
                   control: RunControl | None = None) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    if plan.forced_voice is not None:
        raise ValueError("--voice needs --transport memory or stdio: the control API draws each customer's voice")
    control = control or RunControl()
    control.bind()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    # The control API is the evaluator's alone (its token, in the environment, not the command
    # line): an agent holds only its episode's MCP URL, so it can neither read other episodes nor
    # create its own (with the split secret, a re-created test episode's run_dir would show the goal).
    # The server computes no split seed, so it never gets the secret. Its own session (a Ctrl-C at
    # the terminal reaches eval only, which closes and scores the episodes first), tied to eval by a
    # pipe: it stops when eval exits, SIGKILL included.
    token = secrets.token_urlsafe(24)
    child_env = {k: v for k, v in os.environ.items() if k != SECRET_ENV} | {"VERISHOP_TOKEN": token} \
        | plan.voice.serve_env()
    server = spawn_parent_bound(_serve_command("--transport", "http", "--no-default-episode", "--port", str(port),
                                               "--catalog", str(catalog), "--runs-dir", str(runs),
                                               *plan.voice.serve_args()),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=child_env)
    limiter = anyio.Semaphore(concurrency)
    try:
        async with httpx2.AsyncClient(base_url=base, timeout=httpx2.Timeout(60),
                                      headers={"Authorization": f"Bearer {token}"}) as http:
            await _wait_healthy(http, server)

            async def one(index: int, env: str, difficulty: int, seed: int) -> None:
                async with limiter:
                    if control.stopping:
                        return
                    shown = control.on_start(f"{env} d{difficulty} #{index}")
                    info: dict[str, Any] = {}
                    try:
                        created = await http.post("/episodes", json={"env": env, "difficulty": difficulty,
                                                                     "seed": seed})
                        if created.status_code != 201:
                            raise RuntimeError(f"POST /episodes answered {created.status_code}: "
                                               f"{created.text[:MESSAGE_CHARS]}")
                        info = created.json()
                        scenario = Scenario.model_validate_json(
                            Path(info["run_dir"], "scenario.json").read_text())
                        async with httpx2.AsyncClient(timeout=httpx2.Timeout(60)) as mcp_http:
                            async with Client(streamable_http_client(info["mcp_url"],
                                                                     http_client=mcp_http)) as client:
                                outcome = await control.bounded(lambda: _play(
                                    plan, scenario, client, control, mcp_url=info["mcp_url"],
                                    episode_id=info["episode_id"]))
                        _record_cut_off(runs, control, (env, difficulty, seed), outcome, info["episode_id"])
                    except Exception as exc:  # noqa: BLE001 - recorded; the other episodes go on
                        record_failure(runs, env, difficulty, seed, exc, info.get("episode_id"))
                    finally:
                        control.on_end(shown)
                    if "episode_id" in info:
                        with contextlib.suppress(httpx2.HTTPError):
                            await http.delete(f"/episodes/{info['episode_id']}")
                    advance()

            async with anyio.create_task_group() as tg:
                for index, (env, difficulty, seed) in enumerate(plan.episodes_to_play()):
                    tg.start_soon(one, index, env, difficulty, seed)
    finally:
        server.terminate()
        server.wait(timeout=30)
        release_child(server)


async def _wait_healthy(http, server: subprocess.Popen, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited: {server.stderr.read().decode()[-2000:]}")
        try:
            if (await http.get("/health")).status_code == 200:
                return
        except Exception:  # noqa: BLE001 - not listening yet
            pass
        await anyio.sleep(0.05)
    raise RuntimeError(f"the server did not answer /health within {timeout_s:.0f}s")


async def run_stdio(plan: Plan, catalog: Path, runs: Path, concurrency: int, advance: Callable[[], None],
                    control: RunControl | None = None) -> None:
    from mcp import Client, StdioServerParameters

    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.envs import generate

    control = control or RunControl()
    control.bind()
    limiter = anyio.Semaphore(concurrency)
    claimed: set[str] = set()
    specs = runs / ".scenarios"
    specs.mkdir(parents=True, exist_ok=True)
    scenarios: list[tuple[tuple[str, int, int], Scenario | None]] = []
    with CatalogReader(catalog) as reader:
        for env, d, seed in plan.episodes_to_play():
            try:
                scenarios.append(((env, d, seed), generate(env, d, seed, reader, voice=plan.forced_voice)))
            except Exception as exc:  # noqa: BLE001 - recorded; the other episodes go on
                record_failure(runs, env, d, seed, exc)
                scenarios.append(((env, d, seed), None))

    async def one(index: int, key: tuple[str, int, int], scenario: Scenario | None) -> None:
        async with limiter:
            if control.stopping:
                return
            if scenario is not None:
                spec = specs / f"{index}.json"
                shown = control.on_start(f"{key[0]} d{key[1]} #{index}")
                try:
                    spec.write_text(scenario.to_json())
                    # The server ends its episode when its stdin closes: when this client closes,
                    # and when eval dies, however (the kernel closes the pipe).
                    params = StdioServerParameters(command=sys.executable, args=_serve_command(
                        "--scenario", str(spec), "--catalog", str(catalog), "--runs-dir", str(runs),
                        *plan.voice.serve_args())[1:],
                        env={"VERISHOP_HOME": os.environ.get("VERISHOP_HOME", ""), **seal_child_env(),
                             **plan.voice.serve_env()})
                    async with Client(params) as client:
                        outcome = await control.bounded(lambda: _play(plan, scenario, client, control))
                    if outcome is not None:
                        _record_cut_off(runs, control, key, outcome, _claim_episode(runs, scenario.to_json(), claimed))
                except Exception as exc:  # noqa: BLE001 - recorded; the other episodes go on
                    record_failure(runs, *key, exc, _claim_episode(runs, scenario.to_json(), claimed))
                finally:
                    control.on_end(shown)
            advance()

    async with anyio.create_task_group() as tg:
        for index, (key, scenario) in enumerate(scenarios):
            tg.start_soon(one, index, key, scenario)


def _claim_episode(runs: Path, scenario_json: str, claimed: set[str]) -> str | None:
    """The folder a stdio server made for this scenario (it names the episode, not us), so a
    failure is counted on its episode rather than beside it; None if the server made none. Trials
    of one task have the same bytes, and any unclaimed one of them is as good as another."""
    for directory in sorted(runs.iterdir()):
        if directory.name in claimed or not directory.is_dir():
            continue
        try:
            if (directory / "scenario.json").read_text() == scenario_json:
                claimed.add(directory.name)
                return directory.name
        except OSError:
            continue
    return None


RUNNERS = {"memory": run_memory, "http": run_http, "stdio": run_stdio}


def new_eval_dir(runs: Path, agent: str) -> Path:
    path = runs / f"eval-{agent}-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    return path


def verify(run_root: Path, catalog: Path) -> list[dict[str, Any]]:
    """Score every episode under `run_root` with the verifier, in its own process."""
    score_runs([run_root], catalog)
    return read_rewards(run_root)


def score_runs(run_roots: Iterable[Path], catalog: Path, workers: int = 0) -> None:
    """Score every episode under each of `run_roots` with one `verishop verify` process (`workers`:
    its --workers, 0 its default); each episode's reward.json is written beside it."""
    # Its own session: a Ctrl-C at the terminal (which stops eval's episodes) lets the scoring finish.
    subprocess.run([sys.executable, "-P", "-m", "verishop", "verify", "--json", "--workers", str(workers),
                    "--catalog", str(catalog), *map(str, run_roots)],
                   stdout=subprocess.DEVNULL, check=False, start_new_session=True)


def read_rewards(run_root: Path) -> list[dict[str, Any]]:
    """The rewards the verifier wrote under `run_root`; an episode it could not score is
    reported with verdict "missing" and whatever identity its scenario gives."""
    rewards = []
    for episode_dir in sorted(p for p in run_root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        reward_file = episode_dir / "reward.json"
        if reward_file.is_file():
            rewards.append(json.loads(reward_file.read_text()) | _voice_of(episode_dir))
        else:
            try:
                scenario = json.loads((episode_dir / "scenario.json").read_text())
            except (OSError, ValueError):  # its creation failed: recorded in failures.jsonl
                scenario = {}
            rewards.append({"episode_id": episode_dir.name, "verdict": "missing",
                            "env_id": scenario.get("env_id", "?"), "difficulty": scenario.get("difficulty", "?"),
                            "seed": scenario.get("seed", "?")})
    return rewards


def _voice_of(episode_dir: Path) -> dict[str, str]:
    """`{"voice": …}`: the customer's voice its scenario records (issue 35); nothing for a version
    before voices (or a scenario that cannot be read)."""
    try:
        voice = json.loads((episode_dir / "scenario.json").read_text()).get("voice")
    except (OSError, ValueError, AttributeError):
        return {}
    return {"voice": voice} if isinstance(voice, str) else {}


def summarize(rewards: list[dict[str, Any]], failed: list[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """One row per (environment, difficulty) plus an "all" row per environment. A failed episode
    (from `failures`) counts as played, failed and unsolved, whatever its files say.
    `solved_ci95` is the solved share's 95% Wilson interval over the episodes played,
    `total_ci95` the mean total's seeded bootstrap interval over the scored ones."""
    failed_kinds = {f["episode_id"]: f.get("kind") for f in failed if f.get("episode_id")}
    entries = [dict(r, verdict="failed", kind=failed_kinds[r["episode_id"]]) if r.get("episode_id") in failed_kinds
               else r for r in rewards]
    seen = {r.get("episode_id") for r in rewards}
    entries += [dict(f, verdict="failed") for f in failed if not f.get("episode_id") or f["episode_id"] not in seen]
    groups: dict[tuple[str, Any], list[dict]] = defaultdict(list)
    for r in entries:
        env = r.get("env_id", "?")
        groups[(env, r.get("difficulty", "?"))].append(r)
        groups[(env, "all")].append(r)
    rows = []
    for (env, difficulty), items in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]) == "all",
                                                                         kv[0][1] if kv[0][1] != "all" else 0)):
        scored = [r for r in items if r.get("verdict") == "scored"]
        mean = lambda key: round(sum(r[key] for r in scored) / len(scored), 4) if scored else None  # noqa: E731
        solved_count = sum(bool(r.get("is_correct")) for r in scored)
        rows.append({
            "env_id": env, "difficulty": difficulty, "episodes": len(items), "scored": len(scored),
            "failed": sum(r.get("verdict") == "failed" for r in items),
            "timeouts": sum(r.get("verdict") == "failed" and r.get("kind") == TIMEOUT for r in items),
            "solved_share": round(solved_count / len(items), 4),
            "solved_ci95": _pair(wilson_interval(solved_count, len(items))),
            "total": mean("total"), "total_ci95": _pair(bootstrap_mean_interval([r["total"] for r in scored])),
            "r_task": mean("r_task"), "r_eff": mean("r_eff"), "r_hall": mean("r_hall"),
            "turns": mean("turns"), "tool_calls": mean("tool_calls"),
            "voices": dict(sorted(Counter(r["voice"] for r in items if r.get("voice")).items())),
            **utility_and_security(items),
        })
    return rows


def utility_and_security(items: list[dict[str, Any]]) -> dict[str, Any]:
    """AgentDojo's pair (issue 33): `utility`, the share of episodes whose task was done whatever
    else happened (an unscored one counts as not done); `security`, the share of the episodes
    carrying a minefield that hit none (None when none carried one); and per minefield how many
    episodes carried it and how many hit it."""
    done = sum(r.get("verdict") == "scored" and bool(r.get("task_correct", r.get("is_correct"))) for r in items)
    carrying = [r for r in items if r.get("minefields")]
    per_minefield: dict[str, dict[str, int]] = {}
    for r in carrying:
        for name in r["minefields"]:
            counts = per_minefield.setdefault(name, {"carried": 0, "hit": 0})
            counts["carried"] += 1
            counts["hit"] += r.get("minefield_hit") == name
    safe = sum(not r.get("minefield_hit") for r in carrying)
    return {"utility": round(done / len(items), 4) if items else None,
            "security": round(safe / len(carrying), 4) if carrying else None,
            "minefield_episodes": len(carrying), "minefields": dict(sorted(per_minefield.items()))}


def _pair(interval: tuple[float, float] | None) -> list[float] | None:
    return list(interval) if interval is not None else None


def solved_share(rewards: list[dict[str, Any]], failed: list[dict[str, Any]] = ()) -> float:
    """Solved episodes over all episodes played, an unscored episode and one that failed to run
    (`failed`) counting as unsolved: the number `--fail-under` compares."""
    played = len(rewards) + len(failed)
    solved = sum(r.get("verdict") == "scored" and bool(r.get("is_correct")) for r in rewards)
    return solved / played if played else 0.0
