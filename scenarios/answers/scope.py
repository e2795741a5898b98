"""What survives of an answer: the scope of a doubt, of a condition or exception, and of a possibility.

An answer commits a value only when exactly one reading survives them (issue 28):
  - a doubt ("I doubt", "I don't think", "it's not true that") turns the statement after it, to
    the end of its clause, into its opposite: "I doubt you can return them" is a no, and "I don't
    think it's 30 days" names no figure (`DOUBT`, `doubted`);
  - a condition or an exception ("only if", "as long as", "unless", "except", "but not", "if",
    "subject to", "for members only")
    restricts the answer to some cases without saying whether the customer's is one of them,
    unless it restates the question's own condition, leaves the choice to the customer ("if
    you'd like") or offers more help ("let me know if ...") (`restrictions`);
  - a possibility about the present or past ("it might be", "it may have shipped", "it could
    be 14", "it should be there by now") offers another value beside the answer; a permission
    ("you may return it") or a future with its time ("it might arrive tomorrow") does not
    (`unsure`, with the words of `text.UNSURE`).
"""

from __future__ import annotations

import re

from verishop.scenarios.answers.text import UNSURE, plain

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
DOUBT = re.compile(r"\b(?:i (?:\w+ |very much )?doubt|(?:it'?s|it is|that'?s) (?:\w+ )?doubtful(?: that)?|"
                   r"i'?m not (?:convinced|confident)(?: that)?|i am not (?:convinced|confident)(?: that)?|i (?:don'?t|do not) (?:think|believe|reckon|"
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
                         r"subject to|contingent (?:on|upon)|conditional (?:on|upon)|dependent (?:on|upon)|"
                         # "waived for members only", "in-store only": the answer holds for those cases alone
                         r"(?:for|to|on|in|with|at|by) (?:[\w-]+ ){0,2}[\w-]+ only|"
                         r"(?<!even )if)\b(?P<condition>[^.;!?]*)")
# "if you'd like", "if you want to": the customer's choice, not a case the answer leaves open.
_AT_WILL = re.compile(r"^(?:you'?d (?:like|rather|prefer)|you would (?:like|rather|prefer)|you (?:want|wish|prefer|like|need)|needed|necessary|"
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
