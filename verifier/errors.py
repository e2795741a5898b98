"""Why an episode cannot be scored.

    VerifierError
    ├── Incomplete        the episode's files cannot be scored; carries a stable `reason` code
    │   ├── NotClosed     the transcript has no `episode_closed` event (yet)
    │   └── Unsafe        a file refused before it is parsed: a link, FIFO or device, over its
    │                     size cap, or JSON nested past the cap (verifier.safeio)
    └── UsageError        the caller asked for something impossible (no such directory, bad weights)

An `Incomplete` never escapes `verishop.verifier.runner`: it becomes a reward.json with verdict
"incomplete", the reason code and null numbers, never a misleading score.
"""

from __future__ import annotations


class VerifierError(Exception):
    """Base of every error the verifier raises on purpose."""


class Incomplete(VerifierError):
    """The episode cannot be scored. `reason` is a stable code (tests and dashboards key on it);
    `detail` says what exactly is wrong, for a human."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class NotClosed(Incomplete):
    """The episode is still running, or its server died before closing it."""

    def __init__(self, detail: str):
        super().__init__("episode_not_closed", detail)


class Unsafe(Incomplete):
    """A file the verifier refuses to read or write: not a regular file (a symbolic link, FIFO,
    device, directory), larger than its cap, or JSON nested deeper than the cap. The reason
    code names the file and the problem: `transcript_not_regular`, `scenario_too_deep`,
    `world_too_large`, `reward_not_regular` ..."""


class UsageError(VerifierError):
    """Bad input from the caller rather than from an episode."""
