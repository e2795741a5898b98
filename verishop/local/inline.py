"""A blocking in-process tool call, run to its end without turning an event loop.

In process, a tool call's coroutine waits on nothing: its SQLite statements run on the calling
thread, its lock is taken at once when free, and the customer replies in code. Handing it to
`loop.run_until_complete` then only adds a task, two turns of the loop and a `select` on no
files: about a tenth of a search call's CPU. `run_inline` steps the coroutine itself, in a copy of
the caller's context (as a task runs), and `INLINE` tells the code below that nothing else runs
meanwhile: a statement the server would hand to its slow lane runs right here
(`MemoryWorld`), since a thread would only add its hop for a caller that blocks anyway.

`LocalEpisode.call` runs a call inline only when it cannot need the loop: no model rewording
the customer (an HTTP request) and the episode's lock free (a wait). Everything else, and every
`a`-prefixed method, runs on an event loop as before.
"""

from __future__ import annotations

import contextvars
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

INLINE: contextvars.ContextVar[bool] = contextvars.ContextVar("verishop_local_inline", default=False)


class WaitedInline(RuntimeError):
    """An inline call waited on the event loop after all (a bug: see the module docstring)."""


def run_inline(coroutine: Coroutine[Any, Any, T]) -> T:
    """`coroutine`'s result, stepped to its end in a copy of this context with `INLINE` set. A bare
    yield (`asyncio.sleep(0)`: letting others run) is stepped past, since nothing else runs; a wait
    on a future cannot be served here and raises `WaitedInline`."""
    context = contextvars.copy_context()
    context.run(INLINE.set, True)
    try:
        while True:
            waited = context.run(coroutine.send, None)
            if waited is not None:
                coroutine.close()
                raise WaitedInline(f"an in-process call waited on {waited!r}, which only an event loop serves")
    except StopIteration as done:
        return done.value
