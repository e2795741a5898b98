"""The customer's voice over the scripted words (issue 35, docs/customer-voice.md).

With `--customer-voice llm` a language model behind any OpenAI-compatible endpoint rewords each
customer reply after the simulated customer has decided and written it; `rejection`
(`verishop.scenarios.customers.rewording`) checks the rewording fact by fact, and anything short
of a clean, faithful rewording (a timeout, an HTTP error, a dropped or invented fact, injected
text) leaves the scripted words in place. The customer's decisions, its state and its typo noise
never see the model.

What one reply records (its `customer_message` event), beside the `text` the agent read:

    scripted   the text the scripted voice would have said (noise included); only where it differs.
               The verifier reads the customer's words from it (verishop.verifier.speech), so the
               reward is the scripted episode's whatever the model said
    voice      {"outcome": "reworded"} or {"outcome": "scripted", "why": "<kind>: <detail>"}

A reworded reply gets the episode's typo noise of its own (its own generator, seeded from the
scenario: the customer's noise, which the verifier replays, draws as it always does).

Every decision is also appended to the recording (`<runs>/customer-voice.jsonl`, one JSON line:
the scenario's sha256, the words, the rewording or null, why), keyed by (scenario, words): a
decision is made once per key, so a run agrees with its recording, and `replay:FILE` plays the
run again offline with the same texts, byte for byte. A key the recording lacks (another agent
took the episode elsewhere) gets the scripted words, `why` "replay: ...".

The model is called on the event loop (httpx2's async client), bounded by `timeout_s` and
shielded from cancellation: a reply is never half-said, whatever happens to the tool call.
After `BREAKER_FAILURES` failures in a row the endpoint is left alone for `BREAKER_PAUSE_S`
(the replies meanwhile are scripted, `why` "unavailable: ...").
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anyio
import httpx2

from verishop.scenarios.customers.base import CustomerTurn
from verishop.scenarios.customers.rewording import (MAX_CHARS, MAX_EXTRA_CHARS, MAX_GROWTH, Vocabulary, chat_messages,
                                                    cleaned, rejection, shop_vocabulary, vocabulary)
from verishop.scenarios.models import Scenario
from verishop.scenarios.noise import add_typos
from verishop.scenarios.rng import derive_seed, make_rng
from verishop.scenarios.taxonomy import Category
from verishop.scenarios.voice_cli import RECORD_FILE, Decision, VoiceSettings, read_recording

log = logging.getLogger(__name__)

BREAKER_FAILURES = 5
BREAKER_PAUSE_S = 30.0
REWORDED = {"outcome": "reworded"}

class CustomerVoice:
    """The process's voice: the endpoint, the decisions made or replayed, the counts."""

    def __init__(self, settings: VoiceSettings, taxonomy: Iterable[Category], runs_dir: Path):
        if settings.mode == "scripted":
            raise ValueError("the scripted voice needs no CustomerVoice")
        self.settings = settings
        self.shop = shop_vocabulary(taxonomy)
        self.decisions: dict[tuple[str, str], Decision] = {}
        self.counts: Counter[str] = Counter()  # "reworded", or the kind of each fallback
        self._http: httpx2.AsyncClient | None = None
        self._failures_in_row = 0
        self._paused_until = 0.0
        self._record_fd = -1
        if settings.mode == "replay":
            self.decisions = read_recording(settings.replay)  # type: ignore[arg-type]
        else:
            self.record_path = settings.record or Path(runs_dir) / RECORD_FILE
            self.record_path.parent.mkdir(parents=True, exist_ok=True)
            # O_APPEND: each decision is one write() at the end, so worker processes share the file.
            self._record_fd = os.open(self.record_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def for_episode(self, scenario: Scenario, scenario_sha256: str) -> EpisodeVoice:
        return EpisodeVoice(self, scenario, scenario_sha256)

    async def decide(self, sha: str, words: str, vocab: Vocabulary) -> Decision:
        """The rewording of `words` in the episode of scenario `sha`, made once per key."""
        key = (sha, words)
        if key in self.decisions:
            rewording, why = self.decisions[key]
            if rewording is not None and (problem := rejection(words, rewording, vocab)):
                return None, f"replay: the recorded rewording fails the checks ({problem})"
            return rewording, why
        if self.settings.mode == "replay":
            return None, f"replay: {self.settings.replay.name} has no rewording of these words"  # type: ignore[union-attr]
        decision = await self._ask(words, vocab)
        self.decisions[key] = decision
        self._record(sha, words, decision)
        return decision

    async def _ask(self, words: str, vocab: Vocabulary) -> Decision:
        if time.monotonic() < self._paused_until:
            return None, f"unavailable: {BREAKER_FAILURES} failures in a row, endpoint paused"
        answer, why = await self._complete(words)
        if answer is None:
            self._failures_in_row += 1
            if self._failures_in_row >= BREAKER_FAILURES:
                self._paused_until = time.monotonic() + BREAKER_PAUSE_S
                self._failures_in_row = 0
                log.warning("customer voice: %d failures in a row (last: %s); scripted words for %.0f s",
                            BREAKER_FAILURES, why, BREAKER_PAUSE_S)
            return None, why
        self._failures_in_row = 0
        rewording = cleaned(answer)
        problem = rejection(words, rewording, vocab)
        return (None, problem) if problem else (rewording, None)

    async def _complete(self, words: str) -> tuple[str | None, str]:
        """The model's answer, or None and why not. Never raises, never outlives `timeout_s`."""
        s = self.settings
        limit_chars = min(MAX_CHARS, int(len(words) * MAX_GROWTH) + MAX_EXTRA_CHARS)
        body = {"model": s.model, "messages": chat_messages(words), "temperature": s.temperature,
                "max_tokens": limit_chars // 3 + 16, "seed": derive_seed("customer-voice", words) % 2**31,
                "stream": False, "stop": ["\n"]}  # one paragraph was asked for: what follows a line is not it
        headers = {"Authorization": f"Bearer {s.api_key}"} if s.api_key else {}
        if self._http is None:
            self._http = httpx2.AsyncClient(timeout=httpx2.Timeout(s.timeout_s))
        try:
            # Shielded: a client going away mid-call must not leave the customer's reply unsaid.
            with anyio.CancelScope(shield=True), anyio.fail_after(s.timeout_s):
                response = await self._http.post(str(s.base_url).rstrip("/") + "/chat/completions", json=body,
                                                 headers=headers)
        except TimeoutError:
            return None, f"timeout: no answer within {s.timeout_s:g} s"
        except httpx2.TimeoutException:
            return None, f"timeout: no answer within {s.timeout_s:g} s"
        except httpx2.HTTPError as exc:
            return None, f"unreachable: {type(exc).__name__}"
        if response.status_code != 200:
            return None, f"server: HTTP {response.status_code}"
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return None, "server: not a chat completion"
        if not isinstance(content, str):
            return None, "server: no text in the answer"
        return content, ""

    def _record(self, sha: str, words: str, decision: Decision) -> None:
        rewording, why = decision
        line = json.dumps({"scenario_sha256": sha, "words": words, "rewording": rewording, "why": why},
                          ensure_ascii=False) + "\n"
        try:
            os.write(self._record_fd, line.encode())
        except OSError as exc:  # a full disk: the episode goes on; the replay will say the key is missing
            log.warning("customer voice: %s not recorded: %s", self.record_path, exc)

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        if self._record_fd >= 0:
            os.close(self._record_fd)
            self._record_fd = -1


class EpisodeVoice:
    """One episode's voice: its vocabulary (made on first use) and its own typo noise."""

    def __init__(self, voice: CustomerVoice, scenario: Scenario, scenario_sha256: str):
        self.voice, self.scenario, self.sha = voice, scenario, scenario_sha256
        self.rng = make_rng("customer-voice", scenario_sha256)
        self._vocab: Vocabulary | None = None

    async def speak(self, turn: CustomerTurn) -> tuple[str, dict[str, Any]]:
        """The text the agent reads for `turn`, and what its event records beside it."""
        suffix = f" {turn.then}" if turn.then is not None else ""
        words = (turn.said or turn.text).removesuffix(suffix)
        if self._vocab is None:
            self._vocab = vocabulary(self.scenario, self.voice.shop)
        rewording, why = await self.voice.decide(self.sha, words, self._vocab)
        self.voice.counts["reworded" if rewording is not None else (why or "").split(":")[0]] += 1
        if rewording is None:
            return turn.text, {"voice": {"outcome": "scripted", "why": why}}
        text = add_typos(self.rng, rewording, self.scenario.axes.p_noise) + suffix
        return text, {"scripted": turn.text, "voice": REWORDED}
