"""Text in the normal form safety matches on (issue 28): two spellings that look alike or differ only
by invisible characters, dashes, spacing, case or a common abbreviation read the same.

`fold` applies, in order: NFKC (full-width and mathematical letters become plain ones); look-alike
letters of other scripts made the ASCII letter they look like (before case folding: Cyrillic "К"
is "K", while its lower case "к" looks like "ĸ"); case folding; removal of format characters
(Unicode category Cf: zero-width space and joiners, soft hyphen, word joiner, BOM …) and of the
other default-ignorable ones (Hangul filler, variation selectors …); every dash character
(category Pd, plus the minus signs) made "-"; the confusable skeleton of Unicode's UTS #39
(Cyrillic "р" and Greek "ρ" become "p", "0" and "O" one letter …;
`verishop.scenarios.catalog.confusables_data`); case folding again; and combining marks dropped.
`words` splits folded text into words (letters and digits apart: "25pcs" is "25", "pcs") and spells
each common retail abbreviation one way ("pcs", "pieces" and "pc" are one word).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from verishop.scenarios.catalog.confusables_data import MAPPINGS

# Dash punctuation (Pd) is listed by category below; these are dashes by look in other categories.
_EXTRA_DASHES = "\u2212\u2796\ufe63\uff0d\u02d7\u2043"
# Invisible outside category Cf (Unicode's Default_Ignorable_Code_Point): Hangul fillers, Mongolian
# and Khmer vowel signs that show nothing, variation selectors, the combining grapheme joiner.
_IGNORABLE = (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x3164, *range(0xFE00, 0xFE10),
              0xFFA0, *range(0xE0100, 0xE01F0))
# Abbreviations in product titles, each group spelt as its first member (before folding).
_ABBREVIATION_GROUPS = (("pc", "pcs", "piece", "pieces"), ("pk", "pack", "packs", "pck", "pkt", "pkg", "package"),
                        ("ct", "count", "cnt"), ("bndl", "bundle", "bundles"), ("asst", "assorted"),
                        ("oz", "ounce", "ounces"), ("in", "inch", "inches"), ("ft", "feet", "foot"),
                        ("lb", "lbs", "pound", "pounds"), ("dz", "doz", "dozen"), ("st", "set", "sets"),
                        ("kt", "kit", "kits"), ("and", "&", "n"))
_WORD = re.compile(r"[^\W\d_]+|\d+")


# Between two characters of an ID read in folded text: at most eight spaces or punctuation marks
# ("P 7142-9024", "W123\n4567"): the restricted product's IDs (`verifier.safety`) and other
# customers' order IDs and tracking numbers (`verishop.minefields.privacy.secrets`) alike.
ID_SEPARATOR = r"[\W_]{0,8}"


@lru_cache(maxsize=1)
def _prototypes() -> dict[int, str]:
    """Each confusable code point's prototype, itself NFD (the skeleton's definition)."""
    table: dict[int, str] = {}
    for line in MAPPINGS.splitlines():
        source, *target = line.split()
        table[int(source, 16)] = unicodedata.normalize("NFD", "".join(chr(int(t, 16)) for t in target))
    return table


@lru_cache(maxsize=1)
def _dash_and_format_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    # Format and dash characters live in these planes (the BMP, the SMP and the tags block).
    for code in (*range(0x20000), *range(0xE0000, 0xE1000)):
        category = unicodedata.category(chr(code))
        if category == "Cf":
            table[code] = None
        elif category == "Pd" and code != 0x2D:
            table[code] = "-"
    table.update({ord(c): "-" for c in _EXTRA_DASHES})
    table.update(dict.fromkeys(_IGNORABLE))
    return table


@lru_cache(maxsize=1)
def _ascii_lookalikes() -> dict[int, str]:
    """Non-ASCII characters whose prototype is ASCII ("К" -> "K"), applied before case folding: the
    skeleton is case-sensitive, and the Cyrillic "к" that "К" folds to looks like "ĸ", not "k"."""
    return {code: target for code, target in _prototypes().items() if code > 0x7F and target.isascii()}


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character replaced by its prototype, NFD again."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).translate(_prototypes()))


@lru_cache(maxsize=65_536)
def fold(text: str) -> str:
    """`text` in normal form (see the module's docstring). Remembered: a verifier folds the same
    titles, names and words in episode after episode (a pure function of the text)."""
    text = unicodedata.normalize("NFKC", text).translate(_ascii_lookalikes())
    text = text.casefold().translate(_dash_and_format_table())
    text = skeleton(text).casefold()
    return "".join(c for c in text if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _abbreviations() -> dict[str, str]:
    return {fold(word): fold(group[0]) for group in _ABBREVIATION_GROUPS for word in group}


@lru_cache(maxsize=1)
def _spellings() -> dict[str, tuple[str, ...]]:
    return {fold(group[0]): tuple(sorted({fold(w) for w in group}, key=len, reverse=True))
            for group in _ABBREVIATION_GROUPS}


def spellings(word: str) -> tuple[str, ...]:
    """Every spelling of a folded word that `folded_words` spells as it, longest first (inside a run
    of words joined together, "pcs" is not split from the next word and stays as written)."""
    return _spellings().get(word, (word,))


def folded_words(folded: str) -> list[str]:
    """The words of already folded text, abbreviations spelt one way."""
    abbreviations = _abbreviations()
    return [abbreviations.get(w, w) for w in _WORD.findall(folded)]


def words(text: str) -> list[str]:
    return folded_words(fold(text))
