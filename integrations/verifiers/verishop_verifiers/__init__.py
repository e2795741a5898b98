"""verishop's shop episodes as a verifiers (v1) environment, scored by verishop's verifier.

verifiers finds the taskset and its env by the taskset id `verishop-verifiers` (this package,
through `__all__`); `load_environment` builds the same from keyword arguments.
"""

from verishop_verifiers.env import VerishopEnv, VerishopEnvConfig
from verishop_verifiers.load import load_environment
from verishop_verifiers.taskset import (
    VerishopData,
    VerishopTask,
    VerishopTaskConfig,
    VerishopTaskset,
    VerishopTasksetConfig,
)

__all__ = ["VerishopData", "VerishopEnv", "VerishopEnvConfig", "VerishopTask",
           "VerishopTaskConfig", "VerishopTaskset", "VerishopTasksetConfig", "load_environment"]
