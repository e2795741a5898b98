"""The answer reader measured as a classifier (issue 28): on the composed and hand-written table of
tests/answer_corpus.py, a committed reading is wrong when it is not the answer's one true reading
(or when the answer has none: a hedge, a doubt, a restricted yes). Precision (right ÷ committed)
must be at least 99.5% on the development part and on the held-out part; recall (right ÷ answers
that have one reading) is reported (`-s`, or `python bench/answer_reader.py`)."""

from __future__ import annotations

import pytest
from answer_corpus import SEED, composed, score, table

PRECISION_AT_LEAST = 0.995


def test_the_table_holds_at_least_a_thousand_answers_in_a_fixed_split() -> None:
    items = table()
    parts = {part: [i for i in items if i.part == part] for part in ("dev", "heldout")}
    assert len(items) >= 1000 and len(parts["heldout"]) >= 300 and len(parts["dev"]) >= 600
    assert composed(SEED) == composed(SEED)  # one seeded generator: the same table every run
    assert any(i.truth is None for i in items) and any(i.truth is not None for i in items)


@pytest.mark.parametrize("part", ["dev", "heldout"])
def test_at_most_one_committed_reading_in_two_hundred_is_wrong(part: str) -> None:
    items = [i for i in table() if i.part == part]
    result, wrong = score(items)
    print(f"\n{part}: {result.items} answers, precision {result.precision:.2%} "
          f"({result.wrong} wrong of {result.committed} committed), recall {result.recall:.2%}")
    assert result.precision >= PRECISION_AT_LEAST, [(i.text, i.truth, got) for i, got in wrong]
