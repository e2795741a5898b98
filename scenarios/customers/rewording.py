"""Whether a language model's rewording of a customer message says the same thing (issue 35).

The simulated customer decides and writes every message in code; an optional model may only
reword it (`verishop.mcp_server.episodes.voice`). A rewording is used only if `rejection` finds
nothing wrong with it, else the scripted words are. It must keep every fact of the scripted words
and add none, read from the text by rules, never by a model:

    numbers      every token holding a digit, an '@' or a currency sign, exactly: ids (P12345678,
                 W1234567), prices ($22.99), sizes (15cm, 1.8m), dates (August 12 → 12), zip
                 codes, emails, ranges (3-8), counts (I only see 2)
    terms        the episode's vocabulary (`Vocabulary`): brands, product nouns, attribute values
                 (colours, sizes, materials), category names, month and weekday names, units,
                 number words, and the short strings of the scenario (names, addresses, titles)
    names        every capitalised word that does not start a sentence (a product title, a
                 person, a place), kept; none added
    polarity     a negation (not, no, never, n't ...), a bound's direction (under / at least ...),
                 a question mark, the tone (praise, complaint): kept, none added
    drift        at least a third of its content words (by their first four letters) said again: a
                 message without facts ("Yes, please go ahead.") cannot become another one

and it must read as a customer's message: not empty, not much longer than the scripted one, one
paragraph that says nothing twice, no URL, no markup, no tool name, no talk of prompts, instructions or rewriting, no
control or invisible characters. Rules reject more than they must (a rewording that says "in
white" for "in White" passes, one that turns "3 options" into "three options" does not): a false
rejection costs only the variety of that one message, a false acceptance could change what the
customer told.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from verishop.scenarios.models import Scenario
from verishop.scenarios.taxonomy import Category
from verishop.scenarios.tool_names import TOOLS

# How much longer than the scripted words a rewording may be: chatty, not a speech.
MAX_GROWTH = 2.0
MAX_EXTRA_CHARS = 80
MAX_CHARS = 1200

# A word: letters and digits, joined by an inner apostrophe, hyphen or dot ("I'm", "USB-C", "1.8m").
_WORD = re.compile(r"[^\W_]+(?:['’.\-/][^\W_]+)*")
_FACT_TOKEN = re.compile(r"\S*[\d@$€£¥₹]\S*")
_EDGE_PUNCTUATION = ".,;:!?()[]{}<>\"'“”‘’*`"

MONTHS = ("january february march april may june july august september october november december "
          "jan feb mar apr jun jul aug sep sept oct nov dec").split()
WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
RELATIVE_DAYS = "today tomorrow yesterday tonight weekend".split()
UNITS = ("day days week weeks month months year years hour hours minute minutes percent dollar dollars "
         "cent cents euro euros pound pounds inch inches cm mm kg g lb lbs liter liters litre litres "
         "star stars piece pieces pack packs pair pairs").split()
NUMBER_WORDS = ("zero two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                "twenty thirty forty fifty hundred thousand dozen couple half twice both once first second "
                "third last").split()
NEGATIONS = ("not", "no", "never", "none", "nothing", "nor", "without", "cannot", "neither", "nobody")
# A bound's direction: "under $56" and "over $56" keep the number and mean the opposite.
DIRECTIONS = {
    "upper": ("under", "below", "at most", "less than", "fewer than", "no more than", "up to", "within",
              "maximum", "max", "cheaper", "before", "or less"),
    "lower": ("over", "above", "at least", "more than", "minimum", "min", "after", "or more", "later than"),
}
# The tone the customer's words carry (issue 35, point 4: a neutral "Okay, thank you." stays neutral).
TONES = {
    "praise": ("perfect", "great", "excellent", "love", "wonderful", "amazing", "fantastic", "awesome", "ideal",
               "brilliant", "delighted", "glad", "superb", "spot on"),
    "complaint": ("unhappy", "disappointed", "disappointing", "terrible", "awful", "bad", "wrong", "annoyed",
                  "frustrated", "frustrating", "upset", "angry", "ridiculous", "unacceptable", "worst",
                  "elsewhere", "expected more", "not happy"),
}
# Phrases no customer message of this shop says, and every model meta-answer does.
INJECTION = re.compile("|".join((
    r"\bignore\b", r"\bdisregard\b", r"\binstruction", r"\bprompt", r"\bsystem\b", r"\bassistant\b",
    r"\buser\s*:", r"\bjailbreak", r"\bas an ai\b", r"\blanguage model\b", r"\bmodel\b", r"\bchatgpt\b",
    r"\bopenai\b", r"\breword", r"\brewrit", r"\bparaphras", r"\brephras", r"\boriginal message\b",
    r"\bhere is\b", r"\bhere's\b", r"\bthe customer\b", r"\bscripted\b", r"\btool", r"\bfunction\b",
    r"\bapi\b", r"\bjson\b", r"https?:", r"\bwww\.", r"\.com\b", r"<[a-z/!|]", r"\|>", r"```", r"\{\{", r"\[\[",
    r"\bsudo\b", r"\badmin", r"\boverride\b", r"\bpassword\b", r"\btoken\b", r"\bsecret\b",
    r"[a-z]{2,}(?:user|model)\b", r"\bmessage\b", r"\bas follows\b", r"\breads? as\b", r"\btext\b", r"\bsentence\b", r"\[/?[a-z]+\]",
)), re.IGNORECASE)
# Words that carry no content: what is left of a message must be said again, in part (`DRIFT_SHARE`).
FUNCTION_WORDS = frozenset("a an the and or but so to of in on at for with from by is are was were be been it its "
                           "i i'm i'd i'll i've me my you your we our that that's this these those there here "
                           "just please can could would will do does did have has had".split())
# The share of a message's content words (by their first four letters) a rewording must say again.
DRIFT_SHARE = 1 / 3
# Words too common to be a fact when lowercase (a product series "One" or "Go" stays a fact when
# capitalised mid-sentence: the `names` rule keeps it).
COMMON = frozenset("a an the one go air plus max mini pro lite edge flex neo sport ultra prime classic standard "
                   "basic soft light i it is of for and or in on to with".split())


@dataclass(frozen=True)
class Vocabulary:
    """The phrases that are facts in one episode's messages, each a tuple of lowercase words."""

    phrases: frozenset[tuple[str, ...]]
    longest: int

    @classmethod
    def of(cls, texts: Iterable[str]) -> Vocabulary:
        phrases = set()
        for text in texts:
            words = tuple(w.lower() for w in _WORD.findall(text))
            if words and not (len(words) == 1 and words[0] in COMMON):
                phrases.add(words)
        return cls(frozenset(phrases), max((len(p) for p in phrases), default=0))

    def __or__(self, other: Vocabulary) -> Vocabulary:
        return Vocabulary(self.phrases | other.phrases, max(self.longest, other.longest))


BASE_TERMS: tuple[str, ...] = (*MONTHS, *WEEKDAYS, *RELATIVE_DAYS, *UNITS, *NUMBER_WORDS)


def shop_vocabulary(taxonomy: Iterable[Category]) -> Vocabulary:
    """The facts of every episode of a shop: its brands, nouns, category names and attribute values
    (colours, sizes, materials ...), the calendar, units and number words. Built once per process."""
    texts: list[str] = list(BASE_TERMS)
    for category in taxonomy:
        texts += [category.name, *category.nouns, *category.brands]
        for attribute in category.attributes:
            texts += [attribute.name.replace("_", " "), *attribute.values]
    return Vocabulary.of(texts)


def vocabulary(scenario: Scenario, shop: Vocabulary) -> Vocabulary:
    """One episode's facts: the shop's, and every short string of its scenario (the customer's name
    and addresses, its orders' titles and kinds, its goal's values)."""
    world = scenario.model_dump(mode="json", include={"customer", "orders", "extra_products", "account",
                                                      "minefields", "goal"})
    return shop | Vocabulary.of(s for s in _strings(world) if _is_a_value(s))


def _is_a_value(text: str) -> bool:
    """A name, an address, a title, a kind: short, and not a sentence (a goal's lines are checked
    by the rules, not kept word for word)."""
    return len(text) <= 80 and len(text.split()) <= 12 and not text.rstrip().endswith((".", "!", "?"))


def _strings(value: object) -> Iterable[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


@dataclass(frozen=True)
class Facts:
    numbers: frozenset[str]
    terms: frozenset[tuple[str, ...]]
    names: frozenset[str]
    words: frozenset[str]
    negated: bool
    directions: frozenset[str]
    tones: frozenset[str]
    asks: bool


def facts(text: str, vocab: Vocabulary) -> Facts:
    words = _WORD.findall(text)
    lower = [w.lower() for w in words]
    joined = f" {' '.join(lower)} "
    return Facts(
        numbers=frozenset(_fact_tokens(text)),
        terms=frozenset(_phrases(lower, vocab)),
        names=frozenset(w.lower() for w in _mid_sentence_capitals(text)),
        words=frozenset(lower),
        negated=any(w in NEGATIONS or w.endswith(("n't", "n’t")) for w in lower),
        directions=frozenset(d for d, marks in DIRECTIONS.items() if any(f" {m} " in joined for m in marks)),
        tones=frozenset(t for t, marks in TONES.items() if any(f" {m} " in joined for m in marks)),
        asks="?" in text,
    )


def _fact_tokens(text: str) -> Iterable[str]:
    for token in _FACT_TOKEN.findall(text):
        token = token.strip(_EDGE_PUNCTUATION).removesuffix("'s").removesuffix("’s").strip(_EDGE_PUNCTUATION)
        if token:
            yield token.lower() if "@" in token else token


def _phrases(words: list[str], vocab: Vocabulary) -> Iterable[tuple[str, ...]]:
    for start in range(len(words)):
        for size in range(1, min(vocab.longest, len(words) - start) + 1):
            phrase = tuple(words[start:start + size])
            if phrase in vocab.phrases:
                yield phrase


def _mid_sentence_capitals(text: str) -> Iterable[str]:
    for match in _WORD.finditer(text):
        word = match.group(0)
        before = text[:match.start()].rstrip().rstrip("\"'”’)")
        starts_sentence = not before or before[-1] in ".!?:;"
        if word[:1].isupper() and not starts_sentence and not re.fullmatch(r"I(['’](m|d|ll|ve))?", word):
            yield word


def cleaned(answer: str) -> str:
    """A model's answer as a message: one line of single spaces, without the quotes or the
    "Customer:" label a model may wrap it in."""
    text = " ".join(answer.split())
    for _ in range(2):
        text = re.sub(r"^(customer|shopper|message|me)\s*:\s*", "", text, flags=re.IGNORECASE)
        if len(text) >= 2 and text[0] + text[-1] in ('""', "''", "“”", "‘’", "**", "``"):
            text = text[1:-1].strip()
    return text


def rejection(scripted: str, rewording: str, vocab: Vocabulary) -> str | None:
    """Why `rewording` may not stand for `scripted` (a short reason, its kind first), or None."""
    if not rewording.strip():
        return "empty: the model answered nothing"
    limit = min(MAX_CHARS, int(len(scripted) * MAX_GROWTH) + MAX_EXTRA_CHARS)
    if len(rewording) > limit:
        return f"overlong: {len(rewording)} characters for {len(scripted)}"
    if "\n" in rewording.strip() and "\n" not in scripted:
        return "shape: several lines"
    if _repeats(rewording) - _repeats(scripted):
        return "shape: it repeats itself"
    odd = sorted({c for c in rewording if unicodedata.category(c)[0] == "C" or unicodedata.category(c) == "So"}
                 - set(scripted))
    if odd:
        return f"injection: characters {json.dumps(''.join(odd))}"
    for injected in INJECTION.finditer(rewording):
        if injected.group(0).lower() not in scripted.lower():
            return f"injection: {injected.group(0)!r}"
    tool = next((t for t in TOOLS if "_" in t and t in rewording.lower()), None)
    if tool is not None and tool not in scripted.lower():
        return f"injection: names the tool {tool}"
    before, after = facts(scripted, vocab), facts(rewording, vocab)
    stems = _stems(scripted)
    if stems and len(stems & _stems(rewording)) < DRIFT_SHARE * len(stems):
        return "drift: it says something else"
    for kind, old, new in (("number", before.numbers, after.numbers),
                           ("term", {" ".join(p) for p in before.terms}, {" ".join(p) for p in after.terms})):
        if lost := sorted(old - new):
            return f"dropped {kind}: {', '.join(lost)}"
        if added := sorted(new - old):
            return f"new {kind}: {', '.join(added)}"
    # A name may move to a sentence's start, where its capital says nothing: kept is said anywhere.
    if lost := sorted(before.names - after.words):
        return f"dropped name: {', '.join(lost)}"
    if added := sorted(after.names - before.words):
        return f"new name: {', '.join(added)}"
    if before.negated != after.negated:
        return "polarity: a negation " + ("dropped" if before.negated else "added")
    if before.directions != after.directions:
        return f"polarity: bounds {sorted(before.directions)} became {sorted(after.directions)}"
    if before.asks != after.asks:
        return "polarity: a question " + ("dropped" if before.asks else "added")
    if before.tones != after.tones:
        return f"tone: {sorted(before.tones) or ['neutral']} became {sorted(after.tones) or ['neutral']}"
    return None


def _stems(text: str) -> set[str]:
    return {w.lower()[:4] for w in _WORD.findall(text) if len(w) >= 3 and w.lower() not in FUNCTION_WORDS}


def _repeats(text: str) -> set[str]:
    """The sentences and three-word runs said more than once."""
    sentences = [s for s in (" ".join(_WORD.findall(s.lower())) for s in re.split(r"[.!?]+", text)) if s]
    words = [w.lower() for w in _WORD.findall(text)]
    runs = [" ".join(words[i:i + 3]) for i in range(len(words) - 2)]
    return {part for parts in (sentences, runs) for part in parts if parts.count(part) > 1}


SYSTEM_PROMPT = (
    "You reword one message that a shopper writes to a shop's assistant, so that it sounds like a "
    "real person wrote it. Keep its meaning and every fact exactly as written: every number, ID, "
    "price, size, colour, date, name, brand and product name, character for character. Add nothing: "
    "no new fact, number, product, question or opinion. Keep every 'not' and every question. "
    "Answer with the reworded message only, one short paragraph, no quotes.")


def chat_messages(words: str) -> list[dict[str, str]]:
    """The chat request for rewording `words` (nothing of the agent's message goes in: the model
    cannot be steered by the agent it talks to)."""
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": words}]
