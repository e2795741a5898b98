"""NeMo Gym's JSONL of tasks for verishop: one row per episode.

    VERISHOP_PYTHON=.venv/bin/python python -m verishop_nemo_gym.dataset \\
        --env pd --difficulty 0 --seeds 0:512 --out resources_servers/verishop/data/train.jsonl

A row is NeMo Gym's shape: `responses_create_params` (the episode's system prompt and the
customer's opening as `input`, the 30 shop tools as Responses API function tools), `verishop`
(the `{env, difficulty, seed}` that `/seed_session` opens again: the goal stays in the shop) and
`agent_ref` (the agent of resources_servers/verishop/configs/verishop.yaml). The resources server
generates the same episode from those three numbers, provided it runs the same catalog; it
refuses a row whose opening is not the episode's.

The rows are made by a verishop worker (`$VERISHOP_PYTHON`), like the episodes: this module never
imports verishop.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from verishop_nemo_gym.shop_process import ShopProcess

AGENT = "verishop_simple_agent"


def responses_tool(openai_tool: dict[str, Any]) -> dict[str, Any]:
    """A chat-completions function tool as the Responses API's (NeMo Gym's) function tool. Not
    strict: the shop's schemas have optional arguments, and the shop checks every call itself."""
    function = openai_tool["function"]
    return {"type": "function", "name": function["name"], "description": function["description"],
            "parameters": function["parameters"], "strict": False}


def rows(shop: ShopProcess, env: str, difficulty: int, seeds: Iterable[int], agent: str = AGENT) -> list[dict[str, Any]]:
    out = []
    for seed in seeds:
        opened = shop.request("open", env=env, difficulty=difficulty, seed=seed)
        shop.request("close", episode=opened["episode"])
        out.append({
            "responses_create_params": {
                "input": [{"role": "system", "content": opened["system_prompt"]},
                          {"role": "user", "content": opened["opening_message"]}],
                "tools": [responses_tool(tool) for tool in opened["tools"]],
            },
            "verishop": {"env": opened["env_id"], "difficulty": opened["difficulty"], "seed": opened["seed"]},
            "agent_ref": {"type": "responses_api_agents", "name": agent},
        })
    return out


def write_jsonl(rows_: list[dict[str, Any]], path: Path | str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows_))
    return path


def _seeds(text: str) -> range:
    start, sep, stop = text.partition(":")
    if not sep or not start.isdigit() or not stop.isdigit() or int(stop) <= int(start):
        raise argparse.ArgumentTypeError(f"seeds must be START:STOP with STOP > START (e.g. 0:512), not {text!r}")
    return range(int(start), int(stop))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m verishop_nemo_gym.dataset", description=__doc__.splitlines()[0])
    parser.add_argument("--env", action="append", required=True, help="environment (repeat for several)")
    parser.add_argument("--difficulty", type=int, default=0)
    parser.add_argument("--seeds", type=_seeds, required=True, help="START:STOP")
    parser.add_argument("--agent", default=AGENT, help="the agent_ref name of the rows")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    shop = ShopProcess()
    try:
        all_rows = [row for env in args.env for row in rows(shop, env, args.difficulty, args.seeds, args.agent)]
    finally:
        shop.close()
    print(f"{len(all_rows)} rows -> {write_jsonl(all_rows, args.out)}")


if __name__ == "__main__":
    main()
