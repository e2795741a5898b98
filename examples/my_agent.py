"""A hand-written agent: `verishop eval --agent examples/my_agent.py:agent --env pd --episodes 5`.

It searches the customer's words (dropping the first word until something matches) and recommends
the top three in-stock results. Goal-blind and simple: a template, not a strong agent."""

import re

FILLER = set("hi hello hey there i i'm am looking shopping for a an the some me can you could would recommend please "
             "need want find show with and to my of good great best options choices picks most matter".split())


async def agent(episode):
    words = [w for w in re.findall(r"[a-z][a-z'-]+", episode.opening_message.lower()) if w not in FILLER]
    products = []
    while words and not products:
        found = await episode.session.call_tool(
            "search_catalog", {"query": " ".join(words[:4]), "in_stock_only": True, "limit": 3})
        products = [] if found.is_error else found.structured_content["results"]
        words = words[1:]
    if products:
        await episode.session.call_tool("respond_to_customer", {
            "message": "Here are my top picks.", "recommended_product_ids": [p["product_id"] for p in products]})
    else:
        await episode.session.call_tool("respond_to_customer", {"message": "Sorry, I found nothing.", "done": True})
