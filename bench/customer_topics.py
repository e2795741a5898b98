"""How well the customer reads what an agent asks (issue 28): the labelled request table
(`tests/customer_requests.py`: the table and the held-out part; `tests/customer_requests_audit.py`: the audit's) through the topic recogniser (`verishop.scenarios.customers.topics`).

Prints the requests, the share read exactly as labelled ("understood"), the requests read with a
topic their label lacks ("wrong reveals": a detail nobody asked for would be told; must be 0),
and every request read otherwise.

    python bench/customer_topics.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from customer_requests import HELD_OUT, REQUESTS  # noqa: E402
from customer_requests_audit import AUDIT_ALL  # noqa: E402

from verishop.scenarios.customers.topics import asked  # noqa: E402


def main() -> None:
    for name, table in (("table", REQUESTS), ("held-out", HELD_OUT), ("audit", AUDIT_ALL)):
        print(f"--- {name}")
        report(table)


def report(table: tuple[tuple[str, frozenset[str]], ...]) -> None:
    readings = [(text, label, asked(text)) for text, label in table]
    understood = sum(got == label for _, label, got in readings)
    wrong = [(text, label, got) for text, label, got in readings if got - label]
    missed = [(text, label, got) for text, label, got in readings if got != label and not got - label]
    print(f"requests: {len(readings)}")
    print(f"understood: {understood} ({understood / len(readings):.1%})")
    print(f"wrong reveals: {len(wrong)}")
    for kind, rows in (("WRONG", wrong), ("MISSED", missed)):
        for text, label, got in rows:
            print(f"{kind}  {text!r}: labelled {sorted(label)}, read {sorted(got)}")


if __name__ == "__main__":
    main()
