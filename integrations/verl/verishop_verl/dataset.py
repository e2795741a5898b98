"""The parquet rows and the tool config verl's multi-turn training reads.

    python -m verishop_verl.dataset --env pd --difficulty 0 --seeds 0:512 --out data/train.parquet
    python -m verishop_verl.dataset --env pd --difficulty 0 --seeds 100000:100064 --out data/test.parquet
    python -m verishop_verl.dataset --tool-config verishop_tools.yaml

A row is verl's multi-turn shape: `prompt` (the episode's system prompt and the customer's
opening, as chat messages), `agent_name` (`verishop_agent`), `data_source`, `reward_model`
(the ground truth is only the episode's coordinates: the goal stays in the shop) and
`extra_info` with `tools_kwargs`, where every tool's `create_kwargs` is `{env, difficulty, seed}`.
The episode each row opens is generated again by the rollout worker's shop from those three
numbers: the same bytes, provided it runs the same catalog (`catalog_content_hash` is recorded).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from verishop.local import LocalShop
from verishop_verl.schemas import verl_tool_schema

TOOL_CLASS = "verishop_verl.tools.VerishopTool"


def rows(shop: LocalShop, env: str, difficulty: int, seeds: Iterable[int], split: str = "train") -> list[dict[str, Any]]:
    """One row per seed: the episode's prompt and the kwargs that open it again."""
    tool_names = [tool.name for tool in shop.tool_specs()]
    out = []
    for index, seed in enumerate(seeds):
        with shop.episode(env=env, difficulty=difficulty, seed=seed) as episode:
            info = episode.info
        spec = {"env": info.env_id, "difficulty": info.difficulty, "seed": info.seed}
        out.append({
            "data_source": f"verishop/{info.env_id}",
            "agent_name": "verishop_agent",
            "prompt": [{"role": "system", "content": info.system_prompt},
                       {"role": "user", "content": info.opening_message}],
            "ability": "shopping",
            "reward_model": {"style": "rule", "ground_truth": f"{info.env_id}/{info.difficulty}/{info.seed}"},
            "extra_info": {"split": split, "index": index, **spec, "max_turns": info.max_turns,
                           "catalog_content_hash": shop.catalog_content_hash,
                           "tools_kwargs": {name: {"create_kwargs": dict(spec)} for name in tool_names}},
        })
    return out


def write_parquet(rows_: list[dict[str, Any]], path: Path | str) -> Path:
    import pandas as pd

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows_).to_parquet(path)
    return path


def tool_config(shop: LocalShop, catalog: str | None = None) -> dict[str, Any]:
    """verl's tool config (`multi_turn.tool_config_path`): every shop tool as a `VerishopTool`."""
    config: dict[str, Any] = {"type": "native"}
    if catalog:
        config["catalog"] = catalog
    return {"tools": [{"class_name": TOOL_CLASS, "config": dict(config),
                       "tool_schema": verl_tool_schema(spec.name, spec.description, spec.parameters)}
                      for spec in shop.tool_specs()]}


def write_tool_config(shop: LocalShop, path: Path | str, catalog: str | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = "# verishop's tools for verl (written by `python -m verishop_verl.dataset --tool-config`)\n"
    path.write_text(header + yaml.safe_dump(tool_config(shop, catalog), sort_keys=False, allow_unicode=True, width=100))
    return path


def _seeds(text: str) -> range:
    start, _, stop = text.partition(":")
    if not stop:
        raise argparse.ArgumentTypeError(f"seeds are START:STOP, e.g. 0:512 (got {text!r})")
    return range(int(start), int(stop))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m verishop_verl.dataset", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="pd", help="an environment id (pd, status, ...)")
    parser.add_argument("--difficulty", type=int, default=0)
    parser.add_argument("--seeds", type=_seeds, help="START:STOP")
    parser.add_argument("--split", default="train")
    parser.add_argument("--out", help="the parquet file to write")
    parser.add_argument("--tool-config", help="also write verl's tool config YAML here")
    parser.add_argument("--catalog", help="a catalog file (default: the default catalog)")
    args = parser.parse_args(argv)
    if not args.out and not args.tool_config:
        parser.error("give --out (with --seeds) or --tool-config")
    with LocalShop(args.catalog) as shop:
        if args.out:
            if args.seeds is None:
                parser.error("--out needs --seeds START:STOP")
            written = write_parquet(rows(shop, args.env, args.difficulty, args.seeds, args.split), args.out)
            print(f"wrote {len(args.seeds)} rows to {written}")
        if args.tool_config:
            print(f"wrote {write_tool_config(shop, args.tool_config, args.catalog)}")


if __name__ == "__main__":
    main()
