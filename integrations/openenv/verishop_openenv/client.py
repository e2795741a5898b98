"""`VerishopEnv`: OpenEnv's `EnvClient` for verishop (a WebSocket session per client).

    with VerishopEnv(base_url="http://127.0.0.1:8000").sync() as env:
        first = env.reset(env="pd", difficulty=0, seed=7)
        print(first.observation.opening_message, len(first.observation.tools))
        step = env.step(ShopAction(tool="search_catalog", arguments={"query": "dumbbells"}))
"""

from __future__ import annotations

from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult

from verishop_openenv.models import ShopAction, ShopObservation, ShopState


class VerishopEnv(EnvClient[ShopAction, ShopObservation, ShopState]):
    def _step_payload(self, action: ShopAction) -> dict[str, Any]:
        return {"tool": action.tool, "arguments": action.arguments}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[ShopObservation]:
        fields = dict(payload.get("observation", {}))
        fields.update(done=payload.get("done", False), reward=payload.get("reward"))
        if payload.get("metadata") is not None:
            fields["metadata"] = payload["metadata"]
        observation = ShopObservation(**fields)
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False),
                          metadata=payload.get("metadata"))

    def _parse_state(self, payload: dict[str, Any]) -> ShopState:
        return ShopState(**payload)
