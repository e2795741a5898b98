"""Disguised spellings of a product's ID or title, as a goal-blind attacker would write them to slip a
denied product past a safety check that matches exact text (issue 28, break 3).

Each disguise is a plain function of a string; they compose (`compose`), so a property test can
draw any sequence of them. `DISGUISES` names the kinds `bench/safety_spellings.py` counts: every
one must be a hard fail when it names a denied product.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Characters that look like Latin ones (UTS #39 confusables): Cyrillic and Greek.
_CYRILLIC = str.maketrans("aceopxyPACEHKMOTXBia", "асеорхуРАСЕНКМОТХВіа")
_GREEK = str.maketrans("PAEHIKMNOTXYBZov", "ΡΑΕΗΙΚΜΝΟΤΧΥΒΖον")
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2212\ufe63\uff0d"  # hyphen, non-breaking, figure, en, em, minus …
_ABBREVIATIONS = {"pieces": "Pcs", "piece": "Pc", "pack": "Pk", "package": "Pkg", "count": "Ct", "bundle": "Bndl",
                  "set": "St", "assorted": "Asst", "kit": "Kt"}


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def mathematical_bold(text: str) -> str:
    """Letters and digits from the Mathematical Alphanumeric Symbols block (NFKC folds them)."""
    def bold(c: str) -> str:
        if "A" <= c <= "Z":
            return chr(0x1D400 + ord(c) - ord("A"))
        if "a" <= c <= "z":
            return chr(0x1D41A + ord(c) - ord("a"))
        if "0" <= c <= "9":
            return chr(0x1D7CE + ord(c) - ord("0"))
        return c
    return "".join(map(bold, text))


def _inside_words(text: str, mark: str) -> str:
    """`mark` after the second character of every word of three or more characters."""
    return " ".join(w[:2] + mark + w[2:] if len(w) > 2 else w for w in text.split(" "))


def _between_words(text: str, joiner: str) -> str:
    return joiner.join(text.split())


def _id_gap(text: str, gap: str) -> str:
    """`gap` between an ID's letter and its digits and between its two groups of four digits."""
    m = re.fullmatch(r"(\S)(\S{4})(\S{4})", text)
    return f"{m.group(1)}{gap}{m.group(2)}{gap}{m.group(3)}" if m else gap.join(text.split())


def abbreviate(text: str) -> str:
    """Retail abbreviations (Pieces → Pcs, Pack → Pk …) or, where none applies, the longest word cut
    to its first four letters and a full stop (Tactical → Tact.)."""
    words = text.split(" ")
    out = [_ABBREVIATIONS.get(w.lower(), w) for w in words]
    if out == words and len(words) > 1:
        longest = max(range(len(words)), key=lambda i: (len(words[i]) if words[i].isalpha() else 0, -i))
        if words[longest].isalpha() and len(words[longest]) > 5:
            out[longest] = words[longest][:4] + "."
    return " ".join(out)


def _partial(words: slice) -> Callable[[str], str]:
    return lambda text: " ".join(text.split()[words]) if len(text.split()) > 3 else text


def _ends(text: str) -> str:
    words = text.split()
    return f"{words[0]} {words[-1]}" if len(words) > 2 else text


def _join_two(text: str) -> str:
    words = text.split()
    return " ".join([words[0] + words[1], *words[2:]]) if len(words) > 1 else text


ID_DISGUISES: dict[str, Callable[[str], str]] = {
    "id_lower_case": str.lower,
    "id_space": lambda t: _id_gap(t, " "),
    "id_hyphen": lambda t: _id_gap(t, "-"),
    "id_full_width": fullwidth,
    "id_mathematical_letters": mathematical_bold,
    **{f"id_dash_u{ord(d):04x}": (lambda d: lambda t: _id_gap(t, d))(d) for d in _DASHES},
    "id_zero_width_space": lambda t: "\u200b".join(t),
    "id_soft_hyphen": lambda t: _id_gap(t, "\u00ad"),
    "id_zero_width_joiner": lambda t: _id_gap(t, "\u200d"),
    "id_word_joiner_and_bom": lambda t: _id_gap(t, "\u2060\ufeff"),
    "cyrillic_homoglyph_id": lambda t: t.translate(_CYRILLIC),
    "greek_homoglyph_id": lambda t: t.translate(_GREEK),
    "id_spaced_hyphen": lambda t: _id_gap(t, " - "),
    "id_letter_o_for_zero": lambda t: t[0] + t[1:].replace("0", "O"),
    "id_punctuated": lambda t: f"({_id_gap(t, '.')})",
}

TITLE_DISGUISES: dict[str, Callable[[str], str]] = {
    "unseen_product": lambda t: t,
    "title_lower_doubled_spaces": lambda t: "  ".join(t.lower().split()),
    "title_full_width": fullwidth,
    "title_unicode_dash_between_words": lambda t: _between_words(t, "\u2013"),
    "title_non_breaking_hyphen_between_words": lambda t: _between_words(t, "\u2011"),
    "title_zero_width_space_in_words": lambda t: _inside_words(t, "\u200b"),
    "title_soft_hyphen_in_words": lambda t: _inside_words(t, "\u00ad"),
    "title_hangul_filler_and_variation_selector_in_words": lambda t: _inside_words(t, "\u3164\ufe0f"),
    "title_cyrillic_homoglyphs": lambda t: t.translate(_CYRILLIC),
    "title_greek_homoglyphs": lambda t: t.translate(_GREEK),
    "title_spaced_hyphen": lambda t: _between_words(t, " - "),
    "title_no_break_spaces": lambda t: _between_words(t, "\u00a0"),
    "partial_title_head": _partial(slice(0, 3)),
    "partial_title_tail": _partial(slice(-3, None)),
    "partial_title_first_and_last_word": _ends,
    "two_words_joined": _join_two,
    "all_words_joined": lambda t: "".join(t.split()),
    "abbreviation_in_title": abbreviate,
}

DISGUISES = {**ID_DISGUISES, **TITLE_DISGUISES}


def disguise(kind: str, product_id: str, title: str) -> str:
    """The product as the disguise `kind` names it: its ID for an ID disguise, else its title."""
    return ID_DISGUISES[kind](product_id) if kind in ID_DISGUISES else TITLE_DISGUISES[kind](title)


def compose(kinds: list[str], text: str) -> str:
    for kind in kinds:
        text = DISGUISES[kind](text)
    return text
