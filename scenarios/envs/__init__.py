"""The environment registry: versioned ids mapped to generators, and the training collections.

A generator is a pure function of `(difficulty, seed, catalog)` living in
`scenarios/envs/<module>.py` (a `generate` function and an `ENV_ID`); changing what a seed
produces means registering a new version.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from verishop.scenarios.catalog.reader import CatalogError, CatalogReader
from verishop.scenarios.models import Scenario


@dataclass(frozen=True)
class EnvSpec:
    """One registered environment."""

    env_id: str
    """The versioned id, e.g. `pd-v7`: a new version whenever what a seed generates or how it is scored changes."""
    short_name: str
    """The name without a version, e.g. `pd`, as the command line and the control API take it."""
    title: str
    """What it is, e.g. `Product discovery`."""
    module: str
    """The module holding its `generate` function."""
    draws_as: str | None = None
    """A version that changed only how episodes are scored keeps the episode's random draws (the
    customer's words, the search's retrieval noise) of the version it re-scores, named here, so
    that its episodes play exactly as before: only the reward differs."""

    @property
    def generate(self) -> Callable[[int, int, CatalogReader], Scenario]:
        """Its generator: `generate(difficulty, seed, catalog) -> Scenario` (imported on first use)."""
        return importlib.import_module(self.module).generate


REGISTRY: dict[str, EnvSpec] = {
    spec.env_id: spec
    for spec in (
        EnvSpec("pd-v7", "pd", "Product discovery", "verishop.scenarios.envs.product_discovery",
                draws_as="pd-v5"),
        EnvSpec("cart-v4", "cart", "Cart building", "verishop.scenarios.envs.cart",
                draws_as="cart-v2"),
        EnvSpec("sub-v6", "sub", "Substitution", "verishop.scenarios.envs.substitution",
                draws_as="sub-v4"),
        EnvSpec("policy-v5", "policy", "Store policy questions", "verishop.scenarios.envs.policy",
                draws_as="policy-v3"),
        EnvSpec("return-v6", "return", "Returns", "verishop.scenarios.envs.returns",
                draws_as="return-v4"),
        EnvSpec("status-v5", "status", "Order status", "verishop.scenarios.envs.order_status",
                draws_as="status-v3"),
        EnvSpec("bundle-v4", "bundle", "Project bundle", "verishop.scenarios.envs.bundle",
                draws_as="bundle-v2"),
        EnvSpec("journey-v8", "journey", "Multi-intent journey", "verishop.scenarios.envs.journey",
                draws_as="journey-v6"),
    )
}
"""The current version of every environment, by versioned id. Earlier versions are not
registered (the verifier still scores their scenario files)."""

# Training collections (reference §2): C1 = {PD}, C2 = C1 + {SUB}, C4 = C2 + {CART, RETURN}, C8 = all.
COLLECTIONS: dict[str, tuple[str, ...]] = {
    "C1": ("pd",),
    "C2": ("pd", "sub"),
    "C4": ("pd", "sub", "cart", "return"),
    "C8": ("pd", "sub", "cart", "return", "status", "policy", "bundle", "journey"),
}
"""Training collections by name: the short names of their environments."""


def draw_stream(env_id: str) -> str:
    """The name an episode of `env_id` seeds its random draws with (see `EnvSpec.draws_as`); an
    id no longer registered (an old scenario file) draws as itself."""
    spec = REGISTRY.get(env_id)
    return spec.draws_as or env_id if spec is not None else env_id


def get_env(name: str) -> EnvSpec:
    """Look an environment up by versioned id (`pd-v3`) or short name (`pd`)."""
    key = name.strip().lower()
    for spec in REGISTRY.values():
        if key in (spec.env_id, spec.short_name):
            return spec
    known = ", ".join(f"{s.short_name} ({s.env_id})" for s in REGISTRY.values())
    raise KeyError(f"unknown environment {name!r}; known: {known}")


def collection(name: str) -> tuple[EnvSpec, ...]:
    """The registered environments of a collection (C1, C2, C4, C8)."""
    try:
        members = COLLECTIONS[name.strip().upper()]
    except KeyError:
        raise KeyError(f"unknown collection {name!r}; known: {', '.join(COLLECTIONS)}") from None
    return tuple(get_env(short) for short in members if any(s.short_name == short for s in REGISTRY.values()))


def generate(env: str, difficulty: int, seed: int, catalog: CatalogReader) -> Scenario:
    """Generate the scenario of `(env, difficulty, seed)` on `catalog`.

    The same arguments on the same catalog give the same scenario, byte for byte, on every machine
    (one seeded generator, no global random, no wall clock); `verishop generate` prints one as JSON.

    Args:
        env: a short name (`pd`) or a versioned id (`pd-v7`); `KeyError` names the known ones.
        difficulty: 0 to 12; it sets the twelve difficulty axes.
        seed: any integer.
        catalog: an open catalog (`verishop.scenarios.catalog.reader.CatalogReader`).

    Returns:
        The scenario, hidden goal included: what the server serves and the verifier scores.
    """
    spec = get_env(env)
    try:
        return spec.generate(difficulty, seed, catalog)
    except CatalogError as exc:
        # Every refusal names the environment it refuses (an imported catalog may run some only).
        if spec.env_id in str(exc):
            raise
        raise CatalogError(f"{spec.env_id}: {exc}") from None
