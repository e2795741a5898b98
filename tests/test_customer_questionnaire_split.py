"""A questionnaire split into small messages is still a questionnaire (issue 28 audit, point 7).

The goal-blind attacker `askall` asks every topic in groups of four: each group holds one topic
that tells something and three that do not, which the per-message rule (`QUESTIONNAIRE_SLACK`)
lets through free. The customer now counts, over the whole conversation, the topics asked
beside a telling one that told nothing: once they outnumber the topics that told (beyond the
slack), a reply that tells is paid. Asking precisely, one telling topic at a time, stays free.
"""

from __future__ import annotations

from test_customer_answers import scenarios

from verishop.scenarios.customers import SimulatedCustomer
from verishop.scenarios.customers.topics import QUESTIONNAIRE_SLACK, constraint_topics, question_about
from verishop.scenarios.models import Scenario, Submission

BLIND = ("brand", "colour", "size", "budget", "rating", "delivery", "quantity", "priority")
WORDS = {"brand": "which brand", "colour": "which colour", "size": "what size", "budget": "what budget",
         "rating": "what rating", "delivery": "how soon you need it delivered", "quantity": "how many",
         "priority": "what matters most"}


def _withheld_topics(s: Scenario) -> list[str]:
    """One blind topic per withheld requirement (each a different topic)."""
    found: list[str] = []
    for c in s.goal.constraints:
        if not c.stated:
            topic = next((t for t in BLIND if t in constraint_topics(c.kind, c.attribute)), None)
            if topic is not None and topic not in found:
                found.append(topic)
    return found


def _no_detail_topics(s: Scenario) -> list[str]:
    held = {t for c in s.goal.constraints for t in constraint_topics(c.kind, c.attribute)}
    return [t for t in BLIND if t not in held and t != "priority"]


def _usable(s: Scenario) -> bool:
    return len(_withheld_topics(s)) >= 3 and len(_no_detail_topics(s)) >= QUESTIONNAIRE_SLACK


def test_a_questionnaire_split_into_groups_of_four_topics_is_paid_once_the_misses_outnumber_the_hits(reader):
    cases = scenarios(reader, "pd", _usable, most=6, seeds=400)
    assert cases
    for s in cases:
        customer = SimulatedCustomer(s, reader.product)
        misses = _no_detail_topics(s)[:QUESTIONNAIRE_SLACK]
        tags = []
        for topic in _withheld_topics(s)[:3]:
            asked = ", ".join(WORDS[t] for t in (topic, *misses))
            tags.append(customer.reply(f"Tell me {asked}.", Submission()).tag)
        assert tags[0] == "clarify" and tags[-1] != "clarify", (s.seed, tags)


def test_asking_one_withheld_topic_at_a_time_stays_free(reader):
    cases = scenarios(reader, "pd", _usable, most=6, seeds=400)
    for s in cases:
        customer = SimulatedCustomer(s, reader.product)
        tags = [customer.reply(question_about({t}), Submission()).tag for t in _withheld_topics(s)]
        assert set(tags) == {"clarify"}, (s.seed, tags)
