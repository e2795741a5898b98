"""How many calls per second the cluster's one curriculum actor answers (`verishop.ray`).

A rollout costs it two calls: `choose` (when the curriculum picks the difficulty) and one
`record` (when the episode is scored). Runs a one-node local Ray; needs `pip install -e '.[ray]'`.

    .venv/bin/python bench/ray_curriculum.py --calls 1000
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    calls = parser.parse_args().calls
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # Ray on 127.0.0.1 only
    import ray

    from verishop.ray.curriculum import Scored, start_curriculum

    ray.init(num_cpus=1, logging_level="warning")
    try:
        folder = Path(tempfile.mkdtemp(prefix="verishop-bench-"))
        began = time.perf_counter()
        actor = start_curriculum(folder / "curriculum.db", ray.get_runtime_context().get_node_id(), "bench")
        ray.get(actor.counts.remote())
        print(f"curriculum actor started in {time.perf_counter() - began:.2f} s")
        envs = ("pd-v3", "cart-v2", "sub-v2")

        def rate(label: str, run, unit: str = "calls/s") -> None:
            began = time.perf_counter()
            run()
            print(f"{label}: {calls / (time.perf_counter() - began):,.0f} {unit}")

        rate("choose, one round trip at a time", lambda: [ray.get(actor.choose.remote(envs, i)) for i in range(calls)])
        rate("choose, pipelined", lambda: ray.get([actor.choose.remote(envs, i) for i in range(calls)]))
        rate("record, one episode per call, pipelined",
             lambda: ray.get([actor.record.remote([Scored(f"ep{i}", "pd-v3", 0, True)]) for i in range(calls)]))
        rate("record, the same episodes again in one call (a replay: none counts)",
             lambda: ray.get(actor.record.remote([Scored(f"ep{i}", "pd-v3", 0, True) for i in range(calls)])),
             "episodes/s")
        ray.kill(actor)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
