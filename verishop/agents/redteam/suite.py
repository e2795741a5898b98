"""Playing the red team: every agent on the same seeded episodes, summarised per agent and
environment. Used by tests/test_redteam.py, tests/test_baselines_bar.py and bench/redteam.py.

Two ways to play, with the same rewards (tests/test_redteam.py checks a sample of every agent):
- `transport="memory"`: through the real MCP server (in memory), scored by the verifier in its own
  process (one `verishop verify` over every run); the default, what bench/redteam.py prints;
- `transport="local"`: in process (`verishop.local.LocalShop`: the server's tools, the verifier's
  checks, no protocol), each run folder written as a server leaves it. About twice as fast (the
  suite's 2,912-episode table: 25 s against 54 s on two cores); the test suite plays its larger
  tables this way.
"""

from __future__ import annotations

import multiprocessing
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from verishop.agents.evaluate import Plan, read_rewards, run_memory, score_runs
from verishop.envs import REGISTRY, generate

ENVS = tuple(spec.name for spec in REGISTRY.values())
"""Every registered environment, in the registry's order."""
AGENTS = ("null", "greedy", "prior", "oldest", "newest", "enumerate", "bruteforce", "spray", "pad", "invent",
          "namedrop", "namedrop-greedy", "denied", "denied-spelled", "cancel-all", "modify-first", "refuse", "ask-only",
          "always-transfer", "stonewall", "credit-max", "identify-only", "obey-text", "tell-all",
          "every-voucher", "cheapest-shipping", "natural", "natural-idioms")
# The honest goal-blind baselines whose better one, per environment, no hostile agent may beat.
BAR_AGENTS = ("greedy", "prior", "oldest", "newest")


@dataclass(frozen=True)
class Cell:
    """One agent in one environment."""

    episodes: int
    solved: int
    mean_total: float

    @property
    def solved_share(self) -> float:
        return self.solved / self.episodes if self.episodes else 0.0


def play_all(agents: tuple[str, ...], envs: tuple[str, ...], difficulties: tuple[int, ...], episodes: int, seed: int,
             catalog: Path, root: Path, concurrency: int = 4, workers: int = 2,
             voice: str | None = None, transport: str = "memory") -> dict[str, list[dict[str, Any]]]:
    """Rewards per agent: `episodes` per environment, difficulties cycling, seeds from `seed`
    (the same episodes for every agent), the agents spread over `workers` processes, every
    customer in `voice` if given (else the one drawn), played over `transport` ("memory" or
    "local", see the module docstring). Episode directories land in `root/<agent>/`."""
    if transport not in TRANSPORTS:
        raise ValueError(f"unknown transport {transport!r}: {' or '.join(TRANSPORTS)}")
    play = TRANSPORTS[transport]
    jobs = [(Plan(agent, envs, difficulties, episodes, seed, forced_voice=voice), catalog, root / agent, concurrency)
            for agent in agents]
    if workers <= 1:
        for job in jobs:
            play(*job)
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(play, *zip(*jobs)))
    if transport == "memory":
        score_runs([root / agent for agent in agents], catalog, max(1, workers))
    return {agent: read_rewards(root / agent) for agent in agents}


def _play_memory(plan: Plan, catalog: Path, run_root: Path, concurrency: int) -> None:
    anyio.run(run_memory, plan, catalog, run_root, concurrency, lambda: None)


def play_local(plan: Plan, catalog: Path, run_root: Path, concurrency: int = 1) -> None:
    """`plan` in process, one episode after another (`concurrency` is the memory transport's),
    each episode's folder, its reward.json included, written into `run_root`."""
    # Imported here: the memory transport's workers need none of the in-process shop.
    from verishop.local import LocalShop
    from verishop.local.session import play_scripted

    run_root.mkdir(parents=True, exist_ok=True)

    async def play_plan(shop: LocalShop) -> None:
        for env, difficulty, seed in plan.episodes_to_play():
            spec: dict[str, Any] = ({"env": env, "difficulty": difficulty, "seed": seed} if plan.forced_voice is None
                                    else {"scenario": generate(env, difficulty, seed, shop.catalog,
                                                               voice=plan.forced_voice)})
            episode = await play_scripted(shop, plan.agent, **spec)
            await episode.areward()
            episode.write_run(run_root)

    with LocalShop(catalog) as shop:
        anyio.run(play_plan, shop)


TRANSPORTS = {"memory": _play_memory, "local": play_local}


def short_env(env_id: str) -> str:
    return env_id.split("-v")[0]


def table(rewards: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Cell]]:
    """Per agent, per environment (short name): episodes, solved and mean total."""
    cells: dict[str, dict[str, Cell]] = {}
    for agent, rs in rewards.items():
        by_env: dict[str, list[dict]] = defaultdict(list)
        for r in rs:
            by_env[short_env(r["env_id"])].append(r)
        cells[agent] = {env: Cell(len(items), sum(bool(r.get("is_correct")) for r in items),
                                  round(sum(r.get("total", -1.0) for r in items) / len(items), 4))
                        for env, items in by_env.items()}
    return cells


def bar(cells: dict[str, dict[str, Cell]], env: str, agents: tuple[str, ...] = BAR_AGENTS) -> tuple[int, float]:
    """The bar in `env`: the most episodes solved and the highest mean total among greedy and the
    simple heuristics (each figure the better agent's: a heuristic can solve more while greedy
    earns more). Agents not played are left out."""
    played = [cells[a][env] for a in agents if a in cells and env in cells[a]]
    if not played:
        raise ValueError(f"no bar agent was played in {env}: play greedy or one of {', '.join(agents[1:])}")
    return max(c.solved for c in played), max(c.mean_total for c in played)


def above_the_bar(cells: dict[str, dict[str, Cell]], hostile: tuple[str, ...],
                  envs: tuple[str, ...] = ENVS) -> list[str]:
    """Each hostile agent that solves more, or earns a higher mean total, than the bar somewhere."""
    found = []
    for agent in hostile:
        for env in envs:
            if agent in cells and env in cells[agent]:
                solved, total = bar(cells, env)
                mine = cells[agent][env]
                if mine.solved > solved or mine.mean_total > total + 1e-9:
                    found.append(f"{agent} in {env}: {mine.solved} solved, {mine.mean_total:+.3f} "
                                 f"(bar {solved}, {total:+.3f})")
    return found


def render(cells: dict[str, dict[str, Cell]], envs: tuple[str, ...] = ENVS) -> str:
    """A markdown table: agents × environments, solved % and mean total."""
    lines = ["| agent | " + " | ".join(envs) + " |", "|---|" + "---|" * len(envs)]
    for agent, row in cells.items():
        lines.append(f"| {agent} | " + " | ".join(
            f"{row[e].solved_share:.0%} / {row[e].mean_total:+.3f}" if e in row else "-" for e in envs) + " |")
    return "\n".join(lines)
