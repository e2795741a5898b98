"""Variants of a wanted product that exist only in one episode, named by one option or by two.

A variant group differs on one option (a charger's connector) or, in an imported shop, on two
(a T-shirt's size and colour, issue 30). On two, the wanted variant and its synthesized siblings
form a square: the base product's values (s, c), and new values s' and c' giving (s', c), (s, c')
and (s', c'). Whichever of the three is wanted, one sibling has its size and another colour, and
another its colour and another size, so an agent that matches one option only carts a wrong
variant. No combination of the square is one of the group's real variants: the customer's words
name exactly one product of the episode.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from verishop.scenarios.catalog.generate import product_id
from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.models import CartItem, ExtraProduct, VariantChoice
from verishop.scenarios.taxonomy import category

# A title's words that only separate others ("Tee - M / Blue"): left dangling once values are taken out.
_SEPARATOR = re.compile(r"^[-–—/|,:;·•+]+$")


def replace_words(text: str, old: str, new: str) -> str:
    """Replace `old` where it stands as whole words ("M" must not eat the M of "Merino")."""
    return re.sub(rf"(?<!\S){re.escape(old)}(?!\S)", new, text)


def has_words(text: str, words: str) -> bool:
    return re.search(rf"(?<!\S){re.escape(words)}(?!\S)", text) is not None


def without_separators_left(text: str) -> str:
    """Words separated by single spaces, with no separator at either end or beside another:
    'Tee - / Blue' -> 'Tee - Blue', 'Tee - /' -> 'Tee'."""
    words: list[str] = []
    for word in text.split():
        if _SEPARATOR.match(word) and (not words or _SEPARATOR.match(words[-1])):
            continue
        words.append(word)
    while words and _SEPARATOR.match(words[-1]):
        words.pop()
    return " ".join(words)


def retitled(title: str, old: dict[str, str], new: dict[str, str]) -> str:
    """`title` with each option's `old` value replaced by its `new` one, all at once (a new value
    equal to another option's old one is not replaced again); a value the title does not hold is
    appended."""
    present = {a: v for a, v in old.items() if has_words(title, v)}
    if present:
        by_value = {v: new[a] for a, v in present.items()}
        pattern = "|".join(re.escape(v) for v in sorted(by_value, key=len, reverse=True))
        title = re.sub(rf"(?<!\S)(?:{pattern})(?!\S)", lambda m: by_value[m.group(0)], title)
    missing = [new[a] for a in old if a not in present]
    return " ".join([title, *missing])


def two_option_square(rng: random.Random, catalog: CatalogReader, base: Product, options: tuple[str, str],
                      taken: set[int]) -> list[ExtraProduct]:
    """The three siblings of `base` completing its square on `options` (see the module), none of
    them a real variant of its group; empty when the category has no values left for that."""
    first, second = options
    cat = category(base.category_id)
    real = {(p.attrs.get(first), p.attrs.get(second)) for p in catalog.group(base.group_id)}
    b1, b2 = base.attrs[first], base.attrs[second]
    squares = [(x, y) for x in cat.attribute(first).values if x != b1 for y in cat.attribute(second).values
               if y != b2 and not {(x, b2), (b1, y), (x, y)} & real]
    if not squares:
        return []
    x, y = rng.choice(squares)
    extras = []
    for values in ((x, b2), (b1, y), (x, y)):
        row = catalog.size + rng.randrange(10**7)
        while row in taken:
            row += 1
        taken.add(row)
        new = dict(zip(options, values))
        extras.append(ExtraProduct(
            product_id=product_id(row), group_id=base.group_id,
            title=retitled(base.title, {first: b1, second: b2}, new), brand=base.brand,
            category_id=base.category_id, price_cents=base.price_cents + rng.choice((0, 0, 100, 200, -100)),
            rating=base.rating, rating_count=base.rating_count, ship_days=base.ship_days,
            stock=rng.randint(5, 120), attrs=dict(base.attrs, **new)))
    return extras


def options_of(target: ExtraProduct, options: tuple[str, ...], stated: Iterable[bool]) -> dict:
    """CartItem fields naming `target` by `options` (the first as `variant_attribute`)."""
    choices = [VariantChoice(attribute=a, value=target.attrs[a], stated=s) for a, s in zip(options, stated)]
    first, more = choices[0], tuple(choices[1:])
    return {"variant_attribute": first.attribute, "variant_value": first.value, "variant_stated": first.stated,
            "more_variant_options": more}


def missed(item: CartItem, attrs: dict[str, str]) -> tuple[VariantChoice, ...]:
    """The options of `item` a variant with `attrs` gets wrong; all of them when it gets none
    wrong (another product with the same values is still not the one wanted)."""
    wrong = tuple(o for o in item.variant_options if attrs.get(o.attribute) != o.value)
    return wrong or item.variant_options


def say_option(option: VariantChoice) -> str:
    """'size M', 'color Blue': how the customer names one option."""
    return f"{option.attribute.replace('_', ' ')} {option.value}"
