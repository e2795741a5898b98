"""A scripted OpenAI-compatible endpoint for tests: `POST /v1/chat/completions` with the API's
request and response shapes, playing a fixed script (get_conversation → search_catalog →
respond_to_customer with the first three results, done). It decides from the messages it is sent,
so concurrent episodes don't interfere, and records every request body for the test to check.
Served by uvicorn in a thread of the test process, on a free port."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn
from servers import free_port
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


def _tool_call(step: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"call_{step}_{name}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def next_move(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant message the script plays next."""
    names = {c["id"]: c["function"]["name"] for m in messages if m["role"] == "assistant"
             for c in m.get("tool_calls") or []}
    results = [(names.get(m["tool_call_id"]), m["content"]) for m in messages if m["role"] == "tool"]
    if not results:
        return {"role": "assistant", "content": None, "tool_calls": [_tool_call(1, "get_conversation", {})]}
    last_tool, last_content = results[-1]
    if last_tool == "get_conversation":
        # HTML-escaped, as llama.cpp's chatml-function-calling format sends it
        return {"role": "assistant", "content": "Let me look, I&#39;m on it.",
                "tool_calls": [_tool_call(2, "search_catalog", {"query": "", "in_stock_only": True})]}
    if last_tool == "search_catalog":
        try:
            ids = [p["product_id"] for p in json.loads(last_content)["results"][:3]]
        except (ValueError, KeyError):
            ids = []
        return {"role": "assistant", "content": None, "tool_calls": [_tool_call(3, "respond_to_customer", {
            "message": "Here are my picks.", "recommended_product_ids": ids, "done": True})]}
    return {"role": "assistant", "content": "Goodbye."}


@contextlib.contextmanager
def scripted_endpoint() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Yield (base URL ending in /v1, the list of request bodies received)."""
    requests: list[dict[str, Any]] = []

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        requests.append(body)
        message = next_move(body["messages"])
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return JSONResponse({"id": f"chatcmpl-{len(requests)}", "object": "chat.completion", "created": 0,
                             "model": body.get("model", "scripted"),
                             "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                             "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})

    app = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the scripted endpoint did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/v1", requests
    finally:
        server.should_exit = True
        thread.join(timeout=10)
