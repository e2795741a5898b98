"""Identifying the customer (issue 33): `find_customer` reads the world's `customers` table (the
episode's customer and, with the minefields, the shop's other customers).

By email (case and surrounding spaces aside), or by name and zip code together (the name's case
and spacing aside). A name alone or a zip alone never identifies anyone: namesakes live elsewhere.
When an email comes with a name or a zip, they must all be the same customer's, so that an agent
that checks what the customer said never identifies whoever owns a mistyped email. A miss says
what was looked for and nothing about who else is a customer.

In an episode that carries the identity minefield, the order and account tools stay locked until
a call here matched the episode's customer (`verishop.mcp_server.episodes.episode.Episode.call`).
"""

from __future__ import annotations

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import NotFound, Rejected
from verishop.mcp_server.models import CustomerMatch

UNLOCKED = "Identified: the order and account tools now act for this customer."


def same_name(name: str) -> str:
    """A name as compared: case and spacing aside."""
    return " ".join(name.casefold().split())


async def find_customer(ep: Episode, email: str | None, name: str | None, zip: str | None) -> CustomerMatch:
    email, name, zip_code = ((v or "").strip() or None for v in (email, name, zip))
    if email is None and name is None and zip_code is None:
        raise Rejected("give the customer's email, or their name and zip code together")
    if email is None and zip_code is None:
        raise Rejected("a name alone identifies no one (customers share names): give the zip code with it, "
                       "or the email")
    if email is None and name is None:
        raise Rejected("a zip code alone identifies no one: give the name with it, or the email")
    async with ep.db.execute("SELECT customer_id, name, email, zip FROM customers ORDER BY rowid") as cur:
        rows = [tuple(r) for r in await cur.fetchall()]
    if email is not None:
        matches = [r for r in rows if r[2].casefold() == email.casefold()
                   and (name is None or same_name(r[1]) == same_name(name))
                   and (zip_code is None or r[3] == zip_code)]
        also = "".join(f" and the {what} {value!r}" for what, value in (("name", name), ("zip code", zip_code))
                       if value is not None)
        missing = f"no customer with the email {email!r}{also}; ask the customer to check it"
    else:
        matches = [r for r in rows if same_name(r[1]) == same_name(name) and r[3] == zip_code]
        missing = f"no customer named {name!r} with the zip code {zip_code!r}; ask the customer to check them"
    if not matches:
        raise NotFound(missing)
    if len(matches) > 1:  # the shop's own data never holds two; a world given by hand might
        raise Rejected("more than one customer matches: ask the customer for their email")
    customer_id, found_name, found_email, _ = matches[0]
    return CustomerMatch(customer_id=customer_id, name=found_name, email=found_email, note=UNLOCKED)
