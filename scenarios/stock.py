"""An episode's stock: the shared catalog's, changed by the scenario's explicit stock changes
and its sell-out rules (the out-of-stock axis, `verishop.scenarios.models.SellOut`).

Every reader of stock goes through here: the server (in Python for one product, in SQL for a
search), the generator's rankings (SQL, to skip sold-out rows before reading them) and the
verifier. The Python and SQL forms below are twins and must stay so; `tests/test_stock.py`
compares them product by product.

Why a rule: selling out half of a category as a list of IDs makes a scenario of 1 MB and a
generation of a second at 2M products; a list drawn from a bounded sample instead sold out only a
few percent of a large category (pd-v4), which is not what the axis promises. A rule sells out
the promised share of every category, at any size, in a few bytes.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from verishop.scenarios.catalog.generate import ROW_PRODUCT_NUMBER_SQL
from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.models import Scenario, SellOut

# A prime below 2**31: a product number (< 10**8) times a multiplier below it plus an offset
# stays far inside SQLite's 64-bit integers, so SQL and Python compute the same hash exactly.
HASH_MODULUS = 2**31 - 1
# The SQL form of a product's number: its ID without the leading "P" (IDs are "P" + 8 digits,
# checked on admission for an episode's own products).
_NUMBER_SQL = "CAST(substr({p}product_id, 2) AS INTEGER)"
# The same number from a catalog row's rowid: the catalog names row r `product_id(r)`
# (scenarios/catalog/generate.py), so a ranking can test the rule on an index entry, before it
# reads the table row (every category index holds the rowid; not every one the ID).
CATALOG_NUMBER_SQL = ROW_PRODUCT_NUMBER_SQL


def sell_out_rule(rng: random.Random, category_id: str, share: float, keep: Iterable[str] = ()) -> SellOut:
    """A rule selling out `share` of `category_id`'s products, `keep` aside, with a hash drawn
    from `rng` (so two episodes sell out different products)."""
    return SellOut(category_id=category_id, multiplier=rng.randrange(1, HASH_MODULUS),
                   offset=rng.randrange(HASH_MODULUS), below=int(share * HASH_MODULUS),
                   keep=tuple(sorted(set(keep))))


def rule_sells_out(rule: SellOut, product_id: str, category_id: str) -> bool:
    return (category_id == rule.category_id and product_id not in rule.keep
            and (int(product_id[1:]) * rule.multiplier + rule.offset) % HASH_MODULUS < rule.below)


def rule_sql(rule: SellOut, prefix: str = "", number: str | None = None) -> tuple[str, list[object]]:
    """`rule_sells_out` as an SQL condition on a products row (`prefix`: its alias and a dot;
    `number`: the product's number in SQL, by default read off its ID), and its parameters. The
    rule's figures are bound, not written in: the text is the same for every rule with as many
    kept products, so a connection compiles it once rather than once per episode."""
    number = number or _NUMBER_SQL.format(p=prefix)
    keep = f" AND {number} NOT IN ({', '.join('?' * len(rule.keep))})" if rule.keep else ""
    sql = f"({prefix}category_id = ?{keep} AND ({number} * ? + ?) % {HASH_MODULUS} < ?)"
    return sql, [rule.category_id, *(int(pid[1:]) for pid in rule.keep), int(rule.multiplier), int(rule.offset),
                 int(rule.below)]


@dataclass(frozen=True)
class EpisodeStock:
    changes: Mapping[str, int] = field(default_factory=dict)  # product ID -> units, before any rule
    rules: tuple[SellOut, ...] = ()
    _ruled: dict[tuple[str, str], bool] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def of_scenario(cls, scenario: Scenario) -> EpisodeStock:
        return cls({c.product_id: c.stock for c in scenario.stock_changes}, scenario.sell_outs)

    def sold_by_rule(self, product: Product) -> bool:
        return any(rule_sells_out(r, product.product_id, product.category_id) for r in self.rules)

    def units(self, product: Product) -> int:
        """Units in stock in the episode: an explicit change, else 0 if a rule sells it out, else
        the catalog's (or the episode product's) own."""
        if product.product_id in self.changes:
            return self.changes[product.product_id]
        if not self.rules:
            return product.stock
        # Whether the rules sell it out, kept: the customer, the tools and the verifier ask it
        # of the same few products again and again.
        key = (product.product_id, product.category_id)
        sold = self._ruled.get(key)
        if sold is None:
            sold = self._ruled[key] = self.sold_by_rule(product)
        return 0 if sold else product.stock

    def apply(self, product: Product | None) -> Product | None:
        if product is None:
            return None
        units = self.units(product)
        return product if units == product.stock else product.with_stock(units)

    def explicitly_sold_out(self) -> int:
        return sum(1 for units in self.changes.values() if units <= 0)

    def restocked(self) -> list[str]:
        """IDs given a positive stock explicitly (maybe sold out in the catalog)."""
        return [pid for pid, units in self.changes.items() if units > 0]

    def sold_by_rule_sql(self, prefix: str = "", number: str | None = None) -> tuple[str, list[object]] | None:
        """An SQL condition true for the rows a rule sells out, and its parameters; None without rules."""
        if not self.rules:
            return None
        parts = [rule_sql(r, prefix, number) for r in self.rules]
        return "(" + " OR ".join(sql for sql, _ in parts) + ")", [arg for _, args in parts for arg in args]

    def units_sql(self, prefix: str, change: str) -> tuple[str, list[object]]:
        """`units` in SQL for a products row (`prefix`) left-joined to the stock changes
        (`change`: the joined stock column, NULL when the product has none), and its parameters."""
        ruled = self.sold_by_rule_sql(prefix)
        if ruled is None:
            return f"COALESCE({change}, {prefix}stock)", []
        sql, args = ruled
        return f"(CASE WHEN {change} IS NOT NULL THEN {change} WHEN {sql} THEN 0 ELSE {prefix}stock END)", args
