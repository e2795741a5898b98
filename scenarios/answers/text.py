"""What every reader shares: the text made plain, the AMBIGUOUS marker and the signs of a hedge.

A reader sees the text after `plain`: Unicode NFKC (full-width "ｙｅｓ" is "yes", a non-breaking
space is a space), curly quotes made straight, dashes made commas, lower case, single spaces.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Final


class _Ambiguous:
    def __repr__(self) -> str:
        return "AMBIGUOUS"


AMBIGUOUS: Final = _Ambiguous()
Reading = object  # a value, None, or AMBIGUOUS

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "`": "'", "\u00b4": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'})
# Dashes between words work as commas ("No worries — yes"); a hyphen inside a word stays.
_DASH = re.compile(r"\s*[\u2012\u2013\u2014\u2015]+\s*|\s+-{1,2}\s+|\s*--\s*")
_RANGE_DASH = re.compile(r"(?<=\d)\s*[\u2012\u2013\u2014\u2015]\s*(?=\$?\d)")
_MARKUP = re.compile(r"[*_#>`~]+")


# Contractions typed without their apostrophe ("isnt", "cant", "youre"): the negation is the answer.
_BARE_CONTRACTION = re.compile(r"\b(is|are|was|were|do|does|did|has|have|had|ca|could|would|should|must|wo|ai)nt\b|"
                               r"\b(you|they)re\b|\b(you|they|it|that|there)(ll|ve|d)\b|\b(that|there|what)s\b|"
                               r"\bim\b")


def _apostrophe(m: re.Match[str]) -> str:
    word = m[0]
    if m[1]:
        return m[1] + "n't"
    if m[2]:
        return f"{m[2]}'re"
    if m[3]:
        return f"{m[3]}'{m[4]}"
    if m[5]:
        return f"{m[5]}'s"
    return "i'm"


def plain(text: str) -> str:
    """`text` as the readers see it (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).replace("\u2010", "-")
    text = text.replace("\u2212", " minus ").replace("\u00d7", " times ")
    text = _RANGE_DASH.sub(" to ", text)
    text = _DASH.sub(", ", text)
    text = _MARKUP.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip().lower()
    return _BARE_CONTRACTION.sub(_apostrophe, text)


_SENTENCES = re.compile(r"(?<=[.!?;:])\s+|(?<=[.!?;])(?=[a-z])|\n+")


def sentences(text: str) -> list[str]:
    """The sentences of an already plain text, without their edge punctuation."""
    return [s.strip(" \"'()[],.!?;:") for s in _SENTENCES.split(text) if s.strip(" \"'()[],.!?;:")]


def one(found: Iterable[object]) -> Reading:
    """The one value found, None for none, AMBIGUOUS for several."""
    values = set(found)
    if not values:
        return None
    return values.pop() if len(values) == 1 else AMBIGUOUS


# Words that say the writer does not know: with a value they make it a hedge, alone no answer.
# Besides "not sure" and "maybe": a possibility ("it might be", "it may have shipped", "it could be
# 14"), a frequency that admits another value ("usually X, sometimes Y", "not always", "in some
# cases", "for some items"), a promise withheld ("I can't promise", "no guarantee").
UNSURE = re.compile(r"\b(?:not (?:\w+ )?sure|unsure|(?:can(?:'t|not|not)|could(?:n't| not)) (?:really |honestly )?"
                    r"(?:say|tell|confirm|be (?:sure|certain|positive)|promise|guarantee)|not (?:\w+ )?(?:certain|positive)|"
                    r"(?:no|not a|haven't a|have no) clue|"
                    r"(?:don't|do not|doesn't) know|no idea|hard to say|not certain|uncertain|"
                    r"may or may not|might or might not|could go either way|it depends|depends on|either way|"
                    r"one or the other|(?<!whether )or not\b|or maybe|maybe|perhaps|possibly|"
                    r"sometimes|occasionally|at times|in (?:some|certain|most|rare) cases|not always|"
                    r"(?:can|may|might) (?:vary|differ|change)|varies|depending on|unlikely|no guarantee|"
                    r"(?:it'?s|it is) possible(?! to\b)|for some\b(?! reason)|i'?d (?:have|need) to check|then again|on the other hand|"
                    r"(?:can|could|may|might) be (?:more|less|higher|lower|longer|shorter|different)|(?:could|can|might) try|"
                    r"give or take|more or less|or so|or at least|seems?|seemingly|appears? to|apparently|supposedly|"
                    r"(?:though|although|but)\b[^.;!?]*\b(?:costs? more|costs? less|more for|less for|higher for|"
                    r"lower for|longer for|shorter for)|"
                    # a source that contradicts: "... but the carrier's site says otherwise"
                    r"(?:says?|said|shows?|showing|lists?|states?|reports?|suggests?|indicates?) (?:otherwise|"
                    r"differently|something (?:else|different))|disagrees?|contradicts?|conflicting|inconsistent|"
                    # exceptions left unnamed: "yes, with a few exceptions", "terms apply", "in theory"
                    r"(?:with|are|is|has|have) (?:a few |some |certain |several |the odd |occasional )?exceptions?|"
                    r"(?:terms|conditions|t&cs|t & cs|restrictions|exclusions|limitations) (?:may |do |will )?apply|"
                    r"in theory|theoretically|in principle|on paper|"
                    # a guess is not an answer: "probably store credit", "likely delivered by now"
                    r"probably|(?<!un)likely|presumably|i (?:guess|suppose|reckon)|"
                    # a rule and its exception: "usually yes, though some kitchen items are excluded",
                    # "normally 30 days, although some appliances have 14"
                    r"(?:usually|normally|generally|typically|mostly|as a rule|in general|for most)\b.*"
                    r"\b(?:but|though|although|except|excluded|excepted|not for|while|whereas|unless))\b")
