"""The in-process shop the adapters share: one `LocalShop` per process and catalog (issue 36).

TRL builds one environment instance per rollout slot, and Gymnasium's vector envs one env per
sub-environment; each opening its own catalog and world pool would multiply the memory for
nothing, so they all play on the shop `shared_shop(catalog)` returns. It is made on first use,
under a lock (TRL's asynchronous GRPO calls `reset` and the tools from a pool of threads), and
its blocking methods run one call at a time on the shop's own loop (`LocalShop._run`), so
instances on several threads are safe.

The key includes the process id: a worker forked after the shop was made (a DataLoader worker,
a multiprocessing pool) must not share the parent's SQLite connections, so it gets its own. The
shops are closed at interpreter exit (their open episodes as `server_stopped`).
"""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path

from verishop.local import LocalShop

_shops: dict[tuple[int, str | None], LocalShop] = {}
_lock = threading.Lock()


def shared_shop(catalog: Path | str | None = None) -> LocalShop:
    """This process's `LocalShop` on `catalog` (None: the default catalog, built on first use)."""
    key = (os.getpid(), None if catalog is None else str(Path(catalog).resolve()))
    with _lock:
        shop = _shops.get(key)
        if shop is None:
            shop = _shops[key] = LocalShop(catalog)
        return shop


@atexit.register
def _close_shops() -> None:
    with _lock:
        mine = [key for key in _shops if key[0] == os.getpid()]
        for key in mine:
            _shops.pop(key).close()
