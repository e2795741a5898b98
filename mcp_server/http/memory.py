"""How much memory one HTTP shop process may use, and when it stops opening episodes.

An open episode holds its world in memory, and its searches' caches: 2.46 MiB after one
whole-catalog search on the 1M catalog (issue 37). The open-file limit alone allowed ~10,000
episodes, ~8 GiB on a machine that had less; when memory ran out the server hung or aborted and
never answered 503. So each process has a memory budget:

- `--max-memory SIZE` (the total; with workers each gets its share), or by default
  `DEFAULT_SHARE` of the memory available when it starts (Linux's MemAvailable) plus what it
  already holds;
- `POST /episodes` answers 503 with Retry-After while the process's resident memory plus one
  more episode's cost (`EPISODE_COST_BYTES`) would exceed it, before the machine runs out;
- the default `--max-episodes` is the smaller of the open-file bound and the budget divided by
  the episode cost.

Memory is read from /proc (Linux); elsewhere there is no budget and only the other limits hold.
"""

from __future__ import annotations

import os
import re

MIB = 1 << 20
# An episode's resident cost, rounded up from the 2.46 MiB measured on the 1M catalog after one
# whole-catalog search (the most a search can cache).
EPISODE_COST_BYTES = 3 * MIB
# Of the memory available at start, what the shop may take: the rest stays for the system, the
# verifier sidecar and the page cache the catalog is read through.
DEFAULT_SHARE = 0.75
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """Bytes in `text`: '2G', '512M', '1.5GiB', '800000000'. Raises ValueError naming the form."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise ValueError(f"{text!r} is not a size: write a number of bytes, or one with K, M, G or T "
                         f"(e.g. 2G, 512M)")
    size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    if size <= 0:
        raise ValueError(f"{text!r} is no memory at all")
    return size


def resident_bytes() -> int | None:
    """This process's resident memory now (Linux), else None."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def available_bytes() -> int | None:
    """The memory the system can give without swapping (Linux's MemAvailable), else None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def default_budget_bytes(share_of: int = 1) -> int | None:
    """A process's default budget: what it holds plus its part (one of `share_of` processes)
    of `DEFAULT_SHARE` of the memory available now."""
    resident, available = resident_bytes(), available_bytes()
    if resident is None or available is None:
        return None
    return resident + int(available * DEFAULT_SHARE) // share_of


class MemoryBudget:
    """One process's budget (None: no budget) and the admission check against it."""

    def __init__(self, limit_bytes: int | None):
        self.limit_bytes = limit_bytes

    def episodes_that_fit(self) -> int | None:
        """How many episodes fit beside what the process holds now (None: no bound)."""
        resident = resident_bytes()
        if self.limit_bytes is None or resident is None:
            return None
        return max(1, (self.limit_bytes - resident) // EPISODE_COST_BYTES)

    def refusal(self) -> str | None:
        """Why one more episode would not fit, or None if it does."""
        resident = resident_bytes()
        if self.limit_bytes is None or resident is None or resident + EPISODE_COST_BYTES <= self.limit_bytes:
            return None
        return (f"the server is at its memory limit ({resident // MIB} MiB in use of {self.limit_bytes // MIB} MiB, "
                f"--max-memory); close an episode (DELETE /episodes/<id>) or retry later")
