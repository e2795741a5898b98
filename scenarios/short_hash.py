"""SHA-256 for short inputs (a seed's labels, a transcript line), from Python's own C module.

OpenSSL's SHA-256 (`hashlib.sha256`) is the fast one for long inputs, but each call of it looks
the algorithm up among OpenSSL's providers: on a line of a few hundred bytes, in the middle of an
episode's other work, that lookup costs more than the digest (issue 36's in-process episode seals
seven lines and derives eight seeds). CPython's built-in module digests the same
bytes to the same value without it. Use `hashlib.sha256` for files and anything long.
"""

from __future__ import annotations

try:  # CPython 3.12 and later
    from _sha2 import sha256
except ImportError:
    try:  # CPython 3.11
        from _sha256 import sha256  # type: ignore[no-redef]
    except ImportError:  # another Python: OpenSSL's, the same digest
        from hashlib import sha256  # type: ignore[assignment]

__all__ = ["sha256"]
