"""The greedy baseline: each environment's `greedy.py` (`verishop/envs/<name>/greedy.py`), and
what they share (this package: searching a request's words, reading categories and policy text,
lookups within the tool budget).

Greedy never reads the hidden goal: it guesses what the customer wants from the opening
message (each environment's `matches(text)`, tried from the lowest `PRECEDENCE` up), then plays
that module's `play`:
search the customer's words and act on the top results, with no questions asked. It leaves
closing the conversation to the customer (an answer with done=true would end a journey after
its first request). When the customer's answer thanks it and makes a new request (a journey),
greedy handles that next.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable
from types import ModuleType

from verishop.agents.session import ShopSession, ToolFailed
from verishop.envs import REGISTRY, EnvSpec
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES


def greedies() -> tuple[tuple[str, ModuleType], ...]:
    """(name, greedy module) of every registered environment that has one, in the order greedy
    tries them (asked on every request: found once per registry)."""
    return _greedies(tuple(REGISTRY.values()))


@functools.cache
def _greedies(specs: tuple[EnvSpec, ...]) -> tuple[tuple[str, ModuleType], ...]:
    found = [(spec.name, spec.role("greedy")) for spec in specs if spec.has("greedy")]
    return tuple(sorted(found, key=lambda pair: pair[1].PRECEDENCE))


_STOPWORDS = frozenset("""hi hello hey there good morning i i'm im shopping for looking can you recommend options
option what would suggest could find me choices please show your top picks great be a an the and made by under
rated at least stars delivered within days tomorrow it should in of with to is some need put these my cart add
like order i'd m d s ll ve""".split())


Handler = Callable[[ShopSession, str], Awaitable[None]]


async def play(shop: ShopSession, text: str) -> None:
    """Handle the request in `text`; while the customer then makes another request (a journey),
    handle that one too."""
    await play_requests(shop, text, handle_request)


async def play_requests(shop: ShopSession, text: str, handle: Handler) -> None:
    """Identify the customer when the shop asks for it (`identify`), then handle the request in
    `text` with `handle`, then every next request the customer makes."""
    replies: list[dict] = []

    def keep_reply(tool: str, arguments: dict, result: dict | None, error: str | None) -> None:
        if tool == "respond_to_customer" and result is not None:
            replies.append(result)

    from verishop.agents.baselines.identify import identify

    await identify(shop, text)
    shop.observers.append(keep_reply)
    try:
        while text:
            replies.clear()
            await handle(shop, text)
            last = replies[-1] if replies else None
            text = next_request(last["customer_message"]) if last and last["status"] == "open" else ""
    finally:
        shop.observers.remove(keep_reply)


# Shorthand a customer types (the typo-prone voice, issue 35), read as the words it stands for.
_SHORTHAND = {"teh": "the", "pls": "please", "u": "you", "ur": "your", "im": "I'm", "id": "I'd", "wuold": "would"}
_SHORTHAND_WORD = re.compile(r"\b(" + "|".join(_SHORTHAND) + r")\b")


_SPOKEN_DOLLARS = re.compile(r"\b(\d+(?:\.\d\d)?) (?:bucks|dollars)\b")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_COUNTED = re.compile(rf"\b({'|'.join(_NUMBER_WORDS)}) (?=(?:good |similar |more )?(?:options|choices|picks|alternatives|"
                      r"days? late)\b)", re.IGNORECASE)


def spelled_out(text: str) -> str:
    """`text` with a customer's shorthand ("pls", "u", "teh") spelled out, dollars said in words
    ("39 bucks") in the shop's sign ("$39") and a count in digits ("three options"), as a person
    reads them."""
    text = _SPOKEN_DOLLARS.sub(r"$\1", text)
    text = _COUNTED.sub(lambda m: f"{_NUMBER_WORDS.index(m.group(1).lower())} ", text)
    return _SHORTHAND_WORD.sub(lambda m: _SHORTHAND[m.group(1)], text)


async def handle_request(shop: ShopSession, text: str) -> None:
    """Greedy's play of one request: the first module whose `matches` takes the text."""
    text = spelled_out(text)
    for _, module in greedies():
        if module.matches(text):
            await module.play(shop, text)
            return


def next_request(reply: str) -> str:
    """The new request in a customer's reply that thanks the agent for the last one and goes on
    with a greeting ("Thank you! Hi, I'd also like ..."); "" when the reply carries none (a
    follow-up such as "Thanks, the return is started. What about a replacement?" is not one)."""
    sentences = re.split(r"(?<=[.!?])\s+", reply.strip())
    thanked = next((i for i, s in enumerate(sentences) if _thanks(s)), None)
    if thanked is None:
        return ""
    rest = sentences[thanked + 1:]
    greets = next((i for i, s in enumerate(rest) if _greets(s)), None)
    return " ".join(rest[greets:]) if greets is not None else ""


_GREETING = re.compile(r"^(?:hi|hello|hey|good (?:morning|afternoon|evening)|greetings)\b", re.IGNORECASE)
_GREETING_WORDS = ("hello", "hey", "greetings")
_DAYTIMES = ("morning", "afternoon", "evening")


def _thanks(sentence: str) -> bool:
    """Whether a sentence thanks the agent, read through typos ("thannks", "tahnk you")."""
    if re.search(r"\bthanks?\b|\bthank you\b", sentence, re.I):
        return True
    return any((_one_typo(word, "thanks") or _one_typo(word, "thank")) and word not in _NOT_THANKS
               for word in re.findall(r"[a-z]+", sentence.lower()))


# Real words one letter from "thank(s)": not a typo of it.
_NOT_THANKS = frozenset({"think", "thinks", "thing", "things", "than", "tank", "tanks", "shank", "shanks", "thane"})


def _greets(sentence: str) -> bool:
    """Whether a sentence opens with a greeting, read through the customer's typos ("Goood
    morning!", "Helo there."): a word one typo from a greeting's counts as it."""
    if _GREETING.match(sentence):
        return True
    words = re.findall(r"[a-z]+", sentence.lower())[:2]
    if not words:
        return False
    first = words[0]
    if any(_one_typo(first, w) for w in _GREETING_WORDS):
        return True
    return len(words) == 2 and _one_typo(first, "good") and any(_one_typo(words[1], d) or words[1] == d
                                                                 for d in _DAYTIMES)


def _one_typo(token: str, word: str) -> bool:
    """`token` is `word` with one letter dropped, added, replaced or swapped with its neighbour."""
    if token == word or abs(len(token) - len(word)) > 1 or len(word) < 4:
        return token == word
    if len(token) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(token, word)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and token[diff[0]] == word[diff[1]] and token[diff[1]] == word[diff[0]])
    short, long_ = sorted((token, word), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


async def search_words(shop: ShopSession, text: str, limit: int) -> list[dict]:
    """Search the content words of `text`, in the category it names if any."""
    lowered = text.lower()
    category_id = next((c.id for c in SHOPPABLE_CATEGORIES if c.name.lower() in lowered), None)
    words = [w for w in re.findall(r"[a-z0-9-]+", lowered) if w not in _STOPWORDS and not w.isdigit()]
    if category_id:
        words = [w for w in words if w not in category_id.replace("_", " ")]
    try:
        found = await shop.call("search_catalog", query=" ".join(words[:5]), category_id=category_id, limit=limit)
    except ToolFailed:
        return []
    return found["results"]
