"""Your own agent in `verishop eval --agent SPEC`.

SPEC is `package.module:name` (a module importable from the current directory or the path) or
`path/to/file.py:name`. `name` (dots allowed: `module:factory.agent`) must be one of:

- an async callable taking one `Episode`: `async def agent(episode): ...`
- an object with an async `play(episode)` method (its state is shared by every episode)
- a class whose instances have an async `play(episode)`: one instance per episode, made with no
  arguments

The agent talks to the shop only through MCP: `await episode.session.call_tool(name, arguments)`
on the open session, or its own client on `episode.mcp_url` (HTTP transport only). It answers
the customer with the `respond_to_customer` tool. What it returns is ignored: the verifier scores
the episode's files. An exception it raises marks its episode failed (kind and message in the
run's failures.jsonl) and the other episodes go on.

Each episode runs on its own event loop in its own thread (`verishop.agents.episode_limits`),
so an agent that blocks stalls only its episode, which `--episode-timeout` then cuts off.

Errors in SPEC itself raise `AgentSpecError` before any episode is played.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import re
import reprlib
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client


class AgentSpecError(ValueError):
    """`--agent MODULE:NAME` names nothing usable; the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class Episode:
    """One episode as your agent sees it. The goal is hidden: only the customer knows it."""

    env_id: str
    difficulty: int
    # None in the private test split: with the public generator its seed would be the goal.
    seed: int | None
    system_prompt: str
    opening_message: str  # the customer's first message (also what `get_conversation` returns first)
    max_turns: int  # customer turns before the episode is closed as truncated
    session: Client  # an open MCP client on this episode: `await session.call_tool(name, arguments)`
    mcp_url: str | None  # the episode's Streamable HTTP endpoint; None on the memory and stdio transports
    episode_id: str | None  # None on the stdio transport, where the server process names it
    split: str | None = None  # train, dev or test under `eval --split`
    index: int | None = None  # the episode's index in that split (what `--seed` counts), never its seed


@dataclass(frozen=True)
class UserAgent:
    """A loaded `--agent` spec: `name` labels the run folder, `play` runs one episode."""

    spec: str
    name: str
    play: Callable[[Episode], Awaitable[Any]]

    async def __call__(self, episode: Episode) -> None:
        await self.play(episode)


def is_spec(text: str) -> bool:
    """Built-in agents are bare names; a user agent is `WHERE:NAME` (a bare file path is one that
    forgot its `:NAME`, and gets `load_agent`'s message saying so)."""
    return ":" in text or text.endswith(".py") or "/" in text


def load_agent(spec: str) -> UserAgent:
    """Import what `spec` names and check that it can play an episode (see the module docstring)."""
    where, _, attribute = spec.rpartition(":")
    if not where.strip() or not attribute.strip():
        raise AgentSpecError(f"--agent {spec!r}: expected MODULE:NAME or path/to/file.py:NAME")
    module = _load_file(where) if where.endswith(".py") or "/" in where or "\\" in where else _import(where)
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            known = ", ".join(n for n in sorted(vars(module)) if not n.startswith("_"))[:300]
            raise AgentSpecError(f"--agent {spec!r}: {where} has no attribute {attribute!r} (it defines: {known})")
        target = getattr(target, part)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{Path(where).stem if where.endswith('.py') else where}.{attribute}")
    return UserAgent(spec, name, _player(spec, target))


def _player(spec: str, target: Any) -> Callable[[Episode], Awaitable[Any]]:
    if inspect.isclass(target):
        play = getattr(target, "play", None)
        if not inspect.iscoroutinefunction(play):
            raise AgentSpecError(f"--agent {spec!r}: class {target.__name__} needs an `async def play(self, "
                                 f"episode)` method")
        try:
            inspect.signature(target).bind()
        except TypeError:
            raise AgentSpecError(f"--agent {spec!r}: class {target.__name__} must be constructible with no "
                                 f"arguments (one instance is made per episode); else export an instance") from None
        return lambda episode: target().play(episode)
    if inspect.iscoroutinefunction(target):
        return target
    play = getattr(target, "play", None)
    if play is not None:
        if inspect.iscoroutinefunction(play):
            return play
        raise AgentSpecError(f"--agent {spec!r}: its play method is not async; define it with `async def "
                             f"play(self, episode)` (eval awaits it on an event loop)")
    if callable(target):
        if inspect.iscoroutinefunction(getattr(target, "__call__", None)):
            return target
        raise AgentSpecError(f"--agent {spec!r}: {_describe(target)} is not async; define it with `async def` "
                             f"(eval awaits it on an event loop)")
    raise AgentSpecError(f"--agent {spec!r}: {_describe(target)} is neither an async callable nor an object "
                         f"with an async play method")


def _describe(target: Any) -> str:
    return getattr(target, "__qualname__", None) or f"the {type(target).__name__} {reprlib.repr(target)}"


def _import(module_name: str):
    # Like `python -m`: a module beside the caller is found without installing it.
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise AgentSpecError(f"--agent: no module named {module_name!r} (run from the folder that holds it, "
                                 f"set PYTHONPATH, or give a file path: path/to/file.py:NAME)") from None
        raise AgentSpecError(f"--agent: importing {module_name} failed: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - any error at import time is the spec's problem
        raise AgentSpecError(f"--agent: importing {module_name} raised {type(exc).__name__}: {exc}") from exc


def _load_file(file_name: str):
    path = Path(file_name).expanduser().resolve()
    if not path.is_file():
        raise AgentSpecError(f"--agent: no such file {file_name!r}")
    # A name of its own per file, so two agent files called agent.py never share a module.
    module_name = f"verishop_user_agent_{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise AgentSpecError(f"--agent: cannot load {file_name!r} as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up here
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))  # its own helper modules beside it import as usual
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - any error at import time is the spec's problem
        del sys.modules[module_name]
        raise AgentSpecError(f"--agent: loading {file_name} raised {type(exc).__name__}: {exc}") from exc
    return module
