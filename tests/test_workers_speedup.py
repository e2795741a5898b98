"""A second worker nearly doubles what one `verishop serve` plays on a 2-core machine (issue 12:
at least 1.6x). Timing depends on the machine being otherwise idle, so this runs with the
benchmarks (`-m slow`, `make bench`), not in `make test`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEADLINE_S = 600


@pytest.mark.slow
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two cores")
def test_two_workers_play_at_least_1_6x_the_episodes_of_one():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "workers.py"), "--size", "10000", "--episodes", "200",
                          "--rounds", "3", "--check"], capture_output=True, text=True, timeout=DEADLINE_S,
                         cwd=ROOT, stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "200"})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "--workers 2 vs --workers 1" in run.stdout
