"""The environments, one folder each, and the one registry that names them.

Each environment lives in `verishop/envs/<name>/` with one file per role, the same names in
every folder:

    generator.py  generate(difficulty, seed, catalog, shared=None) -> Scenario   (shop side)
    customer.py   reply(state, goal, message, submission, world) -> CustomerTurn  (shop side)
                  details(goal) -> [Detail]: what the opening held back, by topic
    check.py      score(episode, options) -> TaskScore                            (verifier side)
                  charges(episode, goal, check, checks) -> [Requirement]
                  contradiction(episode, goal) -> str | None
    oracle.py     play(shop, goal): reads the hidden goal, plays the shortest correct episode
    greedy.py     matches(text), play(shop, text): the goal-blind baseline (optional)
    answers.py    how its typed answers are read, shared by customer and check (optional)
    examples.jsonl  a few committed rollouts: scenario, transcript, the reward they earn
                  (`make examples` records them; `verishop.envs.examples` re-scores them)
    test_<name>.py  its own tests

`ENVIRONMENTS` below holds one line per environment; every other per-environment table (the
server's generators and customers, the verifier's checks and charges, the oracles and
baselines, the red team's list, `--env` names, collections) is derived from it. This module
imports only the scenario core: each role is imported by name, on first use, by the side that
needs it (`EnvSpec.role`), so the server never loads a check and the verifier never loads an
oracle (tests/test_layout.py, tests/test_role_imports.py).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import keyword
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Literal

from verishop.scenarios.models import (
    BundleGoal,
    CartGoal,
    CompensationGoal,
    CheckoutGoal,
    ExchangeGoal,
    HandoverGoal,
    JourneyGoal,
    OrderChangeGoal,
    PolicyGoal,
    ProductDiscoveryGoal,
    ReturnGoal,
    StatusGoal,
    SubstitutionGoal,
)

if TYPE_CHECKING:
    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.models import Scenario

Role = Literal["generator", "customer", "check", "oracle", "greedy", "answers"]
ROLES: tuple[Role, ...] = ("generator", "customer", "check", "oracle", "greedy", "answers")


@functools.cache
def _module(name: str) -> ModuleType:
    """`importlib.import_module`, remembered: every episode asks for its environment's check and
    customer modules (a failed import is not remembered: it is asked again)."""
    return importlib.import_module(name)


@dataclass(frozen=True)
class EnvSpec:
    """One registered environment: one line of `ENVIRONMENTS`."""

    env_id: str
    """The versioned id, e.g. `pd-v9`, the results' key: a new version whenever what a seed
    generates or how it is scored changes. Its name is the part before `-v`."""
    title: str
    """What it is, e.g. `Product discovery`."""
    goal: type
    """Its goal model (in `verishop.scenarios.models`, a member of the `Goal` union)."""
    draws_as: str | None = None
    """A version that changed only how episodes are scored keeps the episode's random draws (the
    customer's words, the search's retrieval noise) of the version it re-scores, named here, so
    that its episodes play exactly as before: only the reward differs."""
    voiced: bool = False
    """Whether its customer speaks in a voice drawn for each episode (issue 35,
    `verishop.scenarios.customers.voices`); the versions before voices speak the plain voice only."""
    package: str | None = None
    """Where its folder is imported from; by default `verishop.envs.<name>` (a name that is a
    Python keyword, `return`, takes PEP 8's trailing underscore: `verishop.envs.return_`)."""

    @property
    def name(self) -> str:
        """Its one spelling: the folder, `--env`, the red team's column (`pd`, `return`)."""
        return self.env_id.rsplit("-v", 1)[0]

    @property
    def short_name(self) -> str:
        """The name, as the command line and the control API have always called it."""
        return self.name

    @property
    def kind(self) -> str:
        """Its goal's `kind` (the tag its goal is serialised with in scenario files)."""
        return self.goal.model_fields["kind"].default

    @property
    def folder(self) -> str:
        """The import name of its folder."""
        if self.package is not None:
            return self.package
        return f"verishop.envs.{self.name}{'_' if keyword.iskeyword(self.name) else ''}"

    @property
    def module(self) -> str:
        """The module holding its `generate` function."""
        return f"{self.folder}.generator"

    def role(self, role: Role) -> ModuleType:
        """Its module for `role`, imported on first use; `LookupError` if it has none."""
        try:
            return _module(f"{self.folder}.{role}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{self.folder}.{role}":
                raise
            raise LookupError(f"environment {self.env_id} has no {role} ({self.folder}.{role})") from None

    def has(self, role: Role) -> bool:
        """Whether its folder has a module for `role`."""
        return importlib.util.find_spec(f"{self.folder}.{role}") is not None

    @property
    def plain_generate(self) -> Callable[..., Scenario]:
        """Its folder's generator, `generate(difficulty, seed, catalog, shared=None) -> Scenario`
        (imported on first use): the task in the plain voice, under the id the folder's generator
        writes. A request inside another episode (a journey's, a hand-over's granted one) is drawn
        with it: the episode gives the voice, once, to all of them."""
        return self.role("generator").generate

    @property
    def generate(self) -> Callable[..., Scenario]:
        """Its generator: `generate(difficulty, seed, catalog) -> Scenario` of this id, in the
        customer's voice drawn from the seed if it is a voiced version (no minefields: those are
        `verishop.envs.generate`'s)."""
        if not self.voiced:
            return self.plain_generate

        def voiced(difficulty: int, seed: int, catalog: CatalogReader, shared: object = None,
                   **options: object) -> Scenario:
            from verishop.scenarios.voices import give_voice

            return give_voice(self.plain_generate(difficulty, seed, catalog, shared, **options), self.env_id)

        return voiced


ENVIRONMENTS: tuple[EnvSpec, ...] = (
    EnvSpec("pd-v10", "Product discovery", ProductDiscoveryGoal, draws_as="pd-v5", voiced=True),
    EnvSpec("cart-v7", "Cart building", CartGoal, draws_as="cart-v2", voiced=True),
    EnvSpec("sub-v9", "Substitution", SubstitutionGoal, draws_as="sub-v4", voiced=True),
    EnvSpec("policy-v7", "Store policy questions", PolicyGoal, draws_as="policy-v3", voiced=True),
    EnvSpec("return-v9", "Returns", ReturnGoal, draws_as="return-v4", voiced=True),
    EnvSpec("status-v8", "Order status", StatusGoal, draws_as="status-v3", voiced=True),
    EnvSpec("bundle-v7", "Project bundle", BundleGoal, draws_as="bundle-v2", voiced=True),
    EnvSpec("journey-v12", "Multi-intent journey", JourneyGoal, draws_as="journey-v11", voiced=True),
    EnvSpec("change-v3", "Order changes", OrderChangeGoal, draws_as="change-v1", voiced=True),
    EnvSpec("exchange-v3", "Exchanges", ExchangeGoal, draws_as="exchange-v1", voiced=True),
    EnvSpec("handover-v3", "Restraint and hand-over", HandoverGoal, draws_as="handover-v1", voiced=True),
    EnvSpec("compensation-v2", "Compensation", CompensationGoal, draws_as="compensation-v1", voiced=True),
    EnvSpec("checkout-v2", "Checkout with vouchers", CheckoutGoal, draws_as="checkout-v1", voiced=True),
)
"""The current version of every environment, one line each, in the order results list them; each
customer speaks in a voice drawn per episode (issue 35). Earlier versions are not registered (the
verifier still scores their scenario files, by name), but for the plain-voiced ones below."""

PLAIN_VOICED: tuple[EnvSpec, ...] = (
    EnvSpec("pd-v9", "Product discovery", ProductDiscoveryGoal, draws_as="pd-v5"),
    EnvSpec("cart-v6", "Cart building", CartGoal, draws_as="cart-v2"),
    EnvSpec("sub-v8", "Substitution", SubstitutionGoal, draws_as="sub-v4"),
    EnvSpec("policy-v6", "Store policy questions", PolicyGoal, draws_as="policy-v3"),
    EnvSpec("return-v8", "Returns", ReturnGoal, draws_as="return-v4"),
    EnvSpec("status-v7", "Order status", StatusGoal, draws_as="status-v3"),
    EnvSpec("bundle-v6", "Project bundle", BundleGoal, draws_as="bundle-v2"),
    EnvSpec("journey-v11", "Multi-intent journey", JourneyGoal),
    EnvSpec("change-v2", "Order changes", OrderChangeGoal, draws_as="change-v1"),
    EnvSpec("exchange-v2", "Exchanges", ExchangeGoal, draws_as="exchange-v1"),
    EnvSpec("handover-v2", "Restraint and hand-over", HandoverGoal, draws_as="handover-v1"),
    EnvSpec("compensation-v1", "Compensation", CompensationGoal),
    EnvSpec("checkout-v1", "Checkout with vouchers", CheckoutGoal),
)
"""The versions before voices (issue 35), still generated and played by their exact id
(`--env pd-v9`), byte for byte as before: their customer speaks the plain voice. A name (`pd`) is
the current version."""

REGISTRY: dict[str, EnvSpec] = {spec.env_id: spec for spec in ENVIRONMENTS}
"""The registered environments by versioned id."""

_PLAIN: dict[str, EnvSpec] = {spec.env_id: spec for spec in PLAIN_VOICED}


def _known(env_id: str) -> EnvSpec | None:
    """The spec of a current id, or of a plain-voiced earlier one."""
    return REGISTRY.get(env_id) or _PLAIN.get(env_id)

# Training collections (reference §2): C1 = {PD}, C2 = C1 + {SUB}, C4 = C2 + {CART, RETURN}, C8 = the
# reference's eight; C10 = C8 + the order changes and exchanges of issue 32; C11 = C10 + restraint and
# hand-over (issue 33); C12 = every registered one, each carrying the minefields its difficulty
# overlays (identity, other customers' data, injections: `verishop.minefields`, issue 33), and the
# compensation and checkout with vouchers of issue 34 (in C12 only).
COLLECTIONS: dict[str, tuple[str, ...]] = {
    "C1": ("pd",),
    "C2": ("pd", "sub"),
    "C4": ("pd", "sub", "cart", "return"),
    "C8": ("pd", "cart", "sub", "policy", "return", "status", "bundle", "journey"),
    "C10": ("pd", "cart", "sub", "policy", "return", "status", "bundle", "journey", "change", "exchange"),
    "C11": ("pd", "cart", "sub", "policy", "return", "status", "bundle", "journey", "change", "exchange", "handover"),
    "C12": tuple(spec.name for spec in ENVIRONMENTS),
}
"""Training collections by name: the names of their environments."""


def draw_stream(env_id: str) -> str:
    """The name an episode of `env_id` seeds its random draws with (see `EnvSpec.draws_as`); an
    id no longer registered (an old scenario file) draws as itself."""
    spec = _known(env_id)
    return spec.draws_as or env_id if spec is not None else env_id


def get_env(name: str) -> EnvSpec:
    """Look an environment up by versioned id (`pd-v10`, or a plain-voiced `pd-v9`) or name (`pd`:
    the current version)."""
    key = name.strip().lower()
    for spec in REGISTRY.values():
        if key in (spec.env_id, spec.name):
            return spec
    if key in _PLAIN:
        return _PLAIN[key]
    known = ", ".join(f"{s.name} ({s.env_id})" for s in REGISTRY.values())
    raise KeyError(f"unknown environment {name!r}; known: {known}")


def spec_of(env_id: str) -> EnvSpec:
    """The environment that scores and plays a scenario of `env_id`: the registered one of that
    id, else (an earlier version's file) the current one of its name."""
    spec = _known(env_id)
    if spec is not None:
        return spec
    name = env_id.rsplit("-v", 1)[0]
    for spec in REGISTRY.values():
        if spec.name == name:
            return spec
    raise KeyError(f"no registered environment for {env_id!r}")


def spec_for_goal(goal: object) -> EnvSpec:
    """The environment whose goal model `goal` is (a journey's requests carry no env id)."""
    for spec in REGISTRY.values():
        if isinstance(goal, spec.goal):
            return spec
    raise KeyError(f"no registered environment has the goal {type(goal).__name__}")


def spec_for(scenario: Scenario) -> EnvSpec:
    """The environment that serves, plays and scores `scenario`: its env id's (`spec_of`); a
    journey's view of one request, whose goal is another environment's, by the goal's."""
    try:
        spec = spec_of(scenario.env_id)
    except KeyError:
        return spec_for_goal(scenario.goal)
    return spec if isinstance(scenario.goal, spec.goal) else spec_for_goal(scenario.goal)


def collection(name: str) -> tuple[EnvSpec, ...]:
    """The registered environments of a collection (C1, C2, C4, C8)."""
    try:
        members = COLLECTIONS[name.strip().upper()]
    except KeyError:
        raise KeyError(f"unknown collection {name!r}; known: {', '.join(COLLECTIONS)}") from None
    return tuple(get_env(short) for short in members if any(s.name == short for s in REGISTRY.values()))


def generate(env: str, difficulty: int, seed: int, catalog: CatalogReader, voice: str | None = None) -> Scenario:
    """Generate the scenario of `(env, difficulty, seed)` on `catalog`.

    The same arguments on the same catalog give the same scenario, byte for byte, on every machine
    (one seeded generator, no global random, no wall clock); `verishop generate` prints one as JSON.

    Args:
        env: a name (`pd`: the current version) or a versioned id (`pd-v10`, or a plain-voiced
            `pd-v9`); `KeyError` names the known ones.
        difficulty: 0 to 12; it sets the twelve difficulty axes.
        seed: any integer.
        catalog: an open catalog (`verishop.scenarios.catalog.reader.CatalogReader`).
        voice: the customer's voice (`verishop.scenarios.voices.VOICES`) instead of the one drawn
            from the seed; only a voiced version has voices (`ValueError` otherwise).

    Returns:
        The scenario, hidden goal included: what the server serves and the verifier scores, with
        its customer's voice (a voiced version) and the minefields its difficulty overlays on the
        task (`verishop.minefields`).
    """
    from verishop.scenarios.catalog.reader import CatalogError
    from verishop.scenarios.voices import check_voice, give_voice

    from verishop.minefields import overlay

    spec = get_env(env)
    if voice is not None and not spec.voiced:
        check_voice(voice)
        if voice != "plain":
            raise ValueError(f"{spec.env_id} speaks only the plain voice (voices came with its next version)")
    try:
        scenario = spec.plain_generate(difficulty, seed, catalog)
        if spec.voiced:
            scenario = give_voice(scenario, spec.env_id, voice)
        return overlay(scenario, catalog)
    except CatalogError as exc:
        # Every refusal names the environment it refuses (an imported catalog may run some only): a
        # voiced version, by its own id, not the one its folder's generator writes.
        message = str(exc)
        if spec.voiced:
            message = message.replace(str(getattr(spec.role("generator"), "ENV_ID", spec.env_id)), spec.env_id)
        if spec.env_id in message:
            raise CatalogError(message) from None
        raise CatalogError(f"{spec.env_id}: {message}") from None
