"""What the customer said, in its own words before its typo noise (issue 28).

The customer's replies reach the agent with typos ("colr Blue"), and the verifier decides whether
a requirement was told by finding its words in what the customer said, so it must compare with
the words before the noise. The server records them beside each reply the noise changed
(`said` on a `customer_message`). The verifier believes them only if they give back the
transcript: the noise is deterministic code seeded from the scenario alone
(`verishop.scenarios.customers`: one generator per episode, drawn only by `add_typos`, reply
after reply), so replaying it on the clean words must reproduce every recorded `text` exactly.
The agent never writes a customer event; a `said` edited into the file that the noise does not
turn back into the recorded text is ignored, from that reply on. A reply's `then` (a journey's
next request, noised when it was generated) ends both its words and its text and is not noised
again.

A reply a language model reworded (`--customer-voice llm`, mcp_server/episodes/voice.py) records
beside its `text` the text the scripted customer would have said (`scripted`): the noise is
replayed against that, and the words read are the scripted ones, so the reward is what the
scripted episode would earn whatever the model's wording.
"""

from __future__ import annotations

from verishop.scenarios.envs import draw_stream
from verishop.scenarios.noise import add_typos
from verishop.scenarios.rng import make_rng
from verishop.verifier.files import Episode
from verishop.verifier.transcript import Event

_KEY = "customer_said"


def _replies(ep: Episode) -> list[Event]:
    return [e for e in ep.transcript.events if e.get("event") == "customer_message" and e.get("tag") != "open"]


def clean_words(ep: Episode) -> dict[int, str]:
    """Each customer reply's words before noise, by `seq`: its `said` where replaying the noise
    confirms it, else its recorded text (from the first reply the replay cannot confirm)."""
    cached = ep.transcript.derived.get(_KEY)
    if cached is not None:
        return cached
    scenario = ep.scenario
    rng = make_rng("customer", draw_stream(scenario.env_id), scenario.difficulty, scenario.seed)
    words: dict[int, str] = {}
    confirmed = True
    for event in _replies(ep):
        text = _scripted(event)
        said = event.get("said")
        clean = said if isinstance(said, str) else text
        # `then`: words appended as they are, noised when they were generated (a journey's next
        # request); the noise was drawn on the words before them only.
        then = event.get("then")
        suffix = f" {then}" if isinstance(then, str) else ""
        if suffix and clean.endswith(suffix) and text.endswith(suffix):
            noised = add_typos(rng, clean[:-len(suffix)], scenario.axes.p_noise) + suffix
        else:
            noised = add_typos(rng, clean, scenario.axes.p_noise)
        confirmed = confirmed and noised == text
        words[event["seq"]] = clean if confirmed else text
    ep.transcript.derived[_KEY] = words
    return words


def said(ep: Episode, event: Event) -> str:
    """What the customer said in `event`, before its noise where that can be confirmed."""
    return clean_words(ep).get(event.get("seq", -1), _scripted(event))


def _scripted(event: Event) -> str:
    """The text the scripted customer said in `event`: its `scripted` where a model reworded it."""
    scripted = event.get("scripted")
    return scripted if isinstance(scripted, str) else str(event.get("text", ""))
