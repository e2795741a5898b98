"""verishop's shop as verl multi-turn tools (issue 36).

- `VerishopTool` (`verishop_verl.tools`): a verl `BaseTool`, one per shop tool, configured by
  the tool config YAML (`actor_rollout_ref.rollout.multi_turn.tool_config_path`).
- `VerishopAgentLoop` (`verishop_verl.agent_loop`, registered as `verishop_agent`): verl's
  `ToolAgentLoop` with one in-process shop episode per trajectory, opened from the dataset row's
  `(env, difficulty, seed)`, closed and scored by verishop's verifier when the trajectory ends;
  its `reward_score` is the verifier's total.
- `compute_score` (`verishop_verl.reward`): the same total as a verl reward function.
- `verishop_verl.dataset`: writes the parquet rows and the tool config verl reads.
"""

from verishop_verl.schemas import verl_tool_schema

__all__ = ["verl_tool_schema"]
