"""The seal and the seeds digest short inputs with CPython's own SHA-256 (issue 36's speed):
the same values as OpenSSL's, for every key length and input."""

from __future__ import annotations

import hashlib
import hmac

from hypothesis import given, settings
from hypothesis import strategies as st

from verishop.scenarios.rng import derive_seed
from verishop.scenarios.seal import next_seal
from verishop.scenarios.short_hash import sha256


@settings(max_examples=300, deadline=None)
@given(secret=st.binary(min_size=1, max_size=200), previous=st.text(max_size=80), body=st.binary(max_size=3000))
def test_a_seal_is_hmac_sha256_of_the_previous_seal_and_the_line(secret: bytes, previous: str, body: bytes):
    assert next_seal(secret, previous, body) == hmac.digest(secret, previous.encode() + body, "sha256").hex()


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=5000))
def test_the_short_input_digest_is_sha256(data: bytes):
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_derived_seed_is_the_first_eight_bytes_of_the_labels_sha256():
    text = "\x1f".join(repr(p) for p in ("scenario", "pd", 3, 24_000))
    assert derive_seed("scenario", "pd", 3, 24_000) == int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
