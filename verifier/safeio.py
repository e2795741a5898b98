"""Reading and writing an episode's files as an attacker may have left them: the agent, a
client's scenario or anyone with write access to the runs folder chooses what is there.

- Only regular files are read: each is opened with O_NOFOLLOW | O_NONBLOCK (a symbolic link
  fails, a FIFO does not block) and then checked with fstat to be S_ISREG (no FIFO, device,
  socket or directory), all relative to the episode folder's own descriptor, itself opened
  with O_NOFOLLOW.
- Every read is bounded by a size cap (`Limits`), so /dev/zero or a file that keeps growing
  cannot eat the memory.
- JSON nesting is measured with a byte scan before any parser sees the document, so a
  200,000-deep array cannot reach a recursive parser.
- Nothing is written through a link: reward.json goes to a fresh partial file created with
  O_CREAT | O_EXCL | O_NOFOLLOW and renamed over reward.json, which must not be a link itself.

Every refusal is an `Unsafe` (an `Incomplete`): the episode gets its own verdict and the
batch goes on.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from verishop.verifier.errors import Incomplete, Unsafe

MiB = 1024 * 1024
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Limits:
    """Caps on what one episode's files may hold. Generous: a real episode stays far below each
    (at d=12: scenarios under 50 KiB, transcripts under 60 KiB, worlds under 100 KiB); they exist so
    that a hostile file costs a bounded amount of time and memory."""

    scenario_bytes: int = 8 * MiB
    transcript_bytes: int = 64 * MiB
    world_bytes: int = 256 * MiB  # world.db, and its -wal if the server died before checkpointing
    reward_bytes: int = 1 * MiB  # a reward.json the sidecar serves
    json_depth: int = 64  # nesting of arrays and objects; real files reach 6 (all envs at d=12)


@contextlib.contextmanager
def episode_folder(directory: Path) -> Iterator[int]:
    """A descriptor of the episode folder, which must be a real directory (not a link to one)."""
    try:
        fd = os.open(directory, DIR_FLAGS)
    except FileNotFoundError:
        raise Incomplete("episode_missing", f"{directory} does not exist") from None
    except OSError as exc:
        # O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR on Linux, ELOOP elsewhere
        if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and os.path.islink(directory)):
            raise Unsafe("episode_not_a_directory", f"{directory} is a symbolic link; not followed") from None
        if exc.errno == errno.ENOTDIR:
            raise Incomplete("episode_missing", f"{directory} is not a directory") from None
        raise Incomplete("episode_missing", f"{directory} cannot be opened: {exc.strerror}") from None
    try:
        yield fd
    finally:
        os.close(fd)


def _open_regular(name: str, dir_fd: int | None, kind: str) -> tuple[int, os.stat_result]:
    """Open `name` for reading only if it is a regular file; (fd, its stat)."""
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise Incomplete(f"{kind}_missing", f"{Path(name).name} does not exist") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unsafe(f"{kind}_not_regular", f"{Path(name).name} is a symbolic link; not followed") from None
        raise Incomplete(f"{kind}_missing", f"{Path(name).name} cannot be read: {exc.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise Unsafe(f"{kind}_not_regular", f"{Path(name).name} is a {_file_type(st.st_mode)}, not a regular file")
    return fd, st


def read_regular(name: str, kind: str, limit_bytes: int, dir_fd: int | None = None) -> bytes:
    """The bytes of a regular file, at most `limit_bytes` of them (a larger one is refused)."""
    fd, st = _open_regular(name, dir_fd, kind)
    try:
        if st.st_size > limit_bytes:
            raise Unsafe(f"{kind}_too_large", f"{Path(name).name} holds {st.st_size:,} bytes; "
                                              f"the cap is {limit_bytes:,}")
        chunks: list[bytes] = []
        left = limit_bytes + 1  # one byte more than allowed tells a file that grew past the cap
        while left > 0:
            chunk = os.read(fd, min(left, MiB))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit_bytes:
        raise Unsafe(f"{kind}_too_large", f"{Path(name).name} grew past the cap of {limit_bytes:,} bytes")
    return data


def read_tail(path: Path, tail_bytes: int, kind: str = "transcript") -> bytes:
    """The last `tail_bytes` of a regular file (Incomplete if missing, Unsafe if not regular)."""
    fd, st = _open_regular(str(path), None, kind)
    try:
        return os.pread(fd, tail_bytes, max(0, st.st_size - tail_bytes))
    except OSError as exc:
        raise Incomplete(f"{kind}_missing", f"{path.name} cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)


def check_regular(name: str, kind: str, limit_bytes: int, dir_fd: int | None = None, *,
                  missing_ok: bool = False) -> bool:
    """Whether `name` exists; refuse it if it is not a regular file or larger than the cap.
    For files that another library opens by path (SQLite)."""
    try:
        fd, st = _open_regular(name, dir_fd, kind)
    except Incomplete as exc:
        if missing_ok and exc.reason == f"{kind}_missing" and not _exists(name, dir_fd):
            return False
        raise
    os.close(fd)
    if st.st_size > limit_bytes:
        raise Unsafe(f"{kind}_too_large", f"{Path(name).name} holds {st.st_size:,} bytes; "
                                          f"the cap is {limit_bytes:,}")
    return True


def _exists(name: str, dir_fd: int | None) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        return True
    except OSError:
        return False


def write_replacing(directory: Path, name: str, data: bytes) -> None:
    """Write `directory/name` atomically (a reader sees the old file or the new one), never
    through a link: the partial file is new (O_EXCL | O_NOFOLLOW, a random name) and the
    rename replaces a regular `name` only."""
    with episode_folder(directory) as dir_fd:
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            pass
        else:
            if not stat.S_ISREG(st.st_mode):
                raise Unsafe(f"{Path(name).stem}_not_regular",
                             f"{name} is a {_file_type(st.st_mode)}; refusing to replace it")
        for _attempt in range(8):
            partial = f".{name}.{os.getpid()}.{secrets.token_hex(8)}.partial"
            try:
                fd = os.open(partial, WRITE_FLAGS, 0o644, dir_fd=dir_fd)
                break
            except FileExistsError:
                continue  # something is already there (planted or not): never reuse it
        else:
            raise Unsafe(f"{Path(name).stem}_not_written", f"no fresh partial file for {name} could be created")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(partial, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial, dir_fd=dir_fd)
            raise


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "symbolic link"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"


# JSON nesting, measured on the bytes. A bracket inside a string does not count, so strings
# are blanked first; only documents with more brackets than the cap need the scan at all.
_OPEN_CLOSE = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def json_depth_exceeds(raw: bytes, limit: int) -> bool:
    """Whether a JSON text nests arrays and objects deeper than `limit` (cheap: C-speed byte
    operations; the per-byte loop runs only over brackets, and only when there are many)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    if b'"' in raw:
        raw = _STRING.sub(b'""', raw)
    brackets = raw.translate(None, _NOT_BRACKETS).translate(_OPEN_CLOSE)
    return max(accumulate(memoryview(brackets).cast("b")), default=0) > limit  # +1 per opening, -1 per closing


def check_json_depth(raw: bytes, what: str, kind: str, limit: int) -> None:
    if json_depth_exceeds(raw, limit):
        raise Unsafe(f"{kind}_too_deep", f"{what} nests arrays or objects deeper than {limit} levels")
