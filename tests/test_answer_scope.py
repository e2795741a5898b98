"""A reader that would rather ask than guess (issue 28, breaks 1 and 2): an answer commits a value
only when exactly one reading survives negation scope ("I doubt you can"), apology scope, contrast
and condition ("only if", "unless", "except", "though") and alternatives ("usually X, sometimes
Y", "tracking says X; the carrier says Y"). Every phrasing below was read as a definite value it
does not state before the change; each is now read right or not at all (the customer asks back).

The two properties are checked over the composed answer table (tests/answer_corpus.py): negating
a committed answer never keeps it, and adding an alternative value never commits. Played end to
end through the MCP server, a hedge is asked back and the clear answer after it still counts.
"""

from __future__ import annotations

import pytest
from answer_corpus import ALTERNATIVES, COMMITTED_BASES, NEGATIONS, read, right
from hypothesis import given, settings
from hypothesis import strategies as st
from test_answer_commitments import days, find, play, policy_lookup, status_lookup

from verishop.scenarios.answers import (AMBIGUOUS, REFUND_OPTIONS, read_choice, read_number, read_status, read_yes_no,
                                        topic_of)

Q_RETURN = "Can I return the socks I bought from you?"
Q_FEE = "Is there a restocking fee if I return an opened charger because I changed my mind?"
Q_CANCEL_SHIPPED = "Can I cancel a purchase free of charge after it has shipped?"
Q_SHIP = "I'm a Verishop Plus member. Will a $31.49 purchase ship free?"
Q_BUSINESS = "How many business days does my refund take once you receive my return?"
Q_DAYS = "How many days after delivery do I have to return the blender?"
Q_SHIPPING = "How much does standard shipping cost when a purchase doesn't ship free?"
Q_PERCENT = "What percentage restocking fee applies if I return an opened charger because I changed my mind?"
POLICY = (30.0, 14.0, 15.0, 4.99, 35.0, 7.0, 5.0, 10.0)

UNREAD = {None, AMBIGUOUS}

# --- break 1: opposite readings ---------------------------------------------------------------

# (question, answer, the true reading: "yes", "no", or None when no single reading survives)
YES_NO_OPPOSITES = [
    (Q_RETURN, "I doubt you can return them.", "no"),
    (Q_RETURN, "I don't think you can return socks.", "no"),
    (Q_RETURN, "I wouldn't say you can return socks.", "no"),
    (Q_RETURN, "I don't believe they can be returned.", "no"),
    (Q_RETURN, "It's unlikely that you can return them.", None),
    (Q_RETURN, "I wish I could say you can, but socks are final sale.", "no"),
    (Q_RETURN, "Sorry, but we can only offer an exchange on socks.", None),
    (Q_RETURN, "Unfortunately we can only take back defective socks.", None),
    (Q_RETURN, "I apologize, returns on socks are something we have to turn down.", None),
    (Q_RETURN, "Sorry, you can return most things, but not socks.", None),
    (Q_RETURN, "You can return them only if they're unworn and still sealed.", None),
    (Q_RETURN, "Yes, but only if they are unopened.", None),
    (Q_FEE, "There's no fee only if the item is unopened.", None),
    (Q_FEE, "No fee, provided the box is still sealed.", None),
    (Q_CANCEL_SHIPPED, "You can cancel for free only if it hasn't shipped yet.", None),
    (Q_CANCEL_SHIPPED, "Yes, as long as it hasn't left our warehouse.", None),
    (Q_SHIP, "It ships free only if the order is over $35.", None),
    (Q_RETURN, "I seriously doubt we can take them back.", "no"),
    (Q_RETURN, "It's doubtful you can return them.", "no"),
    (Q_RETURN, "I'm not convinced you can.", "no"),
    (Q_RETURN, "Only unworn socks can be returned.", None),
]


@pytest.mark.parametrize(("question", "text", "truth"), YES_NO_OPPOSITES)
def test_a_yes_inside_a_negated_apologetic_or_conditional_clause_is_never_read_as_yes(
        question: str, text: str, truth: str | None) -> None:
    got = read_yes_no(text, question=question)
    assert got == truth if truth else got in UNREAD, (text, got)


CARRIER_HAS_IT = ["It's with the carrier.", "The carrier has it.", "UPS has your package now.",
                  "The courier has it now.", "Your parcel is in the carrier's hands.", "FedEx has it.",
                  "It's now in the hands of the courier.", "The delivery driver has it with him."]
CARRIER_TOOK_IT = ["It was handed to the carrier.", "The carrier picked it up yesterday.", "UPS collected it on Monday.",
                   "We handed it over to FedEx this morning.", "The courier took it yesterday."]


def test_the_carrier_holding_an_order_is_in_transit_in_every_wording() -> None:
    assert {t: read_status(t) for t in CARRIER_HAS_IT} == {t: "in_transit" for t in CARRIER_HAS_IT}


def test_the_carrier_taking_an_order_is_shipped_in_every_wording() -> None:
    assert {t: read_status(t) for t in CARRIER_TOOK_IT} == {t: "shipped" for t in CARRIER_TOOK_IT}


# --- break 2: hedges scored as answers ----------------------------------------------------------

NUMBER_HEDGES = [
    (Q_BUSINESS, "Usually 5 business days, sometimes 7."),
    (Q_BUSINESS, "It's 5 business days, though it may be 10."),
    (Q_BUSINESS, "5 business days if you paid by card, 10 if you used PayPal."),
    (Q_BUSINESS, "Typically 7 business days; occasionally up to 10."),
    (Q_DAYS, "30 days, though some items may only have 14."),
    (Q_DAYS, "Normally 14 days, but it could be 30 for you."),
    (Q_SHIPPING, "$4.99 usually, but it can be $7.99 for large items."),
    (Q_PERCENT, "15% for most items, 10% for chargers."),
    (Q_PERCENT, "It's 15 percent, though it might be lower for you."),
]


@pytest.mark.parametrize(("question", "text"), NUMBER_HEDGES)
def test_two_numbers_offered_as_alternatives_are_never_read_as_one(question: str, text: str) -> None:
    assert read_number(text, given=POLICY, question=question) in UNREAD, text


STATUS_HEDGES = [
    "Tracking says it's delivered; the carrier says it's still in transit.",
    "It shows as delivered, but the courier still lists it as in transit.",
    "It's in transit, though it may have been delivered already.",
    "Our system says shipped, but UPS says it was delivered.",
    "It's marked as delivered, but it might still be out for delivery.",
    "It's probably been delivered, or it's still on its way.",
]


@pytest.mark.parametrize("text", STATUS_HEDGES)
def test_two_sources_or_a_possible_other_status_are_a_hedge(text: str) -> None:
    assert read_status(text) in UNREAD, (text, read_status(text))


YES_NO_HEDGES = [
    (Q_RETURN, "Yes, you can return items within 30 days, except socks."),
    (Q_RETURN, "Yes, except for final-sale items like socks."),
    (Q_RETURN, "You can return anything, except underwear and socks."),
    (Q_FEE, "Usually there's no fee, but sometimes there is."),
    (Q_FEE, "No fee, though there might be one for opened electronics."),
    (Q_FEE, "There's no fee, unless it's opened."),
    (Q_SHIP, "Yes, though it might not, depending on the items."),
    (Q_SHIP, "Plus members usually get free shipping, but not always."),
]


@pytest.mark.parametrize(("question", "text"), YES_NO_HEDGES)
def test_a_yes_or_no_with_an_exception_or_an_alternative_commits_nothing(question: str, text: str) -> None:
    assert read_yes_no(text, question=question) in UNREAD, (text, read_yes_no(text, question=question))


CHOICE_HEDGES = [
    "It goes to your card, though it may come back as store credit.",
    "Usually store credit, sometimes back to your card.",
    "Store credit, unless you paid by card.",
]


@pytest.mark.parametrize("text", CHOICE_HEDGES)
def test_a_refund_method_with_an_alternative_commits_nothing(text: str) -> None:
    assert read_choice(text, REFUND_OPTIONS) in UNREAD, text


# --- the properties -----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_negating_a_committed_answer_never_keeps_it(data: st.DataObject) -> None:
    base = data.draw(st.sampled_from(COMMITTED_BASES))
    negate = data.draw(st.sampled_from(NEGATIONS[base.kind]))
    negated = negate(base)
    if negated is None:
        return
    assert right(base, read(base)), base.text
    got = read(negated)
    assert not right(base, got), (negated.text, got)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_adding_an_alternative_value_never_commits(data: st.DataObject) -> None:
    base = data.draw(st.sampled_from(COMMITTED_BASES))
    other = data.draw(st.sampled_from([b for b in COMMITTED_BASES if b.kind == base.kind and b.question == base.question
                                       and b.truth != base.truth]))
    join = data.draw(st.sampled_from(ALTERNATIVES[base.kind]))
    hedged = join(base, other)
    assert read(hedged) in UNREAD, (hedged.text, read(hedged))


# --- played end to end: the customer asks back, the verdict waits for a definite answer ----------

async def test_a_number_offered_with_its_alternative_is_asked_back_and_the_clear_answer_after_it_counts(hub, verifier):
    scenario = find(hub, "policy", days)
    answer = int(float(scenario.goal.answer))
    hedge = f"Usually {answer} days, sometimes {answer + 7}."
    replies, reward, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": hedge, "answer": hedge}, {"message": f"It's {answer} days.", "answer": f"{answer} days"}])
    assert replies[0]["status"] == "open" and "how many days" in replies[0]["customer_message"].lower()
    assert (reward.r_task, reward.is_correct) == (1.0, True)
    assert len(next(c for c in reward.breakdown if c.name == "numeric_answer").found) == 1


async def test_a_no_said_as_a_doubt_is_read_as_the_no_it_is(hub, verifier):
    scenario = find(hub, "policy", lambda s: s.goal.answer == "no" and topic_of(s.goal.question) == "ability"
                    and not s.goal.unstated)
    replies, reward, _ = await play(hub, verifier, scenario, policy_lookup(scenario), [
        {"message": "I doubt you can, I'm sorry.", "answer": "I doubt you can."}])
    assert replies[0]["status"] == "closed"
    assert (reward.r_task, reward.is_correct) == (1.0, True)


async def test_two_sources_that_disagree_on_a_status_are_asked_back(hub, verifier):
    scenario = find(hub, "status", lambda s: s.axes.max_turns >= 3 and s.goal.status not in ("delivered", "cancelled"))
    order_id, status = scenario.goal.order_id, scenario.goal.status
    hedge = "Tracking says it's delivered; the carrier says it's still on its way."
    replies, reward, _ = await play(hub, verifier, scenario, status_lookup(scenario), [
        {"message": hedge, "order_id": order_id, "answer": hedge},
        {"message": f"It's {status.replace('_', ' ')}.", "order_id": order_id, "answer": status.replace("_", " ")}])
    assert replies[0]["status"] == "open" and "which is it" in replies[0]["customer_message"].lower()
    assert (reward.r_task, reward.is_correct) == (1.0, True)
