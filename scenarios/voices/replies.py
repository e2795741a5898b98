"""A customer's reply in its voice: the plain reply's facts, said in the voice's own words.

The plain reply is what the environment's behaviour chose (its tag and what it told are decided).
`Speaker.say` keeps every sentence that may hold a fact as it is and rewords only:

- whole stock sentences that hold none ("Good question.", "Never mind, bye.", "What would you
  recommend?"), each replaced by one of the voice's own (`words.STOCK`);
- the frame: words before and after the reply, by act (answering, correcting, accepting, giving
  up, approving a write, pushing back; `words.FRAMES`), neutral in every accepting frame.

Facts keep their case, too (the typo-prone voice types its own words in lower case, not theirs).

It draws from its own generator (`"voice-reply"`), never the customer's typo generator, so the
typo noise of every reply, which the verifier replays, is the one the plain voice would draw.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from verishop.scenarios.models import CustomerTag, VoiceName
from verishop.scenarios.voices.words import FRAMES, LEADS, STOCK, STOCK_KEYS

# Each customer act, by the tag its reply carries.
ACTS: dict[str, str] = {"clarify": "answer", "continue": "nudge", "confirm": "nudge", "correct": "correct",
                        "dissatisfied": "correct", "done": "accept", "quit": "give_up", "approve": "approve",
                        "insist": "insist"}
_SENTENCE = re.compile(r"(?<=[.?!])\s+")


@dataclass
class Speaker:
    """One episode's voice for its replies, with the generator its choices draw from."""

    voice: VoiceName
    rng: random.Random

    def say(self, text: str, tag: CustomerTag) -> str:
        """`text`, the plain reply tagged `tag`, in this voice."""
        act = ACTS.get(tag)
        if act is None or not text:
            return text
        body = self._restock(text)
        before, after = (self.rng.choice(options) for options in FRAMES[self.voice][act])
        return " ".join(part for part in (before, body, after) if part)

    def _restock(self, text: str) -> str:
        """`text` with each stock sentence (and a stock lead: "As I said:") in this voice's words."""
        for plain, key in LEADS.items():
            if text.startswith(plain + " "):
                text = f"{self.rng.choice(STOCK[self.voice][key])} {text[len(plain) + 1:]}"
                break
        sentences = _SENTENCE.split(text)
        for i, sentence in enumerate(sentences):
            key = STOCK_KEYS.get(sentence)
            if key is not None:
                sentences[i] = self.rng.choice(STOCK[self.voice][key])
        return " ".join(s for s in sentences if s)
