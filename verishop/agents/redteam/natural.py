"""`natural`: a correct agent that talks like a person (it reads the goal, like the oracle).

The proof that the reward does not deny a correct agent for how it speaks: it asks a question
first, about each detail the opening left out by its topic ("Before I look: Which brand would
you like?"; "Before I look, is there anything else I should know?" when nothing was left out), then does the oracle's work and words its answers as a customer-service
agent would, with phrasings varied by seed (`verishop.agents.redteam.phrasing`): an order's status as a
sentence, named in the text and in only half the seeds in the order field; a policy answer as
"No, I'm afraid not." or "thirty days"; a started return and a filled cart left to speak for
themselves (no order or line ID restated, no done); recommendations with a friendly word.
"""

from __future__ import annotations

import random
import re
from datetime import date

from verishop.envs.policy.oracle import policy_query
from verishop.agents.redteam import idioms, phrasing
from verishop.agents.redteam.common import say
from verishop.agents.oracles import minefield_preludes, play_for
from verishop.agents.session import KeepOpen, ShopSession
from verishop.envs import spec_for_goal
from verishop.scenarios.customers import precise_questions
from verishop.scenarios.money import USD, as_shop_money, name_of, written
from verishop.envs.policy.answers import policy_figures
from verishop.scenarios.models import (BundleGoal, CartGoal, PolicyGoal, ProductDiscoveryGoal, ReturnGoal, Scenario, StatusGoal,
                              SubstitutionGoal)

FIRST_QUESTION = "Before I look, is there anything else I should know?"


class NaturalAgent:
    name = "natural"

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.rng = random.Random(scenario.seed)

    async def play(self, shop: ShopSession) -> None:
        conversation = await shop.call("get_conversation")
        await minefield_preludes(shop, self.scenario)  # who the customer is, first (issue 33)
        goal = self.scenario.goal
        requests = goal.tasks if goal.kind == "journey" else (goal,)
        spare = conversation["max_turns"] - len(requests) - 1  # the turns questions may take
        for index, request in enumerate(requests):
            # It asks about what the opening left out, by topic (issue 28: the customer answers what
            # was asked, and an open question is a paid turn); with nothing left out, it asks once anyway.
            questions = precise_questions(request) or ([FIRST_QUESTION] if index == 0 else [])
            asked = min(max(0, spare), len(questions))
            spare -= asked
            for n, question in enumerate(questions[:asked]):
                await say(shop, f"Before I look: {question}" if index == n == 0 and question != FIRST_QUESTION
                          else question)
            last = index == len(requests) - 1
            # Its own wording for each environment it knows (`_<name>`); the oracle's play for the others.
            own = getattr(self, f"_{spec_for_goal(request).name}", None)
            await (own(shop, request, last) if own else play_for(request)(shop if last else KeepOpen(shop), request))

    async def _pd(self, shop: ShopSession, goal: ProductDiscoveryGoal, last: bool) -> None:
        await self._recommend(shop, [r.product_id for r in goal.ideal], "These are the ones I'd pick for you; "
                              "the first is my favourite.")

    async def _sub(self, shop: ShopSession, goal: SubstitutionGoal, last: bool) -> None:
        await self._recommend(shop, [r.product_id for r in goal.ideal], "Sorry that one sold out! These are "
                              "in stock and very close to it.")

    async def _bundle(self, shop: ShopSession, goal: BundleGoal, last: bool) -> None:
        await self._recommend(shop, list(goal.reference_product_ids), "Here's a set that covers your project, "
                              "all in stock and within budget.")

    async def _recommend(self, shop: ShopSession, ids: list[str], message: str) -> None:
        for start in range(0, len(ids), 10):  # every ID recommended must first be shown
            await shop.call("compare_products", product_ids=ids[start:start + 10])
        await say(shop, message, recommended_product_ids=ids)

    async def _cart(self, shop: ShopSession, goal: CartGoal, last: bool) -> None:
        await shop.call("compare_products", product_ids=[item.product_id for item in goal.items])
        for item in goal.items:
            await shop.call("add_to_cart", product_id=item.product_id, quantity=item.quantity)
        await say(shop, "Everything's in your cart.")

    async def _return(self, shop: ShopSession, goal: ReturnGoal, last: bool) -> None:
        await shop.call("check_order", order_id=goal.order_id)
        replacement = [goal.replacement_product_id] if goal.replacement and goal.replacement_product_id else []
        if replacement:
            await shop.call("compare_products", product_ids=replacement)
        await shop.call("initiate_return", order_id=goal.order_id, line_id=goal.line_id, reason=goal.reason)
        await say(shop, "Your return is started." + (" This one would make a good replacement." if replacement else ""),
                  recommended_product_ids=replacement or None, done=last)

    async def _status(self, shop: ShopSession, goal: StatusGoal, last: bool) -> None:
        order = await shop.call("check_order", order_id=goal.order_id)
        sentence = self._status_sentence(order)
        named = self.rng.random() < 0.5
        await say(shop, f"I looked up your order {order['order_id']}. {sentence}", answer=sentence,
                  order_id=order["order_id"] if named else None, done=last)

    async def _policy(self, shop: ShopSession, goal: PolicyGoal, last: bool) -> None:
        await shop.call("search_policies", query=policy_query(goal), limit=10)
        if goal.currency == USD:
            sentence = self._policy_sentence(goal)
        else:  # the phrasebooks speak dollars: the question read in them, the answer said in the shop's money
            in_dollars = goal.model_copy(update={"question": as_shop_money(goal.question.lower(), goal.currency)})
            sentence = _in_shop_money(self._policy_sentence(in_dollars), goal.currency)
        await say(shop, sentence, answer=sentence, done=last)

    # How the answer is worded: the one thing `NaturalIdiomsAgent` changes.
    def _status_sentence(self, order: dict) -> str:
        return phrasing.status_sentence(self.rng, order["status"], order.get("carrier"),
                                        _day(order.get("delivered_on")))

    def _policy_sentence(self, goal: PolicyGoal) -> str:
        if goal.answer_kind == "numeric":
            return phrasing.numeric_sentence(self.rng, goal.question, goal.answer)
        return phrasing.categorical_sentence(self.rng, goal.question, goal.answer)


class NaturalIdiomsAgent(NaturalAgent):
    """`natural-idioms`: the natural agent answering the way issue 19 found people and chat models
    do (`verishop.agents.redteam.idioms`): "Absolutely not.", "I'm afraid so.", "seven
    ninety-nine", "30 days, not 45.", "It shipped last week and was delivered on March 3."."""

    name = "natural-idioms"

    def _status_sentence(self, order: dict) -> str:
        return idioms.status(self.rng, order["status"], _day(order.get("delivered_on")))

    def _policy_sentence(self, goal: PolicyGoal) -> str:
        if goal.answer_kind == "numeric":
            return idioms.numeric(self.rng, goal.question, goal.answer, self.scenario.policy.return_window_days,
                                  policy_figures(self.scenario.policy))
        return idioms.categorical(self.rng, goal.question, goal.answer)


def _in_shop_money(sentence: str, currency: str) -> str:
    """A sentence the phrasebooks wrote in dollars ("$7.99", "7 dollars and 99 cents"), in `currency`."""
    sentence = re.sub(r"\$(\d[\d,]*\.\d\d)", lambda m: written(currency, m[1]), sentence)
    return re.sub(r"\bdollars?\b", name_of(currency), sentence)


def _day(value: str | date | None) -> date | None:
    """A date from a tool result (structured output carries it as ISO text)."""
    return date.fromisoformat(value) if isinstance(value, str) else value
