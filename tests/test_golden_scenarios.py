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
    "bundle-v3": "7eb928f15fc66cd75fb76c65c04a5f5a1608c542c9ff278ce1388fadebc49d54",
    "cart-v3": "e7c517807c64d330d2672a1f25b1a667e4025d3c4595051afb7d6c12872a970c",
    "journey-v7": "312895e58fa213bc6cfe2d6529cd8a7d54dd318b17f8478b85926426270d2e68",
    "pd-v6": "86a844033a06d5efef8a4baee46c2288d7189a7851a83dec0ef5afc70b1cd7b2",
    "policy-v4": "3180bf7a318938429b4dcd6b041db17c58614e5394a8d4cd238f90bfddb6bbcc",
    "return-v5": "39db422ff1aed53cac0295f97f5a47d4bd49c7773f7e72158c981fa338bb3512",
    "status-v4": "23a1bc5a14535bc485c9b7a73c530c43c181324c91cd3ba261345457a7ff25d9",
    "sub-v5": "46a385895db4e580c385b7b2318a0ed06d327b3fcb3312db79656e8c18b667a8",
}

# Versions that changed only how episodes are scored (issue 19's safety reading; the answer
# reader's new phrasings): their scenarios are the bytes of the version they re-score, but for the id.
RESCORED = {
    "journey-v7": ("journey-v6", "4e1bb28a364c921ffd161881dd8e7a7465fa2be919e762cb974635810ca4ecb2"),
    "policy-v4": ("policy-v3", "5cf0b5900b84a8e17108fb38ce99b2f32ed196fd58e237c3411fcfd6c52afad8"),
    "status-v4": ("status-v3", "4983886886b1e58d8a4e5bf439de95f5774f266108128df1015cc710f8fd79a6"),
    "bundle-v3": ("bundle-v2", "0b847eb5a612306bd58ee230dfc79d0521d0f46175fb93232780cbb0a929742b"),
    "cart-v3": ("cart-v2", "ad2723ead4d1cc3a2020117c0738f1cba16b87c9118466166fb50c526f1aaf32"),
    "pd-v6": ("pd-v5", "68202760031ad7963cf6e40abcf678682d9258e1e112461973590fac322e7b36"),
    "return-v5": ("return-v4", "691bd07d12eea693eb48dcf0742ef7226ca4447566e580b087193ea83109c522"),
    "sub-v5": ("sub-v4", "4c7bfb920ade92a08e1513f6a306f33b72703df49f48d9c97cea90bd32b934d3"),
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
