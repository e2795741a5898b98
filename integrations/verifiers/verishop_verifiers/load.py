"""`load_environment(...)`: the environment from keyword arguments, for scripts and trainers that
build it in Python rather than from `vf-eval` flags or a TOML file."""

from __future__ import annotations

from typing import Any

import verifiers.v1 as vf

from verishop_verifiers.env import VerishopEnv, VerishopEnvConfig
from verishop_verifiers.taskset import VerishopTaskConfig, VerishopTasksetConfig

TASKSET_ID = "verishop-verifiers"


def load_environment(base_url: str | None = None, token: str | None = None, env: str = "C1",
                     difficulty: int | None = 0, num_examples: int = 100, first_seed: int = 0,
                     verifier_url: str = "http://127.0.0.1:8100", verifier_token: str | None = None,
                     reward_timeout_s: float = 60.0, agent: dict[str, Any] | None = None,
                     catalog: str | None = None, runs_dir: str | None = None) -> VerishopEnv:
    """`num_examples` tasks (seeds from `first_seed`) of `env` (an environment such as `pd`, or a
    collection `C1` ... `C8`) at `difficulty`, each rollout a fresh episode: in this process
    (the default; `catalog`, `runs_dir`), or of the shop at `base_url`, scored by the sidecar at
    `verifier_url`. `agent` overrides the agent seat (e.g. `{"max_turns": 20}`)."""
    task = VerishopTaskConfig(base_url=base_url, token=token, verifier_url=verifier_url,
                              verifier_token=verifier_token, reward_timeout_s=reward_timeout_s,
                              catalog=catalog, runs_dir=runs_dir)
    taskset = VerishopTasksetConfig(id=TASKSET_ID, env=env, difficulty=difficulty, num_examples=num_examples,
                                    first_seed=first_seed, task=task)
    seat = VerishopEnvConfig.model_fields["agent"].default.model_copy(update=agent or {})
    return vf.load_environment(VerishopEnvConfig(taskset=taskset, agent=seat))
