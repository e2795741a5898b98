"""How the tools look to a client: closed schemas, dedented descriptions, no open dicts, compact
results and short errors.

OpenAI's strict function calling (and the Agents SDK's `ensure_strict_json_schema`) accepts a
tool only if every object in its input schema is closed (`additionalProperties: false`) and no
argument is a free-form mapping. So every tool is built here with its schema closed, its
docstring dedented (`inspect.cleandoc`: a docstring's indentation is noise in every client), and
attribute filters travel as a list of `{name, value}` objects. The older mapping form
(`{"connector": "USB-C"}`) is still accepted at the schema's edge, unadvertised.

Results: a tool returns its own pydantic model, dumped once; its text block is that dump's JSON
without indentation (clients that pass text to the model pay for every space), and it is not
validated again against the schema it was built from (a result of any other type takes the SDK's
validating path). The shop's own in-process client skips the same re-check on its side
(`verishop.mcp_server.inprocess`). Argument errors name the field and the rule
("max_price_usd: Input should be greater than or equal to 0"), without pydantic's banner,
input echo and documentation URL.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import to_json

from verishop.scenarios import tool_names

F = TypeVar("F", bound=Callable[..., Any])


class AttributeFilter(BaseModel):
    """One exact attribute value a product must have."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=40, description="The attribute, e.g. 'connector' or 'color'.")
    value: str = Field(max_length=60, description="Its exact value, e.g. 'USB-C' or 'Black'.")


def _pairs_from_mapping(value: Any) -> Any:
    """Agents written against the older schema send `{"connector": "USB-C"}`: read it as pairs."""
    if isinstance(value, dict):
        return [{"name": name, "value": item} for name, item in value.items()]
    return value


MAX_ATTRIBUTES = 20
AttributeFilters = Annotated[Annotated[list[AttributeFilter], Field(max_length=MAX_ATTRIBUTES)] | None,
                             BeforeValidator(_pairs_from_mapping)]


def attribute_map(filters: list[AttributeFilter] | None) -> dict[str, str]:
    """The filters as the shop (and every transcript, old or new) has them: one value per name."""
    values: dict[str, str] = {}
    for item in filters or ():
        if values.setdefault(item.name, item.value) != item.value:
            raise ToolError(f"attribute {item.name!r} is given twice with different values; a product has one")
    return values


def closed(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """`schema` with `additionalProperties: false` on every object that does not say otherwise,
    and its `$defs` inlined (strict mode refuses a `$ref` it did not validate; ours never recurse)."""
    if defs is None and isinstance(schema, dict):
        defs = schema.get("$defs", {})
        schema = {key: value for key, value in schema.items() if key != "$defs"}
    if isinstance(schema, list):
        return [closed(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref", "")
    if ref.startswith("#/$defs/"):
        return closed(defs[ref.removeprefix("#/$defs/")], defs)
    out = {key: closed(value, defs) for key, value in schema.items()}
    if out.get("type") == "object" and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def short_validation_error(exc: ValidationError) -> str:
    """Each problem as `field: rule`, e.g. "limit: Input should be less than or equal to 50"."""
    problems = []
    for error in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"{where}: {error['msg']}")
    return "; ".join(problems)


class ShopTool(Tool):
    """A tool whose result is its own typed model, sent as compact JSON, and whose argument errors
    are short."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            result = await super().run(arguments, context, convert_result=False)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {self.name}: {short_validation_error(exc.__cause__)}") from None
            raise
        if not convert_result:
            return result
        if type(result) is self.fn_metadata.output_model and isinstance(result, BaseModel):
            return compact_result(result)
        try:  # not the declared model: the SDK's conversion validates it
            return self.fn_metadata.convert_result(result)
        except ValidationError:
            # A bug of ours, not the agent's: logged in full by the SDK, one line for the client.
            raise RuntimeError(f"Error executing tool {self.name}: its result is not the "
                               f"{getattr(self.fn_metadata.output_model, '__name__', 'model')} it declares") from None


# What `json.loads` skips around a document (the standard library's WHITESPACE).
_JSON_SPACE = " \t\n\r"


class ShopArguments(FuncMetadata):
    """The SDK's argument handling, with its JSON pre-parse made cheap: the SDK tries `json.loads`
    on every string argument not declared `str` (a query, a category, an ID), and keeps the parse
    only when it is a list, an object or null (a client that sends `'["a"]'` for a list). Only a
    string that opens with `[` or `{`, or is `null`, can parse to one of those, so only such a
    string is parsed: the result is the SDK's, without a failed parse (an exception) per argument."""

    @classmethod
    def of(cls, meta: FuncMetadata) -> ShopArguments:
        return cls(arg_model=meta.arg_model, output_schema=meta.output_schema, output_model=meta.output_model,
                   wrap_output=meta.wrap_output)

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        parsed = _parsed_by_the_sdk(self.arg_model)
        for key, value in data.items():
            if isinstance(value, str) and key in parsed:
                text = value.lstrip(_JSON_SPACE)
                if text[:1] in ("[", "{") or text.rstrip(_JSON_SPACE) == "null":
                    return super().pre_parse_json(data)
        return data.copy()


@functools.cache
def _parsed_by_the_sdk(arg_model: type[BaseModel]) -> frozenset[str]:
    """The argument names (and aliases) the SDK may parse: those whose annotation is not `str`
    (mapped as the SDK maps them, a later field's alias over an earlier name)."""
    fields = {key: info for name, info in arg_model.model_fields.items() for key in (name, info.alias) if key}
    return frozenset(key for key, info in fields.items() if info.annotation is not str)


def compact_result(model: BaseModel) -> CallToolResult:
    """A tool's model as a result, serialised once: the structured content is the model's JSON dump,
    and the text block is that same dump as compact JSON."""
    structured = model.model_dump(mode="json", by_alias=True)
    return CallToolResult(content=[TextContent(type="text", text=to_json(structured).decode())],
                          structured_content=structured)


class ToolSet:
    """Collects the shop's tools (`@tools(annotations)` on an async function) for `MCPServer(tools=...)`.
    A tool is registered only as `scenarios/tool_names.py` states it: its name and its arguments."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []

    def __call__(self, annotations: ToolAnnotations) -> Callable[[F], F]:
        def register(fn: F) -> F:
            tool = ShopTool.from_function(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=annotations)
            tool.fn_metadata = ShopArguments.of(tool.fn_metadata)
            tool.parameters = closed(tool.parameters)
            stated = tool_names.ARGUMENTS.get(tool.name)
            if stated is None:
                raise ValueError(f"tool {tool.name!r} is not named in scenarios/tool_names.py: state it there first")
            declared = tuple(tool.parameters.get("properties", {}))
            if declared != stated:
                raise ValueError(f"tool {tool.name!r} declares the arguments {declared}, but scenarios/tool_names.py "
                                 f"states {stated}")
            self.tools.append(tool)
            return fn

        return register
