"""The shop's currency: how its amounts are written, and which marks name money in it.

A generated shop is in US dollars; an imported one in its feed's currency (the catalog's
`currency` meta row, scenarios/catalog/feeds/write.py). Every amount is an integer of hundredths
of that currency (the `*_cents` fields, whatever the currency: euro cents, fils ...), shown with
the decimals each place always used.

Writing (`written`): a currency with a sign of its own puts it before the figure ("$31", "€31",
"£31", "CA$31"); any other puts its code after it ("31 AED", "31.50 CHF"). `CURRENCIES` holds the
signs and English names of common currencies; any other three-letter code is written, and read, by
its code alone.

Reading (`as_shop_money`): the answer readers (scenarios/answers) read money as "$" and "dollars".
Before they read, the shop's own marks (its sign, code and names: "€12", "12 euros", "AED 12",
"12 dirhams") become those, and every other currency's marks in `CURRENCIES` become FOREIGN: a
figure in another currency is money, but never this shop's ("$31" to a euro shop, "€31" to a
dollar shop). A mark outside the table ("12 XAF" to a dollar shop) is not recognised, and its
figure reads as a bare number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

USD = "USD"
# What a figure in another currency than the shop's is marked with, for the answer readers.
FOREIGN = "¤"
# The spellings of money the answer readers already read as the shop's: left as they are when
# they are the shop's own (a dollar shop, or "$" in a Canadian one).
_READ_AS_IS = frozenset({"$", "dollar", "dollars", "buck", "bucks", "usd"})
_CODE = re.compile(r"^[A-Z]{3}$")


@dataclass(frozen=True)
class Currency:
    code: str
    sign: str | None = None  # written before the figure; None: the code is written after it
    names: tuple[str, ...] = ()  # lower-case English words for it, singular and plural
    marks: tuple[str, ...] = ()  # other signs it is written with, lower case
    code_is_a_mark: bool = True  # False where the code is an English word ("try")

    def reading_marks(self) -> frozenset[str]:
        """Every lower-case spelling that names this currency beside a figure."""
        signs = {self.sign.lower()} if self.sign else set()
        code = {self.code.lower()} if self.code_is_a_mark else set()
        return frozenset(signs | code | set(self.names) | set(self.marks))


_DOLLAR_NAMES = ("dollar", "dollars", "buck", "bucks")
# Signs and names of common currencies; names that are common English words ("won", "real") are left out.
CURRENCIES: dict[str, Currency] = {c.code: c for c in (
    Currency("USD", "$", _DOLLAR_NAMES, ("us$",)),
    Currency("EUR", "€", ("euro", "euros")),
    Currency("GBP", "£", ("pound", "pounds", "quid")),
    Currency("JPY", "¥", ("yen",), ("jp¥",)),
    Currency("CNY", "CN¥", ("yuan", "renminbi"), ("¥", "rmb")),
    Currency("INR", "₹", ("rupee", "rupees")),
    Currency("CAD", "CA$", _DOLLAR_NAMES, ("$", "c$")),
    Currency("AUD", "A$", _DOLLAR_NAMES, ("$", "au$")),
    Currency("NZD", "NZ$", _DOLLAR_NAMES, ("$",)),
    Currency("HKD", "HK$", _DOLLAR_NAMES, ("$",)),
    Currency("SGD", "S$", _DOLLAR_NAMES, ("$",)),
    Currency("MXN", "MX$", ("peso", "pesos"), ("$",)),
    Currency("BRL", "R$", ("reais",)),
    Currency("KRW", "₩"),
    Currency("CHF", None, ("franc", "francs")),
    Currency("AED", None, ("dirham", "dirhams")),
    Currency("SAR", None, ("riyal", "riyals")),
    Currency("QAR", None, ("riyal", "riyals")),
    Currency("SEK", None, ("krona", "kronor")),
    Currency("NOK", None, ("krone", "kroner")),
    Currency("DKK", None, ("krone", "kroner")),
    Currency("PLN", None, ("zloty", "zlotys"), ("zł",)),
    Currency("ZAR", None, ("rand",)),
    Currency("TRY", None, ("lira", "liras"), ("₺",), code_is_a_mark=False),
)}


def currency(code: str) -> Currency:
    """The currency of a three-letter code: its entry in CURRENCIES, else one written by its code."""
    if not _CODE.match(code or ""):
        raise ValueError(f"{code!r} is not a three-letter currency code such as USD or EUR")
    return CURRENCIES.get(code) or Currency(code)


def written(code: str, figure: str) -> str:
    """`figure` (already formatted: "31", "31.50", "1,250") as an amount of the currency `code`:
    "$31", "€31.50", "31.50 AED"."""
    sign = currency(code).sign
    return f"{sign}{figure}" if sign else f"{figure} {code}"


def name_of(code: str) -> str:
    """How a question names the currency's units ("in dollars", "in euros", "in dirhams"); a
    currency without an English name in CURRENCIES by its code ("in XOF")."""
    names = currency(code).names
    return names[1] if len(names) > 1 else names[0] if names else code


def amount(cents: int, code: str) -> str:
    """Hundredths of the currency `code` with two decimals: "$7.99", "€7.99", "7.99 AED"."""
    return written(code, f"{cents / 100:.2f}")


# --- reading --------------------------------------------------------------------------------


def _alternation(marks: set[str]) -> str:
    return "|".join(re.escape(m) for m in sorted(marks, key=lambda m: (-len(m), m)))


@lru_cache(maxsize=32)
def _marks(code: str) -> tuple[re.Pattern[str], frozenset[str]]:
    """One pattern for every currency mark beside a figure or alone, and the shop's own marks."""
    own = currency(code).reading_marks()
    every = set(own).union(*(c.reading_marks() for c in CURRENCIES.values()))
    any_mark, words = _alternation(every), _alternation({m for m in every if m.isalpha()})
    return re.compile(
        # right after a figure: "12€", "12 eur", "12 euros"
        rf"(?<=\d)(?P<space>\s?)(?P<after>{any_mark})(?![a-z\d])|"
        # right before one: "€12", "eur 12", "aed12" (a sign starting with letters, "ca$", begins a word)
        rf"(?<![a-z$€£¥₹₩₺])(?P<before>{any_mark})\s?(?=\d)|"
        # a name or code anywhere else: "in euros", "how many dirhams"
        rf"\b(?P<word>{words})\b"), own


def as_shop_money(text: str, code: str) -> str:
    """`text` (plain: lower case, see scenarios/answers/text.py) with the shop's money written "$12"
    or "12 dollars", and any other currency's figure marked FOREIGN ("¤12", "12 ¤"). One pass: what
    it writes is never read again."""
    pattern, own = _marks(code)

    def rewrite(m: re.Match[str]) -> str:
        mark = m["after"] or m["before"] or m["word"]
        if mark in own and mark in _READ_AS_IS:
            return m[0]
        if m["after"]:
            return " dollars" if mark in own else f" {FOREIGN}"
        if m["before"]:
            return "$" if mark in own else FOREIGN
        return "dollars" if mark in own else FOREIGN

    return pattern.sub(rewrite, text)


_FIGURE = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"  # "1,250.00", "40" (not "40," before a comma)


def amount_pattern(capture: bool = True) -> str:
    """A regular expression for an amount of any currency of CURRENCIES as `written` writes it
    ("$40", "€7.99", "CA$12", "60.00 AED"), for the goal-blind baselines, which read the shop's own
    words; its figure is its one group (none when `capture` is False). Use it with re.IGNORECASE on
    lower-cased text. A currency outside the table (written by its code alone) is not matched."""
    signs = _alternation({c.sign for c in CURRENCIES.values() if c.sign})
    codes = _alternation({c.code for c in CURRENCIES.values() if c.code_is_a_mark})
    figure = f"({_FIGURE})" if capture else f"(?:{_FIGURE})"
    return rf"(?:(?:{signs})(?=\d)|(?=(?:{_FIGURE}) (?:{codes})\b)){figure}(?: (?:{codes})\b)?"


def figure_of(text: str) -> float:
    """The number of an amount's figure ("1,250.00" -> 1250.0)."""
    return float(text.replace(",", ""))
