"""`python -m verishop.local.worker`: the in-process shop behind a pipe of JSON lines, for the
frameworks that cannot share verishop's interpreter (OpenEnv, NeMo Gym: MCP SDK 1.x)."""

from __future__ import annotations

import json
import os
import subprocess
import sys



def test_the_worker_plays_and_scores_episodes_over_its_pipe(catalog_path):
    worker = subprocess.Popen([sys.executable, "-m", "verishop.local.worker"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1,
                              env={**os.environ, "VERISHOP_CATALOG": str(catalog_path)})

    def ask(**request):
        worker.stdin.write(json.dumps(request) + "\n")
        worker.stdin.flush()
        return json.loads(worker.stdout.readline())

    try:
        tools = ask(op="tools")["tools"]
        assert {t["function"]["name"] for t in tools} >= {"search_catalog", "respond_to_customer"}
        opened = ask(op="open", env="status", difficulty=0, seed=3)
        episode = opened["episode"]
        assert opened["opening_message"] and opened["env_id"].startswith("status-")
        listed = ask(op="call", episode=episode, tool="list_orders", arguments={})
        assert listed["error"] is None and listed["data"]["orders"] and not listed["closed"]
        refused = ask(op="call", episode=episode, tool="check_order", arguments={"order_id": "W0000000"})
        assert "budget" in refused["error"] and not refused["closed"]  # the shop's own words, as over MCP
        assert "error" in ask(op="call", episode="ep_nope", tool="list_orders")
        assert "unknown op" in ask(op="dance", episode=episode)["error"]
        assert "JSONDecodeError" in (worker.stdin.write("not json\n"), worker.stdin.flush(),
                                     json.loads(worker.stdout.readline()))[2]["error"]
        closing = ask(op="call", episode=episode, tool="respond_to_customer", arguments={"message": "Bye.", "done": True})
        assert closing["closed"] and closing["close_reason"] == "agent_done"
        reward = ask(op="reward", episode=episode)["reward"]
        assert reward["verdict"] == "scored" and reward["is_correct"] is False and reward["total"] < 0.5
    finally:
        worker.stdin.close()
        assert worker.wait(timeout=60) == 0
