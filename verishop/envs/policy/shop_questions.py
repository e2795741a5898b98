"""Policy questions on an imported shop (its `--policy` file, `verishop.scenarios.shop_policy`):
only about rules the shop wrote, over its own categories, answered by the same rule functions the
returns and the verifier use. Two-clause questions combine the gift or date with a window, or the
restocking fee with return shipping; the shop's file has no membership, holiday or defect clauses."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, timedelta

from verishop.envs.policy.question import Question
from verishop.scenarios.models import StorePolicy
from verishop.scenarios.money import amount, name_of
from verishop.scenarios.policy import return_window
from verishop.scenarios.shop_policy import restocking_fee_applies
from verishop.scenarios.taxonomy import Category

YES = ("yes", "yep", "sure", "yes you can", "yes it can", "yes it will", "yes it does", "yes they can")
NO = ("no", "nope", "no you cannot", "no you can't", "no it cannot", "no it can't", "no it will not",
      "no it won't", "no it does not", "no they cannot", "no they can't", "cannot", "can't")
NO_FEE = ("no", "none", "no fee", "no restocking fee", "no there is not", "no there isn't", "there is no fee",
          "there is no restocking fee")


def _figure(cents: int) -> str:
    """An amount's figure, as an answer states it ("7.99")."""
    return f"{cents / 100:.2f}"


def _noun(rng: random.Random, cat: Category) -> str:
    return rng.choice(cat.nouns).lower()


def shop_families(policy: StorePolicy, categories: tuple[Category, ...], branches: int) -> list[Callable]:
    """Question makers `(rng, today, dates) -> (ask, answer, kind, clause_ids, details, accepted)`."""
    terms = policy.shop
    assert terms is not None
    returnable = [c for c in categories if c.id not in policy.final_sale_categories]
    final_sale = [c for c in categories if c.id in policy.final_sale_categories]
    with_fee = [c for c in returnable if restocking_fee_applies(policy, c.id)]
    without_fee = [c for c in returnable if not restocking_fee_applies(policy, c.id)]

    def window(rng: random.Random, today: date, dates: bool) -> Question:
        cat = rng.choice(returnable)
        noun = _noun(rng, cat)
        days = return_window(policy, cat.id)
        if dates and rng.random() < 0.5:
            elapsed = rng.randint(1, days + 10)
            delivered = today - timedelta(days=elapsed)
            answer = ("yes", YES) if elapsed <= days else ("no", NO)
            return Question(ask=f"Can I still return the {noun}?", answer=answer[0], accepted=answer[1],
                            kind="categorical", clause_ids=("POL-RETURNS",),
                            details=(f"Delivery was on {delivered:%B} {delivered.day}, {delivered.year}.",))
        return Question(ask=f"How many days after delivery do I have to return the {noun}?", answer=str(days),
                        kind="numeric", clause_ids=("POL-RETURNS",))

    def gift_window(rng: random.Random, today: date, dates: bool) -> Question:
        cat = rng.choice(returnable)
        noun = _noun(rng, cat)
        return Question(ask=f"How many days after delivery do I have to return the {noun}?",
                        answer=str(return_window(policy, cat.id, gift=True)), kind="numeric",
                        clause_ids=("POL-RETURNS", "POL-GIFTS"), details=(f"I bought the {noun} as a gift.",))

    def can_return(rng: random.Random, today: date, dates: bool) -> Question:
        if not final_sale or rng.random() < 0.5:
            return Question(ask=f"Can I return the {_noun(rng, rng.choice(returnable))} I bought from you?",
                            answer="yes", accepted=YES, kind="categorical", clause_ids=("POL-FINAL-SALE",))
        return Question(ask=f"Can I return the {_noun(rng, rng.choice(final_sale))} I bought from you?",
                        answer="no", accepted=NO, kind="categorical", clause_ids=("POL-FINAL-SALE",))

    def threshold(rng: random.Random, today: date, dates: bool) -> Question:
        return Question(ask=f"What is the smallest purchase, in {name_of(policy.currency)}, that ships free?",
                        answer=_figure(policy.free_shipping_threshold_cents), kind="numeric",
                        clause_ids=("POL-SHIPPING",))

    def standard(rng: random.Random, today: date, dates: bool) -> Question:
        return Question(ask="How much does standard shipping cost when a purchase doesn't ship free?",
                        answer=_figure(policy.standard_shipping_cents), kind="numeric", clause_ids=("POL-SHIPPING",))

    def fee(rng: random.Random, today: date, dates: bool) -> Question:
        if with_fee and (not without_fee or rng.random() < 0.5):
            noun = _noun(rng, rng.choice(with_fee))
            return Question(ask=f"What percentage restocking fee applies if I return an opened {noun} because I "
                                f"changed my mind?", answer=str(policy.restocking_fee_percent), kind="numeric",
                            clause_ids=("POL-RESTOCK",))
        noun = _noun(rng, rng.choice(without_fee))
        return Question(ask=f"Is there a restocking fee if I return an opened {noun} because I changed my mind?",
                        answer="no", accepted=NO_FEE, kind="categorical", clause_ids=("POL-RESTOCK",))

    def refund_amount(rng: random.Random, today: date, dates: bool) -> Question:
        cat = rng.choice(returnable)
        price = rng.randint(15, 300) * 100 - 1
        fee_cents = round(price * policy.restocking_fee_percent / 100) if restocking_fee_applies(policy, cat.id) else 0
        refund = price - fee_cents - terms.return_shipping_cents
        return Question(ask=f"I paid {amount(price, policy.currency)} for the {_noun(rng, cat)} and opened it, but I "
                            f"changed my "
                            f"mind. How much will I get back if I return it?", answer=_figure(refund), kind="numeric",
                        clause_ids=("POL-RESTOCK", "POL-RETURN-SHIPPING"))

    def refund_days(rng: random.Random, today: date, dates: bool) -> Question:
        return Question(ask="How many business days does my refund take once you receive my return?",
                        answer=str(terms.refund_days), kind="numeric", clause_ids=("POL-REFUND",))

    def gift_refund(rng: random.Random, today: date, dates: bool) -> Question:
        return Question(ask="How is a gift return refunded: to the original payment method or as store credit?",
                        answer=terms.gift_refund_method, kind="categorical", clause_ids=("POL-GIFTS",))

    def refund_method(rng: random.Random, today: date, dates: bool) -> Question:
        return Question(ask="Is a refund paid to the original payment method or as store credit?",
                        answer=terms.refund_method, kind="categorical", clause_ids=("POL-REFUND",))

    def price_match(rng: random.Random, today: date, dates: bool) -> Question:
        return Question(ask="If an item's price drops after delivery, within how many days can I get the difference "
                            "refunded?", answer=str(terms.price_match_days), kind="numeric",
                        clause_ids=("POL-PRICE-ADJUST",))

    if branches >= 2:
        two = [refund_amount] + ([gift_window] if terms.gift_extra_days else [])
        return two
    one: list[Callable] = [window, window, can_return, standard, refund_days, gift_refund, refund_method, fee]
    one += [threshold] if terms.free_shipping else []
    one += [price_match] if terms.price_match_days else []
    return one
