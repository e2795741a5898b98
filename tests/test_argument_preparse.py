"""The shop's JSON pre-parse of tool arguments (`ShopArguments`) gives exactly what the SDK's
`FuncMetadata.pre_parse_json` gives, for every tool and any arguments: it only skips the parses
that cannot change an argument."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

from verishop.mcp_server.schema import ShopArguments
from verishop.mcp_server.tools import _shop_tools

TOOLS = {tool.name: tool for tool in _shop_tools()}

# Strings a client may send for any argument: JSON of every kind (with JSON's whitespace around
# it, or other whitespace), plain words, and near misses of JSON.
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                         max_size=3), max_leaves=6)
spaces = st.text(alphabet=" \t\n\r\x0b\x0c\u00a0", max_size=3)
strings = st.one_of(
    st.builds(lambda a, v, b: a + json.dumps(v) + b, spaces, json_values, spaces),
    st.text(max_size=12),
    st.sampled_from(["null", " null ", "nul", "[", "{", "[1,", "{}x", "NaN", "Infinity", "true", "1e400", "[" * 3000,
                     "P12345678", "usb-c", "\tnull\n", "\u00a0[]"]),
)


def test_every_tool_uses_the_shop_pre_parse():
    assert TOOLS and all(type(tool.fn_metadata) is ShopArguments for tool in TOOLS.values())


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(sorted(TOOLS)), st.data())
def test_same_as_the_sdk(name, data):
    meta = TOOLS[name].fn_metadata
    keys = [*meta.arg_model.model_fields, "not_an_argument"]
    arguments = data.draw(st.dictionaries(st.sampled_from(keys), strings | json_values, max_size=len(keys)))
    ours = meta.pre_parse_json(arguments)
    theirs = FuncMetadata.pre_parse_json(meta, arguments)
    assert ours == theirs and list(ours) == list(theirs)
    assert ours is not arguments  # a copy, as the SDK's: the caller's dict is left alone
