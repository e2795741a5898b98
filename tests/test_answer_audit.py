"""The reader on an independent, hand-written table (tests/answer_audit.py, issue 28 audit pass):
answers its author never tuned on, with other topics, verbs, hedges and registers than the
composed corpus. A committed reading that is not the answer's one true reading (or that commits
on an answer with none) is the worst outcome: precision must stay at least 99.5%; recall is
reported (`-s`)."""

from __future__ import annotations

from answer_audit import ITEMS
from answer_corpus import score

PRECISION_AT_LEAST = 0.995


def test_the_audit_table_holds_at_least_a_hundred_and_fifty_hand_written_answers_of_every_kind() -> None:
    assert len(ITEMS) >= 150 and len({(i.question, i.text) for i in ITEMS}) == len(ITEMS)
    assert {i.kind for i in ITEMS} == {"yes_no", "number", "status", "choice"}
    assert sum(i.truth is None for i in ITEMS) >= 40  # plenty of answers that must not commit


def test_at_most_one_committed_reading_in_two_hundred_is_wrong_on_answers_nobody_tuned_on() -> None:
    result, wrong = score(ITEMS)
    print(f"\naudit: {result.items} answers, precision {result.precision:.2%} "
          f"({result.wrong} wrong of {result.committed} committed), recall {result.recall:.2%}")
    assert result.precision >= PRECISION_AT_LEAST, [(i.text, i.truth, got) for i, got in wrong]


# --- properties over the audit's committed answers: wrapping one in a guess, an exception, a
# restriction to others or a contradicting source never leaves a committed value ---------------

from dataclasses import replace  # noqa: E402

from answer_corpus import committed, read, right  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# (an answer that opens with a question would take the wrap into the question it asks back)
COMMITTED = [i for i in ITEMS if i.truth is not None and right(i, read(i)) and "?" not in i.text]


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _bare(text: str) -> str:
    return text.rstrip(".! ")


WRAPS = {
    "a guess": lambda t: f"Probably {_lower(t)}",
    "a supposition": lambda t: f"I suppose {_lower(t)}",
    "a rule with its exception": lambda t: f"Usually {_lower(_bare(t))}, though some items are excluded.",
    "a rule, its exception in the next sentence": lambda t: f"Normally: {t} But there are exceptions.",
    "a contradicting source": lambda t: f"Our system says {_lower(_bare(t))}, but the carrier's site says otherwise.",
    "an admitted doubt": lambda t: f"{_bare(t)}, but honestly I couldn't say for certain.",
    "a restriction to others": lambda t: f"{_bare(t)}, for Plus members only.",
}


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(COMMITTED), st.sampled_from(sorted(WRAPS)))
def test_a_committed_answer_wrapped_in_a_guess_an_exception_or_a_contradiction_never_commits(item, wrap) -> None:
    if item.kind == "status" and wrap == "a restriction to others":
        return  # a status holds for the order whoever the customer is
    wrapped = replace(item, text=WRAPS[wrap](item.text))
    assert not committed(read(wrapped)), (wrap, wrapped.text, read(wrapped))
