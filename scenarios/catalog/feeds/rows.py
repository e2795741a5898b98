"""What every feed reader yields, and the parsing of the values feeds share (prices, availability,
HTML descriptions, numbers). Pure functions: no IO."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from html.parser import HTMLParser

from verishop.scenarios.catalog.text import slug

# A field longer than this is refused, not stored: the longest product description of a real
# Shopify export we know of is under 40,000 characters, and a bounded field keeps the import's
# memory bounded whatever the input (a batch of rows, a Parquet batch, the search text).
MAX_FIELD_CHARS = 64 << 10
# The largest price an import takes, in cents: beyond it a value is a mistake, not a product.
MAX_PRICE_CENTS = 10**11
# A physical line longer than this is skipped by the line readers without being held in memory.
MAX_LINE_BYTES = 4 << 20

AVAILABILITY = {
    "in_stock": True, "in stock": True, "instock": True, "available": True,
    "preorder": True, "backorder": True,
    "out_of_stock": False, "out of stock": False, "outofstock": False, "sold out": False,
    "discontinued": False,
}


@dataclass(slots=True)
class FeedRow:
    """One product as a feed states it, before it is checked. `record` is the line (text formats)
    or the record number (XML items, Parquet rows) where it starts."""

    record: int
    source_id: str
    title: str
    price: str
    category_path: str = ""
    brand: str = ""
    description: str = ""
    group_key: str = ""
    sale_price: str = ""
    availability: str = ""
    stock: str = ""
    rating: str = ""
    rating_count: str = ""
    ship_days: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    # Shopify: an image-only row of a product already read; it adds nothing and counts as merged.
    merge_only: bool = False
    # What to say beside "no category" when the source has a column that looks like one (issue 30).
    category_hint: str = ""
    # Whether the feed's title held HTML markup (stripped here; counted in the report's warnings).
    title_had_html: bool = False
    # Whether the product stated no category and the reader took one from its title (counted too).
    category_from_title: bool = False


@dataclass(frozen=True, slots=True)
class Notice:
    """A reader's remark about the whole source (a fallback it took), shown among the report's warnings."""

    text: str


@dataclass(frozen=True, slots=True)
class Refusal:
    record: int
    source_id: str
    reason: str
    # Whether the rest of the source could not be read (a truncated XML document, say).
    fatal: bool = False

    def line(self, source: str) -> str:
        who = f"id {self.source_id!r}" if self.source_id else "no id"
        return f"{source}:{self.record}: {who}: {self.reason}"


FeedItem = FeedRow | Refusal | Notice

# Column names (as slugs) that hold a category under another name than the format's own.
CATEGORY_LIKE_COLUMNS = ("category", "categories", "product_category", "category_path", "category_name",
                         "product_categories", "categorie", "kategorie", "categoria", "department", "section")


class RowProblem(ValueError):
    """A value of a row cannot be used; the message is the reason shown in the report."""


_PRICE = re.compile(r"^\s*(?:([A-Za-z]{3})\s+)?([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:([A-Za-z]{3}))?\s*$")


def parse_price(text: str, default_currency: str | None, what: str = "price") -> tuple[int, str]:
    """'15.00 USD', 'USD 15', '1,299.99 EUR' (or '15.00' when the feed's currency is known) ->
    (cents, currency). Fractions of a cent are refused, not rounded."""
    match = _PRICE.match(text or "")
    if not match or (match.group(1) and match.group(3)):
        raise RowProblem(f"unparseable {what} {text!r} (expected like '15.00 USD')")
    currency = (match.group(1) or match.group(3) or default_currency or "").upper()
    if not currency:
        raise RowProblem(f"{what} {text!r} has no currency (expected like '15.00 USD'; if every price of the "
                         "feed is in one currency, say which with --currency, e.g. --currency EUR)")
    try:
        amount = Decimal(match.group(2).replace(",", ""))
    except InvalidOperation:
        raise RowProblem(f"unparseable {what} {text!r}") from None
    if amount.adjusted() >= 12:  # a thousand billion or more, thousands of digits included
        raise RowProblem(f"{what} {text[:40]!r}... has {amount.adjusted() + 1:,} digits (the most is "
                         f"{MAX_PRICE_CENTS // 100:,})")
    cents = amount * 100
    if cents > MAX_PRICE_CENTS:
        raise RowProblem(f"{what} {text!r} is over {MAX_PRICE_CENTS // 100:,}")
    if cents != cents.to_integral_value():
        raise RowProblem(f"{what} {text!r} has fractions of a cent")
    if cents <= 0:
        raise RowProblem(f"{what} {text!r} is not positive")
    return int(cents), currency


def parse_availability(text: str) -> bool:
    key = text.strip().lower().replace("-", "_")
    if key not in AVAILABILITY and key.replace("_", " ") not in AVAILABILITY:
        known = ", ".join(sorted(k for k in AVAILABILITY if " " not in k))
        raise RowProblem(f"unknown availability {text!r} (known: {known})")
    return AVAILABILITY.get(key, AVAILABILITY.get(key.replace("_", " "), False))


def parse_int(text: str, what: str, low: int, high: int) -> int:
    try:
        number = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        raise RowProblem(f"unparseable {what} {text[:40]!r}") from None
    if not number.is_finite():
        raise RowProblem(f"unparseable {what} {text!r}")
    if number.adjusted() > 18:  # far outside every range below; int() of it would cost its digits
        raise RowProblem(f"{what} has {number.adjusted() + 1:,} digits (expected {low}..{high})")
    value = int(number)
    if not low <= value <= high:
        raise RowProblem(f"{what} {value} is outside {low}..{high}")
    return value


def parse_rating(text: str) -> float:
    try:
        value = float(Decimal(text.strip()[:40]))
    except (InvalidOperation, ValueError):
        raise RowProblem(f"unparseable rating {text!r}") from None
    if not 0.0 <= value <= 5.0:
        raise RowProblem(f"rating {value} is outside 0..5")
    return round(value, 1)


class _TextOnly(HTMLParser):
    _BREAKS = frozenset({"p", "br", "li", "div", "tr", "h1", "h2", "h3", "h4", "ul", "ol"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in self._BREAKS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
        elif tag in self._BREAKS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """'<p>Sharp &amp; <b>light</b></p>' -> 'Sharp & light' (scripts and styles dropped)."""
    if "<" not in markup:
        return " ".join(html.unescape(markup).split())
    parser = _TextOnly()
    parser.feed(markup)
    parser.close()
    return " ".join("".join(parser.parts).split())


def title_text(markup: str | None) -> tuple[str, bool]:
    """A title as text, and whether it held HTML markup: '<b>Mug</b>' -> ('Mug', True)."""
    raw = clean(markup)
    text = clean(html_to_text(raw))
    return text, text != raw and "<" in raw


# Letters NFKD does not split into a base letter and a mark.
_UNSPLIT_LETTERS = str.maketrans({"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d",
                                  "þ": "th", "ı": "i"})


def feed_slug(name: str) -> str:
    """A feed's category or attribute name as an id: accents folded first, so that French, German
    or Spanish names keep their letters ("Plante d'extérieur" -> 'plante_d_exterieur', "Größe" ->
    'grosse'; plain `slug` would drop them: 'plante_d_ext_rieur'). Names in other scripts fold to
    nothing and are numbered by the taxonomy as before."""
    folded = unicodedata.normalize("NFKD", name.lower().translate(_UNSPLIT_LETTERS))
    return slug("".join(c for c in folded if not unicodedata.combining(c)))


_TITLE_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
# Attributes that say who a product is for, not which variant it is: a title word equal to one of
# their values ("Lou Kids" of age_group kids) names the kind of product and may be its category.
DESCRIPTIVE_ATTRIBUTES = frozenset({"gender", "age_group", "condition", "size_type", "size_system"})


def title_words(title: str) -> str:
    """The category a title suggests when nothing else does: its last word ('Classic Tee 5' -> 'Tee')."""
    words = _TITLE_WORD.findall(title)
    return words[-1] if words else ""


def title_category(title: str, attrs: dict[str, str]) -> str:
    """The category of a product that states none: the last word of its title that is not one of its
    own options ('Human Beings - Black Hoodie' of colour Black -> 'Hoodie'; 'Ocean Shirt - Large' of
    size Large -> 'Shirt'; 'Ski Jacket, Size M' -> 'Jacket'). A variant's title often ends with its
    option values, which name no kind of product. When every word is an option's ('Chic Glass Pot' of
    option 'Chic Glass Pot'), the last word; empty when the title has no word at all."""
    chosen = {k: v for k, v in attrs.items() if k not in DESCRIPTIVE_ATTRIBUTES}
    options = {w.lower() for text in (*chosen.values(), *(k.replace("_", " ") for k in chosen))
               for w in _TITLE_WORD.findall(text)}
    kept = [w for w in _TITLE_WORD.findall(title) if w.lower() not in options]
    return kept[-1] if kept else title_words(title)


def category_like_column(values: dict[str, object], used: set[str]) -> str | None:
    """The first column, not already mapped, whose name says it holds a category and that has a value."""
    for column, value in values.items():
        if column not in used and slug(str(column)) in CATEGORY_LIKE_COLUMNS and str(value or "").strip():
            return str(column)
    return None


def clean(text: str | None) -> str:
    return " ".join((text or "").split())


def check_text(values: dict[str, str] | list[str]) -> None:
    """Refuse a row holding bytes that were not UTF-8 (kept as surrogates by the readers), a NUL
    byte, or a field over MAX_FIELD_CHARS."""
    for value in (values.values() if isinstance(values, dict) else values):
        if len(value) > MAX_FIELD_CHARS:
            raise RowProblem(f"a field is {len(value):,} characters long (the limit is {MAX_FIELD_CHARS:,})")
        if "\x00" in value:
            raise RowProblem(f"a field holds a NUL byte (character {value.index(chr(0))}): a binary or corrupt file?")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = value[exc.start].encode("utf-8", "surrogateescape")
            raise RowProblem(f"text is not valid UTF-8 (byte 0x{bad.hex()} at character {exc.start})") from None


@dataclass
class Lines:
    """The lines of a binary file decoded as UTF-8 (a BOM dropped, bad bytes kept as surrogates for
    `check_text` to name), each at most MAX_LINE_BYTES: a longer line is skipped without being read
    into memory whole, and its number remembered in `overlong`."""

    stream: object
    max_line_bytes: int = MAX_LINE_BYTES
    overlong: set[int] = field(default_factory=set)
    number: int = 0

    def __iter__(self) -> Iterator[str]:
        first = True
        while True:
            raw = self.stream.readline(self.max_line_bytes + 1)
            if not raw:
                return
            self.number += 1
            if len(raw) > self.max_line_bytes and not raw.endswith(b"\n"):
                self.overlong.add(self.number)
                while raw and not raw.endswith(b"\n"):
                    raw = self.stream.readline(self.max_line_bytes + 1)
                yield "\n"
                continue
            if first and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            first = False
            yield raw.decode("utf-8", "surrogateescape")

    def overlong_between(self, first: int, last: int) -> bool:
        return any(first <= n <= last for n in self.overlong)
