"""A scripted "model" standing in for verl's LLM server: `generate(request_id, prompt_ids, ...)`
returns token ids, as verl's server manager does. Behind it runs one of verishop's scripted
agents per trajectory (the oracle, which reads the hidden goal, or a goal-blind one); the agent's
tool calls leave as hermes `<tool_call>` text, verl's own parser and tool loop execute them, and
the next prompt brings the result back in a `<tool_response>`, which is handed to the agent.
The model knows a trajectory by the customer's opening in its first prompt."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

from verl.workers.rollout.replica import TokenOutput

from verishop.agents.session import ToolFailed

_DONE = object()
_OPENING = re.compile(r"<\|im_start\|>user\n(.*?)<\|im_end\|>", re.DOTALL)
_RESPONSE = re.compile(r"<tool_response>\n(.*?)\n</tool_response>", re.DOTALL)
WAIT_S = 60.0


class _Play:
    """One trajectory: the agent runs as a task and waits at each tool call for verl's answer."""

    def __init__(self, agent: Any):
        self.calls: asyncio.Queue = asyncio.Queue()
        self.answer: asyncio.Future | None = None
        self.calls_made: list[tuple[str, dict]] = []
        self.task = asyncio.ensure_future(self._run(agent))

    async def _run(self, agent: Any) -> None:
        try:
            await agent.play(self)
        finally:
            await self.calls.put(_DONE)

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        self.answer = asyncio.get_running_loop().create_future()
        self.calls_made.append((tool, arguments))
        await self.calls.put((tool, arguments))
        return await self.answer


class ScriptedModel:
    def __init__(self, tokenizer: Any, agent_for_opening: Callable[[str], Any], *, silent: bool = False):
        self.tokenizer = tokenizer
        self.agent_for_opening = agent_for_opening
        self.silent = silent
        self.plays: dict[str, _Play] = {}
        self.requests = 0

    async def generate(self, request_id: str, prompt_ids: list[int], sampling_params: dict, **_: Any) -> TokenOutput:
        self.requests += 1
        text = self.tokenizer.decode(prompt_ids)
        if self.silent:
            return self._say("I cannot help with that.")
        play = self.plays.get(request_id)
        if play is None:
            openings = _OPENING.findall(text)
            play = self.plays[request_id] = _Play(self.agent_for_opening(openings[-1]))
        else:
            result = _RESPONSE.findall(text)[-1]
            if result.startswith("Error: "):
                play.answer.set_exception(ToolFailed(result.removeprefix("Error: ")))
            else:
                play.answer.set_result(json.loads(result))
        step = await asyncio.wait_for(play.calls.get(), WAIT_S)
        if step is _DONE:
            await play.task  # an agent that failed fails the test here
            return self._say("Glad I could help.")
        tool, arguments = step
        return self._say(f'<tool_call>{json.dumps({"name": tool, "arguments": arguments})}</tool_call>')

    def _say(self, text: str) -> TokenOutput:
        return TokenOutput(token_ids=self.tokenizer.encode(text + "<|im_end|>", add_special_tokens=False),
                           stop_reason="completed")
