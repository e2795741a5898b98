"""verishop's reward as a verl reward function (`reward.custom_reward_function`).

`VerishopAgentLoop` already sets each trajectory's reward score, so verl's reward loop does not
call this for its trajectories. It is for code that scores batches itself (verl's reward
managers merge a trajectory's `extra_fields` into `extra_info`): it returns the verifier's
total that the loop recorded, and refuses a row without one rather than inventing a 0.
"""

from __future__ import annotations

from typing import Any


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None,
                  **kwargs: Any) -> dict[str, Any]:
    reward = (extra_info or {}).get("verishop_reward")
    if not reward:
        raise ValueError(f"no verishop reward for this {data_source!r} row: it is recorded by the verishop_agent "
                         f"loop (set agent_name and agent_loop_config_path; see integrations/verl/README.md)")
    return {"score": float(reward["total"]), "r_task": float(reward["r_task"] or 0.0),
            "r_eff": float(reward["r_eff"] or 0.0), "r_hall": float(reward["r_hall"] or 0.0),
            "is_correct": float(bool(reward["is_correct"]))}
