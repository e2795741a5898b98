"""`VerishopTool`: one shop tool as a verl `BaseTool`.

The tool config lists one entry per shop tool, all with this class; the entry's schema name is
the shop tool it calls. A call runs in the episode of the trajectory it belongs to (see
`verishop_verl.episodes`); its answer goes back to the model as the JSON text of the tool's
result, or as `Error: <the shop's message>`. When a call closes the episode (the model's
`respond_to_customer` with `done=true`, the customer leaving, the turn budget spent), the tool
scores it at once and leaves the reward in the trajectory's `extra_fields["verishop_reward"]`.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import uuid4

from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

from verishop_verl.episodes import CURRENT, Trajectory

OUTSIDE_LOOP = ("verishop's tools play one shop episode per trajectory and run only inside the "
                "`verishop_agent` agent loop: set the dataset's agent_name to verishop_agent and "
                "actor_rollout_ref.rollout.agent.agent_loop_config_path to verishop_verl's agent_loop.yaml")


class VerishopTool(BaseTool):
    """A shop tool. Config: `type: native`; optional `catalog` (a catalog file for this worker's
    shop; default `$VERISHOP_CATALOG`, else the default catalog)."""

    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema):
        super().__init__(config, tool_schema)
        self.catalog: str | None = config.get("catalog")
        self._instances: dict[str, Trajectory] = {}

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponse]:
        """An instance for one call, bound to the running trajectory's episode."""
        trajectory = CURRENT.get()
        if trajectory is None:
            raise RuntimeError(OUTSIDE_LOOP)
        instance_id = instance_id or uuid4().hex
        self._instances[instance_id] = trajectory
        return instance_id, ToolResponse()

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any) -> tuple[ToolResponse, float, dict]:
        trajectory = self._instances.get(instance_id)
        if trajectory is None:
            raise RuntimeError(f"no tool instance {instance_id!r}: create it first ({OUTSIDE_LOOP})")
        episode = await trajectory.open()
        result = await episode.acall(self.name, parameters)
        metrics = {"tool": self.name, "error": result.error is not None}
        if result.error is not None:
            return ToolResponse(text=f"Error: {result.error}"), 0.0, metrics
        if not episode.is_open:  # this call ended the episode: score it now, where it lives
            reward = await trajectory.finish()
            agent_data = kwargs.get("agent_data")
            if agent_data is not None:
                agent_data.extra_fields["verishop_reward"] = reward
        return ToolResponse(text=json.dumps(result.data, ensure_ascii=False, separators=(",", ":"))), 0.0, metrics

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """The verifier's total for the instance's episode (closing it if it is still open)."""
        return float((await self._instances[instance_id].finish())["total"])

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        """The instance goes; the episode stays with its trajectory."""
        self._instances.pop(instance_id, None)
