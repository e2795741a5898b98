"""Mutation oracles: the oracle's play (verishop.agents.oracles) with exactly one requirement
broken, played through the real MCP server against the real simulated customer.

Each mutant is `async play(shop, goal)`; the helpers find what a mutant needs in the episode's
world (a product that misses exactly one constraint, a sold-out one that meets them all)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client

from verishop.agents.oracles import minefield_preludes
from verishop.agents.session import ShopSession
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.tools import create_server
from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.constraints import describe, satisfies
from verishop.scenarios.models import Constraint, Scenario
from verishop.scenarios.stock import EpisodeStock
from verishop.verifier.models import Reward
from verishop.verifier.runner import Verifier

Play = Callable[[ShopSession, Any], Awaitable[None]]


async def play_scored(hub: EpisodeHub, verifier: Verifier, scenario: Scenario, play: Play, *,
                      preludes: bool = True) -> Reward:
    """Open the scenario on the real server, play it over MCP, close it and score its files. First
    what the minefields the scenario carries ask of the oracle (identifying the customer: issue
    33), unless `preludes` is False: a mutant of the task's play breaks the task, not a minefield."""
    episode = await hub.open(scenario)
    try:
        async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
            session = ShopSession(client)
            if preludes and not getattr(play, "runs_preludes", False):  # oracle_for's play runs its own
                await minefield_preludes(session, scenario)
            await play(session, scenario.goal)
    finally:
        if episode.episode_id in hub.episodes:
            await hub.close(episode.episode_id, "agent_stopped")
    return verifier.score(Path(hub.runs_dir) / episode.episode_id)


def charged(reward: Reward) -> set[tuple[str, str, str]]:
    return {(f.requirement, f.source, f.actor) for f in reward.failed_requirements}


def world_products(reader: CatalogReader, scenario: Scenario, category_id: str) -> list[Product]:
    """Every product of a category as the episode's world has it (its stock changes applied)."""
    stock = EpisodeStock.of_scenario(scenario)
    extras = [Product(**e.model_dump()) for e in scenario.extra_products if e.category_id == category_id]
    products = [stock.apply(p) for p in [*extras, *reader.in_category(category_id)]]
    return [p for p in products if p is not None]


def category_of(constraints: tuple[Constraint, ...], fallback: str) -> str:
    return next((str(c.value) for c in constraints if c.kind == "category"), fallback)


def misfit(products: list[Product], constraints: tuple[Constraint, ...], broken: Constraint,
           avoid: set[str]) -> Product | None:
    """An in-stock product that misses `broken` and meets every other constraint."""
    return next((p for p in products if p.stock > 0 and p.product_id not in avoid and not satisfies(p, broken)
                 and all(satisfies(p, c) for c in constraints if c is not broken)), None)


def sold_out_fit(products: list[Product], constraints: tuple[Constraint, ...], avoid: set[str]) -> Product | None:
    """A sold-out product that meets every constraint."""
    return next((p for p in products if p.stock <= 0 and p.product_id not in avoid
                 and all(satisfies(p, c) for c in constraints)), None)


async def ask_until(shop: ShopSession, said: str, question: str) -> None:
    """Ask `question`, which names the topic of `said`: a precise question tells its detail at
    once (issue 28). `said` is not looked for in the reply, whose typos may hide it; the
    verifier reads the customer's words before the noise."""
    await shop.call("respond_to_customer", message=question)


def recommend_list(ids: list[str], before: Callable[[ShopSession], Awaitable[None]] | None = None) -> Play:
    """The PD/SUB/bundle oracle's play with its own list: look every ID up, then recommend."""
    async def play(shop: ShopSession, goal: Any) -> None:
        if before is not None:
            await before(shop)
        for start in range(0, len(ids), 10):
            await shop.call("compare_products", product_ids=ids[start:start + 10])
        await shop.call("respond_to_customer", message="These fit everything you asked.", recommended_product_ids=ids)
    return play


class KeepOpen:
    """A session that drops `done=true` (a journey's request must not close the conversation)."""

    def __init__(self, shop: ShopSession):
        self.shop = shop

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        if tool == "respond_to_customer":
            arguments.pop("done", None)
        return await self.shop.call(tool, **arguments)


def words(c: Constraint) -> str:
    return describe(c)
