"""An OpenAI Agents SDK agent in `verishop eval`, played by a scripted model (no network, no key):

    pip install openai-agents
    verishop eval --agent examples/agents_sdk_agent.py:agent --env pd --episodes 5

The SDK connects to the episode's MCP endpoint itself (`episode.mcp_url`, so the HTTP transport,
eval's default for your own agent) and turns every shop tool into a function tool with a strict
schema. `ScriptedModel` stands in for an LLM: it searches the customer's words, recommends the
products the search returned, then stops. Swap it for a real model, e.g. `Agent(model="gpt-5-mini")`
or `OpenAIChatCompletionsModel` on any OpenAI-compatible endpoint, and keep the rest."""

from __future__ import annotations

import json
import re
from typing import Any

from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage
from agents.mcp import MCPServerStreamableHttp
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

FILLER = set("hi hello hey i i'm im am looking for a an the some me can you could recommend please need want "
             "find show with and to my of good options picks".split())


class ScriptedModel(Model):
    """Canned turns instead of an LLM: search, recommend what was found, finish."""

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs,
                           tracing, **_: Any) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        results = [str(i.get("output")) for i in items if i.get("type") == "function_call_output"]
        if not results:
            request = str(next(i["content"] for i in items if i.get("role") == "user"))
            # What the customer is shopping for, when it says so ("I'm shopping for pillows: ..."),
            # else every word that is not small talk.
            wanted = re.search(r"\b(?:shopping|looking|search(?:ing)?)\s+for\s+([^.:!?,]+)", request, re.IGNORECASE)
            words = [w for w in re.findall(r"[a-z0-9-]+", (wanted.group(1) if wanted else request).lower())
                     if w not in FILLER]
            search = {"query": " ".join(words[:3]), "in_stock_only": True, "limit": 3}
            return _reply(_call(1, "search_catalog", search))
        if len(results) == 1:
            ids = list(dict.fromkeys(re.findall(r'"product_id":\s*"([^"]+)"', results[0])))[:3]
            if ids:
                return _reply(_call(2, "respond_to_customer", {"message": "Here are my top picks.",
                                                               "recommended_product_ids": ids}))
            return _reply(_call(2, "respond_to_customer", {"message": "Sorry, I found nothing.", "done": True}))
        return _reply(ResponseOutputMessage(id="msg_done", type="message", role="assistant", status="completed",
                                            content=[ResponseOutputText(type="output_text", text="Done.",
                                                                        annotations=[])]))

    def stream_response(self, *args: Any, **kwargs: Any):
        raise NotImplementedError("this scripted model only answers Runner.run")


def _call(step: int, tool: str, arguments: dict[str, Any]) -> ResponseFunctionToolCall:
    # The SDK wants one call id per invocation for the whole run.
    return ResponseFunctionToolCall(type="function_call", call_id=f"call_{step}_{tool}", name=tool,
                                    arguments=json.dumps(arguments), status="completed")


def _reply(item: Any) -> ModelResponse:
    return ModelResponse(output=[item], usage=Usage(), response_id=None)


async def agent(episode) -> None:
    if episode.mcp_url is None:
        raise RuntimeError("the Agents SDK connects over HTTP: run eval with --transport http")
    async with MCPServerStreamableHttp(params={"url": episode.mcp_url, "timeout": 30}, name="verishop",
                                       cache_tools_list=True) as shop:
        assistant = Agent(name="shop assistant", instructions=episode.system_prompt, mcp_servers=[shop],
                          mcp_config={"convert_schemas_to_strict": True}, model=ScriptedModel())
        await Runner.run(assistant, episode.opening_message, max_turns=6,
                         run_config=RunConfig(tracing_disabled=True))
