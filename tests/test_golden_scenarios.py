"""Scenarios are byte-identical on every machine and every day, not only twice in one process:
the digests of a few scenarios per environment, on the session's test catalog, are pinned here.

A digest that changes means the bytes an environment id stands for changed: on purpose, that is a
version bump (a new id in scenarios/envs, its reason in the module's docstring and the README)
and new digests here; by accident (a dependency's data lists, set or dict order, float
formatting, the global random), it is the bug this test exists to catch. Faker's data lists feed
customer names and addresses, which is why `faker` is pinned to one release in pyproject.toml.
"""

from __future__ import annotations

import hashlib

from verishop.scenarios.envs import REGISTRY, generate

CATALOG_CONTENT_HASH = "364570ecc02892684b2b68afd0c3e22eeaf103615ede5f7a54088d2e539c9fcd"
DIGESTS = {
    "bundle-v2": "0b847eb5a612306bd58ee230dfc79d0521d0f46175fb93232780cbb0a929742b",
    "cart-v2": "ad2723ead4d1cc3a2020117c0738f1cba16b87c9118466166fb50c526f1aaf32",
    "journey-v5": "ade397947987c7507dd1d4222ba4d10534349dc5334cba649dec75c70aaac74f",
    "pd-v5": "68202760031ad7963cf6e40abcf678682d9258e1e112461973590fac322e7b36",
    "policy-v2": "80645662746a87751e52467691ea3670b243e5a754ba2aa04439ee2440782835",
    "return-v4": "691bd07d12eea693eb48dcf0742ef7226ca4447566e580b087193ea83109c522",
    "status-v2": "946b7e930e7f8e2d6846d194d21165e7aaf9546714667d086393c5bbf9418fc2",
    "sub-v4": "4c7bfb920ade92a08e1513f6a306f33b72703df49f48d9c97cea90bd32b934d3",
}


def test_the_test_catalog_is_the_one_the_digests_were_taken_on(reader):
    assert reader.meta["content_hash"] == CATALOG_CONTENT_HASH


def test_every_environment_has_its_pinned_bytes(reader):
    assert sorted(DIGESTS) == sorted(REGISTRY), "a new or renamed environment needs its digest here"
    found = {}
    for env_id in sorted(REGISTRY):
        digest = hashlib.sha256()
        for difficulty in (0, 6, 12):
            for seed in (1, 2):
                digest.update(generate(env_id, difficulty, seed, reader).to_json().encode())
        found[env_id] = digest.hexdigest()
    assert found == DIGESTS
