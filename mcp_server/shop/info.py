"""Read-only facts: store policies, browsing history, the shop's date, the conversation."""

from __future__ import annotations

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.models import (BrowsingHistory, Conversation, CurrentDate, Message, PolicyHit,
                               PolicyResults)
from verishop.mcp_server.shop.catalog import card, fetch_product
from verishop.scenarios.policy import rank_clauses


async def search_policies(ep: Episode, query: str, limit: int) -> PolicyResults:
    return PolicyResults(results=[PolicyHit(policy_id=c.policy_id, title=c.title, text=c.text)
                                  for c in rank_clauses(ep.scenario.policy.clauses, query)[:limit]])


async def get_browsing_history(ep: Episode) -> BrowsingHistory:
    currency = ep.scenario.catalog.currency
    return BrowsingHistory(viewed=[card(await fetch_product(ep, pid), currency)
                                   for pid in ep.scenario.browsing_history])


async def get_current_date(ep: Episode) -> CurrentDate:
    today = ep.scenario.today
    return CurrentDate(today=today, weekday=today.strftime("%A"))


async def get_conversation(ep: Episode) -> Conversation:
    return Conversation(messages=[Message(role=role, text=text) for role, text in ep.messages],
                        turns_used=ep.turns_used, max_turns=ep.scenario.axes.max_turns,
                        status="open" if ep.is_open else "closed")
