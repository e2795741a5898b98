"""The toy's generator: a customer with one to three orders asks about the one holding a given item."""

from __future__ import annotations

from datetime import timedelta

from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.household import make_browsing_history, make_order_with_status, noun
from verishop.scenarios.models import Scenario, StatusGoal
from verishop.scenarios.prompts import SYSTEM_PROMPT
from verishop.scenarios.rng import make_rng
from verishop.scenarios.shared_world import SharedWorld, pick_customer, pick_policy, pick_today

ENV_ID = "toy-v1"
STATUSES = ("processing", "shipped", "in_transit", "delivered", "cancelled")


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    rng = make_rng("scenario", ENV_ID, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    customer = pick_customer(rng, today, shared)
    policy = pick_policy(rng, shared, catalog)
    orders, kinds = [], set()
    for age in rng.sample(range(1, 60), 1 + difficulty // 5):
        product = catalog.random_product(rng, deny=frozenset(kinds) | catalog.denied_category_ids)
        kinds.add(product.category_id)
        orders.append(make_order_with_status(rng, [product], today - timedelta(days=age), rng.choice(STATUSES)))
    target = rng.choice(orders)
    item = noun(target.lines[0])
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=customer, orders=tuple(sorted(orders, key=lambda o: o.placed_on)),
        browsing_history=make_browsing_history(rng, catalog, None), stock_changes=(), policy=policy,
        system_prompt=SYSTEM_PROMPT, opening_message=f"Hi, what's happening with my toy order, the {item}?",
        goal=StatusGoal(order_id=target.order_id, status=target.status, description=f"the order with the {item}",
                        indirect=False),
    )
