"""An adapter for TRL's `GRPOTrainer(environment_factory=...)`: one verishop episode per rollout.

    from verishop.agents.trl import make_environment_factory, verishop_reward
    ShopEnv = make_environment_factory(env="pd")            # in this process: no server, no sidecar
    trainer = GRPOTrainer(..., environment_factory=ShopEnv, reward_funcs=verishop_reward)

Two modes, the same class. Without a `base_url` (the default, one machine) the episodes are
played in the trainer's process on one `LocalShop` per process and catalog
(`verishop.agents.local_shops`), shared by every instance and safe across threads (TRL's
asynchronous GRPO calls `reset` and the tools from a thread pool; the shop runs one call at a
time), and `verishop_reward` scores them in process with the verifier's own checks. With a
`base_url` (many machines) they are played on a running `verishop serve --transport http`:

    ShopEnv = make_environment_factory("http://127.0.0.1:8000", verifier_url="http://127.0.0.1:8100")

Both give the same tool methods (names, signatures, docstrings), the same JSON text results and
the same errors, and for the same episode and moves the same rewards.

This module does not import TRL. It follows the contract TRL documents for `environment_factory`
(docs/source/openenv.md, "Environment class requirements", checked against TRL 1.x):
- the factory is called with no arguments, once per rollout slot; configuration comes from the
  enclosing scope, hence `make_environment_factory(...)` returns a class bound to one server;
- `reset(**kwargs)` starts each episode and receives the dataset row's columns: `env`,
  `collection`, `difficulty`, `seed`, `split` (or `scenario`) open the episode as given (a row
  without a difficulty lets the curriculum choose: the in-process shop's own, in memory, or the
  server's); it returns the text appended to the
  prompt: the system prompt and the customer's opening message;
- every public method other than `reset` is a tool (`inspect.getmembers(env, inspect.ismethod)`),
  its schema built from the signature's type hints and the docstring's `Args:` section. So the
  class has exactly one public method per shop tool, generated from the server's tool list, and
  nothing else public: no `close`, no `get_reward` (older TRL versions would publish it as a tool),
  and no properties (getmembers would evaluate them);
- a tool method that raises has its message fed back to the model as the tool response: a shop
  tool error raises `ValueError(<the shop's message>)`;
- reward functions receive the instances as `environments=`: `verishop_reward` closes each
  episode (if the model stopped without `done=true`), scores it (in process, or waits for the
  verifier) and returns `reward.json`'s `total` (also kept in `env.reward` and
  `env.reward_details`).
Tool methods return the tool's structured result as compact JSON text.
"""

from __future__ import annotations

import inspect
import json
import threading
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from verishop.agents.client import ToolSpec
from verishop.agents.local_shops import shared_shop
from verishop.agents.sync_client import SyncShopClient

_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}
# The dataset columns that describe an episode; any others (prompt, ...) are not the server's.
EPISODE_COLUMNS = ("env", "collection", "difficulty", "seed", "scenario", "split")
"""The dataset columns `reset` opens the episode with (the others are ignored)."""


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref", "")
    return defs.get(ref.rsplit("/", 1)[-1], {}) if ref.startswith("#/$defs/") else schema


def _python_type(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The type hint for a JSON schema: `Literal[...]` for an enum, `Annotated[int, Field(ge=, le=)]`
    for a range (pydantic-based readers keep it; transformers' `get_json_schema` reads the enum,
    and the range through the docstring, see `_about`)."""
    defs = defs or {}
    schema = _resolve(schema, defs)
    if "anyOf" in schema:
        kinds = [s for s in schema["anyOf"] if s.get("type") != "null"]
        inner = _python_type(kinds[0], defs) if kinds else Any
        return inner | None if len(kinds) < len(schema["anyOf"]) else inner
    if schema.get("enum"):
        return Literal[tuple(schema["enum"])]
    kind = schema.get("type")
    if kind == "array":
        return list[_python_type(schema.get("items", {}), defs)]
    if kind == "object":
        if "properties" in schema:  # e.g. {name, value}: a mapping of its (one) value type
            kinds = {_JSON_TYPES.get(p.get("type")) for p in schema["properties"].values()}
            return dict[str, kinds.pop()] if len(kinds) == 1 and None not in kinds else dict
        return dict[str, _python_type(schema.get("additionalProperties") or {}, defs)]
    hint = _JSON_TYPES.get(kind, Any)
    bounds = {key: schema[word] for key, word in (("ge", "minimum"), ("le", "maximum")) if word in schema}
    return Annotated[hint, Field(**bounds)] if bounds else hint


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _about(name: str, prop: dict[str, Any], defs: dict[str, Any]) -> str:
    """One argument's description, with the limits a type hint cannot carry into a chat template."""
    about = " ".join(str(prop.get("description") or name.replace("_", " ")).split())
    inner = next((_resolve(k, defs) for k in prop.get("anyOf", [prop]) if k.get("type") != "null"), prop)
    if "minimum" in inner and "maximum" in inner:
        about += f" (from {_number(inner['minimum'])} to {_number(inner['maximum'])})"
    if "maxItems" in inner:
        about += f" (at most {inner['maxItems']})"
    items = _resolve(inner.get("items", {}), defs)
    if items.get("type") == "object" and items.get("properties"):
        about += f" (each an object with {', '.join(items['properties'])})"
    return about


def _docstring(tool: ToolSpec) -> str:
    lines = [tool.description or tool.name, "", "Args:"]
    defs = tool.parameters.get("$defs", {})
    for name, prop in tool.parameters.get("properties", {}).items():
        lines.append(f"    {name}: {_about(name, prop, defs)}")
    if len(lines) == 3:
        lines = lines[:1]
    lines += ["", "Returns:", "    The tool's result as JSON."]
    return "\n".join(lines)


def tool_method(tool: ToolSpec) -> Any:
    """A method `name(self, **typed arguments) -> str` that calls the shop tool."""
    required = set(tool.parameters.get("required", ()))
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    properties = tool.parameters.get("properties", {})
    # Required arguments first: a Python signature cannot put them after defaulted ones.
    defs = tool.parameters.get("$defs", {})
    for name in sorted(properties, key=lambda n: n not in required):
        hint = _python_type(properties[name], defs)
        default = inspect.Parameter.empty if name in required else properties[name].get("default")
        parameters.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                            annotation=hint))
        annotations[name] = hint

    def method(self: VerishopToolEnv, *args: Any, **kwargs: Any) -> str:
        bound = method.__signature__.bind(self, *args, **kwargs)
        arguments = {k: v for k, v in bound.arguments.items() if k != "self"}
        return self._call(tool.name, arguments)

    method.__name__ = method.__qualname__ = tool.name
    method.__doc__ = _docstring(tool)
    method.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method


class VerishopToolEnv:
    """Base of the generated classes; see the module docstring. Only `reset` and the tools are public."""

    _base_url: str | None = None
    """None: play in this process (`_catalog`, `_runs_dir`); a URL: on that server."""
    _catalog: str | None = None
    _runs_dir: str | None = None
    _verifier_url: str | None = None
    _token: str | None = None
    _defaults: dict[str, Any] = {}
    _include_system_prompt: bool = True
    _reward_timeout_s: float = 60.0
    _client: SyncShopClient | None = None
    _client_lock = threading.Lock()

    def __init__(self) -> None:
        self._episode_cm: Any = None
        self._episode: Any = None
        self._played: Any = None  # the last in-process episode, kept for its reward and run folder
        self.episode_id: str | None = None
        """The current episode's id; None before the first `reset`."""
        self.system_prompt: str = ""
        """The current episode's system prompt."""
        self.opening_message: str = ""
        """What the customer said first in the current episode."""
        self.reward: float | None = None
        """The verified total reward, once `verishop_reward` has scored the episode."""
        self.reward_details: dict[str, Any] | None = None
        """The whole reward.json, once scored (`r_task`, `r_eff`, `r_hall`, `is_correct`, checks)."""

    @classmethod
    def _shop(cls) -> Any:
        """The in-process `LocalShop` (shared, see the module docstring), or the server's client."""
        if cls._base_url is None:
            return shared_shop(cls._catalog)
        with cls._client_lock:
            if cls._client is None:
                cls._client = SyncShopClient(cls._base_url, verifier_url=cls._verifier_url, token=cls._token)
            return cls._client

    def reset(self, **kwargs: Any) -> str | None:
        """Start a new episode (closing the previous one if still open).

        TRL calls it with the dataset row's columns: `env` or `collection`, `seed`, optionally
        `difficulty` (without it the curriculum chooses) or a whole `scenario`; the
        factory's `episode_defaults` fill what the row leaves out.

        Returns:
            The text TRL appends to the prompt's last user message: a blank line, the system
            prompt (unless the factory was made with `include_system_prompt=False`) and the
            customer's opening message.
        """
        self._end_episode()
        spec = {**self._defaults, **{k: kwargs[k] for k in EPISODE_COLUMNS if kwargs.get(k) is not None}}
        self._episode_cm = self._shop().open_episode(**spec)
        self._episode = self._episode_cm.__enter__()
        self._played = self._episode if self._base_url is None else None
        info = self._episode.info
        self.episode_id, self.system_prompt, self.opening_message = info.episode_id, info.system_prompt, \
            info.opening_message
        self.reward = self.reward_details = None
        opening = f"The customer says:\n{info.opening_message}"
        # TRL appends this to the prompt's last user message as is: a blank line keeps them apart.
        return f"\n\n{info.system_prompt}\n\n{opening}" if self._include_system_prompt else f"\n\n{opening}"

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self._episode is None:
            raise ValueError("no episode is open: call reset() first")
        result = self._episode.call(name, arguments)
        if result.is_error:
            raise ValueError(result.error)
        return json.dumps(result.data, ensure_ascii=False, separators=(",", ":"))

    def _end_episode(self) -> None:
        if self._episode_cm is not None:
            cm, self._episode_cm, self._episode = self._episode_cm, None, None
            cm.__exit__(None, None, None)
            if self._runs_dir is not None and self._played is not None:
                self._played.write_run(self._runs_dir)  # scores it (once): the folder holds reward.json

    def _finish(self) -> float:
        """Close the episode (if open), score it (or wait for its reward) and keep it."""
        if self.reward is not None or self.episode_id is None:
            return self.reward if self.reward is not None else 0.0
        self._end_episode()
        if self._played is not None:
            self.reward_details = self._played.reward()
        else:
            self.reward_details = self._shop().reward(self.episode_id, timeout_s=self._reward_timeout_s)
        self.reward = float(self.reward_details.get("total") or 0.0)
        return self.reward


def make_environment_factory(base_url: str | None = None, *, verifier_url: str | None = None,
                             include_system_prompt: bool = True, reward_timeout_s: float = 60.0,
                             token: str | None = None, catalog: str | Path | None = None,
                             runs_dir: str | Path | None = None, **episode_defaults: Any) -> type[VerishopToolEnv]:
    """A class for `environment_factory`, with one method per shop tool.

    Without `base_url` the episodes are played in this process (the default on one machine):
    the tools are the in-process shop's, nothing is started and no port is opened. With it, the
    tool list is read once from a probe episode of that server, closed at once (its folder stays
    in the runs directory, closed as `closed_by_client`). Each tool method's signature and
    docstring come from the tool's schema (types, choices as `Literal`, ranges in the
    argument's line).

    Args:
        base_url: a server's control API (`verishop serve --transport http`), to play there
            (many machines); None plays in this process.
        verifier_url: with `base_url`, the verifier sidecar to read rewards from; without it
            each reward is scored in this process (the trainer must share the server's file system).
        include_system_prompt: put the episode's system prompt in `reset`'s text.
        reward_timeout_s: with `base_url`, how long `verishop_reward` waits for each episode's reward.
        token: with `base_url`, the server's control token, if it has one.
        catalog: in process, the catalog file to play on (default: the cached default catalog,
            built on first use).
        runs_dir: in process, write each episode's run folder there when it ends (the folder
            `verishop verify` re-scores identically, with its reward.json); default: none.
        **episode_defaults: env, collection, difficulty, seed: used when a dataset row leaves
            them out.

    Returns:
        A `VerishopToolEnv` subclass, for `GRPOTrainer(environment_factory=...)`.
    """
    if base_url is None:
        if verifier_url is not None or token is not None:
            raise ValueError("verifier_url and token are for a server (base_url): in process there is neither")
        tools = shared_shop(catalog).tool_specs()
    else:
        if catalog is not None or runs_dir is not None:
            raise ValueError("catalog and runs_dir are for the in-process shop: a server (base_url) has its own")
        shop = SyncShopClient(base_url, verifier_url=verifier_url, token=token)
        try:
            with shop.episode(**{k: v for k, v in episode_defaults.items() if k in EPISODE_COLUMNS}) as probe:
                tools = probe.tools()
        finally:
            shop.close()
    namespace: dict[str, Any] = {tool.name: tool_method(tool) for tool in tools}
    namespace.update(_base_url=base_url, _catalog=None if catalog is None else str(catalog),
                     _runs_dir=None if runs_dir is None else str(runs_dir),
                     _verifier_url=verifier_url, _token=token, _defaults=dict(episode_defaults),
                     _include_system_prompt=include_system_prompt, _reward_timeout_s=reward_timeout_s,
                     _client=None, _client_lock=threading.Lock(), __doc__=VerishopToolEnv.__doc__)
    return type("VerishopShopEnv", (VerishopToolEnv,), namespace)


def verishop_reward(environments: list[VerishopToolEnv], **_: Any) -> list[float]:
    """TRL reward function: each rollout's verified total reward (closing open episodes first).

    Pass it as `GRPOTrainer(reward_funcs=verishop_reward)`: TRL gives it the rollouts' environment
    instances as `environments=`. Each total is in [-1, 1]; the whole reward.json is kept in the
    instance's `reward_details`."""
    return [env._finish() for env in environments]
