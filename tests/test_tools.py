"""Every shop tool and its error paths, through the in-memory MCP client (the same path a
real client takes)."""

from __future__ import annotations

import json
from datetime import date

import pytest
from mcp import Client

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.tools import create_server
from verishop.scenarios.models import Order, OrderLine

REQUIRED = {"search_catalog", "get_product", "add_to_cart", "update_cart_item", "remove_from_cart", "view_cart",
            "list_orders", "check_order", "check_return_eligibility", "initiate_return", "search_policies",
            "get_browsing_history", "get_current_date", "respond_to_customer", "get_conversation"}


async def open_default(hub: EpisodeHub, difficulty: int = 2, seed: int = 1, budget: int = 100, **changes):
    """An episode whose per-turn lookup budget is large (tests of the budget set their own)."""
    scenario = hub.generate("pd", difficulty, seed)
    axes = scenario.axes.model_copy(update={"tool_calls_per_turn": budget})
    scenario = scenario.model_copy(update={"axes": axes, **changes})
    return await hub.open(scenario, default=True)


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error_text(result) -> str:
    assert result.is_error, result.structured_content
    return result.content[0].text


async def test_server_lists_every_tool_with_schemas_and_annotations(hub):
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert REQUIRED <= set(tools)
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40, tool.name
        assert tool.output_schema is not None, tool.name
        assert tool.annotations is not None and tool.annotations.read_only_hint is not None, tool.name
    assert tools["search_catalog"].annotations.read_only_hint is True
    assert tools["initiate_return"].annotations.destructive_hint is True


def _objects(schema):
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


async def test_every_schema_is_closed_and_every_description_dedented(hub):
    """What OpenAI's strict mode needs (proven with the real SDK by `make test-adapters`)."""
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        objects = list(_objects(tool.input_schema))
        assert objects and all(o.get("additionalProperties") is False for o in objects), tool.name
        assert not any(line.startswith(" ") for line in tool.description.splitlines()), tool.name
    attributes = {t.name: t for t in tools}["search_catalog"].input_schema["properties"]["attributes"]
    assert attributes["anyOf"][0]["type"] == "array"


async def test_a_result_s_text_is_its_structured_content_as_compact_json(hub):
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        for name, args in (("search_catalog", {"query": "towel", "limit": 3}), ("get_current_date", {}),
                           ("view_cart", {}), ("get_conversation", {})):
            result = await client.call_tool(name, args)
            text = result.content[0].text
            assert json.loads(text) == ok(result), name
            assert json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False) == text, name


async def test_attribute_filters_are_name_value_pairs_and_the_older_mapping_still_works(hub):
    episode = await open_default(hub)
    async with Client(create_server(hub)) as client:
        pairs = ok(await client.call_tool("search_catalog", {
            "category_id": "chargers", "attributes": [{"name": "connector", "value": "USB-C"}]}))
        mapping = ok(await client.call_tool("search_catalog", {
            "category_id": "chargers", "attributes": {"connector": "USB-C"}}))
        assert pairs["results"] and pairs == mapping
        text = error_text(await client.call_tool("search_catalog", {"category_id": "chargers", "attributes": [
            {"name": "connector", "value": "USB-C"}, {"name": "connector", "value": "Lightning"}]}))
        assert "given twice" in text
    calls = [e for e in strict_lines(episode.directory / "transcript.jsonl") if e["event"] == "tool_call"]
    # transcripts keep one form, the mapping, whichever the agent sent
    assert [c["arguments"]["attributes"] for c in calls[:2]] == [{"connector": "USB-C"}] * 2


async def test_conversation_starts_with_the_opening_message(hub):
    episode = await open_default(hub)
    async with Client(create_server(hub)) as client:
        conversation = ok(await client.call_tool("get_conversation", {}))
    assert conversation["messages"] == [{"role": "customer", "text": episode.scenario.opening_message}]
    assert conversation["max_turns"] == episode.scenario.axes.max_turns
    assert conversation["status"] == "open"


async def test_search_filters_are_all_honoured(hub):
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        found = ok(await client.call_tool("search_catalog", {
            "category_id": "chargers", "max_price_usd": 40, "min_rating": 4.0, "max_ship_days": 5,
            "attributes": {"connector": "usb-c"}, "in_stock_only": True, "limit": 20}))
        assert found["results"], "a 4000-product catalog has cheap USB-C chargers"
        for card in found["results"]:
            details = ok(await client.call_tool("get_product", {"product_id": card["product_id"]}))
            assert details["category_id"] == "chargers"
            assert details["attributes"]["connector"] == "USB-C"
            assert card["price_usd"] <= 40 and card["rating"] >= 4.0 and card["ship_days"] <= 5
            assert card["in_stock"]


async def test_sorted_search_ranks_every_filtered_match(hub, reader):
    """sort_by orders the whole filtered category (not only the featured window), and the
    first result is the true minimum/maximum among the matching products."""
    import sqlite3

    # d=12: the shallowest featured window (80 matches); no episode stock-outs, so the catalog's
    # own stock is the truth below.
    await open_default(hub, difficulty=12, stock_changes=())
    rows = sqlite3.connect(reader.path).execute(
        "SELECT price_cents, rating, ship_days FROM products WHERE category_id = 'chargers' AND stock > 0"
        " AND rating >= 3").fetchall()
    assert len(rows) > 80
    async with Client(create_server(hub)) as client:
        async def sorted_by(order: str) -> list[dict]:
            return ok(await client.call_tool("search_catalog", {
                "category_id": "chargers", "min_rating": 3, "in_stock_only": True, "sort_by": order,
                "limit": 20}))["results"]

        by_price, by_rating, by_delivery = [await sorted_by(o) for o in ("price", "rating", "delivery")]
        featured = await sorted_by("featured")
        assert "sort_by needs a query" in error_text(
            await client.call_tool("search_catalog", {"sort_by": "price"}))
        assert "sort_by: Input should be 'featured', 'price', 'rating' or 'delivery'" in error_text(
            await client.call_tool("search_catalog", {"category_id": "chargers", "sort_by": "cheapest"}))
    prices = [c["price_usd"] for c in by_price]
    assert prices == sorted(prices) and prices[0] == min(r[0] for r in rows) / 100
    ratings = [c["rating"] for c in by_rating]
    assert ratings == sorted(ratings, reverse=True) and ratings[0] == max(r[1] for r in rows)
    days = [c["ship_days"] for c in by_delivery]
    assert days == sorted(days) and days[0] == min(r[2] for r in rows)
    assert [c["product_id"] for c in featured] != [c["product_id"] for c in by_price]
    for card in by_price + by_rating + by_delivery:
        assert card["rating"] >= 3 and card["in_stock"]


async def test_free_text_search_requires_every_word_then_relaxes(hub):
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        exact = ok(await client.call_tool("search_catalog", {"query": "wireless headphones", "limit": 5}))
        assert exact["note"] is None and exact["results"]
        assert all("Wireless" in r["title"] for r in exact["results"])
        relaxed = ok(await client.call_tool("search_catalog", {"query": "headphones zzzqx", "limit": 5}))
        assert relaxed["note"] and relaxed["results"]


async def test_search_rejects_bad_filters_with_specific_errors(hub):
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        assert "unknown category 'rockets'" in error_text(
            await client.call_tool("search_catalog", {"category_id": "rockets"}))
        assert "has no attribute 'wattage'" in error_text(
            await client.call_tool("search_catalog", {"category_id": "t_shirts", "attributes": {"wattage": "65W"}}))
        assert "above max_price_usd" in error_text(
            await client.call_tool("search_catalog", {"min_price_usd": 50, "max_price_usd": 10}))
        assert error_text(await client.call_tool("search_catalog", {"limit": 500})) == (
            "Error executing tool search_catalog: limit: Input should be less than or equal to 50")


async def test_product_details_list_variants_with_their_own_ids(hub, catalog_path):
    import sqlite3

    db = sqlite3.connect(catalog_path)
    group = db.execute("SELECT group_id FROM products GROUP BY group_id HAVING COUNT(*) > 1 LIMIT 1").fetchone()[0]
    members = {r[0] for r in db.execute("SELECT product_id FROM products WHERE group_id = ?", (group,))}
    db.close()
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        details = ok(await client.call_tool("get_product", {"product_id": next(iter(members))}))
    assert {v["product_id"] for v in details["variants"]} == members
    assert details["variant_attribute"]
    assert len({v["value"] for v in details["variants"]}) == len(members)
    # variants differing on one attribute: the fields of two-option groups stay out of the result
    assert "variant_attributes" not in details and not any("values" in v for v in details["variants"])


async def test_cart_add_update_remove(hub):
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        products = ok(await client.call_tool("search_catalog", {"in_stock_only": True, "limit": 2}))["results"]
        a, b = (p["product_id"] for p in products)
        ok(await client.call_tool("add_to_cart", {"product_id": a}))
        cart = ok(await client.call_tool("add_to_cart", {"product_id": a, "quantity": 2}))
        assert [(line["product_id"], line["quantity"]) for line in cart["lines"]] == [(a, 3)]
        cart = ok(await client.call_tool("add_to_cart", {"product_id": b}))
        assert cart["item_count"] == 4
        cart = ok(await client.call_tool("update_cart_item", {"product_id": a, "quantity": 1}))
        assert cart["item_count"] == 2
        assert cart["subtotal_usd"] == pytest.approx(sum(line["line_total_usd"] for line in cart["lines"]))
        cart = ok(await client.call_tool("update_cart_item", {"product_id": b, "quantity": 0}))
        assert [line["product_id"] for line in cart["lines"]] == [a]
        cart = ok(await client.call_tool("remove_from_cart", {"product_id": a}))
        assert cart["lines"] == [] and cart["item_count"] == 0
        assert ok(await client.call_tool("view_cart", {}))["lines"] == []


async def test_cart_errors_change_nothing(hub, catalog_path):
    import sqlite3

    db = sqlite3.connect(catalog_path)
    sold_out = db.execute("SELECT product_id FROM products WHERE stock = 0 LIMIT 1").fetchone()[0]
    low = db.execute("SELECT product_id, stock FROM products WHERE stock BETWEEN 1 AND 5 LIMIT 1").fetchone()
    db.close()
    await open_default(hub)
    async with Client(create_server(hub)) as client:
        assert "no product with ID 'P00000000'" in error_text(
            await client.call_tool("add_to_cart", {"product_id": "P00000000"}))
        assert "sold out" in error_text(await client.call_tool("add_to_cart", {"product_id": sold_out}))
        assert f"only {low[1]} units" in error_text(
            await client.call_tool("add_to_cart", {"product_id": low[0], "quantity": low[1] + 1}))
        assert "quantity: Input should be greater than or equal to 1" in error_text(
            await client.call_tool("add_to_cart", {"product_id": low[0], "quantity": 0}))
        assert "not in the cart" in error_text(
            await client.call_tool("update_cart_item", {"product_id": low[0], "quantity": 2}))
        assert "not in the cart" in error_text(await client.call_tool("remove_from_cart", {"product_id": low[0]}))
        assert ok(await client.call_tool("view_cart", {}))["lines"] == []


def _orders(today: date, catalog_path) -> tuple[Order, ...]:
    import sqlite3

    db = sqlite3.connect(catalog_path)
    rows = db.execute("SELECT product_id, title, category_id, price_cents FROM products "
                      "WHERE category_id IN ('t_shirts', 'jackets') LIMIT 3").fetchall()
    sock = db.execute("SELECT product_id, title, category_id, price_cents FROM products "
                      "WHERE category_id = 'socks' LIMIT 1").fetchone()
    db.close()
    line = lambda i, r: OrderLine(line_id=f"LN0000000{i}", product_id=r[0], title=r[1], category_id=r[2],  # noqa
                                  quantity=1, unit_price_cents=r[3])
    return (
        Order(order_id="W0000001", placed_on=date(2026, 3, 1), status="delivered", carrier="UPS",
              tracking_number="1Z1", eta=date(2026, 3, 4), delivered_on=date(2026, 3, 4),
              lines=(line(1, rows[0]), line(2, sock))),
        Order(order_id="W0000002", placed_on=date(2026, 1, 2), status="delivered", carrier="UPS",
              tracking_number="1Z2", eta=date(2026, 1, 5), delivered_on=date(2026, 1, 5), lines=(line(3, rows[1]),)),
        Order(order_id="W0000003", placed_on=date(2026, 3, 9), status="in_transit", carrier="DHL",
              tracking_number="1Z3", eta=date(2026, 3, 12), lines=(line(4, rows[2]),)),
    )


async def test_orders_and_returns_follow_the_policy(hub, catalog_path):
    today = date(2026, 3, 10)
    episode = await open_default(hub, today=today, orders=_orders(today, catalog_path))
    window = episode.scenario.policy.return_window_days
    async with Client(create_server(hub)) as client:
        orders = ok(await client.call_tool("list_orders", {}))["orders"]
        assert [o["order_id"] for o in orders] == ["W0000003", "W0000001", "W0000002"]
        details = ok(await client.call_tool("check_order", {"order_id": "W0000003"}))
        assert details["status"] == "in_transit" and details["tracking_number"] == "1Z3"
        assert details["estimated_delivery"] == "2026-03-12"

        async def eligibility(order, line):
            return ok(await client.call_tool("check_return_eligibility", {"order_id": order, "line_id": line}))

        assert (await eligibility("W0000001", "LN00000001"))["eligible"] is True
        assert "final sale" in (await eligibility("W0000001", "LN00000002"))["reason"]
        assert "only delivered orders" in (await eligibility("W0000003", "LN00000004"))["reason"]
        old = await eligibility("W0000002", "LN00000003")
        assert old["eligible"] is (window >= 64)

        receipt = ok(await client.call_tool("initiate_return", {"order_id": "W0000001", "line_id": "LN00000001",
                                                                "reason": "too small"}))
        assert receipt["line_id"] == "LN00000001" and receipt["refund_usd"] > 0
        again = error_text(await client.call_tool("initiate_return", {"order_id": "W0000001",
                                                                      "line_id": "LN00000001", "reason": "x"}))
        assert "already returned" in again
        assert "cannot be returned: final sale" in error_text(await client.call_tool(
            "initiate_return", {"order_id": "W0000001", "line_id": "LN00000002", "reason": "x"}))
        assert "no order with ID 'W9999999'" in error_text(
            await client.call_tool("check_order", {"order_id": "W9999999"}))
        assert "has no line 'LN00000003'" in error_text(
            await client.call_tool("check_return_eligibility", {"order_id": "W0000001", "line_id": "LN00000003"}))
        lines = ok(await client.call_tool("check_order", {"order_id": "W0000001"}))["lines"]
        assert [line["returned"] for line in lines] == [True, False]


async def test_policies_history_and_date(hub):
    episode = await open_default(hub)
    async with Client(create_server(hub)) as client:
        hits = ok(await client.call_tool("search_policies", {"query": "how long do I have to return headphones"}))
        assert hits["results"][0]["policy_id"] == "POL-RETURNS"
        assert str(episode.scenario.policy.electronics_return_window_days) in hits["results"][0]["text"]
        viewed = ok(await client.call_tool("get_browsing_history", {}))["viewed"]
        assert [p["product_id"] for p in viewed] == list(episode.scenario.browsing_history)
        today = ok(await client.call_tool("get_current_date", {}))
        assert today["today"] == episode.scenario.today.isoformat()


async def test_satisfied_customer_closes_the_episode_and_tools_then_refuse(hub):
    episode = await open_default(hub, difficulty=0, seed=4)
    anchor = episode.scenario.goal.anchor_product_id
    async with Client(create_server(hub)) as client:
        ok(await client.call_tool("get_product", {"product_id": anchor}))
        reply = ok(await client.call_tool("respond_to_customer", {"message": "Try this one.",
                                                                   "recommended_product_ids": [anchor]}))
        assert reply["status"] == "closed" and reply["close_reason"] == "customer_done"
        assert "closed (customer_done)" in error_text(await client.call_tool("view_cart", {}))
        assert "closed" in error_text(await client.call_tool("respond_to_customer", {"message": "hello?"}))
    events = (episode.directory / "transcript.jsonl").read_text().splitlines()
    assert '"event":"episode_closed"' in events[-1] and "customer_done" in events[-1]


async def test_turn_budget_ends_the_episode(hub):
    episode = await open_default(hub, difficulty=0, seed=2)
    budget = episode.scenario.axes.max_turns
    async with Client(create_server(hub)) as client:
        for turn in range(1, budget + 1):
            reply = ok(await client.call_tool("respond_to_customer", {"message": "Let me think."}))
            assert reply["turns_used"] == turn
        assert reply["status"] == "closed" and reply["close_reason"] == "turn_budget"


async def test_agent_done_closes_the_episode(hub):
    episode = await open_default(hub)
    async with Client(create_server(hub)) as client:
        reply = ok(await client.call_tool("respond_to_customer", {"message": "Bye!", "done": True}))
    assert reply["close_reason"] == "agent_done"
    assert episode.episode_id in hub.closed


async def test_transcript_records_calls_errors_and_messages(hub):
    import json

    episode = await open_default(hub)
    async with Client(create_server(hub)) as client:
        ok(await client.call_tool("get_current_date", {}))
        error_text(await client.call_tool("get_product", {"product_id": "P00000000"}))
        ok(await client.call_tool("respond_to_customer", {"message": "Anything else I should know?"}))
    await hub.close(episode.episode_id, "closed_by_client")
    events = [json.loads(line) for line in (episode.directory / "transcript.jsonl").read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[:2] == ["episode_opened", "customer_message"]
    assert kinds[-1] == "episode_closed" and events[-1]["reason"] == "closed_by_client"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    calls = [e for e in events if e["event"] == "tool_call"]
    assert calls[0]["tool"] == "get_current_date" and "result" in calls[0] and calls[0]["duration_ms"] >= 0
    assert calls[1]["arguments"] == {"product_id": "P00000000"} and "no product" in calls[1]["error"]
    assert "assistant_message" in kinds and kinds.count("customer_message") == 2


async def test_both_protocol_eras_work(hub):
    await open_default(hub)
    for mode in ("auto", "legacy"):
        async with Client(create_server(hub), mode=mode) as client:
            assert ok(await client.call_tool("get_current_date", {}))["weekday"]


def strict_lines(path) -> list[dict]:
    """The file's JSON lines, refusing the NaN and Infinity tokens that only Python accepts."""
    import json

    def refuse(token: str):
        raise ValueError(f"non-JSON token {token}")

    return [json.loads(line, parse_constant=refuse) for line in path.read_text().splitlines()]


async def test_numbers_out_of_range_are_refused_at_the_schema(hub):
    episode = await open_default(hub)
    async with Client(create_server(hub)) as client:
        for args, field in (({"max_price_usd": 1e30}, "max_price_usd"), ({"min_price_usd": 1e300}, "min_price_usd"),
                            ({"min_rating": 7.5}, "min_rating"), ({"limit": 10**30}, "limit"),
                            ({"attributes": {f"a{i}": "x" for i in range(50)}}, "attributes")):
            text = error_text(await client.call_tool("search_catalog", args))
            assert text.startswith(f"Error executing tool search_catalog: {field}: "), text
            assert "pydantic" not in text and "http" not in text and "input_value" not in text, text
        schema = {t.name: t for t in (await client.list_tools()).tools}["search_catalog"].input_schema
        assert schema["properties"]["max_price_usd"]["anyOf"][0]["maximum"] == 1_000_000
        ok(await client.call_tool("search_catalog", {"max_price_usd": 40}))
    strict_lines(episode.directory / "transcript.jsonl")


async def test_a_crash_inside_a_tool_is_an_internal_error_recorded_and_counted(hub, monkeypatch):
    from verishop.mcp_server.shop import catalog

    episode = await open_default(hub, budget=2)

    async def crash(*args, **kwargs):
        raise OverflowError("cannot convert float infinity to integer")

    async with Client(create_server(hub)) as client:
        with monkeypatch.context() as patch:
            patch.setattr(catalog, "search_catalog", crash)
            text = error_text(await client.call_tool("search_catalog", {"query": "charger"}))
        assert "internal error" in text and "OverflowError" not in text and "infinity" not in text
        ok(await client.call_tool("search_catalog", {"query": "charger"}))
        # Two lookups per turn: the crashed call spent one, as the transcript shows.
        assert "budget" in error_text(await client.call_tool("search_catalog", {"query": "charger"}))
    calls = [e for e in strict_lines(episode.directory / "transcript.jsonl") if e["event"] == "tool_call"]
    assert [(c["tool"], c.get("error", "")[:14]) for c in calls if c["tool"] == "search_catalog"] == [
        ("search_catalog", "internal error"), ("search_catalog", ""), ("search_catalog", "tool budget sp")]
    assert "OverflowError" in calls[0]["error"]


def test_the_transcript_writes_strict_json_even_for_non_finite_numbers(tmp_path):
    from verishop.mcp_server.episodes.transcript import Transcript

    transcript = Transcript(tmp_path / "transcript.jsonl")
    transcript.write("tool_call", arguments={"max_price_usd": float("inf"), "x": [float("nan"), 1.5]})
    transcript.close()
    (event,) = strict_lines(tmp_path / "transcript.jsonl")
    assert event["arguments"] == {"max_price_usd": "Infinity", "x": ["NaN", 1.5]}


async def test_a_write_reaches_the_world_only_after_its_transcript_event(hub, monkeypatch):
    """The process dies between the shop's write and its transcript event (simulated here by
    the event's write never returning): the world must not hold a write the transcript lacks."""
    from verishop.mcp_server.shop import cart

    episode = await open_default(hub)
    async with episode.db.execute("SELECT product_id FROM temp.shop_products WHERE stock > 5 LIMIT 1") as cur:
        (product_id,) = await cur.fetchone()

    class Killed(BaseException):
        pass

    real_write = episode.transcript.write

    def dies_on_the_event(event, **fields):
        if event == "tool_call":
            raise Killed
        return real_write(event, **fields)

    monkeypatch.setattr(episode.transcript, "write", dies_on_the_event)
    with pytest.raises(Killed):
        await episode.call("add_to_cart", {"product_id": product_id, "quantity": 1},
                           lambda: cart.add_to_cart(episode, product_id=product_id, quantity=1))
    monkeypatch.undo()
    async with episode.db.execute("SELECT count(*) FROM cart") as cur:
        assert (await cur.fetchone())[0] == 0
    async with Client(create_server(hub)) as client:  # and the episode goes on normally
        assert ok(await client.call_tool("add_to_cart", {"product_id": product_id}))["item_count"] == 1


async def test_a_call_cancelled_midway_is_recorded_like_the_lookup_it_spent(hub):
    import anyio

    episode = await open_default(hub, budget=2)
    started = anyio.Event()

    async def never_answers():
        started.set()
        await anyio.Event().wait()

    async with anyio.create_task_group() as tg:
        async def call() -> None:
            await episode.call("search_catalog", {"query": "x"}, never_answers)

        tg.start_soon(call)
        with anyio.fail_after(10):
            await started.wait()
        tg.cancel_scope.cancel()
    assert episode.lookups_this_turn == 1
    calls = [e for e in strict_lines(episode.directory / "transcript.jsonl") if e["event"] == "tool_call"]
    assert [(c["tool"], c["error"][:9]) for c in calls] == [("search_catalog", "cancelled")]
