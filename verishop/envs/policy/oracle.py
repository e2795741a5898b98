"""POLICY oracle: look the clauses up (one search), ask about each detail the customer left out
(by its topic: "Are you a member?", "Was it a gift?"), then give the answer."""

from __future__ import annotations

import re

from verishop.agents.session import ShopSession
from verishop.envs.policy.customer import situation_topics
from verishop.scenarios.customers.topics import question_about
from verishop.scenarios.models import PolicyGoal
from verishop.scenarios.tool_names import RESPOND_TO_CUSTOMER, SEARCH_POLICIES

MAX_QUERY_CHARS = 200  # search_policies' limit


def policy_query(goal: PolicyGoal) -> str:
    """The question's words, each once, within the search tool's length limit."""
    words = list(dict.fromkeys(re.findall(r"[\w'$.-]+", goal.question.lower())))
    query = ""
    for word in words:
        if len(query) + len(word) + 1 > MAX_QUERY_CHARS:
            break
        query = f"{query} {word}".strip()
    return query


async def play(shop: ShopSession, goal: PolicyGoal) -> None:
    await shop.call(SEARCH_POLICIES, query=policy_query(goal), limit=10)
    for detail in goal.unstated:
        await shop.call(RESPOND_TO_CUSTOMER, message=question_about(situation_topics(detail)))
    await shop.call(RESPOND_TO_CUSTOMER, message=f"According to our policy, the answer is {goal.answer}.",
                    answer=goal.answer, done=True)
