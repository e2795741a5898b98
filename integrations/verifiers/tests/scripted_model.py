"""A scripted "model" behind an OpenAI-compatible chat-completions endpoint (streaming and not),
for driving verifiers' real harness without downloading a model. It decides its next move from
what it is sent, like a model would: the conversation so far and the tools offered.

Policies, chosen by the request's `model`:
- `shopper`: product discovery, read off the customer's opening ("I'm shopping for plant pots:
  under $8. A low price matters most to me ... 3 options"): one `search_catalog` with that
  category, requirement and order, then the first k results recommended, and done;
- `null`: says it is done at once, answering nothing;
- `staller`: reads the conversation forever (for the turn limit);
- `talker`: answers in plain text, which ends the harness's loop without a word to the customer.

Every request is kept in `requests` so a test can check what the model was shown.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

STARTUP_DEADLINE_S = 20.0


PRIORITY_SORT = {"fast delivery": "delivery", "a low price": "price", "great reviews": "rating"}
OPENING = re.compile(r"shopping for (?P<category>[a-z ]+): (?P<requirement>[^.]+)\.")


def shopper(messages: list[dict[str, Any]]) -> dict[str, Any]:
    results = _tool_results(messages)
    if "respond_to_customer" in results:
        return {"content": "The customer has been served."}
    opening = next(m["content"] for m in messages if m["role"] == "user")
    asked = re.search(r"(\d+) (?:good )?(?:options|picks|choices)|top (\d+)", opening)
    k = int(asked[1] or asked[2])
    if "search_catalog" not in results:
        wanted = OPENING.search(opening)
        search = {"category_id": wanted["category"].replace(" ", "_"), "in_stock_only": True, "limit": k,
                  "sort_by": next((order for words, order in PRIORITY_SORT.items() if words in opening.lower()),
                                  "featured"), **_requirement(wanted["requirement"])}
        return _call("search_catalog", search)
    found = re.findall(r"P\d{8}", results["search_catalog"])
    return _call("respond_to_customer", {"message": "These match everything you asked for.",
                                         "recommended_product_ids": list(dict.fromkeys(found))[:k], "done": True})


def _requirement(text: str) -> dict[str, Any]:
    """One stated requirement as search filters: a price cap, a delivery time, or an attribute."""
    if price := re.fullmatch(r"under \$(\d+(?:\.\d+)?)", text):
        return {"max_price_usd": float(price[1])}
    if days := re.fullmatch(r"delivered within (\d+) days?", text):
        return {"max_ship_days": int(days[1])}
    name, _, value = text.partition(" ")
    return {"attributes": [{"name": name, "value": value}]}


def null(messages: list[dict[str, Any]]) -> dict[str, Any]:
    if "respond_to_customer" in _tool_results(messages):
        return {"content": "Goodbye."}
    return _call("respond_to_customer", {"message": "I can't help with that, sorry.", "done": True})


def staller(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return _call("get_conversation", {})


def talker(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"content": "Sure, I can help you find that."}


# `shopper-local`, `shopper-http`: the same play under other names, so a test can tell one run's
# requests from another's and compare what each showed the model.
POLICIES = {"shopper": shopper, "shopper-local": shopper, "shopper-http": shopper, "null": null, "staller": staller,
            "talker": talker}


def _tool_results(messages: list[dict[str, Any]]) -> dict[str, str]:
    """The latest result of each tool called so far, by tool name."""
    names = {call["id"]: call["function"]["name"] for m in messages if m["role"] == "assistant"
             for call in m.get("tool_calls") or []}
    results = {}
    for m in messages:
        if m["role"] == "tool":
            content = m["content"]
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
            results[m.get("name") or names[m["tool_call_id"]]] = text
    return results


_ids = itertools.count(1)


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"id": f"call_{next(_ids)}", "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)}}]}


class ScriptedModel:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.app = Starlette(routes=[Route("/v1/chat/completions", self._complete, methods=["POST"]),
                                     Route("/v1/models", self._models, methods=["GET"])])

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": name, "object": "model"} for name in POLICIES]})

    async def _complete(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        move = POLICIES[body["model"]](body["messages"])
        message = {"role": "assistant", "content": move.get("content"), **({"tool_calls": move["tool_calls"]}
                                                                            if "tool_calls" in move else {})}
        finish = "tool_calls" if "tool_calls" in move else "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        head = {"id": f"chatcmpl-{next(_ids)}", "created": int(time.time()), "model": body["model"]}
        if not body.get("stream"):
            return JSONResponse({**head, "object": "chat.completion", "usage": usage,
                                 "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
        delta = dict(message)
        if "tool_calls" in delta:
            delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(delta["tool_calls"])]
        chunks = [{"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}]
        if (body.get("stream_options") or {}).get("include_usage"):
            chunks.append({"choices": [], "usage": usage})
        events = [f"data: {json.dumps({**head, 'object': 'chat.completion.chunk', **c})}\n\n" for c in chunks]
        return StreamingResponse(iter([*events, "data: [DONE]\n\n"]), media_type="text/event-stream")


@contextlib.contextmanager
def serving(model: ScriptedModel) -> Iterator[str]:
    """Serve `model` on a free loopback port in a thread; yield its OpenAI base URL (`.../v1`)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(model.app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the scripted model did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
