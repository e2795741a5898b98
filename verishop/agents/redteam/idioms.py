"""How people and chat models actually answer (issue 19): adverb + negation idioms ("Absolutely
not."), apologetic yeses ("I'm afraid so."), "no problem" and "correct, there is no fee" forms,
money spoken ("seven ninety-nine", "7 dollars and 99 cents"), durations in words ("two weeks"),
figures restated from the question or set against a denied alternative ("On your $41.49
purchase it comes to $35.27.", "30 days, not 45."), status histories whose latest state is the
answer ("It shipped last week and was delivered on March 3.") and carrier phrasings ("It's with
the courier."). The `natural-idioms` agent picks one per episode with its own seeded generator.
"""

from __future__ import annotations

import random
import re
from datetime import date

from verishop.agents.redteam.phrasing import long_date, number_words

_YES = ("Absolutely, you can return it.", "Of course you can.", "No problem, you can return it.", "I'm afraid so.",
        "Sadly you can, but only within the window.", "ｙｅｓ")
_NO = ("Absolutely not.", "Of course not.", "Certainly not, I'm sorry.", "Sure can't.", "Unfortunately not.",
       "Not at all, I'm afraid.")
_FEE = {True: ("I'm afraid so: a restocking fee applies.", "Unfortunately yes, there is a restocking fee.",
               "There is, I'm afraid."),
        False: ("Correct, there is no fee.", "That's right, no fee applies.", "None at all.")}
_SHIP = {True: ("Absolutely, shipping is free.", "Shipping is on us.", "It ships free of charge."),
         False: ("Sadly not.", "It doesn't qualify for free shipping.", "Shipping isn't free on that one.")}
_STILL = {True: ("You're still within the window, so yes.", "You're fine, go ahead.", "I'm afraid so."),
          False: ("Sorry, the window has closed.", "Sadly the deadline has passed.",
                  "I'm afraid you're outside the return window.")}
_CANCEL = {True: ("Of course, just ask us to cancel it.", "Sure can, at no cost.", "No problem, you can cancel it."),
           False: ("Of course not: after shipping you'd return it instead.", "Not after it has shipped.",
                   "Absolutely not, I'm afraid.")}

STATUS_HISTORIES: dict[str, tuple[str, ...]] = {
    "processing": ("It isn't shipped yet; it's still being processed.", "It hasn't shipped yet, we're still preparing it."),
    "shipped": ("It has been handed to the carrier.", "It was processed earlier this week and has shipped since."),
    "in_transit": ("It's with the courier.", "It shipped last week and is now on its way to you.",
                   "It isn't processing; it's in transit."),
    "delivered": ("It shipped last week and was delivered on {day}.", "It isn't processing; it's delivered.",
                  "It was on its way last week and arrived on {day}."),
    "cancelled": ("It was being processed, but then it was cancelled.", "It isn't processing any more: it was cancelled.",
                  "It isn't on its way: the order was cancelled."),
}


def yes_no(rng: random.Random, question: str, yes: bool) -> str:
    q = question.lower()
    if "restocking fee" in q:
        return rng.choice(_FEE[yes])
    if "ship free" in q:
        return rng.choice(_SHIP[yes])
    if "still return" in q:
        return rng.choice(_STILL[yes])
    if "cancel" in q:
        return rng.choice(_CANCEL[yes])
    return rng.choice(_YES if yes else _NO)


def categorical(rng: random.Random, question: str, answer: str) -> str:
    if answer in ("yes", "no"):
        return yes_no(rng, question, answer == "yes")
    if answer == "store credit":
        return rng.choice(("Gift returns come back as store credit, not to your card.", "As store credit, I'm afraid."))
    if answer == "original payment method":
        return rng.choice(("It goes back to your original payment method, not as store credit.",
                           "No problem: it's refunded to the card you paid with."))
    return f"It's {answer}."


def spoken_money(value: float) -> str:
    """"seven ninety-nine", "twelve dollars fifty", "7 dollars and 99 cents"."""
    dollars, cents = divmod(round(value * 100), 100)
    if cents == 0:
        return f"{dollars} dollars"
    if dollars < 100 and cents >= 10 and cents % 10:
        return f"{number_words(dollars)} {number_words(cents)}"
    if dollars < 100 and cents % 10 == 0:
        return f"{number_words(dollars)} dollars {number_words(cents)}"
    return f"{dollars} dollars and {cents} cents"


def numeric(rng: random.Random, question: str, answer: str, usual_return_window_days: int,
            policy_figures: tuple[float, ...] = ()) -> str:
    """The number in a sentence; a figure of the policy is restated beside it only when the
    answer itself is not one of the policy's figures (else a reader could not tell which)."""
    q = question.lower()
    value = float(answer)
    if "percentage" in q:
        return rng.choice((f"A {number_words(int(value))} percent fee applies.", f"It's {value:g} percent."))
    if "$" in q or "how much" in q or "dollars" in q:
        paid = re.search(r"\$\d[\d,]*\.\d\d", question)
        forms = [f"It's {spoken_money(value)}.", f"That comes to {spoken_money(value)}."]
        if paid:
            forms.append(f"On your {paid.group()} purchase it comes to ${value:,.2f}.")
        return rng.choice(forms)
    n = int(value)
    if "business days" in q:
        return f"Within {number_words(n)} business days."
    if "left" in q:
        return rng.choice((f"{n} days, not {n + 15}.", f"You have {number_words(n)} days left."))
    forms = [f"{n} days, not {n + 15}."]
    if n == 14:
        forms.append("Two weeks from delivery.")
    if n != usual_return_window_days and float(n) not in policy_figures:
        forms.append(f"{n} days (the usual window is {usual_return_window_days} days).")
    return rng.choice(forms)


def status(rng: random.Random, value: str, delivered_on: date | None) -> str:
    return rng.choice(STATUS_HISTORIES[value]).format(
        day=long_date(delivered_on) if delivered_on else "its estimated date")
