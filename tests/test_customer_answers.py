"""The customer answers what was asked (issue 28, break 8 and point 7).

Before: any message with a "?" told the next withheld detail whatever it asked ("Any brand you
prefer?" told the priority), and a request without "?" ("Let me know your preferred size.")
got nothing. Now the customer reads the topic of each request (`scenarios/customers/topics.py`),
tells the withheld detail of that topic, says it has no preference on a topic it has no detail
on, tells nothing for an unrelated question, and an open question ("anything else?") is never
a free oracle."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from customer_requests import HELD_OUT, REQUESTS
from customer_requests_audit import AUDIT_ALL
from verishop.scenarios.constraints import describe
from verishop.scenarios.customers import SimulatedCustomer
from verishop.scenarios.customers.topics import asked
from verishop.scenarios.envs import generate
from verishop.envs.bundle.generator import say_category
from verishop.envs.pd.generator import PRIORITY_WORDS
from verishop.scenarios.models import Scenario, Submission
from verishop.scenarios.voices import VOICES

SIZE_LIKE = ("size", "shoe_size", "band_size", "bed_size", "screen_size")


def quiet(scenario: Scenario) -> Scenario:
    """The scenario with the customer's typo noise off, so that its words can be compared."""
    return scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"p_noise": 0.0})})


@pytest.fixture(params=VOICES)
def voice(request: pytest.FixtureRequest) -> str:
    """Every customer below understands in every voice (issue 35): a voice rewords, never decides."""
    return request.param


_GENERATED: dict[tuple[str, int, int], Scenario] = {}


def _generated(reader, env: str, d: int, seed: int, voice: str | None) -> Scenario:
    """The scenario, in `voice` (its replies' voice: the opening is not read here), generated once
    for every voice."""
    if (env, d, seed) not in _GENERATED:
        _GENERATED[env, d, seed] = generate(env, d, seed, reader)
    s = _GENERATED[env, d, seed]
    return s if voice is None else s.model_copy(update={"voice": voice})


def scenarios(reader, env: str, want: Callable[[Scenario], bool], most: int = 20, seeds: int = 120,
              voice: str | None = None) -> list[Scenario]:
    found = []
    for seed in range(seeds):
        for d in (2, 5, 8, 11, 12):
            s = _generated(reader, env, d, seed, voice)
            if want(s):
                found.append(quiet(s))
                if len(found) == most:
                    return found
    return found


def withheld(scenario: Scenario, kind: str, attributes: tuple[str, ...] | None = None):
    return next((c for c in scenario.goal.constraints if not c.stated and c.kind == kind
                 and (attributes is None or c.attribute in attributes)), None)


def test_asked_for_its_brand_the_customer_tells_the_brand_and_not_its_priority(reader, voice):
    cases = scenarios(reader, "pd", lambda s: withheld(s, "brand") is not None, voice=voice)
    assert len(cases) >= 10
    for s in cases:
        reply = SimulatedCustomer(s, reader.product).reply("Any brand you prefer?", Submission())
        assert reply.tag == "clarify" and describe(withheld(s, "brand")) in reply.text, (s.seed, reply.text)
        priority = s.goal.persona.priority
        assert priority is None or PRIORITY_WORDS[priority] not in reply.text
        others = [describe(c) for c in s.goal.constraints if not c.stated and c.kind != "brand"]
        assert not any(words in reply.text for words in others), reply.text


@pytest.mark.parametrize(("env", "message"), [("pd", "Let me know your preferred size."),
                                               ("pd", "Tell me the budget"),
                                               ("pd", "Which colour")])
def test_a_request_without_a_question_mark_is_answered(reader, env, message, voice):
    kind, attrs = {"size": ("attribute", SIZE_LIKE), "budget": ("price_max", None),
                   "Which colour": ("attribute", ("color",))}[next(k for k in ("size", "budget", "Which colour")
                                                                if k in message)]
    cases = scenarios(reader, env, lambda s: withheld(s, kind, attrs) is not None, most=8, voice=voice)
    assert cases
    for s in cases:
        reply = SimulatedCustomer(s, reader.product).reply(message, Submission())
        assert reply.tag == "clarify" and describe(withheld(s, kind, attrs)) in reply.text, reply.text


def test_several_topics_in_one_request_tell_each_withheld_detail_asked(reader, voice):
    cases = scenarios(reader, "pd", lambda s: withheld(s, "brand") is not None
                      and withheld(s, "price_max") is not None, most=5, seeds=400, voice=voice)
    assert cases
    for s in cases:
        reply = SimulatedCustomer(s, reader.product).reply("What's your budget, and which brand do you like?",
                                                           Submission())
        assert reply.tag == "clarify"
        assert describe(withheld(s, "brand")) in reply.text and describe(withheld(s, "price_max")) in reply.text


def test_a_topic_the_customer_has_no_requirement_on_gets_no_preference_and_costs_a_turn(reader, voice):
    cases = scenarios(reader, "pd", lambda s: not any(c.kind == "brand" for c in s.goal.constraints)
                      and any(not c.stated for c in s.goal.constraints), most=8, voice=voice)
    assert cases
    for s in cases:
        customer = SimulatedCustomer(s, reader.product)
        reply = customer.reply("Do you have a preferred brand?", Submission())
        assert reply.tag != "clarify" and "don't mind about the brand" in reply.text
        assert not any(describe(c) in reply.text for c in s.goal.constraints if not c.stated)


@pytest.mark.parametrize("env", ["pd", "sub", "cart", "return", "status", "policy", "bundle"])
def test_an_unrelated_question_tells_nothing(reader, env, voice):
    cases = scenarios(reader, env, lambda s: True, most=6, voice=voice)
    for s in cases:
        customer = SimulatedCustomer(s, reader.product)
        reply = customer.reply("What's the weather like where you are?", Submission())
        assert reply.tag == "continue" and not customer.state.revealed and not customer.state.memory, reply.text


def _withheld_count(s: Scenario) -> int:
    g = s.goal
    match g.kind:
        case "product_discovery":
            return sum(not c.stated for c in g.constraints) + (g.persona.priority is not None
                                                                 and not g.persona.priority_stated)
        case "policy":
            return len(g.unstated)
        case "bundle":
            return len(g.unstated)
    return 0


@pytest.mark.parametrize("env", ["pd", "policy", "bundle"])
def test_an_open_question_is_never_free_and_tells_at_most_one_thing(reader, env, voice):
    """The goal-blind attacker: ask "anything else I should know?" until told everything. Each
    reply tells at most one detail and no such turn is free (a precise question tells every
    detail it names at once, for free)."""
    cases = scenarios(reader, env, lambda s: _withheld_count(s) >= 2, most=6, voice=voice)
    assert cases
    for s in cases:
        customer = SimulatedCustomer(s, reader.product)
        for _ in range(_withheld_count(s)):
            before = len(customer.state.revealed) + len(customer.state.memory.get("told", ()))
            reply = customer.reply("Anything else I should know?", Submission())
            after = len(customer.state.revealed) + len(customer.state.memory.get("told", ()))
            assert reply.tag != "clarify" and after - before <= 1, reply


def test_a_bundle_customer_asked_what_else_it_needs_names_every_missing_need_at_once(reader, voice):
    cases = scenarios(reader, "bundle", lambda s: len(s.goal.unstated) >= 2, most=5, voice=voice)
    assert cases
    for s in cases:
        reply = SimulatedCustomer(s, reader.product).reply("What else do you need for the project?", Submission())
        assert reply.tag == "clarify" and all(say_category(c) in reply.text for c in s.goal.unstated)


def test_a_cart_customer_asked_which_colour_tells_the_colour_it_left_out(reader, voice):
    cases = scenarios(reader, "cart", lambda s: any(not i.variant_stated and i.variant_attribute == "color"
                                                    for i in s.goal.items), most=5, voice=voice)
    assert cases
    for s in cases:
        reply = SimulatedCustomer(s, reader.product).reply("Which colour would you like", Submission())
        item = next(i for i in s.goal.items if not i.variant_stated and i.variant_attribute == "color")
        assert reply.tag == "clarify" and f"color {item.variant_value}" in reply.text


def test_a_policy_customer_asked_about_membership_tells_its_membership_only(reader, voice):
    cases = scenarios(reader, "policy", lambda s: any("member" in d for d in s.goal.unstated)
                      and len(s.goal.unstated) >= 2, most=5, seeds=300, voice=voice)
    assert cases
    for s in cases:
        reply = SimulatedCustomer(s, reader.product).reply("Let me know if you're a member.", Submission())
        assert reply.tag == "clarify"
        assert [d for d in s.goal.unstated if d in reply.text] == [d for d in s.goal.unstated if "member" in d]


@pytest.mark.parametrize("table", [REQUESTS, HELD_OUT, AUDIT_ALL], ids=["table", "held-out", "audit"])
def test_the_request_table_is_understood_with_no_wrong_reveal(table):
    """At least 200 labelled requests (and 60 held out); at least 95% read exactly as labelled,
    and no topic read that the request did not ask (a topic read in excess would tell a detail
    nobody asked for). The audit table (tests/customer_requests_audit.py) was written by another
    hand, without the word lists."""
    assert len(table) >= (200 if table is REQUESTS else 60)
    readings = [(text, label, asked(text)) for text, label in table]
    understood = sum(got == label for _, label, got in readings)
    wrong = [(text, sorted(got - label)) for text, label, got in readings if got - label]
    assert understood / len(table) >= 0.95, [(t, sorted(lab), sorted(g)) for t, lab, g in readings if g != lab]
    assert wrong == []


def test_every_detail_a_customer_can_hold_back_has_a_question_that_asks_for_it():
    """Each catalog attribute, requirement kind and situation detail: the precise question an
    agent would ask is read as a topic that detail answers (so no detail is reachable only by an
    open, paid question)."""
    from verishop.envs.policy.customer import situation_topics
    from verishop.scenarios.customers.topics import attribute_topics, constraint_topics, question_about
    from verishop.scenarios.taxonomy import CATEGORIES

    topics = [attribute_topics(a.name) for c in CATEGORIES for a in c.attributes]
    topics += [constraint_topics(kind) for kind in ("brand", "price_max", "rating_min", "ship_days_max", "in_stock")]
    topics += [situation_topics(d) for d in ("I'm a Verishop Plus member.", "I bought the kettle as a gift.",
                                             "The kettle arrived defective.", "Delivery was on March 3, 2026.",
                                             "I just changed my mind about the kettle; nothing is wrong with it.")]
    for answers in topics:
        assert answers and asked(question_about(answers)) & answers, (sorted(answers), question_about(answers))


def test_a_questionnaire_asked_blind_is_answered_but_not_free(reader, voice):
    """The goal-blind attacker asks about every topic at once: the customer answers what it held
    back, but the turn is paid unless most of what was asked told something."""
    blind = ("Which brand, colour, size, material, connector, features, budget, rating and delivery time do you need, "
             "how many, and what matters most to you?")
    cases = scenarios(reader, "pd", lambda s: sum(not c.stated for c in s.goal.constraints) == 1, most=6, voice=voice)
    assert cases
    for s in cases:
        reply = SimulatedCustomer(s, reader.product).reply(blind, Submission())
        assert reply.tag == "continue" and "It should be" in reply.text
