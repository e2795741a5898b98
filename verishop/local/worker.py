"""verishop's in-process shop behind a pipe, for a framework that cannot share verishop's interpreter:
`python -m verishop.local.worker` (verishop's own Python) answers one JSON request per line on stdin
with one JSON line on stdout.

Why a second process: OpenEnv 0.10's server imports fastmcp 3 and NeMo Gym 0.4 pins the MCP SDK
below 2 (and needs Python 3.12), while verishop's tools are the MCP SDK 2.x's: they cannot share an
interpreter. The episodes still run in a `LocalShop` (worlds in memory, no shop server, no sidecar,
no files); integrations/openenv and integrations/nemo_gym each start one (their `shop_process.py`).
`$VERISHOP_CATALOG` names the catalog (default: the cached default catalog).

Requests: {"op": "tools"} -> the shop's tools as OpenAI function schemas;
{"op": "open", "env", "difficulty", "seed"} -> the episode's id, info and tools;
{"op": "call", "episode", "tool", "arguments"} -> {"data", "error", "closed"};
{"op": "reward", "episode"} -> the verifier's reward.json (closing the episode if open);
{"op": "close", "episode"}. A request that fails gets {"error": "..."}.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def main() -> None:
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # nothing but replies on the protocol stream
    from verishop.local import LocalShop

    shop = LocalShop(os.environ.get("VERISHOP_CATALOG") or None)
    episodes: dict[str, Any] = {}

    def handle(request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "tools":
            return {"tools": [spec.openai_schema() for spec in shop.tool_specs()]}
        if op == "open":
            episode = shop.open(env=request.get("env"), difficulty=request.get("difficulty"), seed=request.get("seed"))
            episodes[episode.episode_id] = episode
            info = episode.info
            return {"episode": episode.episode_id, "env_id": info.env_id, "difficulty": info.difficulty,
                    "seed": info.seed, "system_prompt": info.system_prompt, "opening_message": info.opening_message,
                    "max_turns": info.max_turns, "tools": episode.openai_tools()}
        episode = episodes.get(request.get("episode", ""))
        if episode is None:
            return {"error": f"no episode {request.get('episode')!r} in this shop"}
        if op == "call":
            result = episode.call(request["tool"], request.get("arguments") or {})
            return {"data": result.data, "error": result.error, "closed": not episode.is_open,
                    "close_reason": episode.close_reason}
        if op == "reward":
            reward = episode.reward()
            episodes.pop(episode.episode_id, None)
            return {"reward": reward, "close_reason": episode.close_reason}
        if op == "close":
            episodes.pop(episode.episode_id, None)
            return {"close_reason": episode.close()}
        return {"error": f"unknown op {op!r}"}

    for line in sys.stdin:
        try:
            reply = handle(json.loads(line))
        except Exception as exc:  # a bad request is answered, and the worker goes on
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        protocol.write(json.dumps(reply) + "\n")
    shop.close()


if __name__ == "__main__":
    main()
