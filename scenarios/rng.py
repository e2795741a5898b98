"""Seeded randomness. Every random choice in verishop flows from one `random.Random`
made here and passed down; nothing touches the global `random` or the wall clock.

Seeds for independent parts (a catalog chunk, an episode's customer) are derived by
hashing labels, never by Python's `hash()`, which is salted per process.
"""

from __future__ import annotations

import random

from verishop.scenarios.short_hash import sha256


def derive_seed(*parts: object) -> int:
    """A 64-bit seed that depends only on `parts` (stable across processes and machines)."""
    text = "\x1f".join(repr(p) for p in parts)
    return int.from_bytes(sha256(text.encode()).digest()[:8], "big")


def make_rng(*parts: object) -> random.Random:
    return random.Random(derive_seed(*parts))
