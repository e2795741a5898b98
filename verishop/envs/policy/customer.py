"""The policy customer: asks one question and gives the details it left out when asked (one
per question). It cannot know the answer itself, so it never judges one: it takes the first
definite answer it is given, thanks the agent, and the request ends (the verifier scores the
answer). An answer it cannot pin down (nothing readable, or a hedge across several values) is
no answer: it asks back, as a person would (`verishop.envs.policy.answers`)."""

from __future__ import annotations

from verishop.scenarios.answers import AMBIGUOUS
from verishop.scenarios.answers import answered
from verishop.envs.policy.answers import policy_ask_back, policy_commitment, policy_reading
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView, neutral_close
from verishop.scenarios.customers.topics import Detail, answer
from verishop.scenarios.models import PolicyGoal, Submission
from verishop.envs.policy.answers import policy_figures


def reply(state: CustomerState, goal: PolicyGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    # Read as the verifier reads it: figures the shop's policy states are restatements.
    given = policy_figures(state.scenario.policy)
    if policy_commitment(goal, sub, given) is not None:
        return neutral_close()  # it cannot know the figure
    if sub.done:
        return CustomerTurn("You haven't answered my question... never mind, bye.", "quit")
    if answered(sub):
        return CustomerTurn(policy_ask_back(goal, policy_reading(goal, sub, given) is AMBIGUOUS), "continue")
    turn = answer(state, message, [Detail(i, situation_topics(d), d, True) for i, d in enumerate(goal.unstated)],
                  "So what's the answer?", nothing_left="No, that's all there is to it. So what's the answer?")
    return turn or CustomerTurn("So, what's the answer?", "continue")


def details(goal: PolicyGoal) -> list[Detail]:
    """What the customer can tell, by topic: each detail of its situation the question left out."""
    return [Detail(i, situation_topics(d), d, True) for i, d in enumerate(goal.unstated)]


def situation_topics(detail: str) -> frozenset[str]:
    """The topics that ask for one detail of the customer's situation (the sentences
    `verishop/envs/policy/generator.py` writes: membership, a gift, the item's condition, the delivery day)."""
    text = detail.lower()
    topics = {topic for topic, words in _SITUATION.items() if any(w in text for w in words)}
    return frozenset(topics | ({"date"} if "delivery" in topics else set()))


_SITUATION = {"member": ("member",), "gift": ("gift",), "condition": ("defective", "changed my mind", "wrong with"),
              "delivery": ("delivery was", "delivered", "arrived on")}
