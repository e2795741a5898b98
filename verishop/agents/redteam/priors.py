"""Frequency priors: the answer a question's form most often has, learnt from the generator's
own question families on policies it draws (as a model trained on many episodes would learn
them), never from the episode being played.

A question's form is its first words with amounts left out ("Will a # purchase ship"); the
prior answer of a form is the most common answer over `SAMPLE_POLICIES` drawn policies, every
family of every number of clauses. The status prior is the most common status of the orders
the customer's own order list shows.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from datetime import date, timedelta
from functools import cache

SAMPLE_POLICIES = 400
_FORM_WORDS = 5


def form(question: str) -> str:
    """The question's form: its first words, lowercased, amounts left out."""
    words = re.sub(r"\$?\d[\d.,]*", "#", question.lower()).split()
    return " ".join(words[:_FORM_WORDS])


@cache
def policy_priors() -> dict[str, str]:
    """Question form -> its most common answer (ties: the answer met first)."""
    from verishop.envs.policy.generator import MAX_BRANCHES, families
    from verishop.scenarios.policy import extend_policy, make_policy

    counts: dict[str, Counter] = defaultdict(Counter)
    for seed in range(SAMPLE_POLICIES):
        rng = random.Random(f"priors-{seed}")
        policy = extend_policy(rng, make_policy(rng))
        today = date(2026, 1, 1) + timedelta(days=rng.randrange(365))
        for branches in range(1, MAX_BRANCHES + 1):
            for family in families(branches, policy):
                question = family(rng, policy, today, rng.random() < 0.5)
                counts[form(question.ask)][question.answer] += 1
    return {key: c.most_common(1)[0][0] for key, c in counts.items()}


def prior_answer(text: str) -> str | None:
    """The prior answer of the last sentence of `text` whose form was seen (the question, after
    any detail the customer adds: "... a $120.99 tent? I'm not a member."); None if none was."""
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    priors = policy_priors()
    return next((priors[form(s)] for s in reversed(sentences) if form(s) in priors), None)


def prior_status(statuses: list[str]) -> str | None:
    """The most common status among `statuses` (the first met on a tie)."""
    return Counter(statuses).most_common(1)[0][0] if statuses else None
