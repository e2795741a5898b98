"""Child processes that never outlive the process that started them.

The tie is a pipe: the parent keeps the write end, the child watches the read end, and the
kernel closes the write end when the parent exits, however it exits (SIGKILL and a crash
included), so the child sees end-of-file and stops the way it would on SIGTERM. Why a pipe and
not Linux's `PR_SET_PDEATHSIG`: the parent-death signal fires when the *thread* that forked the
child exits, not the process (a server started from a worker thread would be killed as that
thread ends), it is Linux-only, and it cannot run cleanup in a child that must first close its
episodes. A pipe works on every POSIX system and lets the child stop gracefully.

- `spawn_parent_bound`: a `verishop serve` (HTTP) whose `--parent-fd` is the read end; the
  server (and through its own pipes, each of its `--workers`) stops when the parent is gone.
- `watch_for_orphans`: for the memory transport, where episodes live inside eval itself: a small
  watcher process (this module's `main`) that, once eval is gone, closes what eval left open
  (the server's crash recovery: world.db from eval's world store, a closing event with reason
  `server_crashed`), so `verishop verify RUN_DIR` can score them.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

WATCHER_EXIT_WAIT_S = 10.0
# The write end of each bound child's pipe, by pid: closed once the child is reaped.
_write_ends: dict[int, int] = {}


def spawn_parent_bound(command: list[str], **popen: Any) -> subprocess.Popen:
    """Start `verishop serve ...` (`command`) with `--parent-fd`, in its own session (a Ctrl-C at the
    terminal reaches only the parent, which stops its child in order). Call `release_child` after
    reaping it."""
    read_end, write_end = os.pipe()  # both non-inheritable: only pass_fds reaches the child
    try:
        process = subprocess.Popen([*command, "--parent-fd", str(read_end)], pass_fds=(read_end,),
                                   start_new_session=True, **popen)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    _write_ends[process.pid] = write_end
    return process


def release_child(process: subprocess.Popen) -> None:
    write_end = _write_ends.pop(process.pid, None)
    if write_end is not None:
        os.close(write_end)


@contextlib.contextmanager
def watch_for_orphans(runs_dir: Path) -> Iterator[None]:
    """While inside, a watcher process closes `runs_dir`'s open episodes if this process dies."""
    watcher = subprocess.Popen([sys.executable, "-P", "-m", "verishop.agents.parent_bound", str(runs_dir)],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        yield
    finally:
        assert watcher.stdin is not None
        watcher.stdin.close()  # it wakes, finds nothing open, and exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            watcher.wait(timeout=WATCHER_EXIT_WAIT_S)


def main(runs_dir: str) -> None:
    """The watcher: wait for end-of-file on stdin (the parent is gone), then close every episode
    under `runs_dir` that no live process holds."""
    import signal

    from verishop.mcp_server.episodes.lifecycle import is_episode_id
    from verishop.mcp_server.episodes.recovery import recover

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the parent's death ends the wait
    while os.read(0, 4096):
        pass
    found = recover(Path(runs_dir), is_episode_id)
    if found.crashed or found.interrupted:
        print(f"verishop: eval exited with {len(found.crashed) + len(found.interrupted)} episode(s) open in "
              f"{runs_dir}; closed them (score them with `verishop verify {runs_dir}`)", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
