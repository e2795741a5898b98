"""The shop in the trainer's own process: episodes opened, played and scored with no server, no
port, no sidecar and no files (issue 36).

    with LocalShop() as shop:                          # the default catalog, built on first use
        with shop.episode(env="pd", difficulty=3, seed=7) as ep:
            ep.call("search_catalog", query="usb-c charger")
            ep.call("respond_to_customer", message="...", recommended_product_ids=[...], done=True)
        print(ep.reward()["total"])                    # the verifier's reward.json, computed here
        ep.write_run("runs/")                          # the folder `verishop verify` re-scores identically

`LocalShop` and `LocalEpisode` have the methods of `SyncShopClient` and `SyncEpisode` (the HTTP
client), so the adapters (TRL, Gymnasium, verifiers) take either. The tools are the server's own
(`verishop.mcp_server.tools`): the same argument validation, the same errors, the same results and
the same transcript events; only the MCP plumbing around them is left out. Each episode's world
is an in-memory SQLite database and its transcript a list of lines (`verishop.local.memory`);
closing scores it with the verifier's own checks (`score_episode`) on exactly what the run folder
would hold. Without a difficulty, an in-memory curriculum chooses (the server's rule,
`scenarios/curriculum.py`) and learns from the episodes it chose.

The blocking methods run one call at a time: a tool call inline, with no event-loop turn
(`verishop.local.inline`: in process it waits on nothing), the rest on a private event loop of this
object; code that already runs an event loop (async trainers) awaits the `a`-prefixed twins
(`await shop.aopen(...)`, `await ep.acall(...)`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

from pydantic import ValidationError

from verishop.agents.client import EpisodeInfo, ToolResult, ToolSpec
from verishop.envs import collection as collection_of
from verishop.envs import generate, get_env
from verishop.local.inline import run_inline
from verishop.local.memory import MemoryEpisode, MemoryTranscript, MemoryWorld, MemoryWorlds
from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.episodes.transcript import TRANSCRIPT_VERSION
from verishop.mcp_server.episodes.worlds import WorldPool
from verishop.mcp_server.errors import NotFound
from verishop.mcp_server.tools import ServerState, _shop_tools
from verishop.scenarios import curriculum as curricula
from verishop.scenarios.catalog.cache import DEFAULT_SEED, DEFAULT_SIZE, catalog_path, ensure_catalog, verishop_home
from verishop.scenarios.catalog.cached_reader import CachedCatalogReader
from verishop.scenarios.catalog.integrity import catalog_identity, this_machine
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.models import Scenario
from verishop.scenarios.rng import make_rng
from verishop.scenarios.seal import SEAL_SCHEME, SealKey, key_for_runs
from verishop.scenarios.splits import split_seed
from verishop.scenarios.stock import EpisodeStock
from verishop.scenarios.world_db import seed_world
from verishop.verifier.catalogs import Shop
from verishop.verifier.checks import Options
from verishop.verifier.curriculum import counts_for_curriculum
from verishop.verifier.errors import Incomplete
from verishop.verifier.files import Episode as ScoredEpisode
from verishop.verifier.models import Manifest, Reward, Weights
from verishop.verifier.reward import score_episode
from verishop.verifier.seal import INTACT, UNSEALED

T = TypeVar("T")
MAX_SEED = 2**63 - 1
# The header bytes world.db carries on disk (scenarios/world_db.write_world_image): WAL mode.
_WAL_HEADER = b"\x02\x02"


class LocalShopError(ValueError):
    """A request the in-process shop cannot serve (an unknown environment, a bad difficulty ...)."""


class LocalEpisode:
    """One in-process episode: `SyncEpisode`'s methods, plus the run folder on demand."""

    def __init__(self, shop: LocalShop, episode: MemoryEpisode, info: EpisodeInfo, chosen_by_curriculum: bool):
        self._shop, self._episode = shop, episode
        self.info = info
        """What the episode was opened with (`EpisodeInfo`; `mcp_url` is empty: there is no server)."""
        self._context = SimpleNamespace(headers=None, request_context=SimpleNamespace(
            lifespan_context=ServerState(shop, episode.episode_id), request=None))  # type: ignore[arg-type]
        self._chosen_by_curriculum = chosen_by_curriculum
        self._reward: Reward | None = None

    @property
    def episode_id(self) -> str:
        return self._episode.episode_id

    @property
    def scenario(self) -> Scenario:
        """The scenario being played (the goal is in it: not for the agent's eyes)."""
        return self._episode.scenario

    @property
    def close_reason(self) -> str | None:
        """Why the episode ended; None while it is open."""
        return self._episode.close_reason

    @property
    def is_open(self) -> bool:
        return self._episode.close_reason is None

    def tools(self) -> list[ToolSpec]:
        """The episode's tools, as an MCP client lists them."""
        return self._shop.tool_specs()

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools as OpenAI function-calling schemas."""
        return [tool.openai_schema() for tool in self.tools()]

    async def acall(self, name: str, arguments: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        """`call`, awaited."""
        arguments = {**(arguments or {}), **kwargs}
        tool = self._shop.tool(name)
        if tool is None:
            return ToolResult(name, arguments, None, f"Unknown tool: {name}")
        try:
            result = await tool.run(arguments, self._context, convert_result=False)  # type: ignore[arg-type]
        except Exception as exc:  # what the SDK's server sends as the error result's text
            return ToolResult(name, arguments, None, _error_text(tool.name, exc))
        kept = self._episode.last_dump
        data = kept[1] if kept is not None and kept[0] is result else result.model_dump(mode="json", by_alias=True)
        return ToolResult(name, arguments, data)

    def call(self, name: str, arguments: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        """Call a shop tool; a tool error comes back as `ToolResult.error`, never raised (the text
        an MCP client would read). Arguments as a mapping, as keywords, or both (keywords win)."""
        episode = self._episode
        # Inline (verishop.local.inline) unless the call may wait: a model's rewording of the
        # customer is an HTTP request, and a held lock is a wait.
        inline = episode.voice is None and not episode.lock.locked()
        return self._shop._run(self.acall(name, arguments, **kwargs), inline=inline)

    async def aclose(self, reason: str = "closed_by_client") -> str:
        """`close`, awaited."""
        await self._shop._retire(self._episode, reason)
        return self._episode.close_reason or reason

    def close(self, reason: str = "closed_by_client") -> str:
        """Close the episode (as `reason` if it is still open: `closed_by_client`, as a client's
        DELETE /episodes/{id} does); returns why it closed."""
        return self._shop._run(self.aclose(reason))

    async def areward(self) -> Reward:
        """`reward_model`, awaited."""
        if self._to_close_first:
            await self.aclose()
        return self._scored()

    def reward_model(self) -> Reward:
        """The verifier's `Reward` (closing the episode first if it is open)."""
        if self._to_close_first:
            return self._shop._run(self.areward())
        self._shop._refuse_inside_a_loop()
        return self._scored()  # closed already (its last call did): nothing to await

    @property
    def _to_close_first(self) -> bool:
        return self._reward is None and (self.is_open or self._episode.db is not None)

    def _scored(self) -> Reward:
        if self._reward is None:
            self._reward = self._shop._score(self._episode)
            if self._chosen_by_curriculum:
                self._shop._learn(self._reward)
        return self._reward

    def reward(self, timeout_s: float = 30.0) -> dict[str, Any]:
        """The episode's reward.json, as a dict (`timeout_s` is accepted for `SyncEpisode`'s
        signature: nothing is waited for here)."""
        return self.reward_model().model_dump(mode="json")

    def run_files(self) -> dict[str, bytes]:
        """The episode's files as a server writes them: scenario.json, transcript.jsonl, world.db
        (the episode must be closed)."""
        episode = self._episode
        if episode.db is not None or not isinstance(episode.transcript, MemoryTranscript):
            raise LocalShopError(f"episode {episode.episode_id} is still open: close it (or read its reward) first")
        assert episode.world_file is not None  # closed: _retire kept it
        return {"scenario.json": episode.scenario_bytes, "transcript.jsonl": episode.transcript.data(),
                "world.db": episode.world_file}

    def write_run(self, runs_dir: Path | str) -> Path:
        """Write the closed episode's folder into `runs_dir` (with its reward.json once scored):
        `verishop verify` scores it as this process did. Returns the folder."""
        from verishop.local.run_folder import write_folder

        files = self.run_files()
        reward = self.reward_model() if self._reward is None else self._reward
        return write_folder(Path(runs_dir), self.episode_id, files, reward, self._shop.seal_key)


class LocalShop:
    """In-process episodes over one catalog (see the module docstring)."""

    def __init__(self, catalog: Path | str | None = None, *, seal: bool = True, split_secret: str | None = None,
                 weights: Weights = Weights(), options: Options = Options(),
                 curriculum: curricula.Params = curricula.Params()):
        """`catalog`: a catalog file (default: the cached default catalog, built on first use).
        `seal`: chain the transcript's lines with the HMAC seal key of `$VERISHOP_HOME` (as a
        server does), so a written run folder is tamper-evident. `split_secret`: the evaluator's
        secret for the test split. `weights`, `options`: the verifier's. `curriculum`: the rule of
        the in-memory curriculum that chooses when a request names no difficulty."""
        if catalog is None:
            catalog = ensure_catalog(catalog_path(verishop_home(), DEFAULT_SIZE, DEFAULT_SEED),
                                     size=DEFAULT_SIZE, seed=DEFAULT_SEED)
        self.catalog_path = Path(catalog).resolve()
        if not self.catalog_path.is_file():
            raise LocalShopError(f"catalog {self.catalog_path} does not exist (build one with `verishop catalog build`)")
        self.catalog = CachedCatalogReader(self.catalog_path)
        self.catalog_content_hash = self.catalog.meta["content_hash"]
        self.catalog_identity = (catalog_identity(self.catalog_path), this_machine())
        self.worlds = MemoryWorlds(WorldPool(self.catalog_path))
        self.seal_key: SealKey | None = key_for_runs(verishop_home() / "local-runs") if seal else None
        self.split_secret = split_secret
        self.weights, self.options, self.curriculum_params = weights, options, curriculum
        self.windows: dict[str, curricula.Window] = {}
        self._assigned: set[tuple[str, int, int]] = set()  # (env, d, seed) the curriculum chose
        self._counted: set[tuple[str, int, int]] = set()  # ... and those already counted
        """The in-memory curriculum: each environment's difficulty window."""
        self.episodes: dict[str, MemoryEpisode] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_guard = threading.Lock()
        self._tools = {tool.name: tool for tool in _shop_tools()}
        self._specs: list[ToolSpec] | None = None
        self._closed = False

    # -- the blocking surface (SyncShopClient's) --------------------------------------------------

    def __enter__(self) -> LocalShop:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "in_process": True, "catalog": str(self.catalog_path), "open_episodes": len(self.episodes)}

    def open(self, **spec: Any) -> LocalEpisode:
        """Open an episode: `env` (or `collection`), `difficulty` (omit it to let the curriculum
        choose), `seed`, `split`, or a whole `scenario`."""
        self._refuse_inside_a_loop()
        return self._open_spec(**spec)  # nothing to await: no turn of the loop

    @contextlib.contextmanager
    def episode(self, **spec: Any) -> Iterator[LocalEpisode]:
        """`with shop.episode(env="pd", difficulty=3, seed=7) as ep:`; closed on exit if still open."""
        with self.open_episode(**spec) as episode:
            yield episode

    def open_episode(self, **spec: Any) -> contextlib.AbstractContextManager[LocalEpisode]:
        """A context manager opening the episode on entry and closing it (if still open) on exit; it
        may be entered now and exited much later (an object, not a generator: collecting it never
        closes the episode behind its owner's back)."""
        return _Held(self, spec)

    def reward(self, episode_id: str, *, run_dir: str | None = None, timeout_s: float = 30.0) -> dict[str, Any]:
        raise LocalShopError("an in-process episode's reward is read from the episode: episode.reward()")

    def close(self) -> None:
        """Close the open episodes, the worlds, the catalogs and the loop (idempotent). Inside a
        running event loop, `await shop.aclose()` instead."""
        if self._closed:
            return
        if self.episodes:
            self._run(self.aclose())  # episodes to close: on this shop's loop (refused inside another)
        else:
            self._release()
        if self._loop is not None and not self._loop.is_running():
            self._loop.close()

    async def aclose(self) -> None:
        """`close`, awaited."""
        if self._closed:
            return
        for episode in list(self.episodes.values()):
            with contextlib.suppress(Exception):
                await self._retire(episode, "server_stopped")
        self._release()

    def _release(self) -> None:
        self._closed = True
        self.worlds.close()
        self.catalog.close()
        if self._loop is not None and not self._loop.is_running():
            self._loop.close()

    # -- the async surface ------------------------------------------------------------------------

    async def aopen(self, **spec: Any) -> LocalEpisode:
        """`open`, awaited."""
        return self._open_spec(**spec)

    def _open_spec(self, *, env: str | None = None, collection: str | None = None, difficulty: int | None = None,
                   seed: int | None = None, scenario: Scenario | dict | None = None, split: str | None = None,
                   **unknown: Any) -> LocalEpisode:
        if unknown:
            raise LocalShopError(f"unknown episode field(s) {', '.join(sorted(unknown))}; give env or collection, "
                                 f"difficulty, seed, split or scenario")
        if self._closed:
            raise LocalShopError("this LocalShop is closed")
        chosen = False
        if scenario is not None:
            if split is not None:
                raise LocalShopError("a scenario is served as written: give either scenario or split, not both")
            if not isinstance(scenario, Scenario):
                try:
                    scenario = Scenario.model_validate(scenario)
                except ValidationError as exc:
                    first = exc.errors(include_url=False)[0]
                    where = ".".join(str(part) for part in first["loc"]) or "(scenario)"
                    raise LocalShopError(f"not a valid scenario: {where}: {first['msg']}") from None
        else:
            env_id, difficulty, seed, chosen = self._plan(env, collection, difficulty, seed)
            if split is not None:
                seed = split_seed(split, env_id, difficulty, seed, self.split_secret)
            scenario = generate(env_id, difficulty, seed, self.catalog)
            if chosen:  # what the curriculum assigned: the only episodes it learns from
                self._assigned.add((scenario.env_id, scenario.difficulty, scenario.seed))
        return self._open(scenario, chosen_by_curriculum=chosen)

    # -- what the tools' ServerState calls (EpisodeHub's interface) --------------------------------

    def resolve(self, episode_id: str | None) -> MemoryEpisode:
        episode = self.episodes.get(episode_id or "")
        if episode is None:
            raise NotFound(f"no open episode {episode_id!r} in this process")
        return episode

    async def default_episode_id(self) -> str | None:
        return None

    async def retire(self, episode: Episode, reason: str, **_: Any) -> None:
        await self._retire(episode, reason)

    # -- inside ------------------------------------------------------------------------------------

    def tool(self, name: str) -> Any:
        return self._tools.get(name)

    def tool_specs(self) -> list[ToolSpec]:
        if self._specs is None:
            self._specs = [ToolSpec.of(t.name, t.description, t.parameters, t.annotations)
                           for t in self._tools.values()]
        return self._specs

    def _plan(self, env: str | None, collection: str | None, difficulty: int | None,
              seed: int | None) -> tuple[str, int, int, bool]:
        if env and collection:
            raise LocalShopError("give either env or collection, not both")
        if difficulty is not None and (type(difficulty) is not int or not 0 <= difficulty <= MAX_DIFFICULTY):
            raise LocalShopError(f"difficulty must be an integer from 0 to {MAX_DIFFICULTY}, got {difficulty!r}")
        if seed is not None and (type(seed) is not int or not 0 <= seed <= MAX_SEED):
            raise LocalShopError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
        try:
            members = tuple(s.env_id for s in collection_of(collection)) if collection else \
                (get_env(env or "pd").env_id,)
        except (KeyError, LookupError, ValueError) as exc:
            raise LocalShopError(str(exc).strip("'\"")) from None
        if difficulty is not None:
            seed = seed or 0
            if collection:
                rng = make_rng("collection", collection.upper(), seed)
                return members[rng.randrange(len(members))], difficulty, seed, False
            return members[0], difficulty, seed, False
        seed = seed if seed is not None else secrets.randbelow(2**31)
        env_id, difficulty = curricula.choose(members, self.windows, make_rng("curriculum", members, seed))
        return env_id, difficulty, seed, True

    def _open(self, scenario: Scenario, *, chosen_by_curriculum: bool) -> LocalEpisode:
        if scenario.catalog.content_hash != self.catalog.meta["content_hash"]:
            raise LocalShopError(f"the scenario was generated on catalog (seed={scenario.catalog.seed}, "
                                 f"size={scenario.catalog.size}) but this shop runs catalog "
                                 f"(seed={self.catalog.meta['seed']}, size={self.catalog.size})")
        episode_id = "ep_" + secrets.token_hex(12)
        text = scenario.to_json().encode()
        scenario_sha256 = hashlib.sha256(text).hexdigest()
        world = self.worlds.take()
        try:
            seeded = seed_world(world, scenario, episode_id=episode_id, catalog_path=self.catalog_path,
                                catalog_identity=self.catalog_identity, scenario_sha256=scenario_sha256)
        except BaseException:
            world.close()
            raise
        db = MemoryWorld(world, episode_id=episode_id, worlds=self.worlds, seeded=seeded)
        transcript = MemoryTranscript(f"{episode_id}/transcript.jsonl", self.seal_key)
        transcript.write("episode_opened", transcript_version=TRANSCRIPT_VERSION, episode_id=episode_id,
                         env_id=scenario.env_id, difficulty=scenario.difficulty, seed=scenario.seed,
                         scenario_sha256=scenario_sha256, catalog_content_hash=scenario.catalog.content_hash,
                         max_turns=scenario.axes.max_turns,
                         **({"seal_scheme": SEAL_SCHEME, "seal_key_id": self.seal_key.key_id} if self.seal_key else {}),
                         **({"chosen_by": "curriculum"} if chosen_by_curriculum else {}))
        episode = MemoryEpisode(episode_id, scenario, Path(episode_id), db, self.catalog, transcript,  # type: ignore[arg-type]
                                scenario_bytes=text, scenario_sha256=scenario_sha256)
        episode.say("customer", scenario.opening_message, tag="open",
                    **({"task": 0} if scenario.goal.kind == "journey" else {}))
        self.episodes[episode_id] = episode
        info = EpisodeInfo(episode_id=episode_id, env_id=scenario.env_id, difficulty=scenario.difficulty,
                           seed=scenario.seed, mcp_url="", system_prompt=scenario.system_prompt,
                           opening_message=scenario.opening_message, max_turns=scenario.axes.max_turns, run_dir="")
        return LocalEpisode(self, episode, info, chosen_by_curriculum)

    async def _retire(self, episode: MemoryEpisode, reason: str) -> None:
        """Close the episode in memory: its world's image and view kept, the closing event written."""
        async with episode.lock:
            if self.episodes.pop(episode.episode_id, None) is None:
                return
            episode.mark_closed(reason)
            db: MemoryWorld = episode.db  # type: ignore[assignment]
            episode.db = None  # type: ignore[assignment]
            await db.close()
            image = db.image or b""
            episode.world_file = image[:18] + _WAL_HEADER + image[20:]
            episode.world = db.world
            world_sha256 = hashlib.sha256(episode.world_file).hexdigest()
            episode.transcript.write("episode_closed", reason=episode.close_reason, turns=episode.turns_used,
                                     world_sha256=world_sha256)
            episode.transcript.close()

    def _score(self, episode: MemoryEpisode) -> Reward:
        """The verifier's reward, from what the run folder would hold (see `verishop verify`)."""
        transcript: MemoryTranscript = episode.transcript  # type: ignore[assignment]
        scenario = episode.scenario
        try:
            parsed = transcript.parse()
            world = episode.world
            if world is None:
                raise Incomplete("episode_not_closed", f"episode {episode.episode_id} is still open")
            catalog = self.catalog  # the file the episode was played on, opened once
            scored = ScoredEpisode(episode_id=episode.episode_id, directory=episode.directory, scenario=scenario,
                                   transcript=parsed, world=world,
                                   shop=Shop(catalog, world, EpisodeStock(world.stock, scenario.sell_outs)),
                                   catalog_content_hash=self.catalog_content_hash,
                                   seal=INTACT if self.seal_key is not None else UNSEALED,
                                   scenario_sha256=episode.scenario_sha256)
            return score_episode(scored, self.weights, self.options)
        except Incomplete as exc:
            return Reward(episode_id=episode.episode_id, verdict="incomplete", reason=exc.reason, detail=exc.detail,
                          weights=self.weights, manifest=Manifest(env_id=scenario.env_id), env_id=scenario.env_id,
                          difficulty=scenario.difficulty, seed=scenario.seed)

    def _learn(self, reward: Reward) -> None:
        """The server's rule (`verifier/curriculum.py`, `scenarios/curriculum_store.py`): a scored
        episode the curriculum chose counts once per (env, d, seed), and only if it was played."""
        if not counts_for_curriculum(reward):
            return
        key = (reward.env_id, reward.difficulty, reward.seed)
        if key not in self._assigned or key in self._counted:
            return
        self._counted.add(key)
        window = self.windows.get(reward.env_id, curricula.Window())
        self.windows[reward.env_id] = curricula.record(window, reward.difficulty, bool(reward.is_correct),
                                                       self.curriculum_params)

    def _run(self, coroutine: Coroutine[Any, Any, T], *, inline: bool = False) -> T:
        """Run one of the shop's coroutines to its end on this shop's own loop, or without one
        (`inline`: a coroutine that waits on nothing, `verishop.local.inline`)."""
        try:
            self._refuse_inside_a_loop()
        except LocalShopError:
            coroutine.close()
            raise
        with self._loop_guard:
            if inline:
                return run_inline(coroutine)
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
            return self._loop.run_until_complete(coroutine)

    @staticmethod
    def _refuse_inside_a_loop() -> None:
        # asyncio's own None-returning check (get_running_loop raises, which every blocking call
        # outside a loop would pay for).
        if asyncio._get_running_loop() is None:
            return
        raise LocalShopError("a blocking LocalShop method was called inside a running event loop: await its "
                             "async twin instead (aopen, acall, aclose, areward)")


class _Held:
    def __init__(self, shop: LocalShop, spec: dict[str, Any]):
        self._shop, self._spec = shop, spec
        self.episode: LocalEpisode | None = None

    def __enter__(self) -> LocalEpisode:
        self.episode = self._shop.open(**self._spec)
        return self.episode

    def __exit__(self, *exc: object) -> None:
        if self.episode is not None and self.episode.is_open:
            self.episode.close()


def _error_text(tool_name: str, exc: BaseException) -> str:
    """The error result's text, as the SDK's server writes it (`MCPServer._handle_call_tool`:
    `str(exc)`; the tool's `run` has already worded argument errors and crashes)."""
    return str(exc) or f"Error executing tool {tool_name}"
