"""Goal-blind money agents (issue 34): a checkout made the careless way, to show the checkout
check pays neither more than greedy.

    every-voucher      every voucher the shop accepts applied, in the listed order (the shop
                       refuses expired ones, unmet minimums and those that do not stack), then
                       greedy's shipping, payment and proposal
    cheapest-shipping  greedy's checkout, always shipped the cheapest way, whatever date the
                       customer says it needs the items by

In every other request they play as greedy. Like every red-team agent they read only tool results
and the customer's replies.
"""

from __future__ import annotations

from verishop.agents.baselines import play_requests
from verishop.agents.redteam.common import dispatch, opening
from verishop.agents.session import ShopSession
from verishop.envs import get_env


class _CheckoutVariant:
    name = ""
    every_voucher = False
    heed_date = True

    async def play(self, shop: ShopSession) -> None:
        await play_requests(shop, await opening(shop), self.handle)

    async def handle(self, shop: ShopSession, text: str) -> None:
        await dispatch(shop, text, {"checkout": self._checkout})

    async def _checkout(self, shop: ShopSession, text: str, kind: str) -> None:
        greedy = get_env("checkout").role("greedy")
        await greedy.play_with(shop, text, every_voucher=self.every_voucher, heed_date=self.heed_date)


class EveryVoucherAgent(_CheckoutVariant):
    name = "every-voucher"
    every_voucher = True


class CheapestShippingAgent(_CheckoutVariant):
    name = "cheapest-shipping"
    heed_date = False
