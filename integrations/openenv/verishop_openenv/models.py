"""The action, observation and state of verishop as an OpenEnv environment."""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class ShopAction(Action):
    """One shop tool call: the tool's name and its arguments (the tools are listed at reset)."""

    tool: str = Field(..., description="A shop tool, e.g. 'search_catalog' or 'respond_to_customer'")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments")


class ShopObservation(Observation):
    """At reset: the system prompt, the customer's opening and the tools (OpenAI function schemas).
    After a step: the tool's result, or the shop's error text. `done` when the episode closed;
    `reward` is then the verifier's total (0.0 before), its parts in `metadata["reward"]`."""

    system_prompt: str = ""
    opening_message: str = ""
    tools: list[dict[str, Any]] = Field(default_factory=list)
    tool: str | None = None
    result: dict[str, Any] | None = None
    error: str | None = None


class ShopState(State):
    env_id: str | None = None
    difficulty: int | None = None
    seed: int | None = None
    shop_episode_id: str | None = None
    close_reason: str | None = None
