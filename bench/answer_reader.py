"""Precision and recall of the answer reader on the classifier table (issue 28).

    .venv/bin/python bench/answer_reader.py            # both parts, per kind
    .venv/bin/python bench/answer_reader.py --part dev --wrong   # and list the wrong readings

The table is tests/answer_corpus.py (seeded composition plus hand-written answers, split by hash
into a development part and a held-out part)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from answer_audit import ITEMS as AUDIT  # noqa: E402
from answer_corpus import score, table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("dev", "heldout", "both", "audit"), default="both",
                        help="audit: the independent hand-written table of tests/answer_audit.py")
    parser.add_argument("--wrong", action="store_true", help="list each wrong reading")
    args = parser.parse_args()
    items = table()
    for part in ("dev", "heldout") if args.part == "both" else (args.part,):
        mine = AUDIT if part == "audit" else [i for i in items if i.part == part]
        for kind in ("all", "yes_no", "number", "status", "choice"):
            rows = mine if kind == "all" else [i for i in mine if i.kind == kind]
            result, wrong = score(rows)
            print(f"{part:8} {kind:7} answers {result.items:5}  committed {result.committed:5}  "
                  f"wrong {result.wrong:3}  precision {result.precision:7.2%}  recall {result.recall:7.2%} "
                  f"(of {result.definite} with one reading)")
            if args.wrong and kind == "all":
                for item, got in wrong:
                    print(f"    {item.kind}: {item.text!r} (truth {item.truth}, read {got})")


if __name__ == "__main__":
    main()
