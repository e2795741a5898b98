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
    "bundle-v4": "f03dab72a9a9586d92cdc19ed700b57d9d023880b92dc671d7bca3249f4895b2",
    "cart-v4": "9f28b77af31431f8c59691d3b5172258bcf09f9d1d5d66af1bcde418c2394d43",
    "journey-v8": "b089d48ae30bd12b2e161b149413204c1aab390d1f6dd8261fb212a31edf16ee",
    "pd-v7": "10e81f474cf6d33f4b9d3c09823890f808451120044c6d9fd098061b5b66b1d9",
    "policy-v5": "bb35c878efe063b1b235587ba18089b564e850642c8484eea63d8611e5dda315",
    "return-v6": "fae6b7716fe5ed8f95cea5d91100b7916ae9c1442a6309b398517e2b6a02aaf1",
    "status-v5": "5571002dfb23fd19d61139d97d7099fcfd67578a25c20f1821bb007c1aaddb12",
    "sub-v6": "071268336ad4d126cdc9b73fee3e7965e24bc9de6074a2279528183a423d3187",
}

# Versions that changed only how episodes are scored or how the customer answers (issue 19's
# safety reading and the answer reader's phrasings; issue 28's safety on a normal form, the reader
# that asks rather than guesses, the customer that answers what was asked): their scenarios are
# the bytes of the version whose draws they keep, but for the id.
RESCORED = {
    "journey-v8": ("journey-v6", "4e1bb28a364c921ffd161881dd8e7a7465fa2be919e762cb974635810ca4ecb2"),
    "policy-v5": ("policy-v3", "5cf0b5900b84a8e17108fb38ce99b2f32ed196fd58e237c3411fcfd6c52afad8"),
    "status-v5": ("status-v3", "4983886886b1e58d8a4e5bf439de95f5774f266108128df1015cc710f8fd79a6"),
    "bundle-v4": ("bundle-v2", "0b847eb5a612306bd58ee230dfc79d0521d0f46175fb93232780cbb0a929742b"),
    "cart-v4": ("cart-v2", "ad2723ead4d1cc3a2020117c0738f1cba16b87c9118466166fb50c526f1aaf32"),
    "pd-v7": ("pd-v5", "68202760031ad7963cf6e40abcf678682d9258e1e112461973590fac322e7b36"),
    "return-v6": ("return-v4", "691bd07d12eea693eb48dcf0742ef7226ca4447566e580b087193ea83109c522"),
    "sub-v6": ("sub-v4", "4c7bfb920ade92a08e1513f6a306f33b72703df49f48d9c97cea90bd32b934d3"),
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


def test_a_rescored_version_generates_the_bytes_of_the_version_it_rescores(reader):
    for env_id, (rescored, old_digest) in sorted(RESCORED.items()):
        assert REGISTRY[env_id].draws_as == rescored, "its episodes must draw as the version it re-scores"
        digest = hashlib.sha256()
        for difficulty in (0, 6, 12):
            for seed in (1, 2):
                text = generate(env_id, difficulty, seed, reader).to_json()
                digest.update(text.replace(f'"{env_id}"', f'"{rescored}"').encode())
        assert digest.hexdigest() == old_digest, env_id


def test_random_draws_are_the_same_with_the_in_memory_index_and_without(reader, monkeypatch):
    from verishop.scenarios.catalog import reader as reader_module
    from verishop.scenarios.catalog.reader import CatalogReader

    def scenarios(catalog: CatalogReader) -> list[str]:
        return [generate(env, d, seed, catalog).to_json() for env in ("pd", "cart", "status", "journey")
                for d in (0, 12) for seed in (3, 4)]

    with CatalogReader(reader.path) as indexed:
        with_index = scenarios(indexed)
        assert indexed._category_and_stock_index() is not None
    monkeypatch.setattr(reader_module, "DRAW_INDEX_MAX_PRODUCTS", 0)  # the path of catalogs over the limit
    with CatalogReader(reader.path) as by_rows:
        assert scenarios(by_rows) == with_index
        assert by_rows._category_and_stock_index() is None
