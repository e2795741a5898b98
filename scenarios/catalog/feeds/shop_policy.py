"""The `--policy` file: a shop's own rules, which replace the generated policy in every episode on
the catalog it is imported with (docs/catalog-import.md shows the whole schema).

    returns:
      return_window_days: 30
      category_return_window_days: {knives: 14}   # category ids or names of the imported catalog
      final_sale_categories: [gift_cards]
      restocking_fee_percent: 10
      restocking_fee_categories: [stand_mixers]   # empty: the fee applies to every category
      return_shipping_cents: 0
      refund_method: original_payment        # or store_credit
      refund_days: 5
      gift_returns: {extra_days: 14, refund_method: store_credit}
    shipping:
      standard_cents: 599
      free_threshold_cents: 5000
      standard_days: 5                       # these three, together or not at all: the options
      express: {cents: 1299, days: 2}        # a checkout offers (issue 34; the checkout
      next_day: {cents: 2499, days: 1}       # environment needs them)
    price_matching: {days: 14}               # or leave it out: no price matching
    compensation:                            # or leave it out: the compensation environment cannot run
      late_after_days: 3                     # delivered this many days or more after the estimate: late
      late_credit_percent: 10                # store credit, percent of the order's item total
      plus_late_credit_percent: 15           # for Plus members (at least the base percent)
      premier_late_credit_percent: 20        # for Premier members (at least the Plus percent)
      late_credit_cap_cents: 1500
      damage_report_days: 7                  # damage reported within this many days of delivery
      damage_credit_percent: 20              # store credit, percent of the damaged line
      damage_credit_cap_cents: 3000
      price_adjustment_days: 14              # the price-drop window; price_matching.days when both are set
    restricted_categories: [blades]          # never recommended nor sold by an assistant

`window_days` and `category_window_days`, the first names of the two return-window keys, are still
read (with a warning in the import report): the rule has one name, `return_window_days`, in the
file, the scenario's `StorePolicy` and the code (issue 29).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator
from pydantic_core.core_schema import ValidatorFunctionWrapHandler

from verishop.scenarios.catalog.feeds import PolicyFileError
from verishop.scenarios.catalog.feeds.mapping import describe_errors, load_yaml

POLICY_FILE_VERSION = 1
RefundMethod = Literal["original_payment", "store_credit"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GiftReturns(_Strict):
    extra_days: int = Field(0, ge=0, le=365)
    refund_method: RefundMethod = "store_credit"


# Keys renamed so that one rule has one name: old name -> new name. The old names are still read,
# and are the names a catalog stores (its policy meta row is covered by its content hash, so a shop
# imported before the rename and after it has the same hash).
DEPRECATED_KEYS = {"window_days": "return_window_days", "category_window_days": "category_return_window_days"}
_OLD_NAME = {new: old for old, new in DEPRECATED_KEYS.items()}


def _renamed(new: str) -> dict:
    return {"validation_alias": AliasChoices(new, _OLD_NAME[new]), "serialization_alias": _OLD_NAME[new]}


class Returns(_Strict):
    return_window_days: int = Field(ge=0, le=365, **_renamed("return_window_days"))
    category_return_window_days: dict[str, Annotated[int, Field(ge=0, le=365)]] = Field(
        {}, **_renamed("category_return_window_days"))
    final_sale_categories: list[str] = []
    restocking_fee_percent: int = Field(0, ge=0, le=100)
    restocking_fee_categories: list[str] = []
    return_shipping_cents: int = Field(0, ge=0, le=100_000)
    refund_method: RefundMethod = "original_payment"
    refund_days: int = Field(5, ge=0, le=90)
    gift_returns: GiftReturns = GiftReturns()
    # The deprecated keys the file wrote (error messages and warnings name the key as written).
    _old_keys: frozenset[str] = PrivateAttr(frozenset())

    @model_validator(mode="wrap")
    @classmethod
    def _one_name_per_rule(cls, data: object, handler: ValidatorFunctionWrapHandler) -> Returns:
        written = frozenset(data) & DEPRECATED_KEYS.keys() if isinstance(data, dict) else frozenset()
        both = [old for old in sorted(written) if DEPRECATED_KEYS[old] in data]  # type: ignore[operator]
        if both:
            raise ValueError("; ".join(f"returns.{old} and returns.{DEPRECATED_KEYS[old]} are the same rule "
                                       f"(returns.{old} is its deprecated name): keep returns.{DEPRECATED_KEYS[old]}"
                                       for old in both))
        returns = handler(data)
        returns._old_keys = written
        return returns

    def key(self, field: str) -> str:
        """`field`'s key as the file wrote it (its deprecated name, if the file used that)."""
        old = _OLD_NAME.get(field)
        return old if old in self._old_keys else field

    def deprecation_warnings(self, source: str) -> list[str]:
        return [f"{source}: returns.{old} is deprecated: write returns.{DEPRECATED_KEYS[old]} (the same rule; "
                f"returns.{old} is still read)" for old in sorted(self._old_keys)]


class FasterShipping(_Strict):
    """A faster way an order ships at checkout: its price and the days it takes."""

    cents: int = Field(ge=0, le=100_000)
    days: int = Field(ge=1, le=30)


def _absent(value: object) -> bool:
    return value is None


class Shipping(_Strict):
    standard_cents: int = Field(ge=0, le=100_000)
    free_threshold_cents: int | None = Field(None, ge=0, le=10_000_000)
    # The checkout's options (issue 34): left out of the stored policy when absent, so that a shop
    # imported without them keeps its content hash.
    standard_days: int | None = Field(None, ge=1, le=30, exclude_if=_absent)
    express: FasterShipping | None = Field(None, exclude_if=_absent)
    next_day: FasterShipping | None = Field(None, exclude_if=_absent)

    @model_validator(mode="after")
    def _options_together(self) -> Shipping:
        given = {k: getattr(self, k) is not None for k in ("standard_days", "express", "next_day")}
        if any(given.values()) and not all(given.values()):
            missing = ", ".join(f"shipping.{k}" for k, v in given.items() if not v)
            raise ValueError(f"the checkout's shipping options come together: shipping.standard_days, "
                             f"shipping.express and shipping.next_day; {missing} missing")
        if self.express is not None and self.next_day is not None and self.standard_days is not None:
            if not self.next_day.days < self.express.days < self.standard_days:
                raise ValueError("shipping.next_day must arrive sooner than shipping.express, and express sooner "
                                 "than standard (shipping.standard_days)")
            if not self.standard_cents <= self.express.cents <= self.next_day.cents:
                raise ValueError("shipping.express must cost at least standard_cents, and next_day at least express")
        return self


class PriceMatching(_Strict):
    days: int = Field(ge=1, le=365)


class Compensation(_Strict):
    """What a late delivery, a damaged item and a price drop earn (issue 34: compensation-v1).
    Every key is required: the environment judges amounts to the cent, so no number is guessed."""

    late_after_days: int = Field(ge=1, le=30)
    late_credit_percent: int = Field(ge=1, le=100)
    plus_late_credit_percent: int = Field(ge=1, le=100)
    premier_late_credit_percent: int = Field(ge=1, le=100)
    late_credit_cap_cents: int = Field(ge=1, le=10_000_000)
    damage_report_days: int = Field(ge=1, le=365)
    damage_credit_percent: int = Field(ge=1, le=100)
    damage_credit_cap_cents: int = Field(ge=1, le=10_000_000)
    price_adjustment_days: int = Field(ge=1, le=365)

    @model_validator(mode="after")
    def _tiers_never_earn_less(self) -> Compensation:
        if self.plus_late_credit_percent < self.late_credit_percent:
            raise ValueError(f"compensation.plus_late_credit_percent ({self.plus_late_credit_percent}) is below "
                             f"compensation.late_credit_percent ({self.late_credit_percent}): a member never earns "
                             "less than a customer without a tier")
        if self.premier_late_credit_percent < self.plus_late_credit_percent:
            raise ValueError(f"compensation.premier_late_credit_percent ({self.premier_late_credit_percent}) is below "
                             f"compensation.plus_late_credit_percent ({self.plus_late_credit_percent}): Premier is the "
                             "higher tier")
        return self


class ShopPolicy(_Strict):
    version: Literal[1] = POLICY_FILE_VERSION
    returns: Returns
    shipping: Shipping
    price_matching: PriceMatching | None = None
    restricted_categories: list[str] = []
    # Left out of the stored form when absent, so that a shop without it keeps its content hash.
    compensation: Compensation | None = Field(None, exclude_if=lambda v: v is None)

    @model_validator(mode="after")
    def _one_price_drop_window(self) -> ShopPolicy:
        c, match = self.compensation, self.price_matching
        if c is not None and match is not None and c.price_adjustment_days != match.days:
            raise ValueError(f"compensation.price_adjustment_days ({c.price_adjustment_days}) and price_matching.days "
                             f"({match.days}) are the same rule (the window after delivery in which a price drop is "
                             "refunded): give them the same number")
        return self

    def category_references(self) -> list[tuple[str, str]]:
        """(key, category) for every category the file names, to check against the catalog."""
        r = self.returns
        windows = r.key("category_return_window_days")
        return ([(f"returns.{windows}.{c}", c) for c in r.category_return_window_days]
                + [(f"returns.final_sale_categories[{i}]", c) for i, c in enumerate(r.final_sale_categories)]
                + [(f"returns.restocking_fee_categories[{i}]", c) for i, c in enumerate(r.restocking_fee_categories)]
                + [(f"restricted_categories[{i}]", c) for i, c in enumerate(self.restricted_categories)])

    def with_category_ids(self, resolve: dict[str, str]) -> ShopPolicy:
        """The same policy naming categories by catalog id (`resolve`: id or lowercased name -> id)."""
        r = self.returns

        def ids(names: list[str]) -> list[str]:
            return [resolve[n.lower()] for n in names]

        returns = r.model_copy(update={
            "category_return_window_days": {resolve[k.lower()]: v for k, v in r.category_return_window_days.items()},
            "final_sale_categories": ids(r.final_sale_categories),
            "restocking_fee_categories": ids(r.restocking_fee_categories)})
        return self.model_copy(update={"returns": returns, "restricted_categories": ids(self.restricted_categories)})

    def stored_json(self) -> str:
        """The policy as a catalog stores it (its `policy` meta row, read by scenarios/shop_policy.py):
        the keys the file format first had, whichever names the file used."""
        return self.model_dump_json(by_alias=True)


def load_policy(path: Path) -> ShopPolicy:
    data = load_yaml(path, PolicyFileError)
    if not isinstance(data, dict):
        raise PolicyFileError(f"{path}: expected a mapping with returns and shipping, got {type(data).__name__}")
    try:
        return ShopPolicy.model_validate(data)
    except ValidationError as exc:
        raise PolicyFileError(describe_errors(exc, str(path))) from None


def check_categories(policy: ShopPolicy, path: Path, categories: dict[str, str]) -> ShopPolicy:
    """`policy` naming categories by id, once every category it names is in the catalog
    (`categories`: id -> name); else a PolicyFileError naming each key."""
    resolve = {cid.lower(): cid for cid in categories} | {name.lower(): cid for cid, name in categories.items()}
    bad = [f"{path}: {key}: unknown category {name!r}" for key, name in policy.category_references()
           if name.lower() not in resolve]
    if bad:
        known = ", ".join(sorted(categories)[:40])
        raise PolicyFileError("\n".join(bad) + f"\n(the catalog's categories: {known})")
    return policy.with_category_ids(resolve)
