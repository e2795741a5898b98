"""The environment registry: versioned ids mapped to generators.

A generator is a pure function of `(difficulty, seed, catalog)`; changing what a seed
produces means registering a new version.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scenarios.catalog.reader import CatalogReader
from scenarios.envs import cart, product_discovery
from scenarios.models import Scenario


@dataclass(frozen=True)
class EnvSpec:
    env_id: str
    short_name: str
    title: str
    generate: Callable[[int, int, CatalogReader], Scenario]


REGISTRY: dict[str, EnvSpec] = {
    spec.env_id: spec
    for spec in (
        EnvSpec(product_discovery.ENV_ID, "pd", "Product discovery", product_discovery.generate),
        EnvSpec(cart.ENV_ID, "cart", "Cart building", cart.generate),
    )
}


def get_env(name: str) -> EnvSpec:
    """Look an environment up by versioned id (`pd-v1`) or short name (`pd`)."""
    key = name.strip().lower()
    for spec in REGISTRY.values():
        if key in (spec.env_id, spec.short_name):
            return spec
    known = ", ".join(f"{s.short_name} ({s.env_id})" for s in REGISTRY.values())
    raise KeyError(f"unknown environment {name!r}; known: {known}")


def generate(env: str, difficulty: int, seed: int, catalog: CatalogReader) -> Scenario:
    return get_env(env).generate(difficulty, seed, catalog)
