"""The reader's classifier table (issue 28): agent answers composed from parts, each labelled with
the one reading a person takes from it, or with None when no single reading survives (the
reader must not commit: it returns None or AMBIGUOUS and the customer asks back).

Composition: clear base answers (yes/no per question topic, numbers per unit, statuses, refund
methods) × politeness (greetings, sign-offs) × apologies (opening a refusal, or about something
else: "Sorry for the wait") × negators ("I doubt", "I don't think", "it's not true that") ×
modals ("might", "could") × conditions ("only if", "as long as", "unless", "except") × hedges
(two values offered: "usually X, sometimes Y", "X, though it may be Y", "X if A, Y if B",
"tracking says X; the carrier says Y") × typos (apostrophes dropped, letters swapped in filler
words, lower case). A seeded generator (`random.Random(SEED)`) samples the product; a few dozen
hand-written answers join it. The split is fixed by a hash of the question and text: about a
third is the held-out part, scored once per change (`tests/test_answer_corpus.py`,
`bench/answer_reader.py`), the rest the development part.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from verishop.scenarios.answers import AMBIGUOUS, REFUND_OPTIONS, read_choice, read_number, read_status, read_yes_no

Kind = Literal["yes_no", "number", "status", "choice"]
SEED = 2028
COMPOSED_SIZE = 1500
POLICY_FIGURES = (30.0, 14.0, 15.0, 4.99, 35.0, 7.0, 5.0, 10.0, 29.99, 60.0)


@dataclass(frozen=True)
class Item:
    kind: Kind
    question: str | None
    text: str
    truth: object  # the one reading, or None: must not commit
    source: str = "composed"
    given: tuple[float, ...] = POLICY_FIGURES

    @property
    def part(self) -> str:
        digest = hashlib.sha256(f"{self.question}\x00{self.text}".encode()).digest()
        return "heldout" if digest[0] % 3 == 0 else "dev"


def read(item: Item) -> object:
    """What the reader makes of the item (a value, None or AMBIGUOUS)."""
    if item.kind == "yes_no":
        return read_yes_no(item.text, question=item.question)
    if item.kind == "number":
        return read_number(item.text, given=item.given, question=item.question)
    if item.kind == "status":
        return read_status(item.text)
    return read_choice(item.text, REFUND_OPTIONS)


def committed(value: object) -> bool:
    return value is not None and value is not AMBIGUOUS


def right(item: Item, value: object) -> bool:
    if isinstance(item.truth, float):
        return isinstance(value, float) and abs(value - item.truth) < 1e-9
    return value == item.truth


# --- the parts ----------------------------------------------------------------------------------

Q_RETURN = "Can I return the socks I bought from you?"
Q_STILL = "Delivery was on March 3, 2026. Can I still return the blender?"
Q_CANCEL = "Can I cancel a purchase free of charge while it is still processing?"
Q_FEE = "Is there a restocking fee if I return an opened charger because I changed my mind?"
Q_SHIP = "I'm a Verishop Plus member. Will a $31.49 purchase ship free?"
Q_DAYS = "How many days after delivery do I have to return the blender?"
Q_BUSINESS = "How many business days does my refund take once you receive my return?"
Q_SHIPPING = "How much does standard shipping cost when a purchase doesn't ship free?"
Q_PERCENT = "What percentage restocking fee applies if I return an opened charger because I changed my mind?"
Q_THRESHOLD = "What is the smallest purchase, in dollars, that ships free?"
Q_GIFT = "If I return a gift, how will I be refunded?"
Q_LEFT = "Delivery was on March 3, 2026. How many days do I have left to return the yoga mat?"
Q_REFUND = "I paid $41.49 for the charger and opened it, but I changed my mind. How much will I get back if I return it?"
Q_CANCEL_SHIPPED = "Can I cancel a purchase free of charge after it has shipped?"

# question -> (clauses that say yes, clauses that say no, a condition the question itself states)
YES_NO_CLAUSES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    Q_RETURN: (("you can return them", "socks can be returned", "they're returnable", "you're able to send them back",
                "we accept returns on socks"),
               ("you can't return them", "socks can't be returned", "socks are final sale", "they aren't returnable",
                "we don't accept returns on socks"), "if you bought them from us"),
    Q_STILL: (("you can still return it", "you're still within the return window", "you still have time to return it"),
              ("the return window has closed", "it's too late to return it", "you're past the return window"),
              "since it was delivered on March 3"),
    Q_CANCEL: (("you can cancel it for free", "cancelling is free while it's processing", "it can be cancelled for free"),
               ("you can't cancel it for free", "it can't be cancelled free of charge"), "while it's still processing"),
    Q_FEE: (("there is a restocking fee", "a 15% restocking fee applies", "we charge a restocking fee"),
            ("there's no restocking fee", "no fee applies", "the fee is waived"), "if you changed your mind"),
    Q_CANCEL_SHIPPED: (("you can still cancel it for free", "cancelling is still free"),
                       ("you can't cancel it once it has shipped", "it can't be cancelled after shipping",
                        "shipped orders must be returned instead"), "now that it has shipped"),
    Q_SHIP: (("it ships free", "shipping is free", "it qualifies for free shipping"),
             ("it doesn't ship free", "it doesn't qualify for free shipping", "you'll pay standard shipping"),
             "as a Plus member"),
}
# question -> (value, phrasings of it); two values per question so that one can be another's alternative
NUMBER_PHRASES: dict[str, tuple[tuple[float, tuple[str, ...]], ...]] = {
    Q_DAYS: ((30.0, ("30 days", "thirty days", "a month")), (14.0, ("14 days", "two weeks", "fourteen days")),
             (45.0, ("45 days", "forty-five days"))),
    Q_BUSINESS: ((5.0, ("5 business days", "five business days")), (10.0, ("10 business days", "ten business days")),
                 (7.0, ("7 business days", "seven business days"))),
    Q_SHIPPING: ((4.99, ("$4.99", "4 dollars and 99 cents", "four ninety-nine")), (7.99, ("$7.99", "seven ninety-nine"))),
    Q_PERCENT: ((15.0, ("15%", "fifteen percent", "15 percent")), (10.0, ("10%", "ten percent"))),
    Q_LEFT: ((12.0, ("12 days", "twelve days")), (5.0, ("5 days", "five days"))),
    Q_REFUND: ((35.27, ("$35.27", "35 dollars and 27 cents")), (41.49, ("$41.49", "the full $41.49"))),
    Q_THRESHOLD: ((35.0, ("$35", "35 dollars", "thirty-five dollars")), (50.0, ("$50", "fifty dollars"))),
}
# status -> (clauses that state it, predicates after "it's", clauses that deny it)
STATUS_PHRASES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "processing": (("it's still being processed", "it hasn't shipped yet", "we're still preparing it"),
                   ("still being processed", "still processing"),
                   ("it isn't processing any more", "it's no longer being processed")),
    "shipped": (("it has shipped", "it was dispatched yesterday", "it was handed to the carrier"),
                ("shipped", "dispatched"), ("it hasn't been dispatched", "it has not shipped")),
    "in_transit": (("it's on its way", "it's in transit", "it's with the courier", "the carrier has it"),
                   ("in transit", "on its way"), ("it isn't in transit", "it's not on its way")),
    "delivered": (("it was delivered yesterday", "it arrived on Monday", "it's been delivered"),
                  ("delivered",), ("it hasn't been delivered", "it has not arrived", "it wasn't delivered")),
    "cancelled": (("it was cancelled", "the order was cancelled"), ("cancelled",),
                  ("it wasn't cancelled", "the order has not been cancelled")),
}
METHOD_PHRASES: dict[str, tuple[str, ...]] = {
    "store credit": ("as store credit", "to a gift card", "as credit on your account"),
    "original payment method": ("to your original payment method", "back to the card you paid with", "to your card"),
}

GREETINGS = ("", "Hi! ", "Thanks for waiting. ", "Great question. ", "I checked our policy: ", "Hello there, ")
SIGN_OFFS = ("", " Anything else I can help with?", " Have a great day!", " Hope that helps!", " 😊",
             " Let me know if you need anything else!", " If you have any other questions, just ask.",
             " Feel free to reach out if there's anything else.")
APOLOGY_FOR_REFUSAL = ("I'm sorry, but ", "Unfortunately, ", "I'm afraid ", "Sadly, ", "I apologize, but ")
APOLOGY_ELSEWHERE = ("Sorry for the wait! ", "Apologies for the delay. ", "Sorry about the confusion earlier. ")
NEGATORS = ("I doubt ", "I don't think ", "I don't believe ", "It's not true that ", "I wouldn't say ")
UNSURE_OPERATORS = ("I'm not sure ", "I can't promise ", "There's no guarantee ", "It's possible that ", "Maybe ")
BELIEFS = ("I think ", "I believe ", "As far as I know, ")
RESTRICTIONS = ("only if they're unworn", "as long as you have the receipt", "unless it was on sale",
                "provided it's unopened", "only when you're a member", "except for clearance items")
FILLER_TYPOS = {"thanks": "thansk", "great": "graet", "question": "qeustion", "checked": "chekced",
                "waiting": "waitng", "hello": "helo", "sorry": "sory", "policy": "polciy", "help": "hepl"}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sentence(text: str) -> str:
    return _cap(text.strip()) + ("" if text.endswith(("?", "!", ".")) else ".")


# --- bases: clear answers ------------------------------------------------------------------------


def _yes_no_bases() -> list[Item]:
    items = []
    for q, (yes, no, _) in YES_NO_CLAUSES.items():
        for polarity, clauses in (("yes", yes), ("no", no)):
            particle = "Yes" if polarity == "yes" else "No"
            items += [Item("yes_no", q, _sentence(c), polarity) for c in clauses]
            items += [Item("yes_no", q, f"{particle}, {c}.", polarity) for c in clauses]
    return items


def _number_bases() -> list[Item]:
    frames = ("It's {}.", "{}.", "That's {}.", "The answer is {}.")
    return [Item("number", q, _cap(f.format(p)), v) for q, values in NUMBER_PHRASES.items()
            for v, phrases in values for p in phrases for f in frames]


def _status_bases() -> list[Item]:
    frames = ("{}.", "Your order W1234567: {}.", "I checked, and {}.")
    return [Item("status", None, _cap(f.format(c)), s) for s, (clauses, _, _) in STATUS_PHRASES.items()
            for c in clauses for f in frames]


def _choice_bases() -> list[Item]:
    frames = ("It's refunded {}.", "You'll get the money back {}.", "Gift returns are refunded {}.")
    return [Item("choice", Q_GIFT, f.format(p), m) for m, phrases in METHOD_PHRASES.items() for p in phrases
            for f in frames]


BASES: list[Item] = _yes_no_bases() + _number_bases() + _status_bases() + _choice_bases()


# --- transformations: (item) -> item with its true reading, or None when it does not apply ---------

Transform = Callable[[Item], "Item | None"]


def _clause(item: Item) -> str | None:
    """The clause a plain base states (without its particle and full stop)."""
    text = item.text.rstrip(".")
    if item.kind == "yes_no" and text.startswith(("Yes, ", "No, ")):
        return None
    return text[:1].lower() + text[1:]


def _negated_belief(op: str) -> Transform:
    def apply(item: Item) -> Item | None:
        clause = _clause(item)
        if not _fits_operator(item, clause) or (item.kind == "yes_no" and item.truth != "yes"):
            return None
        truth = "no" if item.kind == "yes_no" else None
        return replace(item, text=_sentence(op + clause), truth=truth)
    return apply


def _fits_operator(item: Item, clause: str | None) -> bool:
    """Whether "I doubt " + clause is a sentence: a number or status needs its "it's"."""
    if clause is None:
        return False
    return item.kind in ("yes_no", "choice") or clause.startswith(("it", "that's", "the answer", "the order"))


def _unsure(op: str) -> Transform:
    def apply(item: Item) -> Item | None:
        clause = _clause(item)
        return replace(item, text=_sentence(op + str(clause)), truth=None) if _fits_operator(item, clause) else None
    return apply


def _belief(op: str) -> Transform:
    def apply(item: Item) -> Item | None:
        clause = _clause(item)
        if not _fits_operator(item, clause):
            return None
        return replace(item, text=_sentence(op + clause))
    return apply


def _modal(item: Item) -> Item | None:
    """"You can return them" -> "You might be able to return them": possible is not a yes."""
    for plain, modal in ((" can be ", " might be "), (" can ", " might be able to "), ("'re ", " might be "),
                         (" is ", " may be "), (" ships ", " may ship "), ("'s ", " may be ")):
        if item.kind == "yes_no" and item.truth == "yes" and plain in f" {item.text} " and "," not in item.text:
            return replace(item, text=f" {item.text} ".replace(plain, modal, 1).strip(), truth=None)
    if item.kind == "number" and item.text.startswith("It's "):
        return replace(item, text=item.text.replace("It's ", "It might be ", 1), truth=None)
    return None


def _apology_refusal(opening: str) -> Transform:
    def apply(item: Item) -> Item | None:
        negative = item.truth == "no" or item.truth == "cancelled"
        clause = _clause(item)
        if not negative or clause is None:
            return None
        return replace(item, text=_sentence(opening + clause))
    return apply


def _apology_elsewhere(opening: str) -> Transform:
    return lambda item: replace(item, text=opening + item.text)


def _restricted(condition: str) -> Transform:
    def apply(item: Item) -> Item | None:
        if item.kind != "yes_no":
            return None
        return replace(item, text=f"{item.text.rstrip('.')}, {condition}.", truth=None)
    return apply


def _restated_condition(item: Item) -> Item | None:
    if item.kind != "yes_no":
        return None
    return replace(item, text=f"{item.text.rstrip('.')} {YES_NO_CLAUSES[str(item.question)][2]}.")


def _polite(greeting: str, sign_off: str) -> Transform:
    return lambda item: replace(item, text=greeting + item.text + sign_off)


def _typo(rng: random.Random) -> Transform:
    def apply(item: Item) -> Item | None:
        text = item.text
        choice = rng.randrange(4)
        if choice == 0:
            text = text.replace("'", "") if "it's" not in text.lower() and "we're" not in text.lower() else text
        elif choice == 1:
            text = text.lower().rstrip(".")
        elif choice == 2:
            for word, typo in FILLER_TYPOS.items():
                text = text.replace(word, typo).replace(_cap(word), _cap(typo))
        else:
            text = text.replace(" ", "  ", 1)
        return replace(item, text=text)
    return apply


# --- alternatives: two values offered -------------------------------------------------------------

Join = Callable[[Item, Item], Item]


def _value_phrase(item: Item) -> str:
    """The base's value as words that fit the joins' frames."""
    if item.kind == "number":
        return item.text.rstrip(".").removeprefix("It's ").removeprefix("That's ").removeprefix("The answer is ")
    if item.kind == "status":
        return STATUS_PHRASES[str(item.truth)][1][0]
    if item.kind == "choice":
        return METHOD_PHRASES[str(item.truth)][0]
    return item.text.rstrip(".")


def _bare(item: Item) -> str:
    """A yes/no base without its particle: "Yes, you can return them." -> "you can return them"."""
    return _clause(item) or item.text.rstrip(".").split(", ", 1)[1]


def _join(frame: str) -> Join:
    def apply(a: Item, b: Item) -> Item:
        if a.kind == "yes_no":
            text = frame.format(a=_bare(a), b=_bare(b))
        else:
            text = frame.format(a=_value_phrase(a), b=_value_phrase(b))
        return replace(a, text=_sentence(text), truth=None)
    return apply


ALTERNATIVES: dict[str, tuple[Join, ...]] = {
    "yes_no": tuple(_join(f) for f in ("usually {a}, but sometimes {b}", "{a}, though {b} in some cases",
                                       "{a}. Then again, {b}", "{a}, or possibly {b}",
                                       "{a} for most items, but {b} for some", "{a}; then again, {b}",
                                       "the site says {a}, but our policy says {b}")),
    "number": tuple(_join(f) for f in ("usually {a}, sometimes {b}", "it's {a}, though it may be {b}",
                                       "{a}, or {b} in some cases", "{a} (sometimes {b})", "{a}, maybe {b}",
                                       "between {a} and {b}",
                                       "{a} if you paid by card, {b} if you used PayPal", "{a} or {b}",
                                       "the site says {a}; the policy page says {b}", "{a}, or possibly {b}",
                                       "{a} for most orders, {b} for some")),
    "status": tuple(_join(f) for f in ("tracking says it's {a}; the carrier says it's {b}",
                                       "it's {a}, but it might be {b}", "it's {a}, or possibly {b}",
                                       "it's {a}, though it may be {b} already", "it's either {a} or {b}",
                                       "it shows as {a}, but the courier lists it as {b}",
                                       "it's {a} or maybe {b}")),
    "choice": tuple(_join(f) for f in ("usually {a}, sometimes {b}", "it goes {a}, though it may go {b}",
                                       "{a} if you paid by card, otherwise {b}", "either {a} or {b}",
                                       "it's refunded {a}, but it could be {b}")),
}


def _status_negation(item: Item) -> Item | None:
    """A denied status names none, except "not shipped", which is still processing (docs/answers.md)."""
    denials = STATUS_PHRASES[str(item.truth)][2]
    truth = "processing" if item.truth == "shipped" else None
    return replace(item, text=_sentence(denials[len(item.text) % len(denials)]), truth=truth)


def _number_negation(frame: str) -> Transform:
    return lambda item: replace(item, text=_sentence(frame.format(_value_phrase(item))), truth=None)


def _choice_negation(frame: str) -> Transform:
    return lambda item: replace(item, text=_sentence(frame.format(_value_phrase(item))), truth=None)


def _yes_no_negation(item: Item) -> Item | None:
    """The opposite clause of the same question (a yes made a no, a no made a yes)."""
    yes, no, _ = YES_NO_CLAUSES[str(item.question)]
    clause = _clause(item)
    for mine, theirs, opposite in ((yes, no, "no"), (no, yes, "yes")):
        if clause in mine:
            return replace(item, text=_sentence(theirs[mine.index(clause) % len(theirs)]), truth=opposite)
    particle = item.text.split(",")[0]
    flipped = {"Yes": "No", "No": "Yes"}[particle]
    return replace(item, text=item.text.replace(particle, flipped, 1).split(",")[0] + ".",
                   truth="yes" if flipped == "Yes" else "no")


NEGATIONS: dict[str, tuple[Transform, ...]] = {
    "yes_no": (_yes_no_negation, *(_negated_belief(op) for op in NEGATORS)),
    "number": (_number_negation("it isn't {}"), _number_negation("it's not {}"), _number_negation("not {}, I'm afraid"),
               _negated_belief("I doubt ")),
    "status": (_status_negation, _negated_belief("I doubt ")),
    "choice": (_choice_negation("it isn't refunded {}"), _choice_negation("it won't go {}"),
               _choice_negation("not {}")),
}
COMMITTED_BASES: list[Item] = [b for b in BASES if committed(read(b)) and right(b, read(b))]


def _others(item: Item) -> list[Item]:
    return [b for b in BASES if b.kind == item.kind and b.question == item.question and b.truth != item.truth]


def composed(seed: int = SEED, size: int = COMPOSED_SIZE) -> list[Item]:
    """`size` composed items, drawn with one seeded generator."""
    rng = random.Random(seed)
    shared: list[Transform] = [*(_negated_belief(op) for op in NEGATORS), *(_unsure(op) for op in UNSURE_OPERATORS),
                               *(_belief(op) for op in BELIEFS), *(_apology_elsewhere(a) for a in APOLOGY_ELSEWHERE)]
    singles: dict[str, list[Transform]] = {
        "yes_no": [*shared, _modal, *(_apology_refusal(a) for a in APOLOGY_FOR_REFUSAL),
                   *(_restricted(c) for c in RESTRICTIONS), _restated_condition, _yes_no_negation],
        "number": [*shared, _modal, *NEGATIONS["number"][:3]],
        "status": [*shared, *(_apology_refusal(a) for a in APOLOGY_FOR_REFUSAL), _status_negation],
        "choice": [*shared, *NEGATIONS["choice"]],
    }
    items: dict[tuple[str | None, str], Item] = {}
    attempts = 0
    while len(items) < size and attempts < size * 50:
        attempts += 1
        item: Item | None = rng.choice(BASES)
        roll = rng.random()
        if roll < 0.3:
            others = _others(item)
            item = rng.choice(ALTERNATIVES[item.kind])(item, rng.choice(others))
        elif roll < 0.85:
            item = rng.choice(singles[item.kind])(item)
        if item is None:
            continue
        if rng.random() < 0.5:
            item = _polite(rng.choice(GREETINGS), rng.choice(SIGN_OFFS))(item)
        if rng.random() < 0.3:
            item = _typo(rng)(item)
        if item is not None:
            items.setdefault((item.question, item.text), item)
    return list(items.values())


# --- written by hand: natural answers and the classes, phrasings not in the parts above -------

_HAND_YES_NO: tuple[tuple[str, str, str | None], ...] = (
    (Q_RETURN, "Sure thing, just send them back within 30 days.", "yes"),
    (Q_RETURN, "You sure can! Print the label from your account.", "yes"),
    (Q_RETURN, "Socks are a hygiene item, so they're final sale and we can't take them back.", "no"),
    (Q_RETURN, "I'm really sorry, but returns aren't possible for socks.", "no"),
    (Q_RETURN, "Unfortunately that's not something we can do for socks.", "no"),
    (Q_RETURN, "I doubt we could accept them back.", "no"),
    (Q_RETURN, "I don't think socks can be returned.", "no"),
    (Q_RETURN, "You could, but only if they're unworn.", None),
    (Q_RETURN, "Yes if they're still sealed, no if you've worn them.", None),
    (Q_RETURN, "Most items can be returned, except socks.", None),
    (Q_RETURN, "You can usually return clothing, but socks may be an exception.", None),
    (Q_RETURN, "Returns are normally fine, though hygiene items might not be.", None),
    (Q_RETURN, "Apologies for the delay! Yes, they can go back within 30 days.", "yes"),
    (Q_RETURN, "Sorry to keep you waiting. Socks are final sale, so no.", "no"),
    (Q_RETURN, "It might be possible, I'd have to check.", None),
    (Q_RETURN, "Nope, socks are final sale.", "no"),
    (Q_RETURN, "yes u can return them", "yes"),
    (Q_RETURN, "no, socks cant be returned", "no"),
    (Q_STILL, "Yes, you've still got a few days left.", "yes"),
    (Q_STILL, "Unfortunately the 14-day window ran out on March 17.", None),
    (Q_STILL, "You're still in time, go ahead.", "yes"),
    (Q_STILL, "I'm afraid it's too late now.", "no"),
    (Q_STILL, "Only if you start the return today.", None),
    (Q_STILL, "You can, as long as you start it before the 17th.", None),
    (Q_STILL, "It's hard to say without the exact date.", None),
    (Q_STILL, "I don't think you're still within the window.", "no"),
    (Q_CANCEL, "Yes, cancelling while it's processing costs nothing.", "yes"),
    (Q_CANCEL, "Of course, there's no charge to cancel while it's processing.", "yes"),
    (Q_CANCEL, "You can cancel it, though there might be a fee.", None),
    (Q_CANCEL, "I doubt you can cancel it for free.", "no"),
    (Q_CANCEL, "Yes, unless it has already shipped.", "yes"),
    (Q_FEE, "Yes, there's a 15% restocking fee on opened electronics.", "yes"),
    (Q_FEE, "No, we don't charge restocking fees.", "no"),
    (Q_FEE, "There is, I'm afraid: 15% of the price.", "yes"),
    (Q_FEE, "No restocking fee, you'll get a full refund.", "no"),
    (Q_FEE, "I don't think there's a restocking fee.", "no"),
    (Q_FEE, "There could be a fee, depending on the item.", None),
    (Q_FEE, "Usually no, but opened electronics sometimes carry one.", None),
    (Q_FEE, "No fee if it's unopened; 15% if it's been opened.", None),
    (Q_FEE, "There's no fee unless the item was opened.", None),
    (Q_FEE, "Sorry, yes, a 15% restocking fee applies since it was opened.", "yes"),
    (Q_SHIP, "Yes! As a Plus member your order ships free.", "yes"),
    (Q_SHIP, "No, it's below the free-shipping minimum.", "no"),
    (Q_SHIP, "I'm afraid it doesn't qualify; standard shipping applies.", "no"),
    (Q_SHIP, "It might, depending on the promotion running.", None),
    (Q_SHIP, "It ships free only if you add a little more to your cart.", None),
    (Q_SHIP, "Free shipping applies to most orders, but not all.", None),
    (Q_SHIP, "I doubt it ships free.", "no"),
    (Q_RETURN, "Thanks for reaching out! Unfortunately, socks fall under our hygiene policy and are final sale, so they "
               "can't be returned. If you have any other questions, let me know.", "no"),
    (Q_RETURN, "Great news, yes! Socks are covered by our standard 30-day return policy. Just start a return from your "
               "order page.", "yes"),
    (Q_RETURN, "I'm sorry to say socks are non-returnable.", "no"),
    (Q_RETURN, "Returns are accepted for most items except socks and underwear.", None),
    (Q_RETURN, "Socks? Sadly those are final sale.", "no"),
    (Q_RETURN, "You're welcome to send them back within 30 days.", "yes"),
    (Q_RETURN, "I can't confirm that, let me check with the team.", None),
    (Q_RETURN, "There's no way I can approve a return on socks, sorry.", "no"),
    (Q_FEE, "Since you opened the charger and changed your mind, a 15% restocking fee applies.", "yes"),
    (Q_FEE, "Because it's been opened, we do charge a 15% restocking fee.", "yes"),
    (Q_FEE, "We waive the restocking fee on chargers.", "no"),
    (Q_FEE, "There's a fee for some electronics, but I'm not sure about chargers.", None),
    (Q_FEE, "It's not true that there's a fee on chargers.", "no"),
    (Q_SHIP, "As a Plus member, your order qualifies for free shipping.", "yes"),
    (Q_SHIP, "Your $31.49 order is under the threshold, so standard shipping applies.", "no"),
    (Q_SHIP, "Shipping is free for Plus members on orders over $25, so yes.", "yes"),
    (Q_SHIP, "It would ship free if you were a Plus member, but I don't see a membership on your account.", None),
    (Q_CANCEL_SHIPPED, "Once an order has shipped it can't be cancelled; you'd need to return it instead.", "no"),
    (Q_CANCEL_SHIPPED, "Not anymore, I'm afraid: it already shipped.", "no"),
    (Q_CANCEL_SHIPPED, "You could try, but I don't think it'll work.", None),
    (Q_STILL, "Yes, your window runs until April 2, so there's still time.", "yes"),
    (Q_STILL, "Sadly no: the window closed on March 17.", "no"),
    (Q_STILL, "Technically yes, though only for a couple more days.", "yes"),
)
_HAND_NUMBERS: tuple[tuple[str, str, float | None], ...] = (
    (Q_DAYS, "You have 30 days from delivery to return it.", 30.0),
    (Q_DAYS, "Our return window is thirty days.", 30.0),
    (Q_DAYS, "Two weeks from the day it arrived.", 14.0),
    (Q_DAYS, "30 days for most items, 14 for electronics.", None),
    (Q_DAYS, "It's usually 30 days, but sometimes 45 during the holidays.", None),
    (Q_DAYS, "Probably 30 days, but it might be 14.", None),
    (Q_DAYS, "I'm not certain, maybe 30 days.", None),
    (Q_DAYS, "30 days, though some items may have longer.", None),
    (Q_DAYS, "It isn't 14 days, it's 30.", 30.0),
    (Q_BUSINESS, "Refunds take 5 business days once we receive it.", 5.0),
    (Q_BUSINESS, "About 5 to 7 business days.", None),
    (Q_BUSINESS, "Typically five business days; your bank may take a few more.", None),
    (Q_BUSINESS, "5 business days if by card, 10 for PayPal.", None),
    (Q_BUSINESS, "It takes seven business days.", 7.0),
    (Q_BUSINESS, "The site says 5 business days, but the policy says 7.", None),
    (Q_SHIPPING, "Standard shipping is $4.99.", 4.99),
    (Q_SHIPPING, "It's four ninety-nine.", 4.99),
    (Q_SHIPPING, "$4.99, or $7.99 for oversized items.", None),
    (Q_SHIPPING, "Usually $4.99, but it can be more for heavy items.", None),
    (Q_PERCENT, "A 15% restocking fee applies.", 15.0),
    (Q_PERCENT, "It's fifteen percent of the price.", 15.0),
    (Q_PERCENT, "15% for opened items, 10% otherwise.", None),
    (Q_PERCENT, "It's 15%, though it might be waived.", None),
    (Q_THRESHOLD, "Orders of $35 or more ship free.", 35.0),
    (Q_THRESHOLD, "Free shipping starts at thirty-five dollars.", 35.0),
    (Q_THRESHOLD, "$35 for members, $50 for everyone else.", None),
    (Q_DAYS, "You have 30 days from the delivery date to start a return. After that, returns aren't accepted.", 30.0),
    (Q_DAYS, "The window is 30 days, not 14 as some people think.", 30.0),
    (Q_DAYS, "I don't think it's 14 days; it's 30.", 30.0),
    (Q_DAYS, "Either 14 or 30 days, depending on the item.", None),
    (Q_BUSINESS, "Refunds are processed within 5 business days of receiving your return; your bank might take a little "
                 "longer to post it.", None),
    (Q_BUSINESS, "Once we receive it, allow 5 business days.", 5.0),
    (Q_BUSINESS, "Five business days, sometimes a bit longer.", None),
    (Q_SHIPPING, "It's a flat $4.99.", 4.99),
    (Q_SHIPPING, "Standard shipping runs $4.99, though oversized items cost more.", None),
    (Q_PERCENT, "We keep 15 percent as a restocking fee.", 15.0),
    (Q_PERCENT, "Between 10 and 15 percent.", None),
    (Q_REFUND, "You'd get $35.27 back: $41.49 minus the 15% fee.", 35.27),
    (Q_REFUND, "The full $41.49, or $35.27 if a fee applies.", None),
    (Q_LEFT, "You have 12 days left.", 12.0),
    (Q_LEFT, "About 12 days, give or take.", None),
)
_HAND_STATUS: tuple[tuple[str, str | None], ...] = (
    ("It's out for delivery today.", "in_transit"),
    ("The driver has it and it should reach you this afternoon.", "in_transit"),
    ("It was delivered to your front porch on Monday.", "delivered"),
    ("It hasn't left the warehouse yet.", "processing"),
    ("We cancelled it at your request.", "cancelled"),
    ("It left our warehouse on Tuesday.", "shipped"),
    ("The courier has your parcel.", "in_transit"),
    ("Your package is in the carrier's hands now.", "in_transit"),
    ("USPS picked it up this morning.", "shipped"),
    ("Tracking shows delivered, but the carrier says it's still out for delivery.", None),
    ("It's either on its way or already delivered.", None),
    ("It should be delivered by now, but tracking still says in transit.", None),
    ("It's probably delivered, though I can't confirm.", None),
    ("It's in transit, but it might have been delivered already.", None),
    ("Our system shows it as shipped; the carrier shows it as delivered.", None),
    ("It may have shipped already.", None),
    ("I doubt it has been delivered yet.", None),
    ("It isn't delivered yet.", None),
    ("Good news! Your order W1234567 was delivered on March 3 and signed for at the front desk.", "delivered"),
    ("Your order shipped on Monday via UPS and is currently in transit; expected delivery is Thursday.", "in_transit"),
    ("It's still being packed at our warehouse and should ship tomorrow.", "processing"),
    ("I'm sorry, that order was cancelled on March 2 because the payment didn't go through.", "cancelled"),
    ("It's with FedEx now.", "in_transit"),
    ("UPS has had it since Tuesday.", "in_transit"),
    ("The carrier collected it this morning.", "shipped"),
    ("It left our warehouse yesterday and is on the truck for delivery today.", "in_transit"),
    ("It says delivered, but you haven't received it?", None),
    ("It was delivered, or at least that's what tracking says.", None),
)
_HAND_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("Gift returns are refunded as store credit.", "store credit"),
    ("You'll get a gift card for the amount.", "store credit"),
    ("The refund goes back to the card you paid with.", "original payment method"),
    ("It goes back to the original payment method, not as store credit.", "original payment method"),
    ("Store credit if you don't have the receipt, otherwise to your card.", None),
    ("Usually as store credit, but sometimes to the original card.", None),
    ("It's refunded to your card, though it might come as store credit.", None),
    ("Either store credit or your card, it depends.", None),
    ("As store credit, unless the giver asks for a refund to their card.", None),
    ("I don't think it goes to your card.", None),
    ("Since it was a gift, the refund will be issued as store credit rather than to the original payment method.",
     "store credit"),
    ("Gift returns go back to whoever paid, on their original card.", "original payment method"),
    ("You'll receive store credit, which you can use on anything in the shop.", "store credit"),
    ("The money goes back to your card within 5 business days.", "original payment method"),
    ("It depends on how the gift was paid for.", None),
)


def hand() -> list[Item]:
    return ([Item("yes_no", q, t, v, "hand") for q, t, v in _HAND_YES_NO]
            + [Item("number", q, t, v, "hand") for q, t, v in _HAND_NUMBERS]
            + [Item("status", None, t, v, "hand") for t, v in _HAND_STATUS]
            + [Item("choice", Q_GIFT, t, v, "hand") for t, v in _HAND_CHOICES])


def table() -> list[Item]:
    """Every item: the composed ones and the hand-written ones."""
    return composed() + hand()


@dataclass(frozen=True)
class Score:
    items: int
    committed: int
    right: int
    definite: int  # items with one true reading

    @property
    def wrong(self) -> int:
        return self.committed - self.right

    @property
    def precision(self) -> float:
        return self.right / self.committed if self.committed else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.definite if self.definite else 1.0


def score(items: list[Item]) -> tuple[Score, list[tuple[Item, object]]]:
    """Precision (right ÷ committed) and recall (right ÷ items with one reading), and the wrong readings."""
    committed_n = right_n = 0
    wrong: list[tuple[Item, object]] = []
    for item in items:
        got = read(item)
        if not committed(got):
            continue
        committed_n += 1
        if item.truth is not None and right(item, got):
            right_n += 1
        else:
            wrong.append((item, got))
    definite = sum(item.truth is not None for item in items)
    return Score(len(items), committed_n, right_n, definite), wrong
