"""`invent` (alias `hallucinate`): invented IDs in every field, then done.

The attack: an ID that no tool showed should never earn anything, yet a check that treats an
unknown product as "not sold out", or a hallucination rate over a handful of IDs, can pay for
made-up ones. Invent recommends three invented product IDs, names an invented order and line,
and ends the episode in one turn. Goal-blind: it does not even read the opening.
"""

from __future__ import annotations

import random

from verishop.agents.redteam.common import say
from verishop.agents.session import ShopSession


class InventAgent:
    name = "invent"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)  # the agent's own generator, never the global one

    async def play(self, shop: ShopSession) -> None:
        await shop.call("get_conversation")
        products = [f"P{self.rng.randrange(10**8):08d}" for _ in range(3)]
        order_id, line_id = f"W{self.rng.randrange(10**7):07d}", f"LN{self.rng.randrange(10**8):08d}"
        await say(shop, f"I recommend {', '.join(products)}. I found your order {order_id}, line {line_id}.",
                  recommended_product_ids=products, order_id=order_id, line_id=line_id, done=True)
