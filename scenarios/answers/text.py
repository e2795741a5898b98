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
UNSURE = re.compile(r"\b(?:not (?:\w+ )?sure|unsure|can(?:'t|not|not) (?:say|tell|confirm|be sure|promise)|"
                    r"(?:don't|do not|doesn't) know|no idea|hard to say|not certain|uncertain|"
                    r"may or may not|might or might not|could go either way|it depends|depends on|either way|"
                    r"one or the other|(?<!whether )or not\b|or maybe|maybe|perhaps|possibly|"
                    r"sometimes|occasionally|at times|in (?:some|certain|most|rare) cases|not always|"
                    r"(?:can|may|might) (?:vary|differ|change)|varies|depending on|unlikely|no guarantee|"
                    r"(?:it'?s|it is) possible|for some\b(?! reason)|i'?d (?:have|need) to check|then again|on the other hand|"
                    r"(?:can|could|may|might) be (?:more|less|higher|lower|longer|shorter|different)|(?:could|can|might) try|"
                    r"give or take|more or less|or so|or at least|seems?|seemingly|appears? to|apparently|supposedly|"
                    r"(?:though|although|but)\b[^.;!?]*\b(?:costs? more|costs? less|more for|less for|higher for|"
                    r"lower for|longer for|shorter for))\b")
# A possibility about the present or past, not a permission ("you may return it") nor a future
# with its time ("it might arrive tomorrow" is about when, not whether).
_POSSIBLE = re.compile(r"\b(?:might(?! (?:want|like|wish)\b)|(?<!\byou )may (?!be (?:returned|cancell?ed|exchanged|"
                       r"refunded|sent)\b(?! already| by now)|not\b)(?:be|have|not|also|only|still|already|well|take|apply|come|go|"
                       r"ship|incur|cost|show|need|be able)\b|could (?:be|have|also|possibly|well|take|go|come|"
                       r"apply|cost)\b|(?:it|there|that|this|which) could\b|should (?:\w+ ){0,3}(?:by now|already)\b)")
_FUTURE = re.compile(r"[^.;!?]{0,40}\b(?:tomorrow|today|tonight|soon|later|next|this (?:week|afternoon|evening|"
                     r"weekend)|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the|end)|"
                     r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b")


def future(text: str, at: int) -> bool:
    """Whether the words after `at` put what was said in the future ("... tomorrow", "by Friday")."""
    return bool(_FUTURE.match(text, at))


def unsure(text: str) -> bool:
    """Whether a plain text says it does not know, or offers a possibility beside its answer."""
    if UNSURE.search(text):
        return True
    return any(not _FUTURE.match(text, m.end()) for m in _POSSIBLE.finditer(text))


# Said before a statement, these deny it ("I doubt you can" is a no, "I don't think it's 30 days"
# names no figure): negated belief, reaching to the end of its clause.
DOUBT = re.compile(r"\b(?:i (?:really |strongly |very much )?doubt|i (?:don'?t|do not) (?:think|believe|reckon|"
                   r"suppose|expect)|i wouldn'?t (?:say|think)|(?:it'?s|it is|it isn'?t) (?:not )?true(?= that)|"
                   r"it isn'?t (?:the case|so)(?= that)|it'?s not (?:the case|so)(?= that)|i wish i could (?:say|tell you)|"
                   r"i (?:can'?t|cannot) say(?= that))\b(?! so\b)")
CLAUSE_END = re.compile(r"[.;!?:]|,\s*(?:but|though|although|however|yet|whereas|while)\b|\b(?:but|however)\b")


def doubted(text: str, at: int) -> bool:
    """Whether the words at `at` are inside the scope of a doubt (`DOUBT`) in the same clause."""
    for m in DOUBT.finditer(text):
        if m.end() > at:
            break  # a gist that takes the doubt's own negation in ("don't think it ships free") reads it already
        if not CLAUSE_END.search(text, m.end(), at):
            return True
    return False


# A condition or an exception that restricts the answer to some cases: which the customer's case is,
# the answer does not say ("You can return them only if they're unworn", "no fee, unless it's opened",
# "yes, except socks"). "even if" concedes, it does not restrict.
RESTRICTION = re.compile(r"\b(?:only (?:if|when|after|before|with)|as long as|so long as|provided(?: that)?|providing|"
                         r"on (?:the )?condition|assuming|unless|except(?: for| if| when| that)?|excluding|other than|"
                         r"apart from|aside from|with the exception of|but not|(?:anything|everything|all|any item|all items) but|"
                         r"(?<!even )if)\b(?P<condition>[^.;!?]*)")
# "if you'd like", "if you want to": the customer's choice, not a case the answer leaves open.
_AT_WILL = re.compile(r"^(?:you'?d like|you would like|you (?:want|wish|prefer|like|need)|needed|necessary|"
                      r"(?:that|it) helps|so)\b")
_HELP_OFFER = re.compile(r"(?:let me know|ask|reach out|contact us|get in touch|happy to help|here to help|glad to help)"
                         r"\W*$")
_ANY_MORE = re.compile(r"^\s*(?:you (?:have|need|want)|there'?s|there is) (?:any(?:thing)?|other|more|further|some)\b")
_STOPWORDS = frozenset("a an the it its it's is are was were be been being you your you're i i'm we our they them "
                       "their this that these those to of for in on at by with from and or as so do does did has have us me "
                       "had can could will would my me still already just any".split())


def _stem(word: str) -> str:
    return word[:5]


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z0-9$.]+", text) if w not in _STOPWORDS}


_NEGATED = re.compile(r"\b(?:not|no|never|n't|hasn'?t|haven'?t|isn'?t|aren'?t|wasn'?t|weren'?t|don'?t|doesn'?t|"
                      r"didn'?t|won'?t|can'?t|cannot|unopened|unused|unworn)\b|n't\b")


def restrictions(text: str, question: str | None = None) -> list[str]:
    """The conditions and exceptions in a plain text that restrict its answer: a condition the
    question itself states ("if you changed your mind" to "... because I changed my mind?"),
    an offer of more help ("let me know if you need anything") and "even if" are not."""
    asked = content_words(plain(question or ""))
    found = []
    for m in RESTRICTION.finditer(text):
        condition = m["condition"].strip(" ,")
        if m[0].startswith("if") and (_HELP_OFFER.search(text, 0, m.start()) or _ANY_MORE.match(condition)
                                      or _AT_WILL.match(condition)):
            continue
        words = content_words(condition)
        exception = not re.match(r"(?:only )?(?:if|when|after|before|with|as long|so long|provided|providing|on|"
                                 r"assuming)\b", m[0])
        if asked and words and not exception and words <= asked and not _NEGATED.search(condition):
            continue  # the question's own condition, restated
        found.append(condition)
    return found
