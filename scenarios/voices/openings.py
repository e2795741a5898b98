"""A customer's opening request in its voice: the plain opening's facts, in another shape.

The plain opening (what the environment generated: its facts, which requirements it states) is
reshaped, never re-decided: its greeting becomes the voice's, and, each with a chance drawn from
the voice's own generator,

- small talk, a hurry, or a vague start before the precise request;
- the ask first ("Could you find me 3 choices? I'm shopping for …");
- a list of requirements in another order, or split into sentences ("It should be …");
- a long sentence split in two ("…, shipped to my default address" → "… Ship it to my default address.");
- numbers as words ("three options"), units said another way ("50 bucks", "4+ stars"), dates said
  relative to the episode's today ("on the 26th of last month", "by Friday");
- the voice's own words for the plain voice's fixed phrases (`words.PHRASES`), and its sign-off.

The verifier never reads the opening (a requirement the opening states is stated by the goal's
flags), so it may spell a number; every fact stays recoverable by a reader. Words the voice adds
get the episode's typo noise (p_noise), from the voice's generator.
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

from verishop.scenarios.noise import add_typos
from verishop.scenarios.voices.words import GREETINGS, PHRASES, PRECISELY, SIGN_OFFS, SMALL_TALK

_GREETING = re.compile(r"^(?:[Hh]\w{0,5}(?: t\w{3,5})?|[Gg]\w{2,4} [a-z]{5,10})[,.!]\s+")
_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z])")
_LIST = re.compile(r"^(?P<head>.*?(?:shopping for [^:]+|What I need)): (?P<items>[^:]+)\.$")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve")
_COUNTED = re.compile(r"\b(\d{1,2}) (?=(?:good |similar |more )?(?:options|choices|picks|alternatives|days? late)\b)")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DATE = re.compile(rf"\b(on|of|from|by) ({'|'.join(_MONTHS)}) (\d{{1,2}})\b")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# Long sentences a voice may say as two (regular expression -> the start of the second one).
_SPLITS = tuple((re.compile(pattern), start) for pattern, start in (
    (r", shipped to ", ". Please ship it to "), (r", arriving by ", ". It should arrive by "),
    (r" and I need ", ". I need "), (r", and I've just seen that ", ". I've just seen that "),
    (r", but it's sold out\.", ". It's sold out.")))


def _literal_head(pattern: str) -> str:
    """The text every match of `pattern` contains: its literal start, up to its first operator."""
    return re.split(r"[\\()?.*+\[\]{}|^$]", pattern.removeprefix("^").removeprefix(r"\b"), maxsplit=1)[0]


# Each voice's phrases, compiled once (`words.PHRASES` spells them), each with the literal text a
# match must contain: a phrase whose text is absent is not searched for (most are, in an opening).
_COMPILED_PHRASES = {voice: tuple((re.compile(pattern), words, _literal_head(pattern)) for pattern, words in phrases)
                     for voice, phrases in PHRASES.items()}


def voiced_opening(text: str, voice: str, rng: random.Random, today: date, p_noise: float) -> str:
    """The plain opening `text` said in `voice` (the plain voice: as it is)."""
    if voice == "plain":
        return text
    body = _GREETING.sub("", text, count=1)
    body = body[:1].upper() + body[1:]
    sentences = [s for s in _SENTENCE.split(body) if s]
    sentences = _reshape(sentences, voice, rng)
    body = " ".join(sentences)
    for pattern, words, head in _COMPILED_PHRASES[voice]:
        if head in body:
            body = pattern.sub(words, body)
    if voice in ("chatty", "formal", "non-native", "vague-then-precise") and rng.random() < 0.6:
        body = _COUNTED.sub(lambda m: f"{_word(int(m.group(1)))} ", body)
    if rng.random() < 0.6:
        body = _units(body, voice)
    if rng.random() < 0.6:
        body = _DATE.sub(lambda m: _relative(m, today), body)
    added = _added(voice, rng)
    before = [add_typos(rng, words, p_noise) for words in added[0] if words]
    after = [add_typos(rng, words, p_noise) for words in added[1] if words]
    said = _joined([*before, body, *after])
    if voice == "typo-prone":
        said = said.lower().rstrip(".")
    return said


def _reshape(sentences: list[str], voice: str, rng: random.Random) -> list[str]:
    """The sentences in another shape: a list reordered or split, a long sentence split, the ask first."""
    out: list[str] = []
    for sentence in sentences:
        listed = _LIST.match(sentence)
        items = _items(listed.group("items")) if listed else []
        if listed and items and rng.random() < 0.7:
            rng.shuffle(items)
            if rng.random() < 0.5 or voice == "terse":
                lead = "Must be" if voice == "terse" else "It should be"
                if listed.group("head") != "What I need":
                    out.append(f"{listed.group('head')}.")
                out.extend(f"{lead} {item}." for item in items)
            else:
                out.append(f"{listed.group('head')}: {_join(items)}.")
            continue
        for pattern, start in _SPLITS:
            if pattern.search(sentence) and rng.random() < 0.5:
                sentence = pattern.sub(start, sentence, count=1)
        out.append(sentence)
    if len(out) > 1 and _asks_alone(out[-1]) and rng.random() < 0.4:
        out.insert(0, out.pop())  # the ask first
    return out


def _asks_alone(sentence: str) -> bool:
    """Whether `sentence` is a question that reads first (not "What are you going to do about it?")."""
    return sentence.endswith("?") and re.search(r"\b(it|that|this)\?$", sentence) is None


def _joined(parts: list[str]) -> str:
    """The parts as one message: after a greeting that ends in a comma, the next part goes on in
    lower case ("Hello, so there's …"), but for "I"."""
    out = parts[0]
    for part in parts[1:]:
        if out.endswith(",") and not re.match(r"I\b", part):
            part = part[:1].lower() + part[1:]
        out = f"{out} {part}"
    return out


def _items(text: str) -> list[str]:
    """A list's items ("a, b and c"), or [] when its words could be read more than one way."""
    head, _, last = text.rpartition(" and ")
    items = [*head.split(", "), last] if head else [text]
    return items if all(item and " and " not in item and "," not in item for item in items) else []


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _word(n: int) -> str:
    return _NUMBER_WORDS[n] if n < len(_NUMBER_WORDS) else str(n)


def _units(body: str, voice: str) -> str:
    """Money, ratings and delivery times said another way (a dollar amount only: other currencies
    keep their sign)."""
    dollars = "bucks" if voice in ("chatty", "typo-prone", "impatient") else "dollars"
    body = re.sub(r"\$(\d+)(?:\.00)?\b(?!\.\d)", rf"\1 {dollars}", body)
    body = re.sub(r"\brated at least (\d)\.0 stars\b", r"rated \1+ stars", body)
    body = re.sub(r"\bdelivered within (\d+) days\b", r"here in \1 days or less", body)
    return body


def _relative(match: re.Match[str], today: date) -> str:
    """A date said relative to `today` where that is short ("yesterday", "on the 3rd of last month",
    "by Friday"); else as it was."""
    how, month, day = match.group(1), _MONTHS.index(match.group(2)) + 1, int(match.group(3))
    try:
        when = _nearest(today, month, day, past=how != "by")
    except ValueError:
        return match.group(0)
    days = abs((when - today).days)
    if how == "by":
        if days == 1:
            return "by tomorrow"
        return f"by {_WEEKDAYS[when.weekday()]}" if 1 < days < 7 else match.group(0)
    if days == 1:
        return f"{'from ' if how != 'on' else ''}yesterday"
    if when.month == today.month and when.year == today.year:
        return f"{how} the {_ordinal(day)} of this month"
    last_month = (today.replace(day=1) - timedelta(days=1))
    if (when.year, when.month) == (last_month.year, last_month.month):
        return f"{how} the {_ordinal(day)} of last month"
    return match.group(0)


def _nearest(today: date, month: int, day: int, past: bool) -> date:
    """The date of `month` and `day` nearest `today` on its side (before it, or from it on)."""
    this_year = date(today.year, month, day)
    if past:
        return this_year if this_year <= today else date(today.year - 1, month, day)
    return this_year if this_year >= today else date(today.year + 1, month, day)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _added(voice: str, rng: random.Random) -> tuple[list[str], list[str]]:
    """What the voice says before its request and after it."""
    before = [rng.choice(GREETINGS[voice])]
    if voice in SMALL_TALK and rng.random() < (1.0 if voice == "vague-then-precise" else 0.6):
        before.append(rng.choice(SMALL_TALK[voice]))
        if voice == "chatty" and rng.random() < 0.4:
            before.append(rng.choice([t for t in SMALL_TALK[voice] if t != before[-1]]))
    if voice == "vague-then-precise":
        before.append(rng.choice(PRECISELY))
    return before, [rng.choice(SIGN_OFFS[voice])]
