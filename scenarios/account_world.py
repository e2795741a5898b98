"""How an environment on the customer's account opens its scenario (issue 32): the day, the
customer, the store's policy with its rules for changing orders, the account, then the request
itself, drawn again when it cannot stand (`accounts.Redraw`). Shared by `verishop/envs/change` and
`verishop/envs/exchange`."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date

from verishop.scenarios.accounts import MAX_REDRAWS, Redraw, with_change_rules
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.models import Account, Axes, Customer, Scenario, StorePolicy
from verishop.scenarios.rng import make_rng
from verishop.scenarios.shared_world import SharedWorld, pick_account, pick_customer, pick_policy, pick_today

# draw(rng, difficulty, seed, catalog, axes, today, customer, policy, account) -> Scenario, or Redraw
Draw = Callable[[random.Random, int, int, CatalogReader, Axes, date, Customer, StorePolicy, Account], Scenario]


def generate_on_account(env_id: str, difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None,
                        draw: Draw, *, stream: str | None = None) -> Scenario:
    """The scenario `draw` makes on a freshly drawn (or the journey's) account world. A draw whose
    words would fit another order, or whose orders share an ID (rare; on a small imported shop, two
    categories named alike), is drawn again from the same generator: every seed whose first draw
    holds keeps its bytes. `stream` names the draws (by default `env_id`): a version that keeps an
    earlier one's task draws names that one's (issue 33's minefields came on top of change-v1's)."""
    rng = make_rng("scenario", stream or env_id, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    customer = pick_customer(rng, today, shared)
    policy = with_change_rules(pick_policy(rng, shared, catalog))
    account = pick_account(rng, customer, shared)
    for _ in range(MAX_REDRAWS):
        try:
            return draw(rng, difficulty, seed, catalog, axes, today, customer, policy, account)
        except Redraw:
            continue
    raise CatalogError(f"{env_id} needs orders a customer can tell apart by their items and days; this catalog "
                       f"gave none in {MAX_REDRAWS} draws")
