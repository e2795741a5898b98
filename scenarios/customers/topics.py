"""What an agent's message asks the customer about, and the customer's answer to it (issue 28).

`read` finds the topics a message asks about (brand, colour, size, budget, delivery, which
order, …; `topic_words`) in every sentence that requests something: a question, with or without
its "?" ("Which colour"), an imperative ("Let me know your preferred size", "Tell me the
budget") or a polite form. Typos of the words that name a topic are read as the word ("brnad",
"colr", "budjet"). A statement ("Here are some options under your budget.") asks nothing.

`answer` is every customer's reply to a request, given the details it knows, each tagged with
the topics it answers (the per-environment mapping lives in each behaviour module):

- a topic asked whose detail the opening held back: the customer tells it (tag `clarify`, a
  free turn), every such detail the message asks about; a questionnaire asked blind (more
  topics that tell nothing than ones that do, beyond `QUESTIONNAIRE_SLACK`) is answered in full
  but paid (`continue`), counted over the conversation so that one split into small messages is
  paid too;
- a topic asked whose detail was said already (in the opening, an answer or a correction): it
  says it again; a topic it has no detail on: it has no preference (or nothing to add);
- an open question ("anything else I should know?") names no topic: the customer tells the one
  thing it held back that comes to mind first, as a person would, but the turn is paid (tag
  `continue`): an open question never beats asking precisely, which tells every detail asked
  for at once and is free; with nothing held back it says so (`confirm`);
- a request about nothing it knows ("What's the weather like?") tells nothing (`continue`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

from verishop.scenarios.money import CURRENCIES
from verishop.scenarios.customers.base import CustomerState, CustomerTurn
from verishop.scenarios.customers.topic_words import (
    COUNTED,
    GENERIC,
    PATTERNS,
    REAL_WORDS,
    REQUEST_OPENERS,
    REQUEST_PHRASES,
)

GENERIC_TOPIC = "generic"
# A request that tells something is free unless it asks about more topics that tell nothing than
# about topics that do, beyond this many: "What matters most: price, reviews or delivery?" (one
# held back, three not) is a question; "brand, colour, size, budget, rating, delivery, …?" asked
# blind is a questionnaire, answered in full but paid, so that it never beats asking what matters.
QUESTIONNAIRE_SLACK = 3
# `CustomerState.memory` key: topics that told and topics asked beside them that told nothing, in
# the free replies so far.
_QUESTIONNAIRE = "questionnaire"

# Words an agent's typo is corrected to (one edit away; see `_near`).
_CORRECTABLE = (
    "brand", "colour", "color", "size", "budget", "price", "rating", "review", "reviews", "reviewed", "delivery",
    "deliver", "delivered", "shipping", "matters", "matter", "important", "priority", "quantity", "order",
    "purchase", "member", "membership", "gift", "defective", "broken", "damaged", "needed", "features", "refund",
    "connector", "wattage", "capacity", "material", "resolution", "waterproof", "microphone", "battery",
    "lumbar", "induction", "arrive", "which", "anything", "should", "everything", "preferred", "budgets",
    "manufacturer", "dimensions", "specifications",
)
_SPELLINGS = {"wat": "what", "wht": "what", "ned": "need", "u": "you", "ur": "your", "pls": "please", "plz": "please"}
_COUNTED = re.compile(rf"\bhow many ({'|'.join(COUNTED)})\b")
_NEED = re.compile(r"\bneed(s|ed)?\b")
_SENTENCE_END = re.compile(r"(?<=[.?!;])\s*|\n+")
# A topic named only to set it aside asks nothing about it ("Apart from the brand, anything else?",
# "No need to tell me your budget, but which colour?"): the aside is cut up to its comma or "but".
_SET_ASIDE = re.compile(r"\b(?:apart from|aside from|besides|other than|except(?: for)?|excluding|not asking (?:about|for)|"
                        r"no need to (?:tell me|share|give me|mention)|(?:you )?(?:don'?t|do not) need to (?:tell me|share)|"
                        r"you(?:'ve)? (?:already )?(?:mentioned|said|told me|gave me)|(?<!do )(?<!did )i (?:already )?(?:know|have))\b"
                        r"[^,;:?.!]*?(?=[,;:?.!]|\s(?:but|just|so|and now)\b|$)")


def _compile(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(patterns) + r")\b")


_TOPICS = {topic: _compile(patterns) for topic, patterns in PATTERNS.items()}
_GENERIC = _compile(GENERIC)
_REQUEST = _compile(REQUEST_PHRASES)


@dataclass(frozen=True)
class Request:
    is_request: bool
    topics: frozenset[str]  # GENERIC_TOPIC alone for an open question

    @property
    def generic(self) -> bool:
        return self.topics == {GENERIC_TOPIC}


def _near(token: str, word: str) -> bool:
    """Whether `token` is one typo from `word`: a letter dropped, added, swapped with its
    neighbour or (in words of six letters or more) replaced; four-letter words only by a swap."""
    if len(word) == 4:
        return len(token) == 4 and any(token == word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(3))
    if len(word) < 4 or len(token) < 4 or abs(len(token) - len(word)) > 1:
        return False
    if len(token) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(token, word)) if a != b]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and token[diff[0]] == word[diff[1]] \
            and token[diff[1]] == word[diff[0]]
        return swapped or (len(diff) == 1 and len(word) >= 6)
    short, long_ = sorted((token, word), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


# Cached: a conversation repeats its words (titles, names), and each new one is compared with
# every correctable word; bounded, since an agent's words are unbounded.
@functools.lru_cache(maxsize=1 << 14)
def _correct(token: str) -> str:
    if token in _SPELLINGS:
        return _SPELLINGS[token]
    if token in REAL_WORDS or token in _CORRECTABLE or not token.isalpha():
        return token
    return next((word for word in _CORRECTABLE if _near(token, word)), token)


# Every currency's signs, and its codes and names as words (verishop.scenarios.money), but "pound",
# which weighs as often as it pays.
_MONEY = re.compile("[" + re.escape("".join(sorted({ch for c in CURRENCIES.values() for m in c.reading_marks()
                                                    for ch in m if not ch.isalnum()}))) + "]|"
                    + r"\b(?:" + "|".join(sorted({m for c in CURRENCIES.values() for m in c.reading_marks()
                                                   if m.isalpha() and m not in ("pound", "pounds")})) + r")\b")


def normalise(sentence: str) -> str:
    """Lower case, one space between words, apostrophes dropped ("what's" is "whats"), a currency
    sign read as "dollars", typos of topic words corrected, and "in order to" and "place the order"
    (no order asked about) removed."""
    # a currency's sign, code or name is money ("Under $20, €50 or 100 AED?" asks the budget)
    text = _MONEY.sub(" dollars ", sentence.lower().replace("’", "'"))
    text = re.sub(r"'s\b", "s", text).replace("'", "")
    words = [_correct(w) for w in re.findall(r"[a-z0-9]+", text)]
    text = re.sub(r"\bin order to\b", "", " ".join(words))
    # ordering is an action, not a question about which order ("Should I order two?")
    text = re.sub(r"\b(i|we|me to|us to)( also| now| just)? order\b", r"\1\2 buy", text)
    # placing an order is an action, not a question about which order ("Shall I place the order now?")
    text = re.sub(r"\b(place|submit|complete|finali[sz]e|confirm|process|put through) (the|your|this|that|an|my) order\b",
                  r"\1 it", text)
    return re.sub(r"\bby (what|which) (date|day)\b", "by when", text)  # a deadline, not a date it knows


def _is_request(sentence: str, words: str) -> bool:
    first = words.split(" ", 1)[0] if words else ""
    return "?" in sentence or first in REQUEST_OPENERS or _REQUEST.search(words) is not None


def _sentence_topics(words: str, extra: Mapping[str, re.Pattern[str]]) -> set[str]:
    counted = {COUNTED[m.group(1)] for m in _COUNTED.finditer(words)}
    rest = _COUNTED.sub(" ", words)
    found = counted | {t for t, pattern in (_TOPICS | dict(extra)).items() if pattern.search(rest)}
    if not found and _NEED.search(rest.replace("need to know", "")):
        found = {"needs"}  # "what else do you need?": the things a project needs
    return found


def read(message: str, extra: Mapping[str, Iterable[str]] | None = None) -> Request:
    """The topics `message` asks about. `extra` adds an environment's own topics (a bundle's
    categories: topic -> the phrases that name it)."""
    extra_patterns = {t: _compile(re.escape(normalise(p)) for p in phrases) for t, phrases in (extra or {}).items()}
    topics: set[str] = set()
    is_request = generic = False
    for sentence in filter(str.strip, _SENTENCE_END.split(message)):
        words = normalise(sentence)
        if not _is_request(sentence, words):
            continue
        words = normalise(_SET_ASIDE.sub(" ", sentence.lower().replace("’", "'")))
        is_request = True
        found = _sentence_topics(words, extra_patterns)
        topics |= found
        generic = generic or (not found and _GENERIC.search(words) is not None)
    if not topics and generic:
        topics = {GENERIC_TOPIC}
    return Request(is_request, frozenset(topics))


def asked(message: str) -> frozenset[str]:
    """The topics `message` asks about (GENERIC_TOPIC alone for an open question)."""
    return read(message).topics


# --- the customer's answer ----------------------------------------------------------------


@dataclass(frozen=True)
class Detail:
    """One thing the customer knows, the topics that ask for it, and how it says it."""

    key: Hashable  # what `state.revealed` records once it is said
    topics: frozenset[str]
    words: str
    withheld: bool  # False: the opening said it (asked again, the customer repeats it)


# How the customer names a topic it has no detail on ("I don't mind about the brand").
_LABELS = {"budget": "price", "rating": "reviews", "delivery": "delivery time", "priority": "what matters most",
           "item": "item", "order": "order", "date": "dates", "needs": "anything more", "features": "features",
           "refund": "refund", "noise_cancelling": "noise cancelling", "battery_hours": "battery life",
           "lumbar_support": "lumbar support", "refresh_rate": "refresh rate", "blade_length": "blade length"}
_SITUATION = frozenset({"item", "order", "date", "member", "gift", "condition", "needs", "refund"})


def _no_detail(topics: set[str], unneeded: Mapping[str, str]) -> str:
    if not topics:
        return ""
    own = [unneeded[t] for t in sorted(topics) if t in unneeded]
    topics = {t for t in topics if t not in unneeded}
    prefs = sorted(topics - _SITUATION)
    facts = sorted(topics & _SITUATION)
    said = own
    if prefs:
        said.append(f"I don't mind about the {_join([_LABELS.get(t, t.replace('_', ' ')) for t in prefs])}.")
    if facts:
        said.append(f"I have nothing to add about the {_join([_LABELS.get(t, t) for t in facts])}.")
    return " ".join(said)


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def answer(state: CustomerState, message: str, details: list[Detail], nudge: str,
           extra: Mapping[str, Iterable[str]] | None = None, nothing_left: str | None = None,
           unneeded: Mapping[str, str] | None = None) -> CustomerTurn | None:
    """The reply to `message` if it requests something (None for a statement). `nudge` ends a
    reply that tells nothing new ("What would you recommend?"); `nothing_left` is the reply to an
    open question once everything is told (default: "No, that's everything. " + nudge); `unneeded`
    what it says of an `extra` topic it has no detail on."""
    request = read(message, extra)
    if not request.is_request:
        return None
    if request.generic:
        first = next((d for d in details if d.withheld and d.key not in state.revealed), None)
        if first is None:
            return CustomerTurn(nothing_left or f"No, that's everything. {nudge}", "confirm")
        state.revealed.add(first.key)
        return CustomerTurn(f"Hmm, let me think. {first.words}", "continue")
    if not request.topics:
        return CustomerTurn(f"Sorry, I'm not sure how that helps. {nudge}", "continue")
    matching = [d for d in details if d.topics & request.topics]
    new = [d for d in matching if d.withheld and d.key not in state.revealed]
    again = [d for d in matching if d not in new]
    covered = {t for d in matching for t in d.topics}
    rest = _no_detail(set(request.topics - covered), unneeded or {})
    state.revealed.update(d.key for d in new)
    if new:  # what it had said already is not repeated beside what it tells now
        telling = {t for d in new for t in d.topics} & request.topics
        # A questionnaire (many topics, few of them held back) is answered but not free, and so is
        # one split into small messages: the topics that told nothing beside a telling one are
        # counted over the conversation (`_QUESTIONNAIRE`), against the topics that told.
        counts = state.memory.setdefault(_QUESTIONNAIRE, {"told": 0, "riders": 0})
        told = counts["told"] + len(telling)
        riders = counts["riders"] + len(request.topics - telling)
        free = riders <= max(told, QUESTIONNAIRE_SLACK)
        if free:
            counts.update(told=told, riders=riders)
        return CustomerTurn(" ".join(part for part in ("Good question.", *(d.words for d in new), rest) if part),
                            "clarify" if free else "continue")
    said = " ".join(["As I said:", *(d.words for d in again)]) if again else ""
    return CustomerTurn(" ".join(part for part in (said, rest, nudge) if part), "continue")


# --- topics of the customer's own details -------------------------------------------------

_SIZE_LIKE = frozenset({"size", "shoe_size", "band_size", "bed_size", "screen_size", "length", "width", "diameter",
                        "capacity", "thickness", "blade_length", "weight"})


def attribute_topics(attribute: str) -> frozenset[str]:
    """The topics that ask for a product attribute (its own name, colour, size, features)."""
    if attribute == "color":
        return frozenset({"colour", "features"})
    own = "size" if attribute in ("shoe_size", "band_size", "bed_size", "screen_size") else attribute
    return frozenset({own, "features"} | ({"size"} if attribute in _SIZE_LIKE else set()))


def constraint_topics(kind: str, attribute: str | None = None) -> frozenset[str]:
    """The topics that ask for one kind of product requirement (`Constraint.kind`)."""
    match kind:
        case "attribute":
            return attribute_topics(str(attribute))
        case "brand" | "rating" | "stock":
            return frozenset({kind})
        case "price_max":
            return frozenset({"budget"})
        case "rating_min":
            return frozenset({"rating"})
        case "ship_days_max":
            return frozenset({"delivery"})
        case "in_stock":
            return frozenset({"stock"})
        case "category":
            return frozenset({"item"})
    return frozenset()


# --- asking precisely (for agents that know what to ask: the oracles, tests) --------------

_QUESTIONS = {"brand": "Which brand would you like?", "colour": "Which colour would you like?",
              "size": "What size do you need?", "budget": "What's your budget?",
              "rating": "What rating should it have at least?", "delivery": "How soon do you need it delivered?",
              "priority": "What matters most to you?", "quantity": "How many do you need?",
              "item": "Which item do you mean?", "order": "Which order do you mean?",
              "member": "Are you a member?", "gift": "Was it a gift?", "condition": "Is anything wrong with it?",
              "needs": "What else do you need?", "stock": "Does it need to be in stock?"}
_ORDER = ("member", "gift", "condition", "delivery", "order", "item", "needs", "brand", "colour", "size", "budget",
          "rating", "priority", "quantity", "stock")


def question_about(topics: Iterable[str]) -> str:
    """A request that asks about one of `topics` (a detail's topics), as a precise agent asks."""
    topics = set(topics)
    first = next((t for t in _ORDER if t in topics), None)
    if first is not None:
        return _QUESTIONS[first]
    own = sorted(t for t in topics if t != "features")
    return f"Which {own[0].replace('_', ' ')} would you like?" if own else "Any particular features you need?"
