"""The episode hub: opens episodes from scenarios, finds them by id, closes them.

One hub serves one process: a stdio server holds one episode (the default), an HTTP server
many, each named by an unguessable id. Episode state lives here, never in an MCP session:
the 2026 protocol is stateless.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import shutil
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from verishop.mcp_server.episodes.connection import WorldConnection
from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import CatalogChanged, EpisodeClosed, NotFound, ShopError
from verishop.mcp_server.episodes.lifecycle import TRIM_EVERY_CLOSINGS, ClosedEpisodes, give_memory_back, is_episode_id
from verishop.mcp_server.episodes.recovery import Recovered, append_closing, make_locked_directory, recover, release
from verishop.mcp_server.episodes.store import WorldStore, write_world_file
from verishop.mcp_server.episodes.transcript import TRANSCRIPT_VERSION, Transcript
from verishop.mcp_server.episodes.voice import CustomerVoice
from verishop.mcp_server.episodes.worlds import WorldPool
from verishop.scenarios.catalog.integrity import catalog_identity, this_machine
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.envs import generate
from verishop.scenarios.models import Scenario
from verishop.scenarios.seal import SEAL_SCHEME, SealKey, key_for_runs, record_sealed
from verishop.scenarios.voice_cli import VoiceSettings
from verishop.scenarios.world_db import seed_world


logger = logging.getLogger(__name__)

# Catalog connections kept for generation between requests (a burst opens more, then closes them).
IDLE_GENERATION_READERS = 4


def write_new(path: Path, data: bytes) -> None:
    """Write a file that must not exist yet. No partial file and rename: nothing reads an episode's
    scenario.json before its transcript exists, which is made after it (a creation cut short
    leaves no transcript, and recovery closes it as `creation_interrupted`)."""
    with open(path, "xb") as file:
        file.write(data)


class EpisodeHub:
    def __init__(self, catalog_path: Path, runs_dir: Path, *, seal_key: SealKey | None = None,
                 voice: VoiceSettings | None = None):
        """`seal_key` seals every episode's files (scenarios/seal.py); default: the runs folder's key,
        made outside it on first use. `voice`: who words the customer's replies (default: scripted)."""
        self.seal_key = seal_key or key_for_runs(Path(runs_dir))
        self.catalog_path = Path(catalog_path).resolve()
        self.catalog = CatalogReader(self.catalog_path)
        # The file as verified at start: each episode is opened on it, or not at all.
        self.catalog_identity = (catalog_identity(self.catalog_path), this_machine())
        self.runs_dir = Path(runs_dir)
        self.episodes: dict[str, Episode] = {}
        # Bounded in memory; older closed episodes are read back from their transcripts.
        self.closed = ClosedEpisodes(self.runs_dir)
        self.default_id: str | None = None
        # Opens the next default episode when the current one closes (mcp_server.defaults).
        self.on_default_closed: Callable[[], Awaitable[object]] | None = None
        self._stopping = False
        self._renewing = anyio.Lock()
        # Catalog connections for generation, one per generating thread at a time: no lock is
        # held across generations, so several run at once (SQLite releases the GIL as it reads).
        self._idle_readers: list[CatalogReader] = [CatalogReader(self.catalog_path)]
        self._readers_guard = threading.Lock()
        self._locks: dict[str, int | None] = {}  # episode id -> the fd locking its directory
        self._closings = 0
        # Open worlds live in memory on kept connections, their durable copies in this process's
        # store (mcp_server.episodes.worlds, mcp_server.episodes.store).
        self.worlds = WorldPool(self.catalog_path)
        self.store = WorldStore(self.runs_dir)
        # Closed episodes whose world.db a full disk kept from being written: id -> (reason, turns).
        self._unwritten: dict[str, tuple[str, int]] = {}
        self.voice = None if voice is None or voice.scripted else CustomerVoice(voice, self.catalog.taxonomy,
                                                                                self.runs_dir)

    def recover(self) -> Recovered:
        """Close the episodes a crashed server left open in this runs dir (mcp_server.recovery).
        Call it once at start, before serving."""
        return recover(self.runs_dir, is_episode_id, self.seal_key)

    def generate(self, env: str, difficulty: int, seed: int, voice: str | None = None) -> Scenario:
        # On a catalog connection of its own (generation may run in a worker thread while the
        # event loop reads `self.catalog`, and other generations run in other threads).
        with self._readers_guard:
            reader = self._idle_readers.pop() if self._idle_readers else None
        if reader is None:
            reader = CatalogReader(self.catalog_path)
        try:
            return generate(env, difficulty, seed, reader, voice=voice)
        finally:
            with self._readers_guard:
                keep = len(self._idle_readers) < IDLE_GENERATION_READERS
                if keep:
                    self._idle_readers.append(reader)
            if not keep:  # a burst's extra connections close: an idle server holds few files
                reader.close()

    async def generate_async(self, env: str, difficulty: int, seed: int) -> Scenario:
        """`generate` in a worker thread, so a busy server's event loop keeps serving tool calls."""
        return await anyio.to_thread.run_sync(self.generate, env, difficulty, seed)

    def check_catalog_unchanged(self) -> None:
        """Raise CatalogChanged if the catalog file was edited or replaced since this hub opened it
        (its worlds attach it by path, and its reader assumes it immutable)."""
        try:
            now = catalog_identity(self.catalog_path)
        except OSError as exc:
            now = f"unreadable ({exc.strerror})"
        if now != self.catalog_identity[0]:
            raise CatalogChanged(f"the catalog {self.catalog_path} changed while this server was serving it; no "
                                 f"episode opens on it until the server is restarted and verifies it again")

    async def open(self, scenario: Scenario, *, default: bool = False, chosen_by_curriculum: bool = False) -> Episode:
        """Create the episode directory, its world and transcript, and post the opening message.
        `chosen_by_curriculum` is written in the opening event: the curriculum learns only from
        episodes it chose (the sidecar reads it back from the transcript)."""
        if scenario.catalog.content_hash != self.catalog.meta["content_hash"]:
            raise ShopError(
                f"the scenario was generated on catalog (seed={scenario.catalog.seed}, size={scenario.catalog.size}) "
                f"but this server runs catalog (seed={self.catalog.meta['seed']}, size={self.catalog.size})")
        if scenario.catalog.currency != self.catalog.currency:
            raise ShopError(f"the scenario's amounts are in {scenario.catalog.currency} but this server's catalog "
                            f"prices everything in {self.catalog.currency}")
        self.check_catalog_unchanged()
        # Made under a temporary name and locked before it gets its real one, so that a server
        # starting on the same runs dir never takes it for a crashed episode (mcp_server.recovery).
        lock = None
        while lock is None:
            episode_id = "ep_" + secrets.token_hex(12)
            directory = self.runs_dir / episode_id
            making = self.runs_dir / f".{episode_id}.creating"
            lock = make_locked_directory(making)
        os.rename(making, directory)
        # Listed beside the key before anything is written: stripping its seals later cannot pass
        # the episode off as one from before sealing (scenarios/seal.py).
        record_sealed(self.seal_key, episode_id)
        world = db = None
        try:
            text = scenario.to_json().encode()  # serialised once: the file, its hash, the world's meta
            scenario_sha256 = hashlib.sha256(text).hexdigest()
            write_new(directory / "scenario.json", text)
            world = self.worlds.take()
            seed_world(world, scenario, episode_id=episode_id, catalog_path=self.catalog_path,
                       catalog_identity=self.catalog_identity, scenario_sha256=scenario_sha256)
            db = WorldConnection(world, episode_id=episode_id, folder=directory, store=self.store,
                                 give_back=self.worlds.give_back)
            transcript = Transcript(directory / "transcript.jsonl", self.seal_key)
        except BaseException:
            # Nothing half-made stays behind: no folder without a transcript for the verifier
            # or the sidecar to wait on (out of file descriptors, a disk full ...).
            with anyio.CancelScope(shield=True):
                if db is not None:
                    with contextlib.suppress(Exception):
                        self.store.drop(episode_id)
                if world is not None:
                    world.close()
                await anyio.to_thread.run_sync(lambda: shutil.rmtree(directory, ignore_errors=True))
                release(lock)
            raise
        self._locks[episode_id] = lock
        transcript.write("episode_opened", transcript_version=TRANSCRIPT_VERSION, episode_id=episode_id,
                         env_id=scenario.env_id, difficulty=scenario.difficulty, seed=scenario.seed,
                         scenario_sha256=scenario_sha256, catalog_content_hash=scenario.catalog.content_hash,
                         max_turns=scenario.axes.max_turns, seal_scheme=SEAL_SCHEME, seal_key_id=self.seal_key.key_id,
                         **({"chosen_by": "curriculum"} if chosen_by_curriculum else {}))
        episode = Episode(episode_id, scenario, directory, db, self.catalog, transcript,
                          voice=self.voice and self.voice.for_episode(scenario, scenario_sha256))
        opening_task = {"task": 0} if scenario.goal.kind == "journey" else {}
        episode.say("customer", scenario.opening_message, tag="open", **opening_task)
        self.episodes[episode_id] = episode
        if default:
            self.default_id = episode_id
        return episode

    def resolve(self, episode_id: str | None) -> Episode:
        """The episode a tool call is for: the named one, or the process's default."""
        key = episode_id or self.default_id
        if key is None:
            raise NotFound("no episode is selected: connect through an episode's MCP URL "
                           "(/episodes/<episode_id>/mcp) returned by POST /episodes")
        # Open episodes first: the record of closed ones may read a transcript from disk.
        episode = self.episodes.get(key)
        if episode is not None:
            return episode
        reason = self.closed.get(key)
        if reason is not None:
            raise EpisodeClosed(f"episode {key} is closed ({reason}); no tool can change it now")
        raise NotFound(f"no episode {key!r} on this server")

    async def default_episode_id(self) -> str | None:
        """The default episode's id; if it has closed, its successor is opened first (only when
        someone calls, so a client that leaves leaves no untouched episode behind)."""
        # An open default is the common case, answered from memory: `closed` may read a transcript's
        # tail from disk for an id it no longer holds in memory.
        if self.default_id in self.episodes:
            return self.default_id
        if self.default_id in self.closed and self.on_default_closed is not None and not self._stopping:
            async with self._renewing:
                if self.default_id in self.closed and not self._stopping:
                    try:
                        await self.on_default_closed()
                    except Exception:  # the closed episode stays the default: calls say it is closed
                        logger.exception("could not open the next default episode")
        return self.default_id

    async def close(self, episode_id: str, reason: str) -> Episode:
        episode = self.resolve(episode_id)
        await self.retire(episode, reason)
        return episode

    async def retire(self, episode: Episode, reason: str, *, idle_before: float | None = None) -> None:
        """Finalize an episode's files and forget it (safe to call twice). With `idle_before`
        (a time.monotonic value), only if no tool call ran since then: the idle reaper's check,
        made under the episode's lock so that it cannot race a call."""
        async with episode.lock:
            if idle_before is not None and episode.last_active_s > idle_before:
                return
            if self.episodes.pop(episode.episode_id, None) is None:
                return
            episode.mark_closed(reason)
            self.closed[episode.episode_id] = episode.close_reason or reason
            try:
                await episode.finalize(reason)
            except OSError:
                # world.db could not be written (a full disk; logged): the store keeps the
                # world and the folder stays locked (so no recovery closes it meanwhile) until
                # a later closing writes both (`_write_unwritten`).
                self._unwritten[episode.episode_id] = (episode.close_reason or reason, episode.turns_used)
            else:
                release(self._locks.pop(episode.episode_id, None))
        if self._unwritten:
            self._write_unwritten()
        self._closings += 1
        if not self.episodes or self._closings % TRIM_EVERY_CLOSINGS == 0:
            give_memory_back()

    async def close_all(self, reason: str) -> None:
        """Close every episode (the server is stopping: no default episode replaces the last)."""
        self._stopping = True
        for episode in list(self.episodes.values()):
            await self.retire(episode, reason)  # not close(): one may retire meanwhile (idle reaper)

    def _write_unwritten(self) -> None:
        """Write world.db and the closing event of each episode whose closing could not (see
        `retire`); those that still cannot wait for the next try."""
        for episode_id, (reason, turns) in list(self._unwritten.items()):
            directory = self.runs_dir / episode_id
            try:
                image = self.store.get(episode_id)
                if image is not None:
                    write_world_file(directory, image)
                append_closing(directory / "transcript.jsonl", reason, turns=turns, seal_key=self.seal_key)
            except (OSError, sqlite3.Error) as exc:
                logger.warning("episode %s: world.db still not written (%s)", episode_id, exc)
                continue
            with contextlib.suppress(sqlite3.Error):
                self.store.drop(episode_id)
            del self._unwritten[episode_id]
            release(self._locks.pop(episode_id, None))

    async def aclose(self, reason: str = "server_stopped") -> None:
        await self.close_all(reason)
        # Worlds still unwritten stay in the store, which is then kept for the next start's recovery.
        for episode_id in list(self._unwritten):
            release(self._locks.pop(episode_id, None))
        self._unwritten.clear()
        self.store.close()
        self.worlds.close()
        self.catalog.close()
        if self.voice is not None:
            await self.voice.aclose()
        with self._readers_guard:
            readers, self._idle_readers = self._idle_readers, []
        for reader in readers:
            reader.close()
