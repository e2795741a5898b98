"""Splits that cannot leak: train, dev and a private test split in disjoint seed spaces.

An episode is a pure function of (environment, difficulty, seed), and the generator is public:
whoever knows a seed knows the hidden goal. So a split is a map from an episode's *index* to
its seed:

    seed = tag(split) · 2^61 + offset(split, env, difficulty, index)        (offset < 2^61)

- The two top bits of the 63-bit seed name the split (train 1, dev 2, test 3), so the three
  spaces are disjoint by construction, and disjoint from the plain seeds below 2^61 that
  `--seed` without a split has always used.
- train and dev offsets are a public hash of (split, env, difficulty, index): anyone can
  re-create a published train or dev set.
- test offsets are HMAC-SHA256(secret, env, difficulty, index): without the secret the seeds
  are unpredictable, 2^61 of them for every (env, difficulty), so a published train set says
  nothing about them and no one can enumerate seeds to match an opening message. With the
  secret, the evaluator (or anyone it shares it with) re-creates and re-scores every episode.

The environment enters by its short name (`pd`, not `pd-v9`), so a split keeps its tasks
across environment versions. The secret is read at entry points only (`--split-secret` or
VERISHOP_SPLIT_SECRET), never at import.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Mapping
from typing import Literal

from verishop.scenarios.envs import get_env

Split = Literal["train", "dev", "test"]
SPLITS: tuple[Split, ...] = ("train", "dev", "test")
SECRET_ENV = "VERISHOP_SPLIT_SECRET"
OFFSET_BITS = 61
_TAGS = {"train": 1, "dev": 2, "test": 3}
MIN_SECRET_CHARS = 16


class SplitError(ValueError):
    """A split that cannot be used as asked (unknown, or the test split without its secret)."""


def secret_from_env(given: str | None = None) -> str | None:
    """The split secret: the one given (a CLI flag), else VERISHOP_SPLIT_SECRET, else None."""
    return given or os.environ.get(SECRET_ENV) or None


def split_seed(split: str, env: str, difficulty: int, index: int, secret: str | None = None) -> int:
    """The seed of episode `index` of `split` for (env, difficulty)."""
    if split not in _TAGS:
        raise SplitError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    if not isinstance(index, int) or index < 0:
        raise SplitError(f"a split index is an integer >= 0, got {index!r}")
    name = get_env(env).short_name
    message = f"verishop-split\x1f{split}\x1f{name}\x1f{difficulty}\x1f{index}".encode()
    if split == "test":
        if not secret:
            raise SplitError(f"the test split needs its secret: pass --split-secret or set {SECRET_ENV}")
        if len(secret) < MIN_SECRET_CHARS:
            raise SplitError(f"a split secret needs at least {MIN_SECRET_CHARS} characters")
        digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    else:
        digest = hashlib.sha256(message).digest()
    offset = int.from_bytes(digest[:8], "big") >> (64 - OFFSET_BITS)
    return (_TAGS[split] << OFFSET_BITS) | offset


def split_of(seed: int) -> Split | None:
    """The split a seed's top bits name, or None for a plain seed (below 2^61)."""
    tag = seed >> OFFSET_BITS
    return next((name for name, value in _TAGS.items() if value == tag), None)


def is_sealed(seed: object) -> bool:
    """Whether `seed` is a private test-split seed: one no output, log or agent may ever see
    (with the public generator it is the hidden goal)."""
    return isinstance(seed, int) and not isinstance(seed, bool) and split_of(seed) == "test"


def seed_label(seed: object, index: int | None = None) -> object:
    """What to show for an episode's seed: the seed itself for a plain, train or dev seed (users
    reproduce with it), and for a test-split seed its index in the split ("test #7") when known,
    else only that it is sealed."""
    if not is_sealed(seed):
        return seed
    return f"test #{index}" if index is not None else "test (sealed)"


_NINETEEN_DIGITS = re.compile(r"(?<![0-9])[0-9]{19}(?![0-9])")  # every test seed is 3·2^61 or more


def redact_seeds(text: str, indices: Mapping[int, int] | None = None) -> str:
    """`text` with every test-split seed in it (an exception's message, a traceback, a transcript
    line) replaced by its label: the net under every printed text."""
    def label(match: re.Match[str]) -> str:
        value = int(match.group())
        return str(seed_label(value, (indices or {}).get(value))) if is_sealed(value) else match.group()

    return _NINETEEN_DIGITS.sub(label, text)
