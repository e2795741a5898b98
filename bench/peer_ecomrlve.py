"""The peer driver of `bench/small_shop.py`: the public EcomRLVE-Gym code on verishop's job.

`python bench/small_shop.py --peer PATH` imports the package of the EcomRLVE-Gym checkout at PATH
into the bench's own interpreter (so both run on the same Python; the peer wants 3.13: run the
bench from a 3.13 environment that has verishop and the checkout's requirements), replaces its LLM
calls with a stub for the whole run, and plays the same job as verishop, interleaved with it.

The peer is `owlgebra-ai/ShopRLVE-Gym` (the project calls itself EcomRLVE-Gym; fetch it and take
its source with `git --git-dir ... archive HEAD | tar x`). It runs on this bench's Python 3.11 with
its light requirements (`pip install numpy requests pyyaml`); its embedding model is left in its own
debug mode (hashed vectors, what it uses for a synthetic catalog) and its one LLM function
(`_ollama_generate`, the Ollama call) is stubbed to return None, so it falls back to its templates as
it does when no model is up. The default entry points are this module's own adapters below
(`peer_ecomrlve:make_env`, ...), each a few lines over the peer's public `EcomRLVEEnv`. Each is a
dotted name (`module.attribute` or `module:attribute`); pass `--peer-entry NAME=module:attribute`
to the bench to use another. If one does not resolve, the bench stops before timing anything and
names it. The contract, entry by entry:

| entry | called as | must |
|---|---|---|
| `make_env` | `make_env(catalog_size, seed)` | build (or load) the product-discovery environment over a catalog of `catalog_size` products; called once per size, not timed; returns an object with Gymnasium's `reset(seed=...)` and `step(action)` |
| `search_action` | `search_action(arguments)` | the `env.step` action for one catalog search tool call; `arguments` are verishop's `search_catalog` arguments (query, category_id, brand, price bounds, min_rating, max_ship_days, attributes, in_stock_only, limit, sort_by): map what the peer's search accepts |
| `answer_action` | `answer_action(observation)` | the `env.step` action that recommends products taken from `observation` (the search step's observation: the first item of the tuple `step` returns) and ends the episode; that step's reward is the peer's verification |
| `search_direct` | `search_direct(env, arguments)` | the peer's search function itself, as its search tool calls it, without `env.step` |
| `llm` | (replaced) | dotted names of every function through which the peer calls an LLM (comma-separated with `--peer-entry llm=a.b:f,a.c:g`); each is replaced by the stub (`StubLLM`) for the run and restored after; name the attribute where the caller looks it up (`ecomrlve.env:chat` if `env.py` did `from .llm import chat`) |

The job (the same as verishop's in `small_shop.py`): creation is `env.reset(seed=...)`; the search
step is `env.step(search_action(arguments))` on a fresh episode; the scripted episode is reset,
search step, answer step.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The adapters below, over the peer's `ecom_rlve` package (see the table above).
ENTRY_POINTS: dict[str, str] = {
    "make_env": "peer_ecomrlve:make_env",
    "search_action": "peer_ecomrlve:search_action",
    "answer_action": "peer_ecomrlve:answer_action",
    "search_direct": "peer_ecomrlve:search_direct",
    "llm": "ecom_rlve.simulator.llm_backend:_ollama_generate",
}
CALLABLE_ENTRIES = ("make_env", "search_action", "answer_action", "search_direct")
STUB_REPLY = None  # what the peer's Ollama call returns when no model answers: its templates take over
PEER_ENV = "PD"  # the peer's product-discovery environment
# verishop's search_catalog arguments -> the peer's catalog.search filter keys
FILTERS = {"brand": "brand", "price_min": "price_min", "price_max": "price_max", "min_rating": "rating_min",
           "max_ship_days": "ship_days_max"}


class PeerEpisodes:
    """The peer's `EcomRLVEEnv` on the bench's job: `reset(seed=)` opens a product-discovery episode
    at a difficulty that turns with the seed, as verishop's side does; `step(action)` is the peer's."""

    def __init__(self, env: Any):
        self.env = env

    def reset(self, seed: int) -> Any:
        return self.env.reset(env_id=PEER_ENV, difficulty=seed % 13, seed=seed)

    def step(self, action: str) -> Any:
        return self.env.step(action)


def make_env(catalog_size: int, seed: int) -> PeerEpisodes:
    """The peer's environment over its own synthetic catalog of `catalog_size` products."""
    import logging

    try:
        from ecom_rlve.server.openenv import EcomRLVEEnv
    except ImportError as exc:
        raise PeerContractError(f"the checkout has no ecom_rlve.server.openenv.EcomRLVEEnv ({exc}); pass "
                                f"--peer-entry make_env=module:function for another layout") from None

    logging.getLogger("ecom_rlve").setLevel(logging.ERROR)  # it logs a warning per stubbed LLM call
    EcomRLVEEnv.validate_rewards = False  # a debug assertion, not part of its reward
    EcomRLVEEnv.dump_dir = ""  # a debug lever, on by default: a JSON trace file per episode
    return PeerEpisodes(EcomRLVEEnv(collection="C1", seed=seed, config={"n_synthetic_products": catalog_size}))


def search_action(arguments: dict) -> str:
    """One `catalog.search` call, as the peer's agent writes it (its query is required)."""
    import json

    filters = {theirs: arguments[ours] for ours, theirs in FILTERS.items() if arguments.get(ours) is not None}
    args = {"query": arguments.get("query") or arguments.get("category_id") or "products",
            "top_k": int(arguments.get("limit") or 10), "filters": filters or None}
    return json.dumps({"assistant_message": "Let me look.", "tool_calls": [{"name": "catalog.search", "args": args}]})


def answer_action(observation: Any) -> str:
    """Recommend the products the search returned and end the episode."""
    import json

    found = [card["product_id"] for entry in observation.tool_results for card in (entry.get("result") or [])
             if isinstance(card, dict) and "product_id" in card]
    return json.dumps({"assistant_message": "These fit what you asked for.",
                       "answer": {"env": PEER_ENV, "recommended_product_ids": found[:5], "done": True}})


def search_direct(env: PeerEpisodes, arguments: dict) -> Any:
    """The peer's search function itself, on the open episode's state, as its tool registry calls it."""
    from ecom_rlve.tools.catalog import catalog_search

    action = __import__("json").loads(search_action(arguments))["tool_calls"][0]["args"]
    return catalog_search(action["query"], action["filters"], action["top_k"], state=env.env._state)


class PeerContractError(RuntimeError):
    """The checkout does not offer what the driver calls (the message says which entry and how to adapt)."""


@dataclass
class StubLLM:
    """Stands in for every LLM call of the peer: a fixed reply, counted."""

    reply: str | None = STUB_REPLY
    calls: int = 0

    def __call__(self, *args: Any, **kwargs: Any) -> str | None:
        self.calls += 1
        return self.reply


@dataclass
class Peer:
    """The checkout's entry points, resolved; `stubbed()` replaces its LLM calls while it runs."""

    path: Path
    make_env: Callable[[int, int], Any]
    search_action: Callable[[dict], Any]
    answer_action: Callable[[Any], Any]
    search_direct: Callable[[Any, dict], Any]
    llm_targets: list[tuple[Any, str]] = field(default_factory=list)
    stub: StubLLM = field(default_factory=StubLLM)

    @contextmanager
    def stubbed(self) -> Iterator[StubLLM]:
        originals = [(owner, name, getattr(owner, name)) for owner, name in self.llm_targets]
        try:
            for owner, name, _ in originals:
                setattr(owner, name, self.stub)
            yield self.stub
        finally:
            for owner, name, original in originals:
                setattr(owner, name, original)

    def env(self, catalog_size: int, seed: int) -> Any:
        env = self.make_env(catalog_size, seed)
        missing = [m for m in ("reset", "step") if not callable(getattr(env, m, None))]
        if missing:
            raise PeerContractError(f"make_env returned a {type(env).__name__} without {' and '.join(missing)}(): "
                                    f"the driver plays Gymnasium's reset(seed=...) / step(action) "
                                    f"(see bench/peer_ecomrlve.py)")
        return env

    # The job's steps, one place each, so that an adaptation touches one line.
    def create(self, env: Any, seed: int) -> Any:
        return env.reset(seed=seed)

    def search_step(self, env: Any, arguments: dict) -> Any:
        return env.step(self.search_action(arguments))

    def answer_step(self, env: Any, observation: Any) -> Any:
        return env.step(self.answer_action(observation))

    def search(self, env: Any, arguments: dict) -> Any:
        return self.search_direct(env, arguments)


def _split(dotted: str) -> tuple[str, str]:
    if ":" in dotted:
        module, _, attribute = dotted.partition(":")
    else:
        module, _, attribute = dotted.rpartition(".")
    if not module or not attribute:
        raise PeerContractError(f"{dotted!r} is not a dotted name like 'package.module:function'")
    return module, attribute


def _owner_of(dotted: str, entry: str, path: Path) -> tuple[Any, str]:
    """The module holding `dotted`'s attribute, and the attribute's name (checked to exist)."""
    module_name, attribute = _split(dotted)
    how = (f"adapt ENTRY_POINTS[{entry!r}] in bench/peer_ecomrlve.py, or pass "
           f"--peer-entry {entry}=module:attribute")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise PeerContractError(f"the checkout at {path} has no module {module_name!r} (entry {entry!r}: "
                                f"{dotted}): {exc}; {how}") from None
    if not hasattr(module, attribute):
        raise PeerContractError(f"the checkout at {path} has no {module_name}.{attribute} (entry {entry!r}); {how}")
    return module, attribute


def load_peer(path: Path, overrides: dict[str, str] | None = None) -> Peer:
    """The peer at `path` (a checkout whose top folder, or its `src/`, holds the package), with its
    entry points resolved; raises PeerContractError naming the first one missing."""
    path = Path(path).expanduser().resolve()
    if not path.is_dir():
        raise PeerContractError(f"--peer {path}: no such directory (give a checkout of EcomRLVE-Gym)")
    entries = {**ENTRY_POINTS, **(overrides or {})}
    unknown = set(entries) - set(ENTRY_POINTS)
    if unknown:
        raise PeerContractError(f"unknown --peer-entry {', '.join(sorted(unknown))}; the entries are "
                                f"{', '.join(ENTRY_POINTS)}")
    for root in (path / "src", path):
        if root.is_dir() and str(root) not in sys.path:
            sys.path.insert(0, str(root))
    resolved = {}
    for entry in CALLABLE_ENTRIES:
        owner, attribute = _owner_of(entries[entry], entry, path)
        resolved[entry] = getattr(owner, attribute)
        if not callable(resolved[entry]):
            raise PeerContractError(f"entry {entry!r} ({entries[entry]}) in {path} is not callable")
    llm_targets = [_owner_of(dotted.strip(), "llm", path) for dotted in entries["llm"].split(",") if dotted.strip()]
    return Peer(path=path, llm_targets=llm_targets, **resolved)
