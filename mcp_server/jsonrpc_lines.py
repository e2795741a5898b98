"""One stdio line to one JSON-RPC message, or to the error JSON-RPC 2.0 gives it.

The SDK's stdio reader validates a line as a whole: anything that fails becomes an exception the
session only logs, and a request whose id is no JSON-RPC id (an object, `1e999`, null) validates as
a *notification*, which gets no answer, so the client waits forever. Here, per the specification:

- -32700 (parse error, id null): the line is not JSON (nor UTF-8, nor shallow enough to parse);
- -32600 (invalid request): JSON that is not a request: a scalar, an array (MCP has no batches, so
  an empty or full one alike), a request without `jsonrpc: "2.0"` or with a method that is not a
  string; its id is echoed when it is a string or an integer, else the answer's id is null;
- -32602 (invalid params): a well-formed request whose params are not an object (MCP's params are
  always named);
- an object with an `id` member is answered, never taken for a notification.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types
from mcp.shared.message import SessionMessage

# Python's int() refuses more digits than this (sys.get_int_max_str_digits); a longer integer is
# read as a float (inf), which no id or count accepts, instead of failing the whole line.
MAX_INT_DIGITS = 4300
MAX_ECHO_CHARS = 80
_JSON_KINDS = {int: "a number", float: "a number", str: "a string", bool: "a boolean", type(None): "null"}


class Refused(Exception):
    """A line that gets an error answer instead of reaching the session."""

    def __init__(self, code: int, message: str, answer_id: str | int | None = None):
        super().__init__(message)
        self.answer = SessionMessage(types.JSONRPCError(
            jsonrpc="2.0", id=answer_id, error=types.ErrorData(code=code, message=message)))


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _bounded_int(text: str) -> int | float:
    return int(text) if len(text.lstrip("-")) <= MAX_INT_DIGITS else float(text)


def _short(text: str) -> str:
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= MAX_ECHO_CHARS else first[:MAX_ECHO_CHARS] + "…"


def echoable_id(value: Any) -> str | int | None:
    """The id an answer can carry back: MCP's ids are strings or integers (a bool is neither)."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def invalid_request(detail: str, answer_id: str | int | None = None) -> Refused:
    return Refused(types.INVALID_REQUEST, f"Invalid Request: {detail}", answer_id)


def parse_line(line: bytes) -> SessionMessage:
    """The message `line` holds; raises Refused with the answer it gets instead."""
    try:
        data = json.loads(line.decode("utf-8"), parse_constant=_no_constants, parse_int=_bounded_int)
    except UnicodeDecodeError:
        raise Refused(types.PARSE_ERROR, "Parse error: the line is not UTF-8") from None
    except RecursionError:
        raise Refused(types.PARSE_ERROR, "Parse error: the JSON is nested too deeply") from None
    except ValueError as exc:
        raise Refused(types.PARSE_ERROR, f"Parse error: not JSON ({_short(str(exc))})") from None
    if isinstance(data, list):
        raise invalid_request("batches are not supported (send one message per line)")
    if not isinstance(data, dict):
        raise invalid_request(f"a JSON-RPC message is an object, not {_JSON_KINDS.get(type(data), 'a value')}")
    has_id = "id" in data
    answer_id = echoable_id(data.get("id"))
    # A response's id may be null (an error answering a request that could not be read).
    if has_id and answer_id is None and ("method" in data or data["id"] is not None):
        raise invalid_request("the id must be a string or an integer")
    if data.get("jsonrpc") != "2.0":
        raise invalid_request('"jsonrpc" must be "2.0"', answer_id)
    if "method" in data:
        if not isinstance(data["method"], str):
            raise invalid_request('"method" must be a string', answer_id)
        if "params" in data and not isinstance(data["params"], dict):
            raise Refused(types.INVALID_PARAMS, 'Invalid params: "params" must be an object', answer_id)
    try:
        message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValueError as exc:
        raise invalid_request(f"not a JSON-RPC message ({_short(str(exc))})", answer_id) from None
    if has_id and isinstance(message, types.JSONRPCNotification):
        raise invalid_request("a message with an id must be a request or a response", answer_id)
    return SessionMessage(message)
