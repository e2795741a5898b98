"""Property-based fuzzing of every tool over MCP: whatever arguments an agent sends, a call
either succeeds or is a tool error whose text the agent can read (never a crash whose message
the SDK withholds), every call the shop ran is in the transcript, and the transcript is strict
JSON."""

from __future__ import annotations

import json

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.tools import create_server
from verishop.scenarios.budget import BUDGET_ERROR, LOOKUP_TOOLS

TOOLS = sorted({"search_catalog", "get_product", "compare_products", "add_to_cart", "update_cart_item",
                "remove_from_cart", "view_cart", "list_orders", "check_order", "check_return_eligibility",
                "initiate_return", "search_policies", "get_browsing_history", "get_current_date",
                "get_conversation", "respond_to_customer"})

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0, 1, 5, 20, 1e30, -1, 0.5]),
    st.text(max_size=40), st.sampled_from(["P12345678", "W1234567", "LN12345678", "chargers", "", "'\"*)(", "USB-C"]),
)
values = st.one_of(scalars, st.lists(scalars, max_size=4), st.dictionaries(st.text(max_size=10), scalars, max_size=4))
calls = st.lists(st.tuples(st.sampled_from(TOOLS), st.dictionaries(
    st.sampled_from(["query", "category_id", "brand", "min_price_usd", "max_price_usd", "min_rating",
                     "max_ship_days", "attributes", "in_stock_only", "limit", "sort_by", "product_id",
                     "product_ids", "quantity", "order_id", "line_id", "reason", "message",
                     "recommended_product_ids", "answer", "done"]), values, max_size=5)), min_size=1, max_size=6)


def test_no_arguments_crash_a_tool(catalog_path, tmp_path) -> None:
    @settings(max_examples=40, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(sequence=calls)
    def holds(sequence: list[tuple[str, dict]]) -> None:
        anyio.run(play, sequence)

    async def play(sequence: list[tuple[str, dict]]) -> None:
        hub = EpisodeHub(catalog_path, tmp_path / "runs")
        try:
            scenario = hub.generate("return", 6, len(sequence))
            episode = await hub.open(scenario, default=True)
            async with Client(create_server(hub)) as client:
                for name, arguments in sequence:
                    result = await client.call_tool(name, arguments)
                    if result.is_error:
                        text = result.content[0].text
                        assert text.strip() != f"Error executing tool {name}", (name, arguments)
        finally:
            await hub.aclose()
        events = [json.loads(line, parse_constant=lambda token: (_ for _ in ()).throw(ValueError(token)))
                  for line in (episode.directory / "transcript.jsonl").read_text().splitlines()]
        recorded = [e for e in events if e["event"] == "tool_call"]
        assert not [e for e in recorded if e.get("error", "").startswith("internal error")], recorded
        assert len(recorded) <= len(sequence)
        assert all(e["tool"] in TOOLS for e in recorded)
        # The lookup budget counts exactly the lookups the transcript shows the shop ran.
        budget = scenario.axes.tool_calls_per_turn
        served: dict[int, int] = {}
        for e in recorded:
            if e["tool"] not in LOOKUP_TOOLS or "is closed" in e.get("error", ""):
                continue
            if e.get("error", "").startswith(BUDGET_ERROR):
                assert served.get(e["turn"], 0) == budget, (e, served)
            else:
                served[e["turn"]] = served.get(e["turn"], 0) + 1
                assert served[e["turn"]] <= budget

    holds()
