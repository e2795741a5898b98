"""Read-only facts: store policies, browsing history, the shop's date, the conversation."""

from __future__ import annotations

from mcp_server.episode import Episode
from mcp_server.models import (BrowsingHistory, Conversation, CurrentDate, Message, PolicyHit,
                               PolicyResults)
from mcp_server.shop.catalog import card, fetch_product
from scenarios.catalog.text import query_words


async def search_policies(ep: Episode, query: str, limit: int) -> PolicyResults:
    words = set(query_words(query, max_words=30))
    scored = []
    for order, clause in enumerate(ep.scenario.policy.clauses):
        text = set(query_words(f"{clause.topic} {clause.title} {clause.text}", max_words=400))
        # Word overlap, with a crude stem so "returns" finds "return".
        hits = sum(1 for w in words if w in text or w.rstrip("s") in text)
        if hits or not words:
            scored.append((-hits, order, clause))
    scored.sort()
    return PolicyResults(results=[PolicyHit(policy_id=c.policy_id, title=c.title, text=c.text)
                                  for _, _, c in scored[:limit]])


async def get_browsing_history(ep: Episode) -> BrowsingHistory:
    return BrowsingHistory(viewed=[card(await fetch_product(ep, pid)) for pid in ep.scenario.browsing_history])


async def get_current_date(ep: Episode) -> CurrentDate:
    today = ep.scenario.today
    return CurrentDate(today=today, weekday=today.strftime("%A"))


async def get_conversation(ep: Episode) -> Conversation:
    return Conversation(messages=[Message(role=role, text=text) for role, text in ep.messages],
                        turns_used=ep.turns_used, max_turns=ep.scenario.axes.max_turns,
                        status="open" if ep.is_open else "closed")
