"""`verishop demo`: scripted agents play a few seeded episodes through the real MCP server
while the terminal shows the conversation and every tool call."""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
from rich.console import Console

from verishop.scenarios.models import Scenario
from verishop.scenarios.money import written
from verishop.scenarios.voice_cli import (CustomerVoiceKey, CustomerVoiceModel, CustomerVoiceOption, CustomerVoiceRecord,
                                          CustomerVoiceTemperature, CustomerVoiceTimeout, CustomerVoiceUrl, VoiceSettings,
                                          voice_settings)

console = Console()

DEMO_EPISODES = (("pd", 1, 11, "oracle"), ("pd", 4, 12, "greedy"), ("cart", 6, 13, "oracle"),
                 ("return", 3, 5, "oracle"), ("journey", 4, 2, "oracle"))


class Transport(str, Enum):
    memory = "memory"
    stdio = "stdio"


def _short(value: Any, width: int = 110) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _show_call(tool: str, args: dict, result: dict | None, error: str | None) -> None:
    if tool == "respond_to_customer":
        submitted = {k: v for k in ("recommended_product_ids", "order_id", "line_id", "answer")
                     if (v := args.get(k))}
        console.print(f"  [bold green]assistant[/]: {args['message']}"
                      + (f"  [dim]submits {_short(submitted, 120)}[/]" if submitted else ""))
        if result:
            console.print(f"  [bold cyan]customer[/]: {result['customer_message']}  "
                          f"[dim](turn {result['turns_used']}, {result['status']}"
                          f"{', ' + result['close_reason'] if result['close_reason'] else ''})[/]")
        return
    console.print(f"  [yellow]→ {tool}[/]({_short(args, 90)})")
    if error:
        console.print(f"  [red]← {error}[/]")
    elif tool == "search_catalog":
        for p in result["results"][:4]:
            price = written(p["currency"], str(p["price"]))  # "$7.99", "€7.99", "7.99 AED"
            console.print(f"  [dim]← {p['product_id']} {p['title']} {price} ★{p['rating']}[/]")
    elif tool != "get_conversation":
        console.print(f"  [dim]← {_short(result)}[/]")


def _session(client):
    from verishop.agents.session import ShopSession

    return ShopSession(client, [_show_call])


def _agent(name: str, scenario: Scenario):
    from verishop.agents.scripted import make_agent

    return make_agent(name, scenario)


def _generated_or_skipped(env: str, make: Callable[[], Scenario]) -> Scenario | None:
    """The demo's next scenario, or None (said on screen) when the catalog cannot run its
    environment `env`: an imported shop may run only some (its import report's table says which).
    The environment is named by its id, not read off the reason ("the catalog is too small for ...")."""
    from rich.markup import escape

    from verishop.scenarios.catalog.reader import CatalogError
    from verishop.scenarios.envs import get_env

    try:
        return make()
    except CatalogError as exc:
        console.print(f"[yellow]skipped {escape(get_env(env).env_id)}[/]: {escape(str(exc))}", highlight=False)
        return None


async def _play_memory(catalog: Path, runs: Path, voice: VoiceSettings) -> None:
    from verishop.mcp_server.episodes.hub import EpisodeHub
    from verishop.mcp_server.inprocess import InProcessClient
    from verishop.mcp_server.tools import create_server

    hub = EpisodeHub(catalog, runs, voice=voice)
    rewards = []
    try:
        for env, difficulty, seed, agent_name in DEMO_EPISODES:
            scenario = _generated_or_skipped(env, lambda: hub.generate(env, difficulty, seed))
            if scenario is None:
                continue
            episode = await hub.open(scenario, default=True)
            _header(scenario, agent_name, episode.directory)
            async with InProcessClient(create_server(hub)) as client:
                await _agent(agent_name, scenario).play(_session(client))
            if episode.episode_id in hub.episodes:
                await hub.close(episode.episode_id, "agent_stopped")
            rewards.append(_footer(episode.directory))
    finally:
        await hub.aclose()
    _summary(rewards, runs)


async def _play_stdio(catalog: Path, runs: Path, voice: VoiceSettings) -> None:
    from mcp import Client, StdioServerParameters

    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.seal import child_env as seal_child_env
    from verishop.scenarios.envs import generate

    with CatalogReader(catalog) as reader:
        scenarios = [(scenario, a) for e, d, s, a in DEMO_EPISODES
                     if (scenario := _generated_or_skipped(e, lambda: generate(e, d, s, reader))) is not None]
    runs.mkdir(parents=True, exist_ok=True)
    rewards = []
    for scenario, agent_name in scenarios:
        spec = runs / f".demo-{scenario.env_id}-{scenario.difficulty}-{scenario.seed}.json"
        spec.write_text(scenario.to_json())
        params = StdioServerParameters(command=sys.executable, args=[
            "-P", "-m", "verishop", "serve", "--transport", "stdio", "--scenario", str(spec),
            "--catalog", str(catalog), "--runs-dir", str(runs), *voice.serve_args()],
            env={**seal_child_env(), **voice.serve_env()} or None)
        _header(scenario, agent_name, None)
        before = set(runs.iterdir())
        async with Client(params) as client:
            await _agent(agent_name, scenario).play(_session(client))
        spec.unlink()
        rewards.extend(_footer(d) for d in set(runs.iterdir()) - before if (d / "transcript.jsonl").is_file())
    _summary(rewards, runs)


def _header(scenario: Scenario, agent: str, directory: Path | None) -> None:
    console.rule(f"[bold]{scenario.env_id}[/] difficulty {scenario.difficulty} seed {scenario.seed} · agent {agent}")
    console.print(f"  [bold cyan]customer[/]: {scenario.opening_message}")


def _footer(directory: Path) -> dict[str, Any]:
    """The closing, then the verifier's reward for the episode (scored here, from its files)."""
    from rich.markup import escape

    from verishop.verifier.runner import Verifier

    closed = [json.loads(line) for line in (directory / "transcript.jsonl").read_text().splitlines()][-1]
    console.print(f"  [dim]episode closed: {closed.get('reason')} · files in {directory}[/]")
    with Verifier() as verifier:
        reward = verifier.verify(directory).model_dump(mode="json")
    if reward["verdict"] != "scored":
        console.print(f"  [bold red]reward: {reward['verdict']}[/] ({escape(str(reward.get('detail')))})")
        return reward
    failed = ", ".join(c["name"] for c in reward["breakdown"] if c.get("passed") is False)
    verdict = "[bold green]solved[/]" if reward["is_correct"] else "[bold red]not solved[/]"
    console.print(f"  reward: total [bold]{reward['total']:+.3f}[/] · {verdict} · r_task {reward['r_task']:+.3f}, "
                  f"r_eff {reward['r_eff']:+.3f}, r_hall {reward['r_hall']:+.3f}"
                  + (f" [dim]· failed checks: {escape(failed)}[/]" if failed else ""))
    return reward


def _summary(rewards: list[dict[str, Any]], runs: Path) -> None:
    scored = [r for r in rewards if r["verdict"] == "scored"]
    mean = sum(r["total"] for r in scored) / len(scored) if scored else 0.0
    console.rule()
    console.print(f"[bold]{sum(bool(r.get('is_correct')) for r in scored)} of {len(rewards)} episodes solved · "
                  f"mean total {mean:+.3f}[/] (scored by the verifier; files in {runs})")


def demo(
    transport: Annotated[Transport, typer.Option(help="memory: in-process MCP; stdio: a server subprocess "
                                                      "per episode.")] = Transport.memory,
    runs_dir: Annotated[Path | None, typer.Option(help="Where episode folders go (default: "
                                                       "$VERISHOP_HOME/runs, as for serve).")] = None,
    catalog: Annotated[Path | None, typer.Option(help="Catalog file (default: the cached one).")] = None,
    customer_voice: CustomerVoiceOption = "scripted",
    customer_voice_url: CustomerVoiceUrl = None,
    customer_voice_model: CustomerVoiceModel = None,
    customer_voice_key: CustomerVoiceKey = None,
    customer_voice_timeout_s: CustomerVoiceTimeout = 10.0,
    customer_voice_record: CustomerVoiceRecord = None,
    customer_voice_temperature: CustomerVoiceTemperature = 0.7,
) -> None:
    """Watch scripted agents serve customers through the real MCP server."""
    from verishop.scenarios.console import resolve_catalog

    from verishop.scenarios.catalog.cache import runs_home

    from verishop.agents.parent_bound import watch_for_orphans

    voice = voice_settings(customer_voice, customer_voice_url, customer_voice_model, customer_voice_key,
                           customer_voice_timeout_s, customer_voice_record, customer_voice_temperature)
    catalog_file = resolve_catalog(catalog)
    runs = runs_dir or runs_home()
    if transport is Transport.stdio:  # each server ends its episode when its stdin closes, as the demo dies
        anyio.run(_play_stdio, catalog_file, runs, voice)
        return
    runs.mkdir(parents=True, exist_ok=True)
    with watch_for_orphans(runs):  # killed, the demo leaves no episode open: a watcher closes them
        anyio.run(_play_memory, catalog_file, runs, voice)


def _difficulty_range(text: str) -> tuple[int, ...]:
    from verishop.scenarios.difficulty import MAX_DIFFICULTY

    try:
        low, _, high = text.partition("-")
        a, b = int(low), int(high or low)
    except ValueError:
        raise typer.BadParameter(f"expected A-B or A, got {text!r}", param_hint="--difficulty") from None
    if not 0 <= a <= b <= MAX_DIFFICULTY:
        raise typer.BadParameter(f"difficulties must satisfy 0 <= A <= B <= {MAX_DIFFICULTY}",
                                 param_hint="--difficulty")
    return tuple(range(a, b + 1))


def _env_list(text: str) -> tuple[str, ...]:
    from verishop.scenarios.envs import COLLECTIONS, REGISTRY, collection, get_env

    if text.strip().lower() == "all":
        return tuple(REGISTRY)
    if text.strip().upper() in COLLECTIONS:
        return tuple(spec.env_id for spec in collection(text))
    try:
        return tuple(get_env(name).env_id for name in text.split(",") if name.strip())
    except KeyError as exc:
        raise typer.BadParameter(str(exc.args[0]), param_hint="--env") from None


def _check_split(plan, transport: str) -> None:
    """A bad split, a missing test secret or an unsealed transport is a usage error before anything
    is played."""
    from verishop.scenarios.splits import SplitError

    if plan.split is None:
        return
    try:
        plan.episodes_to_play()
        plan.check_sealed(transport)
    except SplitError as exc:
        raise typer.BadParameter(str(exc), param_hint="--split") from None


def _voice(voice: str | None, env: str, transport: EvalTransport) -> str | None:
    """`--voice`, checked: a known voice, a transport that can give it, voiced environments only."""
    from verishop.scenarios.envs import get_env
    from verishop.scenarios.voices import check_voice

    if voice is None:
        return None
    try:
        check_voice(voice)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--voice") from None
    if transport is EvalTransport.http:
        raise typer.BadParameter("a voice is forced on the memory and stdio transports only (over HTTP the "
                                 "control API draws it from the seed)", param_hint="--voice")
    plain = [e for e in _env_list(env) if not get_env(e).voiced]
    if plain and voice != "plain":
        raise typer.BadParameter(f"{', '.join(plain)} speak only the plain voice (voices came with their next "
                                 f"version)", param_hint="--voice")
    return voice


class EvalTransport(str, Enum):
    memory = "memory"
    stdio = "stdio"
    http = "http"


def evaluate(
    agent: Annotated[str, typer.Option(help="Your agent, MODULE:NAME or path/to/file.py:NAME (an async callable "
                                            "or an object with an async play method, given one episode; see "
                                            "docs/evaluate-your-agent.md), or a built-in one: oracle | null | "
                                            "greedy | hallucinate | openai, or a red-team agent: enumerate | "
                                            "bruteforce | spray | pad | invent | namedrop | namedrop-greedy | "
                                            "denied | natural")] = "oracle",
    env: Annotated[str, typer.Option(help="Environments, comma-separated (pd,cart), a collection "
                                          "(C1, C2, C4, C8) or 'all'.")] = "all",
    difficulty: Annotated[str, typer.Option(help="Difficulty or range, e.g. 0-12.")] = "0-12",
    episodes: Annotated[int, typer.Option(min=1, help="Episodes per environment.")] = 20,
    seed: Annotated[int, typer.Option(min=0, help="First seed; episode i uses seed+i.")] = 0,
    concurrency: Annotated[int, typer.Option(min=1, max=512)] = 8,
    transport: Annotated[EvalTransport | None, typer.Option(
        help="How the agent reaches the server (default: memory for built-in agents, http for yours, so that "
             "episode.mcp_url is set).", show_default=False)] = None,
    runs_dir: Annotated[Path | None, typer.Option(help="Where episode folders go (default: "
                                                       "$VERISHOP_HOME/runs, as for serve).")] = None,
    catalog: Annotated[Path | None, typer.Option(help="Catalog file (default: the cached one).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one machine-readable summary.")] = False,
    base_url: Annotated[str | None, typer.Option(help="openai agent: the endpoint, e.g. "
                                                      "http://127.0.0.1:11434/v1.")] = None,
    model: Annotated[str | None, typer.Option(help="openai agent: the model name.")] = None,
    api_key: Annotated[str | None, typer.Option(help="openai agent: bearer token, if the endpoint wants one.")]
    = None,
    max_steps: Annotated[int, typer.Option(min=1, help="openai agent: model calls per episode.")] = 24,
    trials: Annotated[int, typer.Option(min=1, help="Play each (env, difficulty, seed) this many times; "
                                                    "above 1, pass^k, flip rates and the determinism "
                                                    "certificate are reported.")] = 1,
    fail_under: Annotated[float | None, typer.Option(min=0, max=1, help="CI gate: exit 1 when the overall "
                                                                        "solved share is below this (0-1).")]
    = None,
    junit: Annotated[Path | None, typer.Option(help="CI: write JUnit XML here, one testcase per episode.")] = None,
    split: Annotated[str | None, typer.Option(help="train, dev or test: play episodes seed..seed+N-1 of that "
                                                   "split, each in its own seed space (docs/scores.md).")] = None,
    split_secret: Annotated[str | None, typer.Option(envvar="VERISHOP_SPLIT_SECRET", show_envvar=True,
                                                     help="The private test split's secret.")] = None,
    episode_timeout: Annotated[float, typer.Option(
        "--episode-timeout", min=0, help="Seconds one episode may run; past it the episode is closed, recorded "
                                         "as failed with reason timeout, and scored as the agent left it. "
                                         "0: no limit.")] = 600,
    customer_voice: CustomerVoiceOption = "scripted",
    customer_voice_url: CustomerVoiceUrl = None,
    customer_voice_model: CustomerVoiceModel = None,
    customer_voice_key: CustomerVoiceKey = None,
    customer_voice_timeout_s: CustomerVoiceTimeout = 10.0,
    customer_voice_record: CustomerVoiceRecord = None,
    customer_voice_temperature: CustomerVoiceTemperature = 0.7,
    voice: Annotated[str | None, typer.Option(help="Every customer speaks in this voice instead of the one drawn "
                                                   "from its seed: plain | terse | chatty | formal | non-native | "
                                                   "typo-prone | impatient | vague-then-precise (memory and stdio "
                                                   "transports; recorded in each scenario).")] = None,
) -> None:
    """Play seeded episodes with your agent or a built-in one, score them with the verifier, summarise.
    An episode that fails is recorded and the rest go on; any failure makes the exit code 1.
    SIGINT or SIGTERM starts no new episode, closes and scores the running ones, and still writes
    every output (exit code 128 + the signal's number); a second one exits at once."""
    from verishop.agents.episode_limits import RunControl, exit_now_if_abandoned
    from verishop.agents.eval_output import (ci_gates, eval_progress, print_failures, print_tables, print_trials,
                                             stopping_on_signals, summary_json, trial_outputs)
    from verishop.agents.evaluate import RUNNERS, Plan, failures, new_eval_dir, summarize, verify
    from verishop.agents.passk import pass_k_rows
    from verishop.agents.sealed import read_split_index, redact_json, write_split_index
    from verishop.agents.scripted import AGENTS
    from verishop.scenarios.catalog.cache import runs_home
    from verishop.scenarios.console import err, resolve_catalog

    from verishop.agents.user_agent import AgentSpecError, is_spec, load_agent

    user_agent = None
    if is_spec(agent):
        try:
            user_agent = load_agent(agent)
        except AgentSpecError as exc:
            raise typer.BadParameter(str(exc).removeprefix("--agent: "), param_hint="--agent") from None
    elif agent not in AGENTS:
        raise typer.BadParameter(f"unknown agent {agent!r}; known: {', '.join(AGENTS)}, or MODULE:NAME / "
                                 f"path/to/file.py:NAME for your own", param_hint="--agent")
    if transport is None:
        transport = EvalTransport.http if user_agent else EvalTransport.memory
    options = {}
    if agent == "openai":
        if not base_url or not model:
            raise typer.BadParameter("the openai agent needs --base-url and --model", param_hint="--agent")
        options = dict(base_url=base_url, model=model, api_key=api_key, max_steps=max_steps)
    label = user_agent.name if user_agent else agent
    wording = voice_settings(customer_voice, customer_voice_url, customer_voice_model, customer_voice_key,
                             customer_voice_timeout_s, customer_voice_record, customer_voice_temperature)
    plan = Plan(agent, _env_list(env), _difficulty_range(difficulty), episodes, seed, options, trials=trials,
                split=split, split_secret=split_secret, user_agent=user_agent, voice=wording,
                forced_voice=_voice(voice, env, transport))
    _check_split(plan, transport.value)
    catalog_file = resolve_catalog(catalog)
    run_root = new_eval_dir(runs_dir or runs_home(), label)
    write_split_index(run_root, plan.split, plan.index_of_seed)
    total = len(plan.episodes_to_play())
    control = RunControl(episode_timeout_s=episode_timeout)
    with stopping_on_signals(control):
        with eval_progress(err, control, transient=as_json) as progress:
            task = progress.add_task(f"{label} · {total} episodes", total=total)
            anyio.run(RUNNERS[transport.value], plan, catalog_file, run_root, concurrency,
                      lambda: progress.advance(task), control)
            verifying = progress.add_task("verifying", total=None)
            rewards = verify(run_root, catalog_file)
            progress.update(verifying, total=1, completed=1)
        failed = failures(run_root)
        rows = summarize(rewards, failed)
        pass_k = pass_k_rows(rewards, range(1, trials + 1)) if trials > 1 else []
        repeated = trial_outputs(rewards, run_root) if trials > 1 else {}
        if as_json:
            # No test-split seed in what is printed: each shows as its index in the split.
            typer.echo(json.dumps(redact_json({
                "agent": label, "run_dir": str(run_root), "split": split, "rows": rows,
                "failures": summary_json(failed, rewards), "stopped_by": control.stopped_by,
                **({"pass_k": pass_k} if pass_k else {}), **repeated}, read_split_index(run_root))))
        else:
            print_tables(console, label, run_root, rows, pass_k)
            print_trials(console, repeated)
            print_failures(run_root, failed)
        try:
            ci_gates(rewards, run_root, junit, fail_under, f"verishop eval · agent {label} · {run_root.name}")
            code = 1 if failed else 0
        except typer.Exit as gate:
            code = gate.exit_code
        if control.stopped_by is not None:
            err.print(f"eval stopped by {control.stopped_by}: the running episodes were closed and scored; "
                      f"the rest were not played")
            code = 128 + signal.Signals[control.stopped_by].value
    exit_now_if_abandoned(control, code)
    if code:
        raise typer.Exit(code)
