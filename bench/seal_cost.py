"""What sealing adds to each transcript write: one HMAC-SHA256 over the line, next to the JSON
serialisation every event costs anyway. A search result of 10 products (~1.5 KB) as the line.

    .venv/bin/python bench/seal_cost.py
"""

from __future__ import annotations

import tempfile
import timeit
from pathlib import Path

from verishop.mcp_server.episodes.transcript import strict_json
from verishop.scenarios.seal import SealChain, load_or_create

CALLS = 50_000


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        chain = SealChain(load_or_create(Path(folder) / "bench.key"))
        result = {"products": [{"product_id": f"P{i:08d}", "title": "Amazon Basics Neoprene Hex Dumbbell " * 2,
                                "price_cents": 1999, "rating": 4.5} for i in range(10)]}
        event = {"seq": 1, "event": "tool_call", "elapsed_ms": 1.0, "turn": 1, "tool": "search_catalog",
                 "arguments": {"query": "dumbbell"}, "result": result}
        line = strict_json(event)
        for label, work in (("seal one line", lambda: chain.seal(line)),
                            ("serialise the same event", lambda: strict_json(event))):
            best_s = min(timeit.repeat(work, number=CALLS, repeat=5)) / CALLS
            print(f"{label}: {best_s * 1e6:.2f} µs ({len(line)}-byte line, best of 5 × {CALLS})")


if __name__ == "__main__":
    main()
