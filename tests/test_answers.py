"""How an agent's answer is read (verishop.scenarios.answers): the way a person would read it. A
hedge across several values is no answer at all, and no phrasing is ever read as a different
definite value than the one it states, however it is wrapped. The table is tests/answer_phrasings.py."""

from __future__ import annotations

import re
import unicodedata

import pytest
from answer_phrasings import CHOICES, HEDGE, NUMBERS, STATUS, YES_NO
from hypothesis import given, settings
from hypothesis import strategies as st

from verishop.scenarios.answers import (AMBIGUOUS, REFUND_OPTIONS, figures_in, read_choice, read_number, read_order_id,
                                        read_status, read_yes_no, status_claim, topic_of, unit_of)


def _same(got: object, expected: object) -> bool:
    if expected is HEDGE:
        return got is AMBIGUOUS
    if isinstance(expected, float):
        return isinstance(got, float) and abs(got - expected) < 1e-9
    return got == expected


def test_the_table_holds_at_least_four_hundred_phrasings_of_every_kind() -> None:
    assert len(YES_NO) + len(NUMBERS) + len(STATUS) + len(CHOICES) >= 400
    for rows in (YES_NO, NUMBERS, STATUS, CHOICES):
        readings = [row[-1] for row in rows]
        assert any(r is HEDGE for r in readings) and any(r is None for r in readings)


@pytest.mark.parametrize(("question", "text", "expected"), YES_NO)
def test_a_yes_or_a_no_is_read_as_the_answer_to_the_question_asked(question: str | None, text: str | None,
                                                                   expected: object) -> None:
    assert _same(read_yes_no(text, question=question), expected)


@pytest.mark.parametrize(("question", "given_figures", "text", "expected"), NUMBERS)
def test_a_number_is_read_in_the_unit_the_question_asks_and_a_range_is_a_hedge(
        question: str | None, given_figures: tuple[float, ...], text: str | None, expected: object) -> None:
    assert _same(read_number(text, given=given_figures, question=question), expected)


@pytest.mark.parametrize(("text", "expected"), STATUS)
def test_an_order_status_is_the_latest_state_a_message_states_and_alternatives_are_a_hedge(
        text: str | None, expected: object) -> None:
    assert _same(read_status(text), expected)


@pytest.mark.parametrize(("text", "expected"), CHOICES)
def test_an_option_is_read_unless_the_sentence_denies_it_or_offers_both(text: str | None, expected: object) -> None:
    assert _same(read_choice(text, REFUND_OPTIONS), expected)


# --- what the readers take from the question ------------------------------------------------

@pytest.mark.parametrize(("question", "topic"), [
    ("Can I return the socks I bought from you?", "ability"), ("Can I still return the blender?", "ability"),
    ("Can I cancel a purchase free of charge after it has shipped?", "ability"),
    ("Is there a restocking fee if I return the opened charger?", "fee"),
    ("Will a $31.49 purchase ship free?", "free_shipping"), ("What's the weather?", None), (None, None),
])
def test_a_yes_no_question_is_about_ability_a_fee_or_free_shipping(question: str | None, topic: str | None) -> None:
    assert topic_of(question) == topic


@pytest.mark.parametrize(("question", "unit"), [
    ("How many days after delivery do I have to return the blender?", "days"),
    ("If an item's price drops after delivery, within how many days can I get the difference refunded?", "days"),
    ("What percentage restocking fee applies if I return an opened charger?", "percent"),
    ("I paid $41.49 for the charger. How much will I get back if I return it?", "money"),
    ("What is the smallest purchase, in dollars, that ships free?", "money"), ("Hello?", None),
])
def test_the_unit_of_a_number_comes_from_the_question(question: str, unit: str | None) -> None:
    assert unit_of(question) == unit


def test_the_figures_a_question_gives_are_its_amounts_and_not_its_dates() -> None:
    assert figures_in("On March 3, 2026 I paid $41.49 for two chargers, order W1234567.") == (2.0, 41.49)


def test_figures_the_question_states_are_restatements_only_next_to_another_figure() -> None:
    question = "I paid $41.49 for the charger and opened it. How much will I get back?"
    assert read_number("$41.49 minus the fee leaves $35.27.", question=question) == 35.27
    assert read_number("$41.49", question=question) == 41.49
    assert read_number("$41.49 or $35.27", question=question) is AMBIGUOUS


# --- money in the shop's currency (issue 30) -------------------------------------------------

_EUROS = ((r"\$ ?", "€"), (r"\bdollars\b", "euros"), (r"\bdollar\b", "euro"), (r"\bbucks\b", "euros"),
          (r"\busd\b", "EUR"))
_DIRHAMS = ((r"\$ ?", "AED "), (r"\bdollars\b", "dirhams"), (r"\bdollar\b", "dirham"), (r"\bbucks\b", "dirhams"),
            (r"\busd\b", "AED"))


def _respelled(text: str | None, spellings: tuple[tuple[str, str], ...]) -> str | None:
    """`text` with its dollars in another currency ("＄7.99" is "$7.99" first: the table has wide forms)."""
    text = None if text is None else unicodedata.normalize("NFKC", text)
    for pattern, written in spellings:
        text = None if text is None else re.sub(pattern, written, text, flags=re.IGNORECASE)
    return text


@pytest.mark.parametrize(("currency", "spellings"), [("EUR", _EUROS), ("AED", _DIRHAMS)])
def test_the_whole_number_table_reads_the_same_in_euros_and_dirhams_in_a_shop_of_that_currency(
        currency: str, spellings: tuple[tuple[str, str], ...]) -> None:
    wrong = []
    for question, given_figures, text, expected in NUMBERS:
        q, t = _respelled(question, spellings), _respelled(text, spellings)
        if not _same(read_number(t, given=given_figures, question=q, currency=currency), expected):
            wrong.append((q, t, expected))
    assert wrong == []


@pytest.mark.parametrize(("currency", "text", "expected"), [
    ("EUR", "€12.98", 12.98), ("EUR", "12.98 euros", 12.98), ("EUR", "EUR 12.98", 12.98), ("EUR", "12.98€", 12.98),
    ("EUR", "twelve euros and ninety-eight cents", 12.98), ("AED", "12.98 AED", 12.98), ("AED", "AED12.98", 12.98),
    ("GBP", "£12.98", 12.98), ("GBP", "12.98 pounds", 12.98), ("USD", "$12.98", 12.98), ("USD", "12.98 USD", 12.98),
    ("CAD", "$12.98", 12.98), ("CAD", "CA$12.98", 12.98), ("XOF", "12.98 XOF", 12.98),
    # another currency's figure is never this shop's money: nothing is read (the customer asks back)
    ("EUR", "$12.98", None), ("EUR", "12.98 dollars", None), ("EUR", "12.98 USD", None), ("USD", "€12.98", None),
    ("USD", "12.98 euros", None), ("USD", "12.98 AED", None), ("AED", "$12.98", None), ("CAD", "US$12.98", None),
    ("USD", "CA$12.98", None), ("XOF", "€12.98", None),
    # beside the shop's own figure it is context; offered as an alternative it is a hedge
    ("EUR", "€12.98 (about $14)", 12.98), ("EUR", "€12.98 or $13.50", HEDGE),
])
def test_money_is_read_in_the_shops_currency_and_never_in_another(currency: str, text: str, expected: object) -> None:
    question = "How much will shipping cost?"
    assert _same(read_number(text, question=question, currency=currency), expected)


def test_a_yes_or_no_about_free_shipping_reads_the_shops_own_amounts() -> None:
    question = "Will a €31.49 purchase ship free?"
    for text in ("No, orders ship free from €35.", "No: shipping is €4.99 on that order."):
        assert read_yes_no(text, question=question, currency="EUR") == "no", text
    assert unit_of("What is the smallest purchase, in euros, that ships free?", currency="EUR") == "money"
    assert figures_in("Standard shipping costs €4.99. Orders of €35.00 or more ship free.",
                      currency="EUR") == (4.99, 35.0)


def test_an_order_id_is_read_in_any_case_or_width_and_two_ids_are_a_hedge() -> None:
    assert read_order_id("Your order w1234567 is on its way.") == "W1234567"
    assert read_order_id("Order Ｗ１２３４５６７ shipped.") == "W1234567"
    assert read_order_id("W1234567 or W7654321") is AMBIGUOUS
    assert read_order_id("no order here") is None


def test_a_status_claim_takes_the_structured_fields_first_and_the_words_otherwise() -> None:
    assert status_claim("Order W1234567 was delivered.", None, None) == ("W1234567", "delivered")
    assert status_claim("Order W1234567 was delivered.", "W7654321", "it's on its way") == ("W7654321", "in_transit")


# --- no inversion under any wrapping --------------------------------------------------------

_PREFIXES = ("", "Hi! ", "Hello there, ", "Thanks for your patience. ", "Great question! ", "I checked our policy. ",
             "Sure, I looked into it: ", "OK. ", "Hi there! Thanks for reaching out. ")
_SUFFIXES = ("", " Anything else I can help with?", " Have a great day!", " Let me know if you need more help.",
             " 😊", " Thanks for shopping with us!", "\n\nBest regards,\nVerishop support")


def _full_width(text: str) -> str:
    """The full-width form of every ASCII letter, digit and sign (what NFKC turns back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@st.composite
def _wrapped(draw: st.DrawFn, text: str) -> str:
    body = draw(st.sampled_from((text, text.upper(), text.lower(), _full_width(text), text.replace(" ", "  "),
                                 text.replace(" ", "\u00a0"), f"  {text}\t", text.replace("'", "\u2019"))))
    assert unicodedata.normalize("NFKC", _full_width("ok")) == "ok"
    return draw(st.sampled_from(_PREFIXES)) + body + draw(st.sampled_from(_SUFFIXES))


def _definite(value: object) -> bool:
    return value is not None and value is not AMBIGUOUS


def _never_another_value(got: object, expected: object) -> bool:
    """Wrapped, a phrasing may lose its reading (None, a hedge) but never gains a different one."""
    if not _definite(got):
        return True
    if not _definite(expected):
        return False  # a hedge or a non-answer must never become a value
    return _same(got, expected)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_no_yes_no_phrasing_is_ever_read_as_the_opposite_when_wrapped(data: st.DataObject) -> None:
    question, text, expected = data.draw(st.sampled_from([r for r in YES_NO if r[1]]))
    wrapped = data.draw(_wrapped(text))
    assert _never_another_value(read_yes_no(wrapped, question=question), expected), wrapped


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_no_number_phrasing_is_ever_read_as_another_number_when_wrapped(data: st.DataObject) -> None:
    question, given_figures, text, expected = data.draw(st.sampled_from([r for r in NUMBERS if r[2]]))
    wrapped = data.draw(_wrapped(text))
    assert _never_another_value(read_number(wrapped, given=given_figures, question=question), expected), wrapped


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_no_status_or_refund_phrasing_is_ever_read_as_another_value_when_wrapped(data: st.DataObject) -> None:
    text, expected = data.draw(st.sampled_from([r for r in STATUS if r[0]]))
    assert _never_another_value(read_status(data.draw(_wrapped(text))), expected)
    text, expected = data.draw(st.sampled_from([r for r in CHOICES if r[0]]))
    assert _never_another_value(read_choice(data.draw(_wrapped(text)), REFUND_OPTIONS), expected)
