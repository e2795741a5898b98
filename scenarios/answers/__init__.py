"""Reading an agent's answer the way a person reads it.

Each reader returns one value, `None` when the text names none, or `AMBIGUOUS` when it names
several different ones or says it is unsure. A hedge ("yes or no", "30 or 45 days", "delivered
or not, I can't say", "as store credit or to your card") is an answer that could be anything,
so it is never read as a value: brute force inside one message cannot pass. A reader commits a
value only when exactly one reading survives doubt ("I doubt you can" is a no), conditions and
exceptions ("only if", "unless", "except"), an apology that contradicts good news, possibilities
("it may have been delivered"), alternatives ("usually X, sometimes Y", "X if A, Y if B") and
sources that disagree ("tracking says X; the carrier says Y"): `scope`. Otherwise it returns
None or AMBIGUOUS, and the customer asks back. What a sentence
says is *not* the case does not count ("30 days, not 45"; "it hasn't been delivered yet, it's
on its way" names one status, in transit). Every reader first makes the text plain (Unicode
NFKC, straight quotes, lower case: `text.plain`).

    read_yes_no     a yes or a no as the answer to the question asked (`yes_no`)
    read_number     money, a percentage or days, in digits, words or spoken forms, with the
                    figures the question already gives set aside (`numbers`)
    read_status     an order's status, the latest one of a history (`status`)
    read_choice     one of a few named options, e.g. REFUND_OPTIONS (`choice`)
    read_order_id   the one order ID a message names; status_claim: (order, status) of a turn

The table of accepted and rejected phrasings lives in tests/answer_phrasings.py and the rules,
with examples, in docs/answers.md.
"""

from verishop.scenarios.answers.choice import REFUND_OPTIONS, read_choice
from verishop.scenarios.answers.numbers import figures_in, read_number, unit_of
from verishop.scenarios.answers.status import (ORDER_ID_WORD, STATUS_PHRASES, STATUSES, read_order_id, read_status,
                                               status_claim)
from verishop.scenarios.answers.text import AMBIGUOUS, Reading, plain
from verishop.scenarios.answers.yes_no import read_yes_no, topic_of
from verishop.scenarios.models import Submission

__all__ = ["AMBIGUOUS", "answered", "definite", "ORDER_ID_WORD", "REFUND_OPTIONS", "STATUSES", "STATUS_PHRASES", "Reading", "figures_in",
           "plain", "read_choice", "read_number", "read_order_id", "read_status", "read_yes_no", "status_claim",
           "topic_of", "unit_of"]


def definite(value: Reading) -> bool:
    """Whether a reading is one value (not nothing, not a hedge)."""
    return value is not None and value is not AMBIGUOUS


def answered(sub: Submission) -> bool:
    """Whether the turn carries an answer at all, typed or in words."""
    return bool((sub.answer or "").strip()) or any(
        v is not None for v in (sub.answer_yes_no, sub.answer_number, sub.answer_status, sub.answer_refund_method))
