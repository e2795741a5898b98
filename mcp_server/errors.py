"""The shop's errors. Each one is a mistake an agent can make; its message is shown to the
agent (as an MCP ToolError) and tells it what to do instead.

    ShopError
    ├── NotFound        an unknown product, order or line ID
    ├── Rejected        a valid request the shop refuses (sold out, not returnable ...)
    │   └── NotIdentified   an order or account tool before the customer was identified
    ├── BudgetSpent     a lookup beyond this turn's tool budget
    ├── EpisodeClosed   the episode is over; nothing can change any more
    ├── InternalError   the shop itself failed (a bug, not the agent's mistake); the call is
    │                   recorded in the transcript like any other, its details only in the log
    └── CatalogChanged  the catalog file changed while the server ran: no episode opens on it
"""


import errno
import sqlite3


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc` says the disk (or the user's quota on it) is full: from a file write, or
    from SQLite (SQLITE_FULL, "database or disk is full"). Not an agent's mistake: the episode
    API answers 507 and a write tool says it was not applied."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    return isinstance(exc, sqlite3.OperationalError) and "disk is full" in str(exc)


class ShopError(Exception):
    pass


class NotFound(ShopError):
    pass


class Rejected(ShopError):
    pass


class NotIdentified(Rejected):
    """An order or account tool called before `find_customer` matched the customer, in an episode
    that carries the identity minefield (issue 33)."""


class BudgetSpent(ShopError):
    pass


class EpisodeClosed(ShopError):
    pass


class InternalError(ShopError):
    pass


class CatalogChanged(ShopError):
    pass
