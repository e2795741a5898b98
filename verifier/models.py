"""What the verifier writes: `reward.json`, one per episode directory."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# 2: committed answers count, IDs earn only once shown, free turns only for real questions,
# safety on every channel, answers read as people write them (issue 9). 3: a turn with no
# definite answer commits nothing, typed answers read exactly, safety reads every channel in
# normal form (any spelling of a denied ID or title), no constant policy answers (issue 19);
# every reward carries a manifest, each failed check its requirement, source and actor (issue 22).
# 4: safety on a normal form against every denied product of the episode, a requirement counts as
# revealed when any customer reply said it (before its typo noise), and `seal` (issue 28).
# 5: the minefields an episode carried and the one it hit, and the task's own verdict (issue 33).
REWARD_SCHEMA_VERSION = 5

# The scoring code's own version: bump it whenever the same episode files could score
# differently (a check's rule, a reader's phrasing, efficiency or hallucination), so that
# `verishop verify --compare` can say a changed total came from a new verifier, not a bug.
VERIFIER_VERSION = 5  # 5: issue 33 (minefields: identity, other customers' data, injections); 4: issue 30 (money answers read in the shop's currency); 3: issue 28 (one reading or none, safety on a normal form, blame)


class Manifest(BaseModel):
    """What a reward was computed from and with: two rewards with equal manifests must be equal.
    `catalog_content_hash` is the catalog the verifier read (its rows hashed again when
    re-scoring with --compare), `scenario_digest` the SHA-256 of the scenario's canonical JSON."""

    model_config = ConfigDict(frozen=True)

    env_id: str | None = None
    reward_schema_version: int = REWARD_SCHEMA_VERSION
    verifier_version: int = VERIFIER_VERSION
    catalog_content_hash: str | None = None
    scenario_digest: str | None = None


class Weights(BaseModel):
    """How the three parts compose: total = clip(task·r_task + eff·r_eff + hall·r_hall, -1, 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: float = 0.75
    eff: float = 0.15
    hall: float = 0.10

    @field_validator("task", "eff", "hall")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value) or value < 0:
            raise ValueError("a weight must be a finite number >= 0")
        return value

    @classmethod
    def parse(cls, text: str) -> Weights:
        """`"0.75,0.15,0.10"` -> Weights (task, efficiency, hallucination)."""
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != 3:
            raise ValueError(f"expected three comma-separated weights (task,eff,hall), got {text!r}")
        try:
            task, eff, hall = (float(p) for p in parts)
        except ValueError:
            raise ValueError(f"weights must be numbers, got {text!r}") from None
        return cls(task=task, eff=eff, hall=hall)


# Where a requirement came from (`verishop.verifier.requirements`): the opening message, a reply
# to the agent's question, nowhere (never asked for), or only the shop's tools.
Source = Literal["stated", "revealed", "withheld", "shop"]
# Who a failure is charged to: the agent, or (always a bug) the simulated customer or the world.
Actor = Literal["agent", "customer", "environment"]
SOURCES: tuple[Source, ...] = ("stated", "revealed", "withheld", "shop")
ACTORS: tuple[Actor, ...] = ("agent", "customer", "environment")


def _absent(value: object) -> bool:
    return value is None


class Check(BaseModel):
    """One line of the breakdown: what was expected, what the episode shows, and the verdict.
    A failed check also names the requirement it failed, where that came from, and who is to
    blame (left out of the JSON on a passed check)."""

    name: str
    expected: Any = None
    found: Any = None
    passed: bool | None = None
    score: float | None = None
    requirement: str | None = Field(None, exclude_if=_absent)
    source: Source | None = Field(None, exclude_if=_absent)
    actor: Actor | None = Field(None, exclude_if=_absent)


class FailedRequirement(BaseModel):
    """One requirement the episode failed, once however many checks show it."""

    requirement: str
    source: Source
    actor: Actor
    checks: list[str] = Field(default_factory=list, description="The breakdown lines that show it.")


class Reward(BaseModel):
    reward_schema_version: int = REWARD_SCHEMA_VERSION
    episode_id: str
    env_id: str | None = None
    difficulty: int | None = None
    seed: int | None = None
    verdict: Literal["scored", "incomplete"]
    reason: str | None = Field(None, description="Why the episode is incomplete (a stable code).")
    detail: str | None = Field(None, description="The reason in words.")
    r_task: float | None = None
    r_eff: float | None = None
    r_hall: float | None = None
    total: float | None = None
    is_correct: bool | None = None
    hard_fail: str | None = None
    # The minefields the episode carried (issue 33), the one it hit (its hard fail), and whether the
    # task itself was done, whatever else happened: eval's utility and security (AgentDojo's pair).
    minefields: list[str] = Field(default_factory=list)
    minefield_hit: str | None = None
    task_correct: bool | None = Field(None, description="The task's own verdict, before any hard fail.")
    breakdown: list[Check] = Field(default_factory=list)
    # Every distinct requirement a failed check names (reward schema: added with issue 22).
    failed_requirements: list[FailedRequirement] = Field(default_factory=list)
    turns: int | None = None
    tool_calls: int | None = None
    tool_errors: int | None = None
    calls_over_budget: int | None = None
    close_reason: str | None = None
    weights: Weights = Field(default_factory=Weights)
    notes: list[str] = Field(default_factory=list)
    manifest: Manifest | None = None
    seal: Literal["intact", "unsealed"] | None = Field(
        None, description="'intact': the server sealed the episode's files and none changed since; 'unsealed': "
                          "recorded before sealing existed, so tampering cannot be ruled out. A broken seal is "
                          "the incomplete verdict 'modified_after_close'.")
    chosen_by_curriculum: bool = Field(False, description="The curriculum chose this episode's environment and "
                                                          "difficulty: only such episodes feed it back.")
