"""The shop's tool schemas in the shape verl's tool config accepts.

verl 0.9.1 validates a tool's parameters with `OpenAIFunctionPropertySchema`, which keeps only
`type`, `description` and `enum` of each property (and rejects a property without `type`). The
shop's schemas are full JSON schemas: optional arguments are `anyOf [X, null]`, arrays have
`items`, objects have `properties`. So each property becomes its non-null type, and what the
dropped keywords said (an array's item shape, an object's fields, a length or range bound) is
written into its description, where the model still reads it. The shop validates every call
against its full schema anyway: a call that breaks a rule the short schema lost gets the shop's
own error back.
"""

from __future__ import annotations

from typing import Any

_BOUNDS = (("minLength", "at least {} characters"), ("maxLength", "at most {} characters"),
           ("minimum", "at least {}"), ("maximum", "at most {}"), ("exclusiveMinimum", "more than {}"),
           ("minItems", "at least {} items"), ("maxItems", "at most {} items"), ("pattern", "matching {}"))


def _non_null(schema: dict[str, Any]) -> dict[str, Any]:
    options = [option for option in schema.get("anyOf", []) if option.get("type") != "null"]
    if len(options) == 1:
        return {**{k: v for k, v in schema.items() if k != "anyOf"}, **options[0]}
    if options:
        raise ValueError(f"a property with several non-null types is not expected here: {schema}")
    return schema


def _shape(schema: dict[str, Any]) -> str:
    """A short type expression: `string`, `array of {name: string, value: string}` ..."""
    schema = _non_null(schema)
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_shape(schema.get('items', {}))}"
    if kind == "object" and "properties" in schema:
        required = set(schema.get("required", []))
        fields = ", ".join(f"{name}{'' if name in required else '?'}: {_shape(sub)}"
                           for name, sub in schema["properties"].items())
        return "{" + fields + "}"
    if "enum" in schema:
        return " | ".join(repr(value) for value in schema["enum"])
    return str(kind)


def verl_property(schema: dict[str, Any]) -> dict[str, Any]:
    """One argument's schema as verl keeps it: type, description (with what was dropped), enum."""
    schema = _non_null(schema)
    kind = schema.get("type")
    if kind is None:
        raise ValueError(f"a property without a type: {schema}")
    notes = [template.format(schema[key]) for key, template in _BOUNDS if key in schema]
    if kind in ("array", "object"):
        notes.insert(0, f"Shape: {_shape(schema)}")
    description = (schema.get("description") or "").strip()
    if notes:
        description = f"{description} ({'; '.join(notes)})" if description else "; ".join(notes)
    prop: dict[str, Any] = {"type": kind}
    if description:
        prop["description"] = description
    if "enum" in schema:
        prop["enum"] = list(schema["enum"])
    return prop


def verl_tool_schema(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """A shop tool as an entry of verl's tool config: `{"type": "function", "function": {...}}`."""
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object",
                       "properties": {arg: verl_property(sub) for arg, sub in parameters.get("properties", {}).items()},
                       "required": list(parameters.get("required", []))}}}
