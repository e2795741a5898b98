"""The `--policy` file: a shop's own rules, which replace the generated policy in every episode on
the catalog it is imported with (docs/catalog-import.md shows the whole schema).

    returns:
      window_days: 30
      category_window_days: {knives: 14}     # category ids or names of the imported catalog
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
    price_matching: {days: 14}               # or leave it out: no price matching
    restricted_categories: [blades]          # never recommended nor sold by an assistant
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from verishop.scenarios.catalog.feeds import PolicyFileError
from verishop.scenarios.catalog.feeds.mapping import describe_errors, load_yaml

POLICY_FILE_VERSION = 1
RefundMethod = Literal["original_payment", "store_credit"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GiftReturns(_Strict):
    extra_days: int = Field(0, ge=0, le=365)
    refund_method: RefundMethod = "store_credit"


class Returns(_Strict):
    window_days: int = Field(ge=0, le=365)
    category_window_days: dict[str, Annotated[int, Field(ge=0, le=365)]] = {}
    final_sale_categories: list[str] = []
    restocking_fee_percent: int = Field(0, ge=0, le=100)
    restocking_fee_categories: list[str] = []
    return_shipping_cents: int = Field(0, ge=0, le=100_000)
    refund_method: RefundMethod = "original_payment"
    refund_days: int = Field(5, ge=0, le=90)
    gift_returns: GiftReturns = GiftReturns()


class Shipping(_Strict):
    standard_cents: int = Field(ge=0, le=100_000)
    free_threshold_cents: int | None = Field(None, ge=0, le=10_000_000)


class PriceMatching(_Strict):
    days: int = Field(ge=1, le=365)


class ShopPolicy(_Strict):
    version: Literal[1] = POLICY_FILE_VERSION
    returns: Returns
    shipping: Shipping
    price_matching: PriceMatching | None = None
    restricted_categories: list[str] = []

    def category_references(self) -> list[tuple[str, str]]:
        """(key, category) for every category the file names, to check against the catalog."""
        r = self.returns
        return ([(f"returns.category_window_days.{c}", c) for c in r.category_window_days]
                + [(f"returns.final_sale_categories[{i}]", c) for i, c in enumerate(r.final_sale_categories)]
                + [(f"returns.restocking_fee_categories[{i}]", c) for i, c in enumerate(r.restocking_fee_categories)]
                + [(f"restricted_categories[{i}]", c) for i, c in enumerate(self.restricted_categories)])

    def with_category_ids(self, resolve: dict[str, str]) -> ShopPolicy:
        """The same policy naming categories by catalog id (`resolve`: id or lowercased name -> id)."""
        r = self.returns

        def ids(names: list[str]) -> list[str]:
            return [resolve[n.lower()] for n in names]

        returns = r.model_copy(update={
            "category_window_days": {resolve[k.lower()]: v for k, v in r.category_window_days.items()},
            "final_sale_categories": ids(r.final_sale_categories),
            "restocking_fee_categories": ids(r.restocking_fee_categories)})
        return self.model_copy(update={"returns": returns, "restricted_categories": ids(self.restricted_categories)})


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
