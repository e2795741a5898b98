"""The shop's own in-process client (`InProcessClient`): the same results, byte for byte, as the
SDK's validating `mcp.Client`, for every tool; output-schema checks skipped only for the shop's own
typed tools on the shop's own server, and kept for anything else."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent

from verishop.mcp_server import models
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.inprocess import InProcessClient, ShopServer
from verishop.mcp_server.schema import ShopTool
from verishop.mcp_server.tools import create_server

# The declared result model of each tool: its text must be exactly that model's own JSON.
RESULT_MODELS = {
    "search_catalog": models.SearchResults, "get_product": models.ProductDetails,
    "compare_products": models.ProductComparison, "add_to_cart": models.Cart, "update_cart_item": models.Cart,
    "remove_from_cart": models.Cart, "view_cart": models.Cart, "list_orders": models.OrderList,
    "check_order": models.OrderDetails, "check_return_eligibility": models.ReturnEligibility,
    "initiate_return": models.ReturnReceipt, "search_policies": models.PolicyResults,
    "get_browsing_history": models.BrowsingHistory, "get_current_date": models.CurrentDate,
    "get_conversation": models.Conversation, "respond_to_customer": models.CustomerReply,
    "find_customer": models.CustomerMatch,
}


async def _script(client: Any, email: str) -> list[tuple[str, CallToolResult]]:
    """Every tool at least once, plus argument errors, on a returns episode; later calls use IDs
    that earlier results showed (so both clients must agree for the script to stay the same)."""
    calls: list[tuple[str, CallToolResult]] = []

    async def call(name: str, **arguments: Any) -> dict:
        result = await client.call_tool(name, arguments)
        calls.append((name, result))
        return {} if result.is_error else result.structured_content

    await call("get_conversation")
    await call("get_current_date")
    await call("find_customer", email=email)  # the customer identified (issue 33), whatever the overlay
    found = await call("search_catalog", query="", category_id="chargers", limit=5, sort_by="price")
    await call("search_catalog", query="café ünïcode “quoted”", limit=3)
    ids = [p["product_id"] for p in found["results"]]
    await call("get_product", product_id=ids[0])
    await call("compare_products", product_ids=ids[:3])
    await call("add_to_cart", product_id=ids[0], quantity=2)
    await call("add_to_cart", product_id=ids[1])
    await call("update_cart_item", product_id=ids[0], quantity=1)
    await call("remove_from_cart", product_id=ids[1])
    await call("view_cart")
    orders = await call("list_orders")
    order_id = line_id = ""
    for summary in orders["orders"]:
        order = await call("check_order", order_id=summary["order_id"])
        for line in order["lines"]:
            verdict = await call("check_return_eligibility", order_id=order["order_id"], line_id=line["line_id"])
            if verdict["eligible"] and not order_id:
                order_id, line_id = order["order_id"], line["line_id"]
    await call("initiate_return", order_id=order_id, line_id=line_id, reason="arrived damaged")
    await call("search_policies", query="return window electronics", limit=2)
    await call("get_browsing_history")
    await call("get_product", product_id="P00000000")  # a shop error
    await call("search_catalog", limit=999)  # an argument error
    await call("respond_to_customer", message="Un instant — je vérifie “ça” ✓ (0.5 %)")
    await call("get_conversation")  # now holds text outside ASCII, which travels unescaped
    await call("respond_to_customer", message="Done: your return is started.", order_id=order_id,
               line_id=line_id, answer_number=7.5, done=True)
    return calls


async def _played(hub: EpisodeHub, client_class: type[Client]) -> list[tuple[str, CallToolResult]]:
    scenario = hub.generate("return", 4, 11)
    scenario = scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 100})})
    episode = await hub.open(scenario)
    async with client_class(create_server(hub, episode_id=episode.episode_id)) as client:
        return await _script(client, scenario.customer.email)


async def test_every_tool_s_result_is_byte_identical_through_the_sdk_client_and_the_shop_s_own(hub):
    through_sdk = await _played(hub, Client)
    through_own = await _played(hub, InProcessClient)
    assert {name for name, _ in through_sdk} == set(RESULT_MODELS)
    assert [name for name, _ in through_own] == [name for name, _ in through_sdk]
    errors = []
    for (name, sdk), (_, own) in zip(through_sdk, through_own):
        assert own.is_error == sdk.is_error, name
        assert [c.model_dump() for c in own.content] == [c.model_dump() for c in sdk.content], name
        assert own.structured_content == sdk.structured_content, name
        if sdk.is_error:
            errors.append(name)
            continue
        text = own.content[0].text
        # What the server sent before it serialised once: the model's own compact JSON.
        assert RESULT_MODELS[name].model_validate(own.structured_content).model_dump_json() == text, name
        assert json.loads(text) == own.structured_content, name
    assert errors == ["get_product", "search_catalog"]


async def test_text_outside_ascii_travels_unescaped_and_compact(hub):
    calls = await _played(hub, InProcessClient)
    conversation = [result for name, result in calls if name == "get_conversation"][-1].content[0].text
    assert "je vérifie “ça” ✓" in conversation and "\\u" not in conversation
    assert json.dumps(json.loads(conversation), separators=(",", ":"), ensure_ascii=False) == conversation


async def test_the_shop_s_own_client_refuses_any_server_but_the_shop_s_own(hub):
    with pytest.raises(TypeError, match="only the shop's own in-process server"):
        InProcessClient(MCPServer("someone-else"))
    with pytest.raises(TypeError, match="use mcp.Client for any other"):
        InProcessClient("http://127.0.0.1:9/mcp")


def _lying_date_tool() -> Tool:
    """A tool that advertises CurrentDate's output schema and sends something else: metadata
    built by hand (a schema without a model), which the SDK's server passes through unchecked."""

    async def get_current_date() -> models.CurrentDate:
        """Today's date."""
        return CallToolResult(content=[TextContent(type="text", text="{}")], structured_content={"today": 42})

    tool = Tool.from_function(get_current_date)
    tool.fn_metadata.output_model = None
    return tool


async def test_a_tool_the_server_did_not_build_from_its_own_model_is_validated_as_the_sdk_does():
    server = ShopServer("mixed", tools=[_lying_date_tool()])  # no typed tool names: nothing is trusted
    for client_class in (Client, InProcessClient):
        async with client_class(server) as client:
            with pytest.raises(RuntimeError, match="Invalid structured content returned by tool get_current_date"):
                await client.call_tool("get_current_date", {})


async def test_a_removed_tool_s_name_is_no_longer_trusted(hub):
    server = create_server(hub)
    assert {"get_current_date", "search_catalog", "respond_to_customer"} <= server.typed_tool_names
    server.remove_tool("get_current_date")
    assert "get_current_date" not in server.typed_tool_names and "search_catalog" in server.typed_tool_names


async def test_a_typed_tool_returning_another_model_than_it_declares_is_an_error_not_a_trusted_result(hub):
    async def get_current_date() -> models.CurrentDate:
        """Today's date."""
        return models.Cart(lines=[], item_count=0, subtotal=0.0, currency="USD")

    tool = ShopTool.from_function(get_current_date)
    server = ShopServer("liar", tools=[tool])
    server.typed_tool_names = frozenset({tool.name})
    async with InProcessClient(server) as client:
        result = await client.call_tool("get_current_date", {})
    assert result.is_error
    assert result.content[0].text == "Error executing tool get_current_date: its result is not the CurrentDate it declares"


async def test_servers_built_in_one_process_share_their_tools_yet_each_serves_its_own_episode(hub):
    episodes = [await hub.open(hub.generate(env, 3, 5)) for env in ("pd", "status")]
    servers = [create_server(hub, episode_id=episode.episode_id) for episode in episodes]
    for episode, server in zip(episodes, servers):
        async with InProcessClient(server) as client:
            conversation = (await client.call_tool("get_conversation", {})).structured_content
            prompt = await client.get_prompt("shop_assistant")
        opening = episode.scenario.opening_message
        assert conversation["messages"][0]["text"] == opening
        assert prompt.messages[0].content.text.endswith(f"The customer says:\n{opening}")
    assert episodes[0].scenario.opening_message != episodes[1].scenario.opening_message


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the wrong value is the point
async def test_what_the_shop_s_own_client_skips_is_the_output_schema_check_of_its_own_typed_tools():
    """A model built without validation (`model_construct`) can break its own schema: the SDK's
    client catches that, and the shop's own client, which trusts the server's typed results, lets
    it through. This is the one check it leaves out; the shop's tools build their models validated."""

    async def get_current_date() -> models.CurrentDate:
        """Today's date."""
        return models.CurrentDate.model_construct(today=20260814, weekday="Friday")

    tool = ShopTool.from_function(get_current_date)
    server = ShopServer("unvalidated", tools=[tool])
    server.typed_tool_names = frozenset({tool.name})
    async with Client(server) as client:
        with pytest.raises(RuntimeError, match="Invalid structured content returned by tool get_current_date"):
            await client.call_tool("get_current_date", {})
    async with InProcessClient(server) as client:
        result = await client.call_tool("get_current_date", {})
    assert not result.is_error and result.structured_content == {"today": 20260814, "weekday": "Friday"}
