"""A fake OpenAI-compatible endpoint that rewords customer messages, faithfully or with hostility,
for the customer voice's tests (issue 35). A real HTTP server (uvicorn, in a thread of the test
process, on a free port); what it answers is `Endpoint.behaviour`, a function of the words it was
asked to reword, which a test may change between calls. Special answers:

    SERVER_ERROR   HTTP 500          NOT_JSON    200 with an HTML page
    NO_CHOICES     200, JSON without a completion
    NEVER          no answer until the endpoint stops (the client's timeout must end the wait)
    STALL          headers and one byte, then nothing until the endpoint stops
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import uvicorn
from servers import free_port
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

SERVER_ERROR, NOT_JSON, NO_CHOICES, NEVER, STALL = "<500>", "<not json>", "<no choices>", "<never>", "<stall>"

_SWAPS = (("Could you", "Can you"), ("could you", "can you"), ("Thank you", "Thanks"), ("thank you", "thanks"),
          ("I need", "I'm after"), ("I'd like", "I would like"), ("made by", "from"), ("Please go", "Do go"),
          ("please", "kindly"), ("Okay", "Alright"), ("I wanted", "I was hoping for"))


def faithful(words: str) -> str:
    """A paraphrase that keeps every fact: other phrasings, and the sentences in reverse order
    (so that no requirement reads word for word as the scripted customer said it)."""
    for old, new in _SWAPS:
        words = words.replace(old, new)
    sentences = re.split(r"(?<=[.!?])\s+", words.strip())
    return "Right. " + " ".join(reversed(sentences))


@dataclass
class Endpoint:
    url: str
    behaviour: Callable[[str], str] = faithful
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


def _completion(content: str, model: str) -> dict[str, Any]:
    return {"id": "chatcmpl-voice", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


@contextlib.contextmanager
def rewording_endpoint(behaviour: Callable[[str], str] = faithful) -> Iterator[Endpoint]:
    endpoint = Endpoint("", behaviour)

    async def completions(request: Request) -> Response:
        body = await request.json()
        endpoint.requests.append(body)
        endpoint.authorizations.append(request.headers.get("authorization"))
        words = body["messages"][-1]["content"]
        answer = endpoint.behaviour(words)
        if answer == SERVER_ERROR:
            return PlainTextResponse("boom", status_code=500)
        if answer == NOT_JSON:
            return Response("<html>gateway</html>", media_type="text/html")
        if answer == NO_CHOICES:
            return JSONResponse({"error": {"message": "no"}})
        if answer == NEVER:
            await anyio.to_thread.run_sync(endpoint.release.wait, 60)
            return JSONResponse(_completion(words, body["model"]))
        if answer == STALL:
            async def drip():
                yield b"{"
                await anyio.to_thread.run_sync(endpoint.release.wait, 60)
                yield b"}"
            return StreamingResponse(drip(), media_type="application/json")
        return JSONResponse(_completion(answer, body["model"]))

    app = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the rewording endpoint did not start")
        time.sleep(0.02)
    endpoint.url = f"http://127.0.0.1:{port}/v1"
    try:
        yield endpoint
    finally:
        endpoint.release.set()
        server.should_exit = True
        thread.join(timeout=10)
