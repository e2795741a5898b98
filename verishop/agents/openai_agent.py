"""An agent driven by any OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp's server ...):
`verishop eval --agent openai --base-url http://127.0.0.1:11434/v1 --model NAME [--api-key KEY]`.

The loop: the scenario's system prompt and the customer's opening message, the shop's tools as
function schemas, then model call → tool calls → `tool` messages with each result (JSON) or
error text → model call ..., until the episode closes or `max_steps` model calls were made. A
reply with no tool call is sent to the customer through `respond_to_customer` (a model that
answers in prose is talking to the customer), and the customer's reply comes back as a user
message.

Compatibility choices: assistant messages are echoed with `content: ""` rather than null (some
servers reject null), `tool_choice` is left to the server's default ("auto"; "required" is
unsupported or loops on several servers), and every free-text parameter gets a `maxLength` so a
small model cannot stream an endless argument.

Retries never repeat a write. The chat endpoint changes nothing in the shop, so its requests are
retried on connection errors, timeouts, 429 and 5xx (bounded, with backoff). A shop tool call is
retried only when it is read-only or idempotent (MCP annotations), or when the connection
failed before the request was sent; a non-idempotent call that may have reached the shop is
never sent again, its failure is reported to the model as the tool's result.
"""

from __future__ import annotations

import html
import json
import logging
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2

from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.models import Scenario
from verishop.scenarios.splits import seed_label

log = logging.getLogger("agents.openai")

DEFAULT_TEXT_MAX_LENGTH = 500
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class LLMError(Exception):
    """The chat endpoint failed for good (after retries) or answered something unusable."""


@dataclass(frozen=True)
class OpenAISettings:
    base_url: str
    model: str
    api_key: str | None = None
    max_steps: int = 24
    timeout_s: float = 120.0
    retries: int = 3
    temperature: float = 0.0
    max_tokens: int = 1024


def function_schemas(tools: list[Any]) -> tuple[list[dict[str, Any]], dict[str, bool]]:
    """MCP tools as OpenAI function schemas, plus whether each may be retried safely."""
    schemas, safe = [], {}
    for tool in tools:
        parameters = _with_max_length({k: v for k, v in tool.input_schema.items() if k != "title"})
        parameters.setdefault("type", "object")
        schemas.append({"type": "function", "function": {
            "name": tool.name, "description": " ".join((tool.description or "").split()), "parameters": parameters}})
        hints = tool.annotations
        safe[tool.name] = bool(hints and (hints.read_only_hint or hints.idempotent_hint))
    return schemas, safe


def _with_max_length(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_with_max_length(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _with_max_length(v) for k, v in schema.items() if k != "title"}
    if out.get("type") == "string" and "enum" not in out:
        out.setdefault("maxLength", DEFAULT_TEXT_MAX_LENGTH)
    return out


def _sent_nothing(exc: BaseException) -> bool:
    """Whether the failure is a connection that never opened (so the request was not sent)."""
    seen: list[BaseException] = [exc]
    while seen:
        current = seen.pop()
        if isinstance(current, httpx2.ConnectError):
            return True
        seen += [e for e in (current.__cause__, current.__context__) if e is not None]
        seen += list(getattr(current, "exceptions", ()))
    return False


def _normalized(call: dict[str, Any], index: int) -> dict[str, Any]:
    """A tool call as the API specifies it (some servers send arguments as an object, or no id),
    so that echoing it back is accepted."""
    function = dict(call.get("function") or {})
    if not isinstance(function.get("arguments", ""), str):
        function["arguments"] = json.dumps(function["arguments"])
    return {"id": call.get("id") or f"call_{index}", "type": "function", "function": function}


class ChatClient:
    def __init__(self, settings: OpenAISettings, http: httpx2.AsyncClient):
        self.settings, self.http = settings, http

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        s = self.settings
        body = {"model": s.model, "messages": messages, "tools": tools, "temperature": s.temperature,
                "max_tokens": s.max_tokens}
        headers = {"Authorization": f"Bearer {s.api_key}"} if s.api_key else {}
        last = "no attempt"
        for attempt in range(s.retries + 1):
            if attempt:
                await anyio.sleep(min(8.0, 0.5 * 2 ** (attempt - 1)))
            try:
                response = await self.http.post(s.base_url.rstrip("/") + "/chat/completions", json=body,
                                                headers=headers)
            except (httpx2.TransportError, httpx2.TimeoutException) as exc:
                last = repr(exc)
                continue
            if response.status_code in RETRYABLE_STATUS:
                last = f"HTTP {response.status_code}: {response.text[:300]}"
                continue
            if response.status_code >= 400:
                raise LLMError(f"HTTP {response.status_code} from {s.base_url}: {response.text[:500]}")
            try:
                return response.json()["choices"][0]["message"]
            except (ValueError, KeyError, IndexError) as exc:
                raise LLMError(f"unusable answer from {s.base_url}: {response.text[:500]}") from exc
        raise LLMError(f"{s.base_url} failed after {s.retries + 1} attempts: {last}")


class OpenAIAgent:
    name = "openai"

    def __init__(self, scenario: Scenario, settings: OpenAISettings):
        self.scenario, self.settings = scenario, settings

    async def play(self, shop: ShopSession) -> None:
        listed = await shop.client.list_tools()
        tools, safe = function_schemas(listed.tools)
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.scenario.system_prompt},
                                          {"role": "user", "content": self.scenario.opening_message}]
        timeout = httpx2.Timeout(self.settings.timeout_s, connect=10.0)
        async with httpx2.AsyncClient(timeout=timeout) as http:
            chat = ChatClient(self.settings, http)
            for _ in range(self.settings.max_steps):
                try:
                    reply = await chat.complete(messages, tools)
                except LLMError as exc:  # the episode is scored as it stands; the run goes on
                    log.warning("episode %s d=%s seed %s: %s", self.scenario.env_id, self.scenario.difficulty,
                                seed_label(self.scenario.seed), exc)  # never a test-split seed
                    return
                calls = [_normalized(call, i) for i, call in enumerate(reply.get("tool_calls") or [])]
                # llama.cpp's chatml-function-calling format returns HTML-escaped text ("I&#39;m"),
                # which would compound turn after turn if echoed back as is.
                assistant: dict[str, Any] = {"role": "assistant", "content": html.unescape(reply.get("content") or "")}
                if calls:
                    assistant["tool_calls"] = calls
                messages.append(assistant)
                if not calls:
                    text = assistant["content"].strip() or "Could you tell me more about what you need?"
                    outcome, closed = await self._call(shop, "respond_to_customer", {"message": text[:2000]}, safe)
                    messages.append({"role": "user", "content": outcome.get("customer_message", str(outcome))
                                     if isinstance(outcome, dict) else outcome})
                else:
                    closed = False
                    for call in calls:
                        content, ended = await self._tool_message(shop, call, safe)
                        messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": content})
                        closed = closed or ended
                if closed:
                    return

    async def _tool_message(self, shop: ShopSession, call: dict[str, Any], safe: dict[str, bool]) -> tuple[str, bool]:
        function = call.get("function") or {}
        name = function.get("name", "")
        try:
            raw = function.get("arguments") or "{}"
            arguments = json.loads(raw) if isinstance(raw, str) else dict(raw)
            if not isinstance(arguments, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            return f"invalid arguments for {name}: {exc}", False
        outcome, closed = await self._call(shop, name, arguments, safe)
        return (outcome if isinstance(outcome, str) else json.dumps(outcome, ensure_ascii=False)), closed

    async def _call(self, shop: ShopSession, name: str, arguments: dict[str, Any],
                    safe: dict[str, bool]) -> tuple[dict[str, Any] | str, bool]:
        """A tool's result (or its error text) and whether the episode is now closed."""
        for attempt in range(self.settings.retries + 1):
            try:
                data = await shop.call(name, **arguments)
            except ToolFailed as exc:
                return str(exc), "is closed" in str(exc)
            except Exception as exc:  # noqa: BLE001 - transport failure; see the retry rule above
                if attempt < self.settings.retries and (safe.get(name, False) or _sent_nothing(exc)):
                    await anyio.sleep(0.2 * 2 ** attempt)
                    continue
                return f"the call to {name} failed and was not repeated: {exc!r}", False
            return data, data.get("status") == "closed" if name == "respond_to_customer" else False
        raise AssertionError("unreachable")
