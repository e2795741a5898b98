"""Each environment's committed example rollouts (`verishop/envs/<folder>/examples.jsonl`), and
re-scoring one of them.

An example is one played episode in one JSON line, the shape of NeMo Gym's `data/example.jsonl`:
the scenario, the transcript, the world the verifier reads, and the reward the episode earns.

    {"env_id": "pd-v9", "difficulty": 0, "seed": 1, "agent": "oracle",
     "catalog": {"size": 4000, "seed": 3, "content_hash": "3645..."},
     "scenario": {... scenario.json ...},
     "transcript": [{"seq": 1, "event": "episode_opened", ...}, ...],
     "world": {"cart": [[product_id, quantity, added_seq], ...], "returns": [[...], ...]},
     "reward": {"verdict": "scored", "r_task": 1.0, ..., "total": 0.97, "is_correct": true, ...}}

A line holds nothing that differs between two recordings of the same episode: the transcript's
clock (`elapsed_ms`, `duration_ms`), its seal (`seal`, `seal_scheme`, `seal_key_id`,
`world_sha256`: an example is re-scored unsealed) and the episode's id (`EXAMPLE_EPISODE_ID`) are
left out, and of world.db only the tables the shop's tools write are kept, with every row (the
rest is what the scenario seeds). Recording the same examples again gives the same bytes.

`rescore` turns a line back into an episode folder the way the server writes one (scenario.json
as `Scenario.to_json`, world.db seeded from the scenario by `scenarios.world_db` with the tables
kept, transcript.jsonl one compact JSON event per line) and scores it with the verifier,
in-process: it must earn the stored reward, field for field (`STABLE_REWARD_FIELDS`).

They are committed fixtures, recorded by `make examples` (`python -m
verishop.agents.record_examples`), on the test catalog (size 4000, seed 3); nothing reads them at
run time. `python -m verishop.envs.examples` re-scores every committed example.

This module imports the scenario core and the verifier's public runner; the recording, which
plays episodes through the server with the oracles and baselines, is the agents'.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sqlite3
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from verishop.envs import REGISTRY, EnvSpec
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.models import Scenario
from verishop.scenarios.world_db import empty_world_image, seed_world, write_world_image

EXAMPLES_FILE = "examples.jsonl"
EXAMPLE_EPISODE_ID = "example"
"""The id every example's episode gets (in its opening event, its world and its folder's name)."""
# The catalog the examples are recorded on: the test suite's (conftest.py).
CATALOG_SIZE = 4000
CATALOG_SEED = 3

# What differs between two recordings of one episode: the clock and the seal.
UNSTABLE_EVENT_FIELDS = frozenset({"elapsed_ms", "duration_ms", "seal", "seal_scheme", "seal_key_id", "world_sha256"})
# world.db's meta rows that name the episode, or where and on which machine its catalog is.
UNSTABLE_META_KEYS = frozenset({"episode_id", "catalog_path", "catalog_identity", "catalog_machine"})
# The world.db tables the shop's tools write (mcp_server/shop: the cart, the returns started);
# the others hold what the scenario seeds, and are seeded from it again.
WRITTEN_TABLES = ("cart", "returns")
# An account world's (issue 32) further tables the tools write: the log of order changes, and the
# orders, their lines and the payment balances they change in place. Kept, whole, only for a
# scenario with an account, so that the other examples keep their bytes.
ACCOUNT_TABLES = ("order_changes", "orders", "order_lines", "payment_methods")
# The hand-overs to a person (issue 33): kept only when the episode made one, so that every
# example recorded before them keeps its bytes.
HANDOVER_TABLES = ("handovers",)
# The account's vouchers (issue 34), which apply_voucher and checkout change in place: kept, whole,
# only for a scenario whose account has vouchers, so that every other example keeps its bytes.
VOUCHER_TABLES = ("vouchers",)
# The reward's fields that depend on the episode's files only (not its folder's name, nor its seal,
# nor the verifier's version: a new version that scores the same keeps its examples).
STABLE_REWARD_FIELDS = ("env_id", "difficulty", "seed", "verdict", "reason", "detail", "r_task", "r_eff", "r_hall",
                        "total", "is_correct", "hard_fail", "failed_requirements", "breakdown", "turns",
                        "tool_calls", "tool_errors", "calls_over_budget", "close_reason", "notes")


class ExampleError(ValueError):
    """An example line that cannot be re-scored as it stands (not a line of this format, or
    recorded on another catalog)."""


def examples_path(spec: EnvSpec) -> Path:
    """Where `spec`'s examples are committed: `examples.jsonl` in its folder (not imported)."""
    found = importlib.util.find_spec(spec.folder)
    if found is None or not found.submodule_search_locations:
        raise ExampleError(f"{spec.env_id}: its folder {spec.folder} is not a package")
    return Path(list(found.submodule_search_locations)[0]) / EXAMPLES_FILE


def read_examples(spec: EnvSpec) -> list[dict[str, Any]]:
    """`spec`'s committed examples, one dict per line."""
    path = examples_path(spec)
    lines = path.read_text(encoding="utf-8").splitlines()
    examples = []
    for number, text in enumerate(lines, start=1):
        try:
            example = json.loads(text)
        except ValueError as exc:
            raise ExampleError(f"{path} line {number} is not JSON: {exc}") from None
        if not isinstance(example, dict):
            raise ExampleError(f"{path} line {number} is not a JSON object")
        examples.append(example)
    return examples


def dumps(example: dict[str, Any]) -> str:
    """One example as its line: compact JSON, keys in the order they were made, no NaN."""
    return json.dumps(example, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_examples(spec: EnvSpec, examples: Iterable[dict[str, Any]]) -> Path:
    path = examples_path(spec)
    path.write_text("".join(dumps(e) + "\n" for e in examples), encoding="utf-8")
    return path


def stable_reward(reward: Any) -> dict[str, Any]:
    """The fields of a reward (a `verishop.verifier.models.Reward`) an example stores, as JSON."""
    data = reward.model_dump(mode="json")
    return {name: data[name] for name in STABLE_REWARD_FIELDS}


def example_from_episode(directory: Path, *, agent: str, reward: Any) -> dict[str, Any]:
    """The example line of a closed episode folder the server wrote, and the reward it earned."""
    scenario = json.loads((directory / "scenario.json").read_text(encoding="utf-8"))
    events = [json.loads(line) for line in (directory / "transcript.jsonl").read_text(encoding="utf-8").splitlines()]
    transcript = [_stable_event(event) for event in events]
    episode_id = events[0].get("episode_id") if events else None
    with sqlite3.connect(f"file:{directory / 'world.db'}?mode=ro&immutable=1", uri=True) as db:
        tables = WRITTEN_TABLES + (ACCOUNT_TABLES if scenario.get("account") else ())
        world = {table: [list(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid")]
                 for table in tables}
        present = {name for (name,) in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        for table in HANDOVER_TABLES:
            made = [list(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid")] if table in present else []
            if made:
                world[table] = made
        if (scenario.get("account") or {}).get("vouchers"):
            for table in VOUCHER_TABLES:
                world[table] = [list(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid")]
    example = {"env_id": scenario["env_id"], "difficulty": scenario["difficulty"], "seed": scenario["seed"],
               "agent": agent, "catalog": {"size": scenario["catalog"]["size"], "seed": scenario["catalog"]["seed"],
                                           "content_hash": scenario["catalog"]["content_hash"]},
               "scenario": scenario, "transcript": transcript, "world": world, "reward": stable_reward(reward)}
    text = dumps(example)
    # Whatever names this episode or this machine would make two recordings differ.
    for unstable in (episode_id, directory.name, str(directory.parent)):
        if unstable and unstable in text:
            raise ExampleError(f"{directory}: the example still holds {unstable!r}, which differs between recordings")
    return example


def world_rows(path: Path) -> dict[str, list[tuple]]:
    """Every table of the world file `path`, its rows in order, but for the meta rows that name
    the episode and the machine: what two equal episodes' worlds have in common."""
    with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
        rows = {table: db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall() for table in tables}
    rows["meta"] = [row for row in rows.get("meta", []) if row[0] not in UNSTABLE_META_KEYS]
    return rows


def _stable_event(event: dict[str, Any]) -> dict[str, Any]:
    stable = {k: v for k, v in event.items() if k not in UNSTABLE_EVENT_FIELDS}
    if "episode_id" in stable:
        stable["episode_id"] = EXAMPLE_EPISODE_ID
    return stable


def materialise(example: dict[str, Any], folder: Path, catalog: Path) -> Path:
    """Write `example` as the episode folder `folder/EXAMPLE_EPISODE_ID` (scenario.json,
    world.db, transcript.jsonl), as the server writes one, its world naming `catalog`."""
    try:
        scenario = Scenario.model_validate(example["scenario"])
        events, world = example["transcript"], example["world"]
        rows = {table: [tuple(row) for row in world[table]] for table in WRITTEN_TABLES}
        rows |= {table: [tuple(row) for row in world[table]]
                 for table in ACCOUNT_TABLES + HANDOVER_TABLES + VOUCHER_TABLES if table in world}
    except (KeyError, TypeError, ValueError) as exc:
        raise ExampleError(f"not an example line: {type(exc).__name__}: {str(exc).splitlines()[0]}") from None
    directory = folder / EXAMPLE_EPISODE_ID
    directory.mkdir(parents=True)
    text = scenario.to_json().encode()
    (directory / "scenario.json").write_bytes(text)
    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db.deserialize(empty_world_image())
        seed_world(db, scenario, episode_id=EXAMPLE_EPISODE_ID, catalog_path=catalog)
        for table, table_rows in rows.items():
            if table in ACCOUNT_TABLES + VOUCHER_TABLES:  # stored whole: they replace what the scenario seeded
                db.execute(f"DELETE FROM {table}")
            if table_rows:
                # An example recorded before a column was added (orders.customer_id, world schema 4)
                # fills the columns it has, in order.
                columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")][:len(table_rows[0])]
                marks = ", ".join("?" * len(table_rows[0]))
                db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", table_rows)
        write_world_image(directory / "world.db", db.serialize())
    except sqlite3.Error as exc:
        raise ExampleError(f"the example's world does not fit world.db: {exc}") from None
    finally:
        db.close()
    (directory / "transcript.jsonl").write_text(
        "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n" for e in events),
        encoding="utf-8")
    return directory


def rescore(example: dict[str, Any], catalog: Path) -> dict[str, Any]:
    """The reward (its stable fields) the verifier gives `example` today, scored in this process
    from an episode folder made of it in a temporary directory. `catalog` must be the one it was
    recorded on (same content hash)."""
    from verishop.verifier.runner import Settings, Verifier

    recorded = example.get("catalog") if isinstance(example, dict) else None
    with CatalogReader(catalog) as reader:
        content_hash = reader.meta.get("content_hash")
    if not isinstance(recorded, dict) or recorded.get("content_hash") != content_hash:
        raise ExampleError(f"the example was recorded on catalog {recorded!r}; {catalog} has content hash "
                           f"{content_hash} (build it with size {CATALOG_SIZE}, seed {CATALOG_SEED})")
    with tempfile.TemporaryDirectory(prefix="verishop-example-") as tmp:
        directory = materialise(example, Path(tmp), catalog)
        with Verifier(Settings(catalog=catalog)) as verifier:
            return stable_reward(verifier.score(directory))


def main(argv: list[str] | None = None) -> int:
    """`python -m verishop.envs.examples [--catalog PATH] [--env NAME ...]`: re-score every
    committed example; exit 1 if any earns another reward than it stores."""
    from verishop.scenarios.catalog.cache import catalog_path, ensure_catalog, verishop_home

    parser = argparse.ArgumentParser(prog="python -m verishop.envs.examples", description=main.__doc__)
    parser.add_argument("--catalog", type=Path, help="the catalog of size 4000, seed 3 (built in "
                                                     "$VERISHOP_HOME/catalogs if not given)")
    parser.add_argument("--env", action="append", help="an environment's name or id (default: all registered)")
    args = parser.parse_args(argv)
    from verishop.envs import get_env

    specs = [get_env(name) for name in args.env] if args.env else list(REGISTRY.values())
    catalog = args.catalog or ensure_catalog(catalog_path(verishop_home(), CATALOG_SIZE, CATALOG_SEED),
                                             size=CATALOG_SIZE, seed=CATALOG_SEED)
    differ = 0
    for spec in specs:
        for number, example in enumerate(read_examples(spec), start=1):
            now = rescore(example, catalog)
            same = now == example["reward"]
            differ += not same
            verdict = "same" if same else f"now {now['total']}: differs"
            print(f"{spec.name:8} line {number}: {example['agent']:7} d{example['difficulty']:<2} "
                  f"seed {example['seed']}  total {example['reward']['total']}  {verdict}")
    print(f"{differ} example(s) re-score differently" if differ else "every example re-scores to its stored reward")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
