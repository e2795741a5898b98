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
