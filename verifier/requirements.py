"""What the customer wanted, in words, and where each want came from (issue 22).

A requirement's source is read from the files, never from the server:

    stated    the opening message says it (the goal marks it stated)
    revealed  the opening left it out and the customer said it in a reply (an answer, a
              correction: "that one is Sony, but I wanted it made by Nike", an open question's
              answer), before the agent committed its last answer (`verishop.verifier.blame`)
    withheld  the opening left it out and no reply had said it: never asked for
    shop      found only through the shop's tools: stock, the policy text, an order's status

What a reply said is read in the customer's words before its typo noise
(`verishop.verifier.speech`): "colr Blue" told "color Blue" (issue 28).

The blame (actor) is the agent's unless the episode shows a bug of the simulator:
    customer     a withheld requirement although the customer replied that it had told
                 everything (a reply tagged `confirm`): it failed to reveal what it was asked
    environment  the world contradicts the goal (each check's `contradiction`): nothing could
                 have passed
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from verishop.verifier.files import Episode
from verishop.verifier.models import Actor, Source
from verishop.verifier.speech import said

T = TypeVar("T")

SHOWN = "only products and orders the shop's tools showed"
IN_STOCK = "in stock"


@dataclass(frozen=True)
class Requirement:
    words: str
    source: Source
    actor: Actor = "agent"


def kept_for_view(ep: Episode, name: str, key: tuple, compute: Callable[[], T], *anchors: object) -> T:
    """`compute()`, kept in the transcript's `derived` memo under `name` and `key` for this view of the
    episode: its customer replies (a journey's slices, which share `derived`, each have their own
    list), its shop, and any `anchors` (objects the answer depends on, by identity). Blame asks the
    same questions of the same products and words for every check."""
    held = (ep.transcript.customer, ep.shop, *anchors)
    memo = ep.transcript.derived.setdefault(name, {})
    full_key = (*map(id, held), *key)
    kept = memo.get(full_key)
    if kept is None:  # an entry holds its objects alive, so no other object can carry their ids
        kept = memo[full_key] = (held, compute())
    return kept[1]


def told(ep: Episode, words: str) -> bool:
    """Whether a customer reply said `words` (in its words before typo noise): the replies are
    normalised once per view of the episode."""
    replies = kept_for_view(ep, "told", (), lambda: [" ".join(said(ep, e).lower().split())
                                                     for e in ep.transcript.customer if e.get("tag") != "open"])
    wanted = " ".join(words.lower().split())
    return any(wanted in reply for reply in replies)


def claimed_everything(ep: Episode) -> bool:
    """Whether the customer replied that nothing was left to tell."""
    return any(e.get("tag") == "confirm" for e in ep.transcript.customer)


def hidden_or_stated(ep: Episode, words: str, stated: bool, said: str | None = None) -> Requirement:
    """A customer requirement: stated, or revealed/withheld by whether a customer reply said
    `said` (default: `words`). Withheld after "that's everything" is the customer's fault."""
    if stated:
        return Requirement(words, "stated")
    return kept_for_view(ep, "hidden_or_stated", (words, said), lambda: _revealed_or_withheld(ep, words, said))


def _revealed_or_withheld(ep: Episode, words: str, said: str | None) -> Requirement:
    if told(ep, said or words):
        return Requirement(words, "revealed")
    return Requirement(words, "withheld", "customer" if claimed_everything(ep) else "agent")


def shop(words: str) -> Requirement:
    return Requirement(words, "shop")
