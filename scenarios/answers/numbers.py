"""Reading the one number an answer gives: an amount of money, a percentage or a number of days.

The unit comes from the question (`unit_of`): "how much", "$" or "dollars" ask for money, "percent"
or "percentage" for a percentage, "days" or "how long" for days. Knowing it lets the reader
  - read spoken money: "7 dollars and 99 cents", "seven ninety-nine" (7.99), "twelve dollars fifty"
    (12.50), "99 cents", "20 bucks";
  - read durations in days: "two weeks" and "a fortnight" (14), "a week" (7), "a month" (30, the
    policy's month), "N months" (30·N), "a month and a half" (45), "half a month" (15), "48 hours"
    (2; hours that are not whole days are not days);
  - leave out figures in another unit beside the answer: "$12.98, refunded within 5 business days"
    asks money, so 5 is not the answer (alone, a figure in another unit is still read: "$45.00" to a
    question in days is 45); "18 days ago" is never a number of days to answer with.
Figures the question already states, thresholds ("orders of $35 or more") and the usual rule
("the usual window is 14 days") are context when the answer states another figure too ("On your
$41.49 purchase it comes to $12.98"); a figure the answer denies ("30 days, not 45", "not 45 but
30", "30 rather than 45", "I don't think it's 45") is not its answer; a result after "=" or "comes
to" is the answer ("30 + 14 = 44 days"), and so is the total its parts add up to ("51 days, 30
base + 21 holiday"). Several figures offered as alternatives ("30 or 45 days", "between 14 and
30", "30/45", "30, 45, 60", "58 days, 14 days.", "usually 5, sometimes 7", "5 if you paid by card,
10 with PayPal", "the site says 30; the policy page says 14", "$4.99, but it can be $7.99") are a
hedge: AMBIGUOUS. A figure the world gives (`given`, the policy's figures) is not set aside for
its value alone (issue 28): which of two figures the policy states says nothing about which one
is the answer. A figure in parentheses is an aside beside one outside them
("$35.00 for non-members (Plus members: $24.50)"): context after the question's own figures. Dates ("March 3, 2026", "2026-03-03"), times
("2pm") and IDs are never numbers of the answer.

Money is the shop's currency (`currency`, an ISO code; US dollars by default): its sign, code and
names ("€12.98", "12.98 euros", "AED 12.98", "12.98 dirhams") read as "$" and "dollars" do for a
dollar shop (`verishop.scenarios.money.as_shop_money`). A figure in another currency ("$12.98" to a
euro shop, "€12.98" to a dollar shop) is money, but never this shop's: it is never the answer
(alone, nothing is read and the customer asks back); beside the shop's own figure it is context,
and offered as an alternative to it ("€12.98 or $13.50") a hedge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from verishop.scenarios.answers.scope import content_words, doubted, unsure
from verishop.scenarios.answers.text import AMBIGUOUS, Reading, plain
from verishop.scenarios.money import FOREIGN, USD, as_shop_money

Unit = Literal["money", "percent", "days"]

_UNITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                     "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i > 1}
_TWO_DIGITS = (r"(?:(?:" + "|".join(_TENS) + r")(?:[\s-](?:" + "|".join(list(_UNITS)[1:10]) + r"))?|"
               + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")")
_WORD_NUMBER = re.compile(rf"\b(?:(?P<hundreds>{_TWO_DIGITS}|a)\s+hundred(?:\s+and)?(?:[\s-]+(?P<rest>{_TWO_DIGITS}))?"
                          rf"|(?P<small>{_TWO_DIGITS}))\b")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_NOT_FIGURES = re.compile(
    rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?"
    rf"(?:{_MONTHS})\b(?:,?\s+\d{{4}})?|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|"
    rf"3[01])(?:/\d{{2,4}})?\b|"
    rf"\b\d{{1,2}}(?::\d{{2}})?\s?(?:am|pm)\b|\b[a-z]+\d{{5,}}\b|\b[a-z]\s\d{{7,}}\b")
# "one" is usually not a number ("the one you bought"); it is when a unit follows.
_ONE_AS_NUMBER = re.compile(r"\s+(?:more\s+)?(?:day|business day|dollar|buck|cent|percent|week|month|hour|fortnight)")


def _two_digits(words: str) -> int:
    return sum(_TENS.get(w, 0) + _UNITS.get(w, 0) for w in re.split(r"[\s-]+", words))


def _word_value(m: re.Match[str]) -> int:
    if m.group("hundreds"):
        hundreds = 1 if m.group("hundreds") == "a" else _two_digits(m.group("hundreds"))
        return hundreds * 100 + (_two_digits(m.group("rest")) if m.group("rest") else 0)
    return _two_digits(m.group("small"))


def _words_to_digits(t: str, unit: Unit | None) -> str:
    """Number words as digits; with money asked, "seven ninety-nine" (a number, then a number of
    ten or more in words) is $7.99."""
    out, last = [], 0
    matches = list(_WORD_NUMBER.finditer(t))
    skip = set()
    for i, m in enumerate(matches):
        if i in skip:
            continue
        value = _word_value(m)
        nxt = matches[i + 1] if i + 1 < len(matches) else None
        if (unit == "money" and nxt is not None and t[m.end():nxt.start()] == " " and not m.group("hundreds")
                and 1 <= value <= 99 and nxt.group("small") and _word_value(nxt) >= 10):
            out += [t[last:m.start()], f"${value}.{_word_value(nxt):02d}"]
            last = nxt.end()
            skip.add(i + 1)
            continue
        if m.group("small") == "one" and not _ONE_AS_NUMBER.match(t, m.end()):
            continue
        out += [t[last:m.start()], str(value)]
        last = m.end()
    return "".join(out) + t[last:]


def _spoken_money(t: str) -> str:
    t = re.sub(r"\b(\d+) ?(?:dollars?|bucks|usd) (?:and )?(\d{1,2}) ?cents?\b", lambda m: f"${m[1]}.{int(m[2]):02d}", t)
    t = re.sub(r"\b(\d+) ?(?:dollars?|bucks) (\d{2})\b(?! ?(?:days?|%|percent))", r"$\1.\2", t)
    t = re.sub(r"(?<![\d.$])(\d{1,2}) ?cents?\b", lambda m: f"$0.{int(m[1]):02d}", t)
    return re.sub(r"(?<![\d.$])(\d+(?:\.\d+)?) ?(?:dollars?|bucks|usd)\b", r"$\1", t)


_BUSINESS_DAYS = re.compile(r"\b(?:business|working|week) ?days?\b")
_WEEKS = re.compile(r"\b(?:(?:a|one|half an?|\d+(?:\.5)?|\d+ and a half) ?-? ?)?(?:weeks?|fortnights?)(?: and a half)?\b")


def _durations(t: str) -> str:
    """Weeks, fortnights, months and whole days of hours as days."""
    t = re.sub(r"\b(?:a|one) fortnight\b|\bfortnight\b", "14 days", t)
    t = re.sub(r"\bhalf an? (week|month)\b", r"0.5 \1", t)
    t = re.sub(r"\b(?:a|one) (?:full |whole |calendar |single )?(week|month)\b", r"1 \1", t)
    t = re.sub(r"\b(\d+) (weeks?|months?) and a half\b", lambda m: f"{int(m[1]) + 0.5} {m[2]}", t)
    t = re.sub(r"\b(\d+(?:\.5)?) ?(?:-| )?weeks?\b", lambda m: f"{float(m[1]) * 7:g} days", t)
    t = re.sub(r"\b(\d+(?:\.5)?) ?(?:-| )?months?\b", lambda m: f"{float(m[1]) * 30:g} days", t)
    return re.sub(r"\b(\d+) ?(?:-| )?hours?\b",
                  lambda m: f"{int(m[1]) // 24} days" if int(m[1]) % 24 == 0 else m[0], t)


@dataclass(frozen=True)
class _Figure:
    value: float
    unit: str | None
    start: int
    end: int
    denied: bool
    result: bool
    condition: bool  # "orders of $35 or more": a threshold stated beside the answer
    aside: bool  # inside parentheses


_FIGURE = re.compile(rf"(?<![\w.])(?:(?P<dollar>\$ ?)|(?P<foreign>{FOREIGN} ?))?"
                     r"(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?(?!\w)")
_UNIT_AFTER = re.compile(r"\s?-?\s?(?:(?P<percent>%|percent\b|per cent\b)|(?P<ago>(?:business |calendar |"
                         r"working )?days? "
                         r"(?:ago|since|back)\b)|(?P<days>(?:business |calendar |working )?days?\b|-day\b)|"
                         rf"(?P<hours>hours?\b)|(?P<money>dollars?\b|usd\b)|(?P<foreign>{FOREIGN})|"
                         r"(?P<count>items?\b|pairs?\b|orders?\b|"
                         r"units?\b|members?\b|products?\b|lines?\b))")
_DENIED = re.compile(r"(?:\bnot|n't|\binstead of|\brather than|\bas opposed to|\bno longer|\bunlike|\bused to be|"
                     r"\b(?:out )?of (?:your|the|its|a) (?:total |full |original )?|\bfrom (?:your|the) )\s*"
                     r"(?:(?:the|a|an|just|only|usual|standard|regular|normal|full|original|be|been|is|it's|quite|"
                     r"exactly|over|about)\s+)*\$?\s?$")
_RESULT = re.compile(r"(?:=|\brefund(?:ed)? (?:would be|will be|is|of|comes to|amount is)|\bcomes? to|"
                     r"\b(?:leaves?|leaving|brings? (?:it|that|this|the total) (?:down )?to)(?: you(?: with)?)?|"
                     r"\bworks? out to|\btotals?|\bin total|\bfor a total of|\bthe answer is)\s*(?:of\s+|is\s+|"
                     r"are\s+)?\$?\s?$")
# Said before money only ("you'd get $76.49 back"); before days it may be a part ("you get 15 extra days").
_MONEY_RESULT = re.compile(r"\byou(?:'ll|'d| will| would)? (?:get|receive)(?: back)?\s*$|"
                           r"(?:[,;]\s*|\b)(?:so|that'?s|that is|which is)\s*\$?\s?$")
# "51 days in total: the 30-day window and ...", "$34.98: $4.99 standard shipping plus ...": a total, then its parts.
# "$58.00 minus $8.70", "that's $58.00 less the fee": a figure something is taken from is an operand, not the result.
_TAKEN_FROM = re.compile(r"\s*(?:minus|less|-(?!\s*(?:day|ish))|take away|after (?:deducting|taking off|subtracting))\b")
_TOTAL_AFTER = re.compile(r"\s*(?:in total|total|altogether|overall)?\s*:\s")
# A figure this answer says it can be, beside another ("$4.99 usually, but it can be $7.99").
_CAN_BE = re.compile(r"\bcan (?:be|take|go|reach|run|cost)\b")
# Two cases, each with its figure ("the full $41.49 if you paid by card, $35.27 if you used PayPal").
_CASES = re.compile(r"\b(?:if|when|unless|otherwise)\b")
# Two sources each giving their figure ("the site says 30; the policy page says 14").
_SOURCE = re.compile(r"\b(?:says?|said|shows?|showing|lists?|listed|states?|reports?|according to)\b")
_CONDITION_AFTER = re.compile(r"\s*(?:or (?:more|above|over|higher|longer)|and (?:up|above|over)|\+)")
# Thresholds and the usual rule, stated beside the answer: "orders of $35 or more", "the usual window is 14 days".
_CONDITION_BEFORE = re.compile(r"(?:\b(?:orders?|purchases?|subtotals?|spend(?:ing)?) (?:of|over|above|under|below)|"
                               r"\b(?:over|above|under|below|unless)(?: \w+){0,3}?|"
                               r"\b(?:the standard|usual(?:ly)?|normal(?:ly)?|regular|base|default|general(?:ly)?|"
                               r"otherwise|"
                               r"typical(?:ly)?|instead of)\b(?: [\w-]+){0,3}? ?(?:is|are|was|of)?)\s*\$?\s?$")
_EXPLAINED = re.compile(r"\s*(?:(?:business |calendar )?days?\s*)?(?:=|\+|-|plus|minus|and|for|from|of|base|standard|"
                        r"extra|more|as|\(|times|x\b|×)")
_WORDED_ALTERNATIVE = re.compile(r"^[\s,(]*or\b(?:[\s,]+(?!minus\b|less\b|plus\b)[a-z']+){0,3}[\s,]*\$?\s?$")
_ALTERNATIVE = re.compile(r"^[\s,]*(?:\$|%|percent|(?:business |calendar )?days?)?[\s,]*(?:\(?\s*(?:or|/|to|-|and|or maybe|"
                          r"or perhaps|maybe))?[\s,]*\$?\s?$")


def unit_of(question: str | None, currency: str = USD) -> Unit | None:
    """The unit a question asks its number in, None when it does not say."""
    q = as_shop_money(plain(question or ""), currency)
    if re.search(r"\bhow many (?:\w+ )?days\b|\bhow long\b", q):
        return "days"
    if re.search(r"\bpercent(?:age)?\b|%", q) and not re.search(r"\bhow much will i get\b", q):
        return "percent"
    if re.search(r"\$|\bdollars?\b|\bhow much\b|\bcost\b|\bprice\b|\bsurcharge\b", q):
        return "money"
    if re.search(r"\bdays?\b|\bhow long\b|\bweeks?\b", q):
        return "days"
    return None


def _figures(t: str) -> list[_Figure]:
    found = []
    for m in _FIGURE.finditer(t):
        value = float(m["int"].replace(",", "") + (m["frac"] or ""))
        after = _UNIT_AFTER.match(t, m.end())
        named = next((k for k, v in (after.groupdict() if after else {}).items() if v), None)
        unit = "money" if m["dollar"] else "foreign" if m["foreign"] else named
        before = t[max(0, m.start() - 50):m.start()]
        end = after.end() if after else m.end()
        condition = bool(_CONDITION_AFTER.match(t, end) or _CONDITION_BEFORE.search(before))
        result = bool(_RESULT.search(before) or (unit == "money" and _MONEY_RESULT.search(before)))
        aside = t.count("(", 0, m.start()) > t.count(")", 0, m.start())
        # "just under $5: $4.99": a bound before the colon is not a total its parts follow
        result = (result or bool(_TOTAL_AFTER.match(t, end) and not _CONDITION_BEFORE.search(before))) \
            and not _TAKEN_FROM.match(t, end)
        denied = bool(_DENIED.search(before)) or doubted(t, m.start())
        found.append(_Figure(value, unit, m.start(), end, denied, result, condition, aside))
    return found


def figures_in(text: str | None, currency: str = USD) -> tuple[float, ...]:
    """Every figure `text` states (dates left out): what a question gives, to pass as `given`."""
    t = _durations(_spoken_money(_words_to_digits(_NOT_FIGURES.sub(" ", as_shop_money(plain(text or ""), currency)),
                                                  "money")))
    return tuple(sorted({f.value for f in _figures(t)}))


def _hedged(t: str, figures: list[_Figure]) -> bool:
    """Whether two different figures are offered as alternatives ("30 or 45", "between 14 and 30")."""
    listed = 1  # figures in a run joined by commas only: three or more are a list of options
    for a, b in zip(figures, figures[1:]):
        gap = t[a.end:b.start]
        listed = listed + 1 if re.fullmatch(r"\s*,\s*\$?\s?", gap) else 1
        if a.value == b.value:
            continue
        # "58 days, 14 days." offers two; "44 days, 30 plus 14" explains one.
        bare_pair = listed == 2 and not _EXPLAINED.match(t, b.end)
        # "$35.27 or the full $41.49": an "or" and a few words between two figures offers both.
        worded_or = _WORDED_ALTERNATIVE.match(gap) and not _EXPLAINED.match(t, b.end)
        if listed >= 3 or bare_pair or worded_or or (listed == 1 and _ALTERNATIVE.match(gap)) or \
                re.search(r"\b(?:between|either|from)\s+\$?\s?$", t[max(0, a.start - 12):a.start]):
            return True
    return False


_ARITHMETIC = re.compile(r"\+|\bplus\b|\bminus\b|\bless\b|\band\b|\bbase\b|\bextra\b|\bextension\b")


def _total_of_parts(t: str, values: set[float], minuends: set[float] = frozenset()) -> float | None:
    """The one value the others add up to, or are taken from, in an explanation ("51 days, 30
    base + 21 holiday", "$41.49 minus $6.22 leaves $35.27"), else None."""
    if len(values) < 3 or not _ARITHMETIC.search(t):
        return None
    # the figure something is taken from is where the sum starts, not where it ends ("$58.00 minus $8.70 leaves $49.30")
    sums = {v for v in values if abs(sum(values - {v}) - v) < 0.005 and v not in minuends}
    if len(sums) == 1:
        return sums.pop()
    return None


# "30 days, for Plus members only", "only for electronics": the figure holds for those cases alone,
# and which case is the customer's the answer does not say (unless the question said it).
_ONLY_FOR = re.compile(r"\bonly (?:for|to|with|on|in) (?P<after>[^.;!?,]+)|\b(?:for|to|with|on|in) "
                       r"(?P<before>(?:[\w$.-]+ ){0,3}[\w$.-]+) only\b")


def _only_for_others(t: str, question: str | None) -> bool:
    asked = content_words(plain(question or ""))
    return any(not content_words(m["after"] or m["before"]) <= asked for m in _ONLY_FOR.finditer(t))


def read_number(text: str | None, unit: Unit | None = None, given: Iterable[float] = (),
                question: str | None = None, currency: str = USD) -> Reading:
    """The one number `text` answers with, None, or AMBIGUOUS (see the module docstring).
    `question` gives the unit (unless `unit` is passed) and its own figures are restatements;
    `given` is accepted for callers and sets nothing aside; money is in `currency` (see the
    module docstring)."""
    if not text:
        return None
    unit = unit or unit_of(question, currency)
    restated = {round(g, 6) for g in figures_in(question, currency)}
    t = _NOT_FIGURES.sub(" ", as_shop_money(plain(text), currency))
    t = _words_to_digits(t, unit)
    t = _spoken_money(t) if unit == "money" else t
    if unit == "days":
        if _BUSINESS_DAYS.search(plain(question or "")):
            # Asked in business days, "a week" is 5 of them to some and 7 to others (the refund
            # delay may be either): weeks are no answer, a figure in days beside them is.
            t = _WEEKS.sub(" ", t)
        t = _durations(t)
    figures = [f for f in _figures(t) if not f.denied]
    if not figures:
        return None
    # Alternatives are a hedge whatever their units ("30 days (or 45)").
    if _hedged(t, figures) or unsure(t) or _only_for_others(t, question):
        return AMBIGUOUS
    if len({f.value for f in figures}) > 1 and (_CAN_BE.search(t) or len(_SOURCE.findall(t)) > 1
                                                or len(_CASES.findall(t)) > 1):
        return AMBIGUOUS
    # Another unit's figure is context beside the answer (money asked, "5 business days" is not
    # it), but the answer when it is the only figure ("$45.00" to a question in days is 45);
    # another currency's figure never is.
    figures = [f for f in figures if f.unit not in ("ago", "count", "hours", "foreign")]
    if unit is not None:
        figures = [f for f in figures if f.unit in (None, unit)] or figures
    if not figures:
        return None
    results = {f.value for f in figures if f.result}
    if len(results) == 1:
        return results.pop()
    # A bare figure in a clause parallel to one in the asked unit is another value of that unit
    # ("5 business days if you paid by card, 10 if you used PayPal"): two left after the context
    # (thresholds, asides, the question's own figures) is a hedge.
    offered = {f.value for f in figures if f.unit in (None, unit) and not (f.condition or f.aside)
               and round(f.value, 6) not in restated}
    if unit is not None and not results and len(offered) > 1:
        minuends = {f.value for f in figures if _TAKEN_FROM.match(t, f.end)}
        total = _total_of_parts(t, {f.value for f in figures if f.unit in (None, unit)}, minuends)
        return AMBIGUOUS if total is None else total
    if unit is not None and any(f.unit == unit for f in figures):
        figures = [f for f in figures if f.unit == unit]
    values = {f.value for f in figures}
    if len(values) > 1:
        # Thresholds and the usual rule are context beside the answer.
        values = {f.value for f in figures if not f.condition} or values
    if len(values) > 1:
        # The question's own figures first ("since $120.99 is over ..."), then any the world gives.
        values = {v for v in values if round(v, 6) not in restated} or values
    if len(values) > 1:
        values = {f.value for f in figures if f.value in values and not f.aside} or values
    # Figures the world gives (the policy's) are no longer set aside on that ground alone: "5
    # business days if you paid by card, 10 with PayPal" offers two, whichever the policy states.
    return values.pop() if len(values) == 1 else AMBIGUOUS
