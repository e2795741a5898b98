"""`VerishopAgentLoop` (`verishop_agent`): verl's `ToolAgentLoop`, one shop episode per trajectory.

It reads the episode `(env, difficulty, seed)` from the row's `tools_kwargs` (every tool's
`create_kwargs` carries it), runs verl's own tool loop with that trajectory current, then closes
the episode and sets the trajectory's `reward_score` to the verifier's total: verl's reward loop
is skipped for it ("some agent loops have already computed the reward score"). The reward's
parts are in `extra_fields["verishop_reward"]`, which verl passes on with the batch.

Point verl at it with `actor_rollout_ref.rollout.agent.agent_loop_config_path=<this package's
agent_loop.yaml>` and `agent_name: verishop_agent` in the dataset rows (the dataset builder
writes it).
"""

from __future__ import annotations

from typing import Any

from verl.experimental.agent_loop.agent_loop import AgentLoopOutput, register
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop

from verishop_verl.episodes import CURRENT, Trajectory, spec_from_row


@register("verishop_agent")
class VerishopAgentLoop(ToolAgentLoop):
    async def run(self, sampling_params: dict[str, Any], priority: int = 0, **kwargs: Any) -> AgentLoopOutput:
        trajectory = Trajectory(spec_from_row(kwargs.get("tools_kwargs") or {}), catalog=self._catalog())
        token = CURRENT.set(trajectory)
        try:
            output = await super().run(sampling_params, priority=priority, **kwargs)
        except BaseException:
            await trajectory.discard()
            raise
        finally:
            CURRENT.reset(token)
        reward = await trajectory.finish()
        output.reward_score = float(reward["total"])
        output.extra_fields["verishop_reward"] = reward
        return output

    def _catalog(self) -> str | None:
        """The catalog named in the tools' config (the first tool that names one), if any."""
        for tool in self.tools.values():
            catalog = getattr(tool, "catalog", None)
            if catalog:
                return catalog
        return None
