"""Reading a yes or a no, as the answer to the question that was asked.

A sentence may open (or close) with a particle that says yes or no outright: "yes", "nope",
"Absolutely not", "Of course not", "Sure can't", "Not at all", "I'm afraid so", "Unfortunately
yes", "Sadly you can, ...", "It won't.". Sentences without one are read by their gist, and the
gist depends on the question: "There's no fee" answers "Is there a fee?" with no, but says
nothing about "Can I return it?"; "It ships free of charge" answers "Will it ship free?" with
yes. Agreement and reassurance carry no polarity of their own ("Correct, there is no fee",
"No problem, you can return it", "No worries, yes") and count as a yes only when nothing else
is said. A particle that the gist contradicts (only contradicts) is a hedge, and so is any
answer that says it is unsure ("yes or no", "maybe", "I can't say"). Only one reading may
survive (`scope`): a doubt reverses what follows ("I doubt you can" is a no), a condition or an
exception leaves the customer's case open ("only if they're unworn", "except socks"), and an
opening apology contradicts good news read from the words after it.
"""

from __future__ import annotations

import re
from typing import Literal

from verishop.scenarios.answers.scope import content_words, doubted, restrictions, unsure
from verishop.scenarios.answers.text import AMBIGUOUS, Reading, one, plain, sentences
from verishop.scenarios.money import USD, as_shop_money

Topic = Literal["ability", "fee", "free_shipping"]

_ADV = (r"(?:maybe|perhaps|possibly|probably|absolutely|certainly|definitely|of course|sure|surely|really|technically|"
        r"totally|honestly|actually|well|oh|"
        r"most (?:certainly|definitely)|unfortunately|sadly|regrettably|i'?m afraid|i am afraid|afraid|"
        r"i'?m (?:so |very )?sorry(?:,? but)?|sorry(?:,? but)?|i'?m sorry to say|alas)")
_SUBJECT = r"(?:it|you|they|there|that|this|we|i|he|she)"
_END = r"(?=$|[,.!;:]| i'?m afraid\b| unfortunately\b| sadly\b| sorry\b| though\b| indeed\b)"
_NO_PARTICLE = re.compile(
    rf"^(?:{_ADV}[, ]+)*(?:"
    rf"not at all|not really|not quite|no way|no can do|nope|nah|negative|(?:that'?s|that is|it'?s|it is) a (?:hard |firm )?no(?:{_END}| (?=(?:on|for|from)\b))|"
    rf"no{_END}|no(?= (?:it|you|they|there|that|this|we|i|i'?m|sorry|unfortunately|sadly|afraid|never|not)\b)|"
    rf"not{_END}|not(?= (?:for|after|once|if|unless|in|on|with|when|while|since|anymore|any more|this time)\b)|"
    rf"never{_END}|never(?= (?:for|after|once|if|on)\b)|"
    rf"afraid not|none(?: at all)?{_END}|i don'?t think so|i do not think so|i don'?t believe so|"
    rf"(?:{_SUBJECT} )?(?:sure |certainly |definitely )?(?:can'?t|cannot|can not|won'?t|will not|isn'?t|is not|"
    rf"doesn'?t|does not|don'?t|do not|aren'?t|are not|wouldn'?t|would not|'s not|'s none){_END})")
_YES_PARTICLE = re.compile(
    rf"^(?:{_ADV}[, ]+)*(?:"
    rf"yes|yeah|yep|yup|yea|aye|affirmative|you bet|sure thing|yes indeed|(?:that'?s|that is|it'?s|it is) a yes{_END}|"
    rf"(?:i'?m |i am )?afraid so|i think so|i believe so|"
    rf"(?:{_SUBJECT} )?(?:sure |certainly |definitely |absolutely |indeed |still )?"
    rf"(?:can|could|may|will|does|do|is|are|'s one|is one|qualifies|sure does|sure can|sure is)(?: still|"
    rf" indeed)?{_END})\b")
_POSITIVE_ALONE = re.compile(r"^(?:maybe|perhaps|possibly|probably|absolutely|certainly|definitely|of course|"
                             r"sure|surely|indeed|totally|"
                             r"for sure|most (?:certainly|definitely)|by all means)(?=$|[,.!;:])")
_CLOSING_PARTICLE = re.compile(r"(?:^|[,;] |\bthe (?:short )?answer is |\bso |\bthen )"
                               r"(?:(?:so|then|and|sadly|unfortunately|i'?m afraid|that'?s a|it'?s a) )?"
                               r"(?P<word>yes|yep|yeah|no|nope)$")
# Said before an answer, or instead of one: agreement and reassurance have no polarity.
_FILLER = re.compile(r"^(?:(?:(?:hi|hello|hey)(?: there)?|ok|okay|alright|all right|so|well|hmm|great|good news|bad news|"
                     r"(?:good|great) question|thanks?(?: you)?(?: for (?:asking|waiting|your patience|reaching out))?|"
                     r"let me (?:check|see|look)(?: that| this| into (?:it|that))?(?: for you)?|"
                     r"i (?:just |have |'ve )?checked(?: (?:it|that|for you))?)"
                     r"(?:[,!.:]+ ?| ))+")
_WEAK_YES = re.compile(r"^(?:no problem(?: at all)?|not a problem|no worries|no trouble|not an issue|no issue|"
                       r"(?:that'?s|that is|you'?re|you are) (?:correct|right|exactly right)|correct|right|exactly|"
                       r"that'?s true|true)(?:[,!.:]+ ?| |$)")
_LET_ME = re.compile(r"^(?:let me|i (?:just |have |'ve )?(?:looked|checked|had a look)|i'?ll|i will|one moment|"
                     r"give me|happy to|glad to|i'?d be happy|i'?m happy|i can help)")
# "Yes, no problem" is a yes; "yes, no." and "yes or no" offer both.
# "Yes, sorry, I mean no": a yes and a no, one taking the other back, leave the customer to ask again.
_TAKEN_BACK = (r"\b(?:i mean|i meant|i misspoke|i misread|correction|scratch that|wait|rather|sorry|actually|make that|"
               r"or rather)\b(?:\W+(?:hmm+|um+|uh+|er+m?|well|oh|no wait|wait))*\W*(?:it'?s |that'?s |the answer is )?")
_YES_WORD = r"\b(?:yes|yeah|yep|sure(?: thing)?|of course|absolutely|certainly|definitely)\b(?! not\b)"
_NO_WORD = r"\b(?:no|nope)\b(?! (?:problem|worries|trouble|issue|fee|charge|cost|need))"
_HEDGE = re.compile(rf"{_YES_WORD}.*{_TAKEN_BACK}{_NO_WORD}|{_NO_WORD}.*{_TAKEN_BACK}{_YES_WORD}|"
                    r"\b(?:yes|yeah|yep)\b\s*(?:or|/|and)\s*\b(?:no|nope)\b|\b(?:no|nope)\b\s*(?:or|/)\s*\b(?:yes|yep)\b|"
                    r"\b(?:yes|yeah|yep)\s*,\s*(?:no|nope)\s*(?:$|[.!?;])")


def topic_of(question: str | None) -> Topic | None:
    """What a yes/no question asks about: free shipping, a fee, or whether something can be done."""
    if not question:
        return None
    q = plain(question)
    if re.search(r"\bships? (?:for )?free\b|\bfree (?:standard )?shipping\b", q):
        return "free_shipping"
    if re.search(r"\b(?:is|are|will|would) there (?:be )?(?:a|an|any) (?:\w+ )?(?:fee|charge|surcharge)s?\b|"
                 r"\bdo you charge\b", q):
        return "fee"
    if re.search(r"\b(?:can|may|could) (?:i|we|you|they|it)\b", q):
        return "ability"
    return None


# Gist tables: (polarity, pattern), applied in order; each match is used once, so an earlier
# pattern ("isn't final sale") keeps a later one ("final sale") from reading the same words.
_ABILITY: tuple[tuple[str, str], ...] = (
    ("yes", r"(?:not|isn'?t|is not|aren'?t|are not|it'?s not) (?:a |an )?(?:final[- ]sale|too late|expired|closed|"
            r"past (?:the|your) (?:window|deadline))"),
    ("no", r"(?:not|isn'?t|is not|'s not|aren'?t|are not|never) (?:really )?(?:something|anything|one|an item|a thing|"
           r"the kind of (?:thing|item)|what) (?:that )?(?:\w+ ){0,2}(?:can|could|will|would|are able to|is able to)|"
           r"can(?:'?t|not| not| no longer| never)|couldn'?t|could not|won'?t be able|will not be able|unable|"
           r"no way to|there'?s no way|no (?:\w+ ){1,2}(?:can|could|may) be|"
           r"ineligible|(?:won'?t|will not|wouldn'?t|would not) be (?:\w+ )?(?:possible|allowed|accepted|eligible|"
           r"returnable|refundable)|"
           r"(?:aren'?t|isn'?t|not|never|no longer) (?:\w+ )?(?:able|allowed|permitted|possible|eligible|returnable|"
           r"accepted|refundable|cancell?able)|non[- ]?returnable|final[- ]sale|no longer|too late|"
           r"(?:window|period|deadline) (?:has |had |is )?(?:already )?(?:closed|passed|expired|ended|lapsed|over)|"
           r"(?:days|window|period|time) (?:are|is|has|have) (?:already )?(?:up|over|gone|run out)|time'?s up|"
           r"(?:past|outside|beyond) (?:the |your |its )?(?:[\w-]+ ){0,2}(?:window|period|deadline)|"
           r"return(?:ed)? (?:it |them )?instead|instead,? (?:you'?ll |you will |you can |you'?d )?(?:need to |"
           r"have to )?"
           r"return|(?:won'?t|will not|don'?t|do not|doesn'?t|does not) (?:accept|allow|take|permit)|impossible|"
           r"excluded|exempt from|not covered"),
    ("yes", r"(?:you'?re|they'?re|it'?s) (?:still |also )?(?:able|allowed|welcome|free) to|"
            r"(?:cancell?(?:ing|ation)|returns?|returning|exchanges?|exchanging) (?:is|are) (?:completely |totally |"
            r"always |also |still )?(?:free|allowed|fine|possible|accepted)|"
            r"no (?:charge|fee|cost)s?(?: at all)? (?:to|for)(?= (?:cancel|return|exchange))|"
            r"(?:we|they) (?:do |gladly |happily |still |also )?(?:accept|allow|permit|take (?:it |them )?back)|"
            r"(?:you|it|they|that|this|items?|which|the \w+|we|\w+s) (?:\w+ )?(?:can|may|could|are able to|is able to|"
            r"are allowed to|is allowed to|will be accepted|qualif\w*)|"
            r"(?:is|are|it'?s|they'?re|that'?s) (?:still |absolutely |definitely |fully )?(?:returnable|eligible|"
            r"allowed|"
            r"accepted|fine|covered|in time|possible|cancell?able)|"
            r"you'?re (?:still )?(?:fine|good|ok|okay|covered|in time|eligible|within)|(?:still|well|"
            r"comfortably) within|"
            r"free of charge|free to (?:cancel|return)|you (?:still )?have (?:until|time|\d+|\w+ (?:more )?days)|"
            r"there'?s still time|there is still time|"
            r"days? (?:left|remaining)|"
            r"feel free(?! to (?:reach|ask|contact|get in touch|let|message|write|call|email|drop))|go ahead|by all means|"
            r"no problem|not a problem"),
)
_FEE: tuple[tuple[str, str], ...] = (
    ("no", r"no (?:\w+ )?(?:restocking )?(?:fees?|charges?|costs?|deductions?)|"
           r"(?:fees?|charges?) (?:is |are |will be |would be |gets |get )?waived|waive[ds]?|free of charge|"
           r"without (?:a |any )?(?:\w+ )?(?:fee|charge)|(?:fee|charge)[- ]free|nothing (?:is |will be )?"
           r"(?:deducted|charged|taken)|not charged|(?:full|complete|entire|whole|100%) refund|"
           r"(?:don'?t|do not|doesn'?t|does not|won'?t|will not|wouldn'?t|would not|never) (?:\w+ ){0,2}(?:charge[ds]?|"
           r"apply|deduct(?:ed)?|carry|owe|cost|pay|incur|come with|have)|(?:isn'?t|is not|aren'?t|are not|'s not|not|never) (?:a |"
           r"any )?(?:\w+ )?(?:fee|charge)|"
           r"\b0 ?%|zero (?:\w+ )?(?:percent|fees?|charges?)|there(?: isn'?t| is not|'s not|'s none| is none)"
           r"(?: one| any)?(?= *$| *[.,;!])"),
    ("yes", r"(?:there(?:'s| is| will be| would be)|you'?ll pay|you will pay|you'?d pay|comes with|carr(?:y|ies)|"
            r"charges?|charged|incur|appl(?:y|ies)|deduct\w*|subject to) (?:\w+ ){0,3}(?:fee|charge|percent|%)|"
            r"\d+(?:\.\d+)? ?%|\w+ percent|(?:fee|charge) (?:of|is|applies|will apply|would apply|does apply)|"
            r"we (?:charge|deduct|keep|withhold)|you(?:'ll| will| would|'d) (?:be charged|get back less|lose)|"
            r"(?:less|minus) (?:a|the)"),
)
_FREE_SHIPPING: tuple[tuple[str, str], ...] = (
    ("no", r"(?:won'?t|will not|doesn'?t|does not|wouldn'?t|would not|isn'?t|is not|not|never|can'?t|cannot|"
           r"don'?t|do not) (?:\w+ ){0,2}(?:ship(?:s|ped|ping)? (?:for )?free|free|qualify|qualif\w*|eligible|"
           r"reach|meet|"
           r"hit|enough|make it)|not free|(?:short|under|below|less than|shy) (?:of )?(?:the )?(?:\$[\d.,]+|"
           r"threshold|minimum|"
           r"limit|free)|(?:you'?ll|you will|you'?d|you would|you'?ll have to|you need to) (?:\w+ ){0,2}"
           r"(?:pay|be charged)|shipping (?:costs?|is|will be|would be|of|fee of|charge of|at) \$?\d|"
           r"standard (?:shipping|rate)s? (?:appl(?:y|ies)|of|at|is)"),
    ("yes", r"ship(?:s|ped|ping)? (?:for |at no cost|completely |totally |entirely )?free|free (?:standard )?"
            r"(?:shipping|delivery)|(?:qualif\w*|eligible) (?:for )?(?:free|it)|(?:shipping|delivery) (?:is|will be|"
            r"would be|comes|is completely|is totally) (?:free|on us|included|covered)|no (?:shipping|delivery) "
            r"(?:charges?|costs?|fees?)|(?:won'?t|will not|don'?t|do not|wouldn'?t) (?:\w+ ){0,2}pay (?:\w+ ){0,2}"
            r"(?:shipping|delivery|anything)|(?:over|above|meets|clears|exceeds|reaches|hits|past) (?:the )?"
            r"(?:\$[\d.,]+|threshold|minimum)|free of charge|at no (?:extra )?cost|\$0(?:\.00)?\b"),
)
_RULE = re.compile(r"\b(?:if|unless|as long as|only|orders|purchases|members|items|from \$|over \$|above \$|"
                   r"or more|policy|normally|usually|generally|starts? at|kicks? in|threshold|minimum|"
                   r"(?:need|needs|have|has) to (?:spend|reach|hit|add)|spend (?:at least|over|more)|"
                   r"(?:to|would) (?:get|qualify for|unlock))\b")
_TABLES = {"ability": _ABILITY, "fee": _FEE, "free_shipping": _FREE_SHIPPING, None: _ABILITY + _FEE}


_ACTION = re.compile(r"\b(cancel|return|exchange|send (?:it |them )?back|refund)")
_ACTION_AFTER = re.compile(r"\s*(?:(?:be|still|also|only|always|just|it|them|easily)\s+)*(cancel|return|exchange|"
                           r"send|refund)")


_ACTION_BEFORE = re.compile(r"\b(cancel|return|exchange|refund)(?:s|ed|ing|lation|llation)?\s+$")


def _action(words: str) -> str:
    return "return" if words.startswith("send") else words


def _gist(text: str, topic: Topic | None, question: str | None) -> set[str]:
    """The polarities the sentences state about the question's topic. For "Can I cancel...?", a
    "you can return it" is about another action and says nothing."""
    asked = _ACTION.search(plain(question or "")) if topic == "ability" else None
    found: set[str] = set()
    for polarity, pattern in _TABLES[topic]:
        regex = re.compile(rf"(?<![\w$])(?:{pattern})(?![\w])")
        for m in regex.finditer(text):
            # "you can return it instead", "a return is possible": about another action than the one asked
            # (a yes that names its action, "cancelling is free", is about that action; a no that
            # names one, "it must be returned instead", says why the asked one cannot be done)
            other = (_ACTION_AFTER.match(text, m.end()) or _ACTION_BEFORE.search(text, 0, m.start())
                     or (_ACTION.match(m.group(0)) if polarity == "yes" else None))
            if polarity == "yes" and _NEGATED_BEFORE.search(text, 0, m.start()):
                continue  # "it can't be cancelled free of charge": the "free of charge" is what is denied
            if not (asked and other and _action(other[1]) != _action(asked[1])):
                # "I doubt you can", "I don't think there's a fee": the opposite of the words inside
                found.add(_OPPOSITE[polarity] if doubted(text, m.start()) else polarity)
        text = regex.sub(" |no| " if polarity == "no" else " | ", text)
    return found


_OPPOSITE = {"yes": "no", "no": "yes"}
# A no read earlier in the same clause: what follows in that clause is inside its scope.
_NEGATED_BEFORE = re.compile(r"\|no\|[^,.;:!?|]*$")


def _particles(parts: list[str]) -> tuple[set[str], bool]:
    """The polarities said outright, and whether only agreement or reassurance was said."""
    found: set[str] = set()
    weak = False
    for i, s in enumerate(parts):
        s = _FILLER.sub("", s)
        while (m := _WEAK_YES.match(s)) is not None:
            weak, s = True, s[m.end():].lstrip(" ,.!;:")
        if _NO_PARTICLE.match(s):
            found.add("no")
        elif _YES_PARTICLE.match(s):
            found.add("yes")
        elif _POSITIVE_ALONE.match(s):
            # "Sure! Let me check." is an offer to look, not an answer.
            following = parts[i + 1] if i + 1 < len(parts) else ""
            if not _LET_ME.match(s[_POSITIVE_ALONE.match(s).end():].lstrip(" ,!.")) and not _LET_ME.match(following):
                found.add("yes")
        elif (m := _CLOSING_PARTICLE.search(s)) is not None:
            found.add("yes" if m.group("word") in ("yes", "yep", "yeah") else "no")
    return found, weak


def read_yes_no(text: str | None, question: str | None = None, currency: str = USD) -> Reading:
    """"yes", "no", None or AMBIGUOUS: what `text` answers to `question` (see the module docstring).
    Without a question the gist of "can"/"can't" and of a fee ("there's no fee") is read. Amounts
    ("short of €35") are in the shop's `currency` (`verishop.scenarios.money.as_shop_money`)."""
    if not text:
        return None
    t = as_shop_money(plain(text), currency)
    if _HEDGE.search(t):
        return AMBIGUOUS
    t = re.sub(r"\bwhether or not\b", " ", t)
    parts = sentences(t)
    said, weak = _particles(parts)
    gist = _gist(" . ".join(_FILLER.sub("", p) for p in parts), topic_of(question), question)
    if unsure(t):
        return AMBIGUOUS if said or gist or weak else None
    reading = _reading(parts, said, weak, gist, question)
    if reading is None or reading is AMBIGUOUS:
        return reading
    # Only one reading may survive its conditions and its apology: "You can return them only if
    # they're unworn" and "Yes, except socks" say yes for some cases; "Sorry, but we can only
    # offer an exchange" opens a refusal whose words the gist reads as a yes.
    if _restricted(t, question):
        return AMBIGUOUS
    good_news = "no" if topic_of(question) == "fee" else "yes"
    if reading == good_news and not said and _REFUSAL_OPENING.match(_FILLER.sub("", parts[0])):
        return AMBIGUOUS
    return reading


def _reading(parts: list[str], said: set[str], weak: bool, gist: set[str], question: str | None) -> Reading:
    if len(said) > 1:
        return AMBIGUOUS
    if said:
        # A rule restated beside the particle ("Plus members get free shipping from $35") is
        # not about this case: only the other clauses can contradict the particle.
        clauses = [c for p in parts for c in re.split(r"[,;]", _FILLER.sub("", p)) if not _RULE.search(c)]
        case = _gist(" . ".join(clauses), topic_of(question), question)
        return next(iter(said)) if not case or said <= case else AMBIGUOUS
    if gist:
        return one(gist)
    return "yes" if weak else None


# An apology that opens the answer announces bad news (a no to "Can I?", a yes to "Is there a
# fee?"), unless it is about something else ("Sorry for the wait!"): good news read from the gist
# after it, with no particle said, is a reading the apology contradicts.
_REFUSAL_OPENING = re.compile(r"^(?:(?:i'?m|i am) (?:so |very |really |terribly )?sorry|sorry|unfortunately|sadly|"
                              r"regrettably|(?:i'?m |i am )?afraid|i (?:must |do )?apologi[sz]e|(?:my )?apologies|alas)"
                              r"\b(?! (?:for|about|to keep|to hear|if|again)\b)")
# "we can only offer an exchange": the ability is restricted to something else.
_ONLY = re.compile(r"\b(?:can|could|may|will) (?:\w+ )?only\b|(?<!the )\bonly (?:[\w-]+ ){0,3}(?:can|could|may|are|is|qualify|"
                   r"qualifies)\b|\b(?:we|they|you) only\b")
# A time window restated as the condition of a yes to "Can I return it?" ("as long as it's within
# 30 days") is the policy's rule, not a case the customer cannot place; to "Can I *still* return
# it?" it is no answer.
_WINDOW = re.compile(r"^(?:it'?s |you'?re |they'?re |it is |you are |they are )?(?:still )?(?:within|in) (?:the |your |its |a )?"
                     r"(?:\d+|\w+)?[- ]?(?:days?|weeks?|window|return window|period)\b")


# "Yes for unopened kettles", "no if it's been worn": a yes or a no said for some cases only.
_PARTICLE_FOR_CASES = re.compile(r"\b(?:yes|yeah|yep|no|nope)\s+(?:for|if|when|with|unless|except|provided|"
                                 r"as long as)\b(?P<cases>[^.;!?,]*)")


def _restricted(t: str, question: str | None) -> bool:
    still = bool(re.search(r"\bstill\b", plain(question or "")))
    conditions = [c for c in restrictions(t, question) if still or not _WINDOW.match(c)]
    asked = content_words(plain(question or ""))
    # the question's own item restated ("no for headphones" to a question about headphones) is no case
    cases = [m for m in _PARTICLE_FOR_CASES.finditer(t) if not content_words(m["cases"]) <= asked]
    return bool(conditions or _ONLY.search(t) or cases)
