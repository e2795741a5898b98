"""The customer's voices (issue 35): how a customer words what it says, never what it decides.

A voice is drawn per episode from the seed, on the difficulty axis (`draw`): at d = 0 every customer
speaks plainly, and the harder voices (non-native, typo-prone, vague-then-precise) grow likelier
with d. The scenario records it (`Scenario.voice`). Each voice has its own hand-written words for
every customer act (`words`): the opening request (`openings.voiced_opening`, reshaped: another
order, the ask first, a list split into sentences, numbers as words, units, relative dates, small
talk), answering a question, correcting a proposal, accepting, giving up, approving a write, and
pushing back (`replies.speak`).

What a voice may not change (the decisions stay in code):

- which details the customer tells, when, and what it accepts or corrects: a voice rewords the
  reply a behaviour chose, after it chose it, so every tag and every `state.revealed` is the plain
  voice's;
- any fact a reply states: a reply is reworded only around its facts (a frame before and after, and
  whole stock sentences that hold no fact, "Good question." or "Never mind, bye."), so every
  requirement's words the verifier looks for (`verishop.verifier.requirements.told`) are said as
  the plain voice says them, digits and all. The opening may say "three options" or "fifty bucks":
  the verifier never reads it (a requirement the opening states is stated by the goal's flags);
- praise: an accepting frame is neutral in every voice, so a neutral close stays neutral (the
  words-agree-with-the-verdict rule);
- the random draws of the episode: a voice draws from its own streams (`"voice"`,
  `"voice-opening"`, `"voice-reply"`), never the scenario's or the customer's typo generator, so
  the world, the goal and the typo noise the verifier replays are the plain version's.
"""

from __future__ import annotations

import functools
from itertools import accumulate
from typing import get_args

from verishop.scenarios.models import Scenario, VoiceName
from verishop.scenarios.rng import make_rng
from verishop.scenarios.voices.openings import voiced_opening
from verishop.scenarios.voices.replies import Speaker

VOICES: tuple[VoiceName, ...] = get_args(VoiceName)
"""Every voice, plain first."""

# How hard each voice is to understand: 0 plain, 1 a register (formal, chatty), 2 a manner that
# hides the ask (terse, impatient), 3 words an agent must work to read (non-native, typos, a vague
# start before the precise request).
LEVEL: dict[VoiceName, int] = {"plain": 0, "formal": 1, "chatty": 1, "terse": 2, "impatient": 2, "non-native": 3,
                               "typo-prone": 3, "vague-then-precise": 3}


def weights(difficulty: int) -> tuple[float, ...]:
    """The chance of each voice at `difficulty`, unnormalised: plain only at 0; then the plain
    voice fades and each other voice weighs more the harder it is and the higher d."""
    if difficulty <= 0:
        return tuple(1.0 if v == "plain" else 0.0 for v in VOICES)
    return tuple(max(0.5, 6.0 - difficulty) if v == "plain" else 1.0 + LEVEL[v] * difficulty / 4 for v in VOICES)


def draw(env_id: str, difficulty: int, seed: int) -> VoiceName:
    """The voice of episode `(env_id, difficulty, seed)`, from its own stream."""
    return make_rng("voice", env_id, difficulty, seed).choices(VOICES, cum_weights=_summed_weights(difficulty))[0]


@functools.cache
def _summed_weights(difficulty: int) -> tuple[float, ...]:
    """`weights(difficulty)`'s running sums, once per difficulty: `choices` sums the weights it is
    given into exactly these, then draws the same voice from the same random number."""
    return tuple(accumulate(weights(difficulty)))


def check_voice(name: str) -> VoiceName:
    """`name` as a voice, or a ValueError that lists the voices."""
    if name not in VOICES:
        raise ValueError(f"unknown voice {name!r}; known: {', '.join(VOICES)}")
    return name  # type: ignore[return-value]


def give_voice(scenario: Scenario, env_id: str, voice: str | None = None) -> Scenario:
    """`scenario` (generated plain) as episode `env_id` of a voiced version: its voice (`voice`, or
    drawn) recorded, and its opening (a journey's every request) said in that voice. Everything
    else is the plain scenario's, byte for byte."""
    name = check_voice(voice) if voice is not None else draw(env_id, scenario.difficulty, scenario.seed)
    rng = make_rng("voice-opening", env_id, scenario.difficulty, scenario.seed)
    update: dict[str, object] = {"env_id": env_id, "voice": name}
    openings = getattr(scenario.goal, "openings", None)
    if openings:  # a journey: one customer, one voice, every request
        said = tuple(voiced_opening(text, name, rng, scenario.today, scenario.axes.p_noise) for text in openings)
        update["goal"] = scenario.goal.model_copy(update={"openings": said})
        update["opening_message"] = said[0]
    else:
        update["opening_message"] = voiced_opening(scenario.opening_message, name, rng, scenario.today,
                                                   scenario.axes.p_noise)
    return scenario.model_copy(update=update)


def speaker(scenario: Scenario) -> Speaker | None:
    """What rewords the customer's replies in `scenario`'s voice (None: the plain voice, as is)."""
    if scenario.voice in (None, "plain"):
        return None
    return Speaker(scenario.voice, make_rng("voice-reply", scenario.env_id, scenario.difficulty, scenario.seed))


__all__ = ["LEVEL", "VOICES", "Speaker", "check_voice", "draw", "give_voice", "speaker", "voiced_opening", "weights"]
