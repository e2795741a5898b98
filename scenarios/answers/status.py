"""Reading an order's status, and which order a message is about.

The shop's statuses run processing → shipped → in_transit → delivered, or end in cancelled:
"shipped" is the moment an order leaves (dispatched, sent out, handed to the carrier, picked up
by UPS), "in_transit" is where it is until it arrives (on its way, with the courier, in the
mail, out for delivery). A message that tells a history names the latest state it reached: "It
shipped last week and was delivered two days ago" is delivered, "it was processing, now it's
on its way" is in transit; cancelled ends any history. A state the message denies or puts in
the future does not count ("it hasn't been delivered yet", "it should arrive... be delivered
Friday", "cancelled before it shipped"). Statuses offered as alternatives ("shipped or in
transit", "delivered or not, I can't say") or listed ("shipped, in transit, delivered") are a
hedge: AMBIGUOUS, and so are two statuses set against each other or told by two sources ("it
shows as delivered, but the courier lists it as in transit", "tracking says X; the carrier says
Y") and a status that may be ("it may have been delivered already"). The carrier holding an
order ("the carrier has it", "in the courier's hands") is in transit in every wording; the
carrier taking it ("UPS picked it up") is shipped.
"""

from __future__ import annotations

import re

from verishop.scenarios.answers.scope import DOUBT, future
from verishop.scenarios.answers.text import AMBIGUOUS, UNSURE, Reading, one, plain

_CARRIER = (r"(?:the |a |your |our )?(?:carrier|courier|shipping company|delivery (?:company|service|driver|partner)|driver|shipping partner|ups|fedex|"
            r"usps|dhl|post office|postal service|mail carrier|mailman|postman|royal mail|canada post|australia post|dpd|evri|"
            r"hermes|yodel|parcelforce|purolator|ontrac|lasership|gls|amazon logistics)")
# Order matters: "not shipped yet" is read as processing before "shipped" is looked for, and each
# phrase is read once.
STATUS_PHRASES: tuple[tuple[str, str], ...] = (
    ("processing", r"not (?:yet )?(?:been )?(?:shipped|dispatched|sent(?: out)?)(?: yet)?|(?:hasn'?t|has not|haven'?t|"
                   r"have not) (?:yet )?(?:been )?(?:shipped|dispatched|sent(?: out)?|left (?:our|the) warehouse)"
                   r"(?: yet)?|yet to (?:ship|be shipped|leave)|not (?:yet )?left (?:our|the) warehouse|"
                   r"awaiting (?:shipment|dispatch|packing|pickup|pick-up|collection)(?! (?:at|from) (?:the|your|a|an) (?:post office|"
                   r"locker|pick ?up point|parcel (?:shop|locker)|collection point|depot|counter))|waiting to (?:ship|be shipped|be packed|"
                   r"be picked|be dispatched|go out)"),
    ("cancelled", r"cancell?ed|called off|voided"),
    ("in_transit", rf"in transit|on (?:its|the|their) way|en route|out for delivery|in the (?:mail|post)|"
                   rf"(?:it'?s|it is|is|are|currently|now|still) (?:now |currently |still )?(?:with|in the hands of) "
                   rf"{_CARRIER}|{_CARRIER} (?:now |currently |still |already )?(?:has|holds|(?:is|are) (?:now |currently )?"
                   rf"(?:holding|handling|delivering|carrying|transporting|bringing)) (?:had )?"
                   rf"(?:it|them|your (?:package|parcel|order|box|shipment|delivery|items?))|in (?:the )?"
                   rf"(?:carrier|courier|driver|postman|mail carrier|ups|fedex|usps|dhl)'?s? (?:hands|possession|custody|care)|on the (?:truck|road|van|lorry)|being delivered|heading (?:your way|to you)|"
                   rf"travell?ing to you|making its way|moving through|out with (?:the |a |your )?(?:driver|courier|"
                   rf"carrier|mail carrier|postman)|at (?:the |a |your )?(?:local |carrier'?s |courier'?s |sorting |"
                   rf"regional |delivery |ups |fedex |usps |dhl )(?:facility|depot|hub|center|centre|station)|"
                   # arriving at a depot or hub is a stop on the way, not a delivery
                   rf"(?:arrived|arrives|arriving|reached|got) (?:at|in) (?:the |a |an |your |their )?(?:local |regional |"
                   rf"carrier'?s |courier'?s |sorting |delivery |distribution )?(?:depot|hub|facility|sorting (?:center|"
                   rf"centre|office)|distribution (?:center|centre)|station|customs)"),
    ("delivered", r"delivered|arrived|dropped (?:it |them )?off|left at your (?:door|porch|doorstep)|signed for|"
                  r"reached you|"
                  r"(?:you|you've|you have) (?:already )?received (?:it|them)"),
    ("shipped", rf"shipped|dispatched|sent out|(?:has|have|was|were) (?:been )?sent|handed (?:over )?(?:to|off to) "
                rf"{_CARRIER}|picked up by {_CARRIER}|{_CARRIER} (?:has |have |had |just |already )*(?:picked (?:it|them) up|"
                rf"collected (?:it|them)|took (?:it|them))|(?:handed|passed|gave|given) (?:it |them )?(?:over )?(?:to|off to) "
                rf"{_CARRIER}|left (?:our|the) (?:warehouse|facility|depot|premises|fulfil?ment (?:center|centre)|distribution (?:center|centre))|"
                rf"(?:gone|went) out"),
    ("processing", r"processing|processed|pending|being prepared|preparing|being packed|packing|getting (?:it )?ready|"
                   r"being picked|being readied"),
)
STATUSES = ("processing", "cancelled", "in_transit", "delivered", "shipped")
# How far along each status is: a history names the furthest one.
_STAGE = {"processing": 0, "shipped": 1, "in_transit": 2, "delivered": 3, "cancelled": 4}
_DENIED = re.compile(r"(?:\bnot|n't|\bnever|\bno longer|\byet to be|\bwill|'ll|\bshould|\bwould|\bcould|\bmight|"
                     r"\bmay|\bexpect(?:ed|s)?(?: it)? to|\bdue to|\bgoing to|\bscheduled to|\bset to|\babout to|"
                     r"\bto be|\bbefore(?: it| they)?(?:'s| is| was| has| had| gets| got)?|"
                     r"\b(?:once|when|if|until) (?:it|they)(?:'s| is| are| has| have| gets| get)|\bbe)"
                     r"\s+(?:(?:\w+|been|be|have|get)\s+){0,2}$")
# "either delivered or with a neighbour", "delivered, or it's lost": another state offered beside
# the one named, whether or not its words are a status.
_OPEN_ALTERNATIVE = re.compile(r"\beither\b[^.;!?]*\bor\b|\bor (?:else |maybe |perhaps |possibly )?(?:it|they)(?:'s| is| are| was|"
                               r" were| has| have| might| may| could| will)\b")
_ALTERNATIVE = re.compile(r"\b(?:or|either|whether|nor)\b|/")
_POSSIBLY = re.compile(r"\b(?:may|might|could)\s+(?:(?:\w+|been|be|have|already|still)\s+){0,3}$")
_EXPECTED_BY_NOW = re.compile(r"[^.;!?]{0,20}\b(?:by now|already)\b")
# Two statuses set against each other ("it shows as delivered, but the courier lists it as in
# transit") are a hedge; a history told with its time ("but then it was cancelled") is not.
_CONTRAST = re.compile(r"\b(?:but|though|although|however|whereas|yet)\b")
_THEN = re.compile(r"\b(?:then|now|since|later|after that|afterwards|eventually|finally|subsequently)\b")
_SOURCE = re.compile(r"\b(?:says?|said|shows?|showing|lists?|listed|reports?|marked|according to|indicates?|"
                     r"states?)\b")
# Statuses with nothing but punctuation or "and" between them are a list, not a history.
_LISTED = re.compile(r"[\s,;|&+.!?]*(?:and)?[\s,;|&+.!?]*")


def read_status(text: str | None) -> Reading:
    """The order status `text` states ("It's on its way" -> "in_transit"), None, or AMBIGUOUS
    (see the module docstring)."""
    if not text:
        return None
    t = re.sub(r"[_\-]+", " ", plain(text))
    # A status asked back is not stated ("Cancelled? No, it shipped."): a question's clause is masked.
    t = re.sub(r"[^.;!?,]*\?", lambda m: "#" * len(m[0]), t)
    marked = t
    said: list[tuple[int, int, str]] = []
    possible = False
    for i, (status, pattern) in enumerate(STATUS_PHRASES):
        regex = re.compile(rf"\b(?:{pattern})\b")
        for m in regex.finditer(marked):
            before = marked[max(0, m.start() - 40):m.start()]
            # The phrases of "not shipped yet" carry their own negation; a bare status denied doesn't count.
            if i == 0 or not _DENIED.search(before):
                said.append((m.start(), m.end(), status))
            elif _POSSIBLY.search(before) and not future(marked, m.end()) or _EXPECTED_BY_NOW.match(marked, m.end()):
                possible = True  # "it may have been delivered", "it should be delivered by now": perhaps, not is
        marked = regex.sub(lambda m: "#" * len(m[0]), marked)
    if not said:
        return None
    said.sort()
    if possible or UNSURE.search(t) or DOUBT.search(t) or _OPEN_ALTERNATIVE.search(t):
        return AMBIGUOUS
    for (_, end, a), (start, _, b) in zip(said, said[1:]):
        gap = t[end:start]
        if a != b and (_ALTERNATIVE.search(gap) or _LISTED.fullmatch(gap)
                       or (_CONTRAST.search(gap) and not _THEN.search(gap))):
            return AMBIGUOUS
    # Two sources, each with its status ("tracking says delivered; the carrier says in transit").
    if len({s for _, _, s in said}) > 1 and len(_SOURCE.findall(t)) > 1:
        return AMBIGUOUS
    # Two sources set against each other, whatever the second one's words ("tracking shows
    # delivered, though the driver says it's still on his round"): which to believe, the answer
    # does not say.
    if len(_SOURCE.findall(t)) > 1 and _CONTRAST.search(t) and not _THEN.search(t):
        return AMBIGUOUS
    return max({s for _, _, s in said}, key=_STAGE.__getitem__)


ORDER_ID_WORD = re.compile(r"\bW\d{7}\b", re.IGNORECASE)


def read_order_id(text: str | None) -> Reading:
    """The one order ID a message names ("W1234567", any case or width), None, or AMBIGUOUS."""
    if not text:
        return None
    return one(m.upper() for m in ORDER_ID_WORD.findall(plain(text)))


def status_claim(message: str, order_id: str | None, answer: str | None) -> tuple[Reading, Reading]:
    """(order, status) an agent's turn states about an order: the structured fields first, the
    message's words where a field is empty."""
    order = (order_id or "").strip() or read_order_id(message)
    status = read_status(answer)
    if status is None:
        status = read_status(message)
    return order, status
