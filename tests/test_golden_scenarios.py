"""Scenarios are byte-identical on every machine and every day, not only twice in one process:
the digests of a few scenarios per environment, on the session's test catalog, are pinned here.

A digest that changes means the bytes an environment id stands for changed: on purpose, that is a
version bump (a new id in the registry, `verishop/envs/__init__.py`, its reason in the CHANGELOG)
and new digests here; by accident (a dependency's data lists, set or dict order, float
formatting, the global random), it is the bug this test exists to catch. Faker's data lists feed
customer names and addresses, which is why `faker` is pinned to one release in pyproject.toml.
"""

from __future__ import annotations

import hashlib

from verishop.scenarios.envs import REGISTRY, generate

CATALOG_CONTENT_HASH = "364570ecc02892684b2b68afd0c3e22eeaf103615ede5f7a54088d2e539c9fcd"
DIGESTS = {
    "bundle-v5": "a209ee121dcc23d4ddfc26b6baab8d321cbe478c5efa557b1f29257892d8b8c3",
    "cart-v5": "08db95bc828b1a97180ccdc3c38407aa4866fff0d53587c6497951d93cef3f1a",
    "change-v1": "5cfa599bfef7dbd91fb2652c7b4fd949f19fcf547edc96ad008fedbef265ffee",
    "exchange-v1": "420f403796d8b88069fa06fc0d2efa62393dde4717bb92af99358c34fdc4c6d1",
    "handover-v1": "94fcae04f044aa32cc0f554fc3d40080574bfe6a5fbb42b342838f86533aca32",
    "journey-v10": "054660301bfb3254ae5be65dbed8fcf92d598150fe7cd9a348ffbcb55970496a",
    "pd-v8": "80269314777f32c9b844352b6af0f81a18ad8dbe53f10f1570f8a32f9cf03237",
    "policy-v6": "3cb51789f6ef197de06d7b7bd0cfc57a405fd0d7ff2e0a12e6dd92ec7954a918",
    "return-v7": "2db25f1a6e3f3081cfa60ee3f4e5d1957b50c9e615c07b33ef8f9c0e5f835570",
    "status-v6": "fdc353a4345fa43182bea12f4563583b255cf5c4a1df895cde2363349d205b2d",
    "sub-v7": "0c97be4a63950ab85e59f579ec1f509824979bf001e47f32b56eda2a7b67c636",
}

# Versions that changed only how episodes are scored or how the customer answers, or what an imported
# shop's episodes say (issue 30: its currency, two-option variants; issue 19's
# safety reading and the answer reader's phrasings; issue 28's safety on a normal form, the reader
# that asks rather than guesses, the customer that answers what was asked): their scenarios are
# the bytes of the version whose draws they keep, but for the id.
RESCORED = {
    "policy-v6": ("policy-v3", "5cf0b5900b84a8e17108fb38ce99b2f32ed196fd58e237c3411fcfd6c52afad8"),
    "status-v6": ("status-v3", "4983886886b1e58d8a4e5bf439de95f5774f266108128df1015cc710f8fd79a6"),
    "bundle-v5": ("bundle-v2", "0b847eb5a612306bd58ee230dfc79d0521d0f46175fb93232780cbb0a929742b"),
    "cart-v5": ("cart-v2", "ad2723ead4d1cc3a2020117c0738f1cba16b87c9118466166fb50c526f1aaf32"),
    "pd-v8": ("pd-v5", "68202760031ad7963cf6e40abcf678682d9258e1e112461973590fac322e7b36"),
    "return-v7": ("return-v4", "691bd07d12eea693eb48dcf0742ef7226ca4447566e580b087193ea83109c522"),
    "sub-v7": ("sub-v4", "4c7bfb920ade92a08e1513f6a306f33b72703df49f48d9c97cea90bd32b934d3"),
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
    """Its task, that is: the minefields its difficulty overlays (issue 33) come on top of it."""
    for env_id, (rescored, old_digest) in sorted(RESCORED.items()):
        assert REGISTRY[env_id].draws_as == rescored, "its episodes must draw as the version it re-scores"
        digest = hashlib.sha256()
        for difficulty in (0, 6, 12):
            for seed in (1, 2):
                text = REGISTRY[env_id].generate(difficulty, seed, reader).to_json()
                digest.update(text.replace(f'"{env_id}"', f'"{rescored}"').encode())
        assert digest.hexdigest() == old_digest, env_id


def test_below_every_minefield_s_threshold_a_scenario_is_its_task_byte_for_byte(reader):
    for env_id in sorted(REGISTRY):
        for difficulty in (0, 1, 2):
            for seed in (1, 2, 3):
                overlaid = generate(env_id, difficulty, seed, reader)
                assert overlaid.minefields is None, (env_id, difficulty, seed)
                assert overlaid.to_json() == REGISTRY[env_id].generate(difficulty, seed, reader).to_json()


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
