"""Scoring episode directories: one at a time, or many over a process pool, each reward
written atomically next to its episode as reward.json (never through a link).

Every episode gets its own verdict: whatever one episode's files hold (or a verifier bug
does with them) becomes that episode's "incomplete" reward, and the batch goes on."""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from verishop.verifier.catalogs import CatalogCache
from verishop.verifier.checks import Options
from verishop.verifier.errors import Incomplete, UsageError
from verishop.verifier.safeio import Limits, episode_folder, json_depth_exceeds, read_regular, write_replacing
from verishop.verifier.seal import SealKeys
from verishop.verifier.files import REWARD_FILE, SCENARIO_FILE, TRANSCRIPT_FILE, episode_name, is_episode_dir, load_episode
from verishop.verifier.models import Manifest, Reward, Weights
from verishop.verifier.reward import score_episode

# Below this many episodes per worker, starting processes costs more than it saves.
MIN_EPISODES_PER_WORKER = 100


@dataclass(frozen=True)
class Settings:
    """How episodes are scored; the defaults are what `verishop verify` and the sidecar use.

        with Verifier(Settings(catalog=Path("/data/catalog-2m.db"))) as verifier:
            reward = verifier.verify(Path("runs/ep_0644fa080c116cc12eac40bf"))
    """

    weights: Weights = field(default_factory=Weights)
    """How the three parts compose: `total = clip(0.75·r_task + 0.15·r_eff + 0.10·r_hall, -1, 1)` by default."""
    catalog: Path | None = None  # overrides the catalog path that world.db names
    """The catalog to read instead of the one world.db names (its content hash must still match)."""
    options: Options = field(default_factory=Options)
    """Scoring options (`recompute_ideal`: rank PD against an ideal list recomputed from the catalog)."""
    limits: Limits = field(default_factory=Limits)  # caps on each episode's files
    """Size and nesting caps on each episode's files; a file beyond them gets an `incomplete` verdict."""
    rehash_catalogs: bool = False
    """Hash each catalog's rows again instead of trusting its stamp (re-scoring: see CatalogCache)."""
    seal_keys: tuple[Path, ...] = ()
    """Seal key files, or folders of them, to check seals with besides `$VERISHOP_SEAL_KEY_FILE` and
    `$VERISHOP_HOME/seal-keys/` (verifier.seal)."""


class Verifier:
    """Scores episodes with one set of settings; keeps each catalog open across episodes.

    It reads an episode's files only (`scenario.json`, `world.db` read-only, `transcript.jsonl` and
    the catalog), never the server. Use it as a context manager, or call `close()`."""

    def __init__(self, settings: Settings = Settings()):
        self.settings = settings
        self.catalogs = CatalogCache(rehash=settings.rehash_catalogs)
        self.seal_keys = SealKeys(settings.seal_keys)

    def close(self) -> None:
        """Close the catalogs it opened."""
        self.catalogs.close()

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def score(self, directory: Path) -> Reward:
        """The reward of one episode directory (verdict "incomplete" if it cannot be scored)."""
        directory = Path(directory)
        try:
            episode = load_episode(directory, self.catalogs, self.settings.catalog, self.settings.limits,
                                   self.seal_keys)
            return score_episode(episode, self.settings.weights, self.settings.options)
        except Incomplete as exc:
            return incomplete(directory, exc.reason, exc.detail, self.settings)
        except Exception as exc:  # a verifier bug must not sink a run of thousands of episodes
            return incomplete(directory, "verifier_error", _describe(exc), self.settings)

    def verify(self, directory: Path) -> Reward:
        """Score one episode and write its reward.json. If reward.json cannot be written (it is
        a link, the folder is gone), the reward says so and is returned unwritten."""
        directory = Path(directory)
        reward = self.score(directory)
        if reward.reason == "episode_not_closed":
            # Its server may still be playing it: a reward.json now would read as "scored" to
            # whoever waits for one. Recovery closes a dead server's episodes; score them then.
            return reward.model_copy(update={"detail": f"{reward.detail} (still open: reward.json not written)"})
        try:
            write_reward(directory, reward)
        except Incomplete as exc:
            return incomplete(directory, exc.reason, f"reward.json not written: {exc.detail}", self.settings)
        except Exception as exc:  # the folder vanished, the disk is full ...: still a verdict
            return incomplete(directory, "reward_not_written", f"reward.json not written: {_describe(exc)}",
                              self.settings)
        return reward


def _describe(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()[:2000]


def incomplete(directory: Path, reason: str, detail: str, settings: Settings = Settings()) -> Reward:
    """A reward without numbers, with whatever identity the scenario file still gives."""
    identity: dict[str, object] = {}
    try:
        with episode_folder(directory) as dir_fd:
            raw = read_regular(SCENARIO_FILE, "scenario", settings.limits.scenario_bytes, dir_fd)
        if not json_depth_exceeds(raw, settings.limits.json_depth):
            data = json.loads(raw)
            identity = {k: data[k] for k in ("env_id", "difficulty", "seed") if _plausible(k, data.get(k))}
    except Exception:  # noqa: BLE001 - identity is a courtesy; the verdict stands without it
        pass
    return Reward(episode_id=episode_name(directory), verdict="incomplete", reason=reason, detail=detail,
                  weights=settings.weights, manifest=Manifest(env_id=identity.get("env_id")), **identity)


def _plausible(key: str, value: object) -> bool:
    """An identity field worth repeating in a reward (not a megabyte of text, not a 4,000-digit int)."""
    if key == "env_id":
        return isinstance(value, str) and len(value) <= 64
    return type(value) is int and abs(value) < 2**63


def write_reward(directory: Path, reward: Reward) -> Path:
    """A reader sees the old reward.json or the new one, never half of one; nothing is written
    through a link (see `safeio.write_replacing`)."""
    write_replacing(directory, REWARD_FILE, (reward.model_dump_json(indent=2) + "\n").encode())
    return directory / REWARD_FILE


def expand(paths: Iterable[Path]) -> list[Path]:
    """Episode directories named by `paths`: each is an episode, or a folder of episodes. A path
    the caller names may be a link (it is resolved); an episode folder found inside one that
    is a link is listed, and refused with its own verdict when scored."""
    found: list[Path] = []
    for path in paths:
        path = Path(path).resolve()
        if not os.path.isdir(path):
            raise UsageError(f"{path} is not a directory")
        if is_episode_dir(path):
            found.append(path)
            continue
        try:
            # os.path.isdir is False on any OSError, where Path.is_dir raises some (EACCES)
            children = sorted(c for c in path.iterdir() if os.path.isdir(c) and is_episode_dir(c))
        except OSError as exc:
            raise UsageError(f"{path} cannot be listed: {exc.strerror}") from None
        if not children:
            raise UsageError(f"{path} is neither an episode directory nor a folder of them "
                             f"(no {SCENARIO_FILE} or {TRANSCRIPT_FILE} found)")
        found += children
    return found


def auto_workers(episodes: int) -> int:
    """Worker processes worth starting for this many episodes: one per core, at most one per
    `MIN_EPISODES_PER_WORKER` episodes."""
    return max(1, min(os.cpu_count() or 1, episodes // MIN_EPISODES_PER_WORKER))


def verify_many(directories: list[Path], settings: Settings = Settings(), workers: int = 0, *,
                write: bool = True) -> Iterator[Reward]:
    """Score and write every directory, in order. workers=0 picks a count from the CPU count;
    write=False scores without touching reward.json (re-scoring to compare).

    Each directory gets a reward, in the order given: a worker process that dies has its share
    scored in this process. Combine it with `expand` to take folders of episodes:
    `for reward in verify_many(expand([Path("runs/eval-greedy-1a2b3c4d")])): ...`."""
    workers = workers or auto_workers(len(directories))
    if workers <= 1 or len(directories) < 2:
        with Verifier(settings) as verifier:
            for directory in directories:
                yield verifier.verify(directory) if write else verifier.score(directory)
        return
    size = max(1, -(-len(directories) // (workers * 4)))
    chunks = [directories[i:i + size] for i in range(0, len(directories), size)]
    with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(settings,)) as pool:
        futures = [pool.submit(_verify_chunk, chunk, write) for chunk in chunks]
        fallback: Verifier | None = None
        try:
            for chunk, future in zip(chunks, futures):
                try:
                    yield from future.result()
                except (BrokenProcessPool, OSError, RuntimeError):
                    # A worker died (killed, out of memory): score what it held here instead,
                    # so the batch still gives every episode a verdict.
                    fallback = fallback or Verifier(settings)
                    yield from (fallback.verify(d) if write else fallback.score(d) for d in chunk)
        finally:
            if fallback is not None:
                fallback.close()


_worker: Verifier | None = None  # one per pool process, set by its initializer


def _start_worker(settings: Settings) -> None:
    global _worker
    _worker = Verifier(settings)


def _verify_chunk(directories: list[Path], write: bool = True) -> list[Reward]:
    assert _worker is not None
    return [_worker.verify(d) if write else _worker.score(d) for d in directories]
