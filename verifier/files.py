"""Loading one episode directory: scenario.json, transcript.jsonl, world.db and the catalog
they name, each checked against the others. Every way a file can be missing or wrong
becomes an `Incomplete` with a specific reason, never a crash. Files are read relative to
the episode folder's descriptor through `verishop.verifier.safeio`: regular files only, capped."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from verishop.scenarios.catalog.integrity import catalog_identity, this_machine
from verishop.scenarios.models import SCENARIO_SCHEMA_VERSION, Scenario
from verishop.scenarios.stock import EpisodeStock
from verishop.verifier.catalogs import CatalogCache, Shop
from verishop.verifier.errors import Incomplete, Unsafe
from verishop.verifier.safeio import Limits, check_json_depth, episode_folder, read_regular
from verishop.verifier.seal import INTACT, UNSEALED, SealKeys, check_chain, check_files, world_digest, world_log_present
from verishop.verifier.transcript import Transcript, is_closed, parse_transcript
from verishop.verifier.world import IN_MEMORY_WORLD_BYTES, World, read_world

SCENARIO_FILE = "scenario.json"
TRANSCRIPT_FILE = "transcript.jsonl"
WORLD_FILE = "world.db"
REWARD_FILE = "reward.json"
EPISODE_FILES = (SCENARIO_FILE, TRANSCRIPT_FILE, WORLD_FILE)


@dataclass
class Episode:
    """Everything the checks read, loaded and cross-checked."""

    episode_id: str
    directory: Path
    scenario: Scenario
    transcript: Transcript
    world: World
    shop: Shop
    catalog_content_hash: str  # of the catalog the checks read (see CatalogCache.content_hash)
    seal: str = UNSEALED  # "intact": sealed by its server and unchanged since (verifier.seal)
    # The scenario's canonical digest (`Scenario.sha256`), when its loader already holds it (the
    # in-process shop does); None: computed from the scenario when the reward needs it.
    scenario_sha256: str | None = None

    @property
    def notes(self) -> list[str]:
        return self.transcript.notes


def is_episode_dir(path: Path) -> bool:
    """Whether `path` holds any episode file (a dangling link counts: it gets its verdict)."""
    return any(os.path.lexists(path / name) for name in EPISODE_FILES)  # False on any OSError


def episode_name(directory: Path) -> str:
    """The folder's name as text that always encodes (a name that is not UTF-8 keeps its
    bytes as backslash escapes), so a reward can always be written and printed."""
    return os.fsencode(directory.name).decode("utf-8", "backslashreplace")


def read_scenario(name: str, limits: Limits = Limits(), dir_fd: int | None = None,
                  raw: bytes | None = None) -> tuple[Scenario, bytes]:
    """The scenario `name` (relative to the episode folder `dir_fd`, if given) and its bytes
    (`raw`: the bytes, when the caller already read them)."""
    path = Path(name)
    if raw is None:
        raw = read_regular(name, "scenario", limits.scenario_bytes, dir_fd)
    if not raw.strip():
        raise Incomplete("scenario_invalid", f"{path.name} is empty")
    check_json_depth(raw, path.name, "scenario", limits.json_depth)
    try:
        scenario = Scenario.model_validate_json(raw)
    except ValidationError as exc:
        version = _schema_version(raw)
        if version is not None and version != SCENARIO_SCHEMA_VERSION:
            raise Incomplete("scenario_schema_unknown", f"{path.name} has schema_version {version}; this verifier "
                                                        f"reads version {SCENARIO_SCHEMA_VERSION}") from None
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(document)"
        raise Incomplete("scenario_invalid", f"{path.name} is not a valid scenario: {where}: {first['msg']}") from None
    if scenario.schema_version != SCENARIO_SCHEMA_VERSION:
        raise Incomplete("scenario_schema_unknown", f"{path.name} has schema_version {scenario.schema_version}; "
                                                    f"this verifier reads version {SCENARIO_SCHEMA_VERSION}")
    return scenario, raw


def _schema_version(raw: bytes) -> object:
    try:
        return json.loads(raw).get("schema_version")
    except (ValueError, AttributeError, RecursionError):
        return None


def load_episode(directory: Path, catalogs: CatalogCache, catalog_override: Path | None = None,
                 limits: Limits = Limits(), seal_keys: SealKeys | None = None) -> Episode:
    """Load and cross-check an episode directory. The transcript is read first: an episode
    that is not closed is reported as such whatever its other files look like. A sealed
    episode's seal is checked before anything is parsed (verifier.seal)."""
    directory = Path(directory)
    with episode_folder(directory) as dir_fd:
        raw_transcript = read_regular(TRANSCRIPT_FILE, "transcript", limits.transcript_bytes, dir_fd)
        if not raw_transcript.strip():
            raise Incomplete("transcript_empty", f"{TRANSCRIPT_FILE} is empty")
        key = check_chain(raw_transcript, seal_keys or SealKeys(), limits.json_depth, episode_name(directory))
        transcript = parse_transcript(raw_transcript, limits.json_depth)
        # A sealed episode's scenario and world are read once: the bytes digested are the bytes scored.
        scenario_raw = world_image = None
        if key is not None:
            scenario_raw = read_regular(SCENARIO_FILE, "scenario", limits.scenario_bytes, dir_fd)

            def world_sha256() -> str | None:
                nonlocal world_image
                digest, world_image = _sealed_world(directory, limits, dir_fd)
                return digest

            check_files(raw_transcript, transcript, scenario_raw, world_sha256,
                        world_log_present(directory, dir_fd), episode_name(directory))
        scenario, raw = read_scenario(SCENARIO_FILE, limits, dir_fd, raw=scenario_raw)
        _check_same_scenario(transcript, scenario, raw)
        world = read_world(directory, WORLD_FILE, limits, dir_fd, image=world_image)
    world_hash = world.meta.get("catalog_content_hash")
    if world_hash is not None and world_hash != scenario.catalog.content_hash:
        raise Incomplete("catalog_mismatch", f"world.db was seeded for catalog {world_hash}, "
                                             f"the scenario names {scenario.catalog.content_hash}")
    catalog_path = catalog_override or world.meta.get("catalog_path")
    if not catalog_path:
        raise Incomplete("catalog_missing", "world.db does not name its catalog; pass --catalog")
    _check_catalog_unchanged(world, Path(catalog_path))
    catalog = catalogs.open(Path(catalog_path), scenario.catalog.content_hash)
    return Episode(episode_id=episode_name(directory), directory=directory, scenario=scenario, transcript=transcript,
                   world=world, shop=Shop(catalog, world, EpisodeStock(world.stock, scenario.sell_outs)),
                   catalog_content_hash=catalogs.content_hash(Path(catalog_path)),
                   seal=INTACT if key is not None else UNSEALED)


def _sealed_world(directory: Path, limits: Limits, dir_fd: int | None) -> tuple[str | None, bytes | None]:
    """world.db's digest for the seal check, and its bytes when they fit in memory (the verifier
    then opens those bytes, never reading the file again); a larger or unreadable one is only
    digested, as a stream."""
    where = WORLD_FILE if dir_fd is not None else str(Path(directory) / WORLD_FILE)
    try:
        image = read_regular(where, "world", min(limits.world_bytes, IN_MEMORY_WORLD_BYTES), dir_fd)
    except Unsafe:
        return world_digest(dir_fd, directory), None
    return hashlib.sha256(image).hexdigest(), image


def _check_same_scenario(transcript: Transcript, scenario: Scenario, raw: bytes) -> None:
    """The transcript names the scenario it was played on by hash: a scenario.json edited or
    swapped afterwards would be scored against a goal nobody played."""
    played = transcript.opened.get("scenario_sha256")
    if not played:
        return
    if hashlib.sha256(raw).hexdigest() != played and scenario.sha256() != played:
        raise Incomplete("scenario_mismatch", f"scenario.json is not the scenario this episode was played on "
                                              f"(transcript names sha256 {played[:12]}...)")


def _check_catalog_unchanged(world: World, catalog_path: Path) -> None:
    """Refuse an episode whose catalog file was edited or swapped after its server verified it:
    the world records the file's identity, which means something only on the same machine and
    for the same file (scoring a copy elsewhere relies on the content hash alone)."""
    recorded, machine = world.meta.get("catalog_identity"), world.meta.get("catalog_machine")
    if recorded is None or machine != this_machine():
        return
    named = world.meta.get("catalog_path")
    if named is None or os.path.abspath(catalog_path) != os.path.abspath(named):
        return
    try:
        now = catalog_identity(catalog_path)
    except OSError:
        return  # missing: CatalogCache says so
    if now != recorded:
        raise Incomplete("catalog_changed", f"the catalog {catalog_path} was edited or replaced after the server "
                                            f"verified it for this episode; the episode cannot be scored on it")


def is_final(directory: Path) -> bool:
    """Whether no server will write this episode folder any more, so it is due its verdict: the
    transcript ends with `episode_closed` (or is no regular file), or the folder holds what no
    server leaves even mid-creation: a transcript beside an empty or missing scenario.json (a
    server writes it in full before it creates the transcript), or beside an empty world.db. An
    open episode has no world.db yet: its server writes it at close, before the closing event."""
    if is_closed(directory / TRANSCRIPT_FILE):
        return True
    if not os.path.lexists(directory / TRANSCRIPT_FILE):
        return False
    for name, missing_is_final in ((SCENARIO_FILE, True), (WORLD_FILE, False)):
        try:
            st = os.lstat(directory / name)
        except FileNotFoundError:
            if missing_is_final:
                return True
            continue
        except OSError:
            return False
        if stat.S_ISREG(st.st_mode) and st.st_size == 0:
            return True
    return False
