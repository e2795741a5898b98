"""The customer's account: who they are, their saved addresses and payment methods."""

from __future__ import annotations

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.models import CustomerProfile, PaymentMethodView, SavedAddress
from verishop.mcp_server.shop.catalog import figure


async def get_customer_profile(ep: Episode) -> CustomerProfile:
    async with ep.db.execute("SELECT address_id, street, city, zip, is_default FROM addresses "
                             "ORDER BY is_default DESC, address_id") as cur:
        addresses = [SavedAddress(address_id=r[0], street=r[1], city=r[2], zip=r[3], default=bool(r[4]))
                     for r in await cur.fetchall()]
    async with ep.db.execute("SELECT payment_id, kind, label, balance_cents FROM payment_methods "
                             "ORDER BY rowid") as cur:
        methods = [PaymentMethodView(payment_method_id=r[0], kind=r[1], label=r[2],
                                     balance=None if r[3] is None else figure(r[3])) for r in await cur.fetchall()]
    c = ep.scenario.customer
    tier = ep.scenario.account.membership_tier if ep.scenario.account else None
    return CustomerProfile(customer_id=c.customer_id, name=c.name, email=c.email, member_since=c.member_since,
                           addresses=addresses, payment_methods=methods, currency=ep.scenario.catalog.currency,
                           membership_tier=tier)
