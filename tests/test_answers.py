"""How an agent's answer is read (scenarios/answers.py): the way a person would read it, and a
hedge across several values is no answer at all."""

from __future__ import annotations

import pytest

from verishop.scenarios.answers import AMBIGUOUS, REFUND_OPTIONS, read_choice, read_number, read_status, read_yes_no

YES_NO = [
    ("yes", "yes"), ("Yes, you can.", "yes"), ("Yes! It's still within the window.", "yes"),
    ("Absolutely, it will ship free.", "yes"), ("Of course you can return it.", "yes"),
    ("You can still return it until March 3.", "yes"),
    ("no", "no"), ("No, I'm afraid not.", "no"), ("Unfortunately, you can't cancel it now.", "no"),
    ("I'm afraid you cannot return socks.", "no"), ("There's no restocking fee.", "no"),
    ("No restocking fee applies.", "no"), ("It can't be returned, sorry.", "no"),
    ("Sorry, the window has closed.", "no"), ("Nope.", "no"),
    ("Yes or no, depending on the item.", AMBIGUOUS), ("yes / no", AMBIGUOUS), ("Yes. No.", AMBIGUOUS),
    ("It depends.", None), ("", None), (None, None),
]


@pytest.mark.parametrize(("text", "expected"), YES_NO)
def test_a_yes_or_a_no_is_read_from_the_sentence_that_gives_it(text: str | None, expected: object) -> None:
    assert read_yes_no(text) == expected if expected is not AMBIGUOUS else read_yes_no(text) is AMBIGUOUS


NUMBERS = [
    ("30", 30.0), ("30 days", 30.0), ("thirty days", 30.0), ("Thirty.", 30.0), ("forty-five days", 45.0),
    ("twenty one days", 21.0), ("$1,250.00", 1250.0), ("It costs $7.99.", 7.99), ("15%", 15.0),
    ("A 15 percent fee applies.", 15.0), ("It takes five business days.", 5.0),
    ("You have 45 days from delivery, so until March 3, 2026.", 45.0),
    ("Returns are accepted until 2026-03-03: 12 days left.", 12.0), ("one day", 1.0),
    ("a hundred dollars", 100.0), ("one hundred ninety-four days", 194.0), ("two hundred and five", 205.0),
    ("one hundred days", 100.0), ("The one you bought ships free over $35.", 35.0),
    ("30 or 45 days", AMBIGUOUS), ("30, 45, 60", AMBIGUOUS), ("between 14 and 30 days", AMBIGUOUS),
    ("thirty or forty days", AMBIGUOUS), ("no idea", None), ("", None),
]


@pytest.mark.parametrize(("text", "expected"), NUMBERS)
def test_a_number_is_read_in_digits_money_percent_or_words_and_a_range_is_a_hedge(text: str,
                                                                                 expected: object) -> None:
    got = read_number(text)
    assert got is AMBIGUOUS if expected is AMBIGUOUS else got == expected


STATUSES = [
    ("in_transit", "in_transit"), ("In-Transit", "in_transit"), ("It is in transit with the carrier.", "in_transit"),
    ("It's on its way!", "in_transit"), ("It's out for delivery today.", "in_transit"),
    ("It hasn't been delivered yet; it's on its way.", "in_transit"),
    ("It's still being processed.", "processing"), ("It hasn't shipped yet.", "processing"),
    ("Not shipped yet.", "processing"), ("pending", "processing"),
    ("Delivered on March 3.", "delivered"), ("It was delivered on March 3, 2026.", "delivered"),
    ("It arrived last week.", "delivered"), ("It has shipped.", "shipped"), ("dispatched", "shipped"),
    ("I'm sorry, that order was cancelled.", "cancelled"), ("canceled", "cancelled"),
    ("shipped / in transit / delivered", AMBIGUOUS), ("processing or shipped", AMBIGUOUS),
    ("It shipped and was delivered.", AMBIGUOUS), ("somewhere", None), ("", None),
]


@pytest.mark.parametrize(("text", "expected"), STATUSES)
def test_an_order_status_is_read_from_words_and_a_list_of_statuses_is_a_hedge(text: str, expected: object) -> None:
    got = read_status(text)
    assert got is AMBIGUOUS if expected is AMBIGUOUS else got == expected


CHOICES = [
    ("store credit", "store credit"), ("It is refunded as store credit.", "store credit"),
    ("You'll get store credit instead of a refund to your original payment method.", "store credit"),
    ("It goes back as store credit, not to the original payment method.", "store credit"),
    ("To your original payment method.", "original payment method"),
    ("Store credit or your original payment method.", AMBIGUOUS), ("a refund", None),
]


@pytest.mark.parametrize(("text", "expected"), CHOICES)
def test_an_option_is_read_unless_the_sentence_denies_it(text: str, expected: object) -> None:
    got = read_choice(text, REFUND_OPTIONS)
    assert got is AMBIGUOUS if expected is AMBIGUOUS else got == expected
