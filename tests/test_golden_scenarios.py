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

from verishop.envs import PLAIN_VOICED
from verishop.scenarios.envs import REGISTRY, generate, get_env

# Every id that generates: the current (voiced) versions and the plain-voiced ones before them.
GENERATED = sorted([*REGISTRY, *(spec.env_id for spec in PLAIN_VOICED)])

CATALOG_CONTENT_HASH = "364570ecc02892684b2b68afd0c3e22eeaf103615ede5f7a54088d2e539c9fcd"
DIGESTS = {
    "bundle-v6": "f949c22bde2d82b5474a2e14928ff32e97c43e786acc5bd83a5135b45b1f1adf",
    "cart-v6": "c503a6bcdd6c048d78dfe97faaf2d6a2d810cec0ca847af12629241eb56652c5",
    "change-v2": "cc4a492dd61b9efeb667b4bf8b8c7da60d9582650cd31cad6603931ac12885c3",
    "checkout-v1": "231dd1d0cc03620689e08de636bfcc395df611f8dc4b41826ad30cd3fac08d64",
    "compensation-v1": "fb97db07f5c10f03e79617b932d5cc1e8ca54755ac39d2279308b4ab478de2ec",
    "exchange-v2": "28f336fa3689e6cecff6cb625bf2842fd161784a1ee3d73d944445a69b5a8189",
    "handover-v2": "8acc6bad797b4fbe05ee6e3937fbbf16b30feabcaff60eefd9e5ba36896a3d8e",
    "journey-v11": "f2bb61195b306f79c951df25a1a8f35229646218cae2a06670a2bf27fb899946",
    "pd-v9": "6532b244c1eb3f13674c2aef71db84b622e17e99b7622a6924b826ced55f4168",
    "policy-v6": "3cb51789f6ef197de06d7b7bd0cfc57a405fd0d7ff2e0a12e6dd92ec7954a918",
    "return-v8": "69102ad44286676c0ba284fb72935a22c86c8c3b3e8c2fbded2701889348bba8",
    "status-v7": "9652a6d2d081661bd4aa73ef2b61457d063ca9032b7f96ffc09130af4df3fe1e",
    "sub-v8": "c0778ba0ed0928c463a17b33f84f47f8514ff3d741bf6aa7cd626ba74094595c",
    # Issue 35: the customer's voices (the plain versions above keep their bytes).
    "pd-v10": "d2d710025c86e680df1fe645111f970ffe15c35bed45e487030695063d7e51ac",
    "cart-v7": "54188c36ac19561c5e33d30431b126dea9093b470c9a636463752d7e752aeee0",
    "sub-v9": "2af9748c301ac7043a2d2f43a09b087d144645dfeed3f0319d9fa8ad2a971782",
    "policy-v7": "b7ff87c00a21b03e5a8c9592d499a1806ae98c82aec04272e8563ffe7616e938",
    "return-v9": "4dbcd66c9933295e366f13230afc589a548dcb858a3d23c47e25b2637535d17c",
    "status-v8": "695a05e341f7fdcd6b2f71e8d6c694fa81caf52e7a60811726ef0deff1d0e029",
    "bundle-v7": "04fd280181f63d629d6f2ff31a8b06a772982ac181c278bcfa6817c81241936d",
    "journey-v12": "fb5742ca6b34f0ed645f17ea183852f5f6029e0b706579bf76c655ab2b492ac5",
    "change-v3": "381bc8726859c40d5ccec24918433df6ff5aa3baf5d1996e9f0c68e62a945a55",
    "exchange-v3": "23cbd8c021ad193446893871bc33bab7bee3d34444dbbcdbb1bb8e24cf21675b",
    "handover-v3": "ae47cab452ff7a926af7ce6f4b692a625728c411709f069c0d65e915505ac3d9",
    "compensation-v2": "f13ebb9937a15c79c53c454b54adf99bd3d3a2894446cd23519fb802b813f685",
    "checkout-v2": "0270f51e50e6825fbec11b1e14b7b244052ffb5359126be6fbf588374cea003d",
}

# Versions that changed only how episodes are scored or how the customer answers, or what an imported
# shop's episodes say, or that laid issue 33's minefields over the task (their task is the earlier
# version's, byte for byte; the minefields come on top), or what an imported
# shop's episodes say (issue 30: its currency, two-option variants; issue 19's
# safety reading and the answer reader's phrasings; issue 28's safety on a normal form, the reader
# that asks rather than guesses, the customer that answers what was asked): their scenarios are
# the bytes of the version whose draws they keep, but for the id.
RESCORED = {
    "policy-v6": ("policy-v3", "5cf0b5900b84a8e17108fb38ce99b2f32ed196fd58e237c3411fcfd6c52afad8"),
    "status-v7": ("status-v3", "4983886886b1e58d8a4e5bf439de95f5774f266108128df1015cc710f8fd79a6"),
    "bundle-v6": ("bundle-v2", "0b847eb5a612306bd58ee230dfc79d0521d0f46175fb93232780cbb0a929742b"),
    "cart-v6": ("cart-v2", "ad2723ead4d1cc3a2020117c0738f1cba16b87c9118466166fb50c526f1aaf32"),
    "pd-v9": ("pd-v5", "68202760031ad7963cf6e40abcf678682d9258e1e112461973590fac322e7b36"),
    "return-v8": ("return-v4", "691bd07d12eea693eb48dcf0742ef7226ca4447566e580b087193ea83109c522"),
    "sub-v8": ("sub-v4", "4c7bfb920ade92a08e1513f6a306f33b72703df49f48d9c97cea90bd32b934d3"),
    # Issue 33: the minefields overlaid on these tasks, whose draws are the previous version's.
    "change-v2": ("change-v1", "5cfa599bfef7dbd91fb2652c7b4fd949f19fcf547edc96ad008fedbef265ffee"),
    "exchange-v2": ("exchange-v1", "420f403796d8b88069fa06fc0d2efa62393dde4717bb92af99358c34fdc4c6d1"),
    "handover-v2": ("handover-v1", "94fcae04f044aa32cc0f554fc3d40080574bfe6a5fbb42b342838f86533aca32"),
}


def test_the_test_catalog_is_the_one_the_digests_were_taken_on(reader):
    assert reader.meta["content_hash"] == CATALOG_CONTENT_HASH


def test_every_environment_has_its_pinned_bytes(reader):
    assert sorted(DIGESTS) == GENERATED, "a new or renamed environment needs its digest here"
    found = {}
    for env_id in GENERATED:
        digest = hashlib.sha256()
        for difficulty in (0, 6, 12):
            for seed in (1, 2):
                digest.update(generate(env_id, difficulty, seed, reader).to_json().encode())
        found[env_id] = digest.hexdigest()
    assert found == DIGESTS


def test_a_rescored_version_generates_the_bytes_of_the_version_it_rescores(reader):
    """Its task, that is: the minefields its difficulty overlays (issue 33) come on top of it."""
    for env_id, (rescored, old_digest) in sorted(RESCORED.items()):
        assert get_env(env_id).draws_as == rescored, "its episodes must draw as the version it re-scores"
        digest = hashlib.sha256()
        for difficulty in (0, 6, 12):
            for seed in (1, 2):
                text = get_env(env_id).generate(difficulty, seed, reader).to_json()
                digest.update(text.replace(f'"{env_id}"', f'"{rescored}"').encode())
        assert digest.hexdigest() == old_digest, env_id


def test_a_voiced_version_is_its_plain_version_but_for_the_words_the_customer_opens_with(reader):
    """Issue 35: a voice rewords; the world, the goal and the minefields are the plain version's."""
    for plain in PLAIN_VOICED:
        voiced = get_env(plain.name)
        assert voiced.voiced and not plain.voiced and voiced.draws_as == (plain.draws_as or plain.env_id)
        for difficulty in (0, 6, 12):
            for seed in (1, 2):
                before = generate(plain.env_id, difficulty, seed, reader)
                after = generate(voiced.env_id, difficulty, seed, reader)
                assert before.voice is None and after.voice is not None
                words = {"env_id": before.env_id, "voice": None, "opening_message": before.opening_message}
                if hasattr(after.goal, "openings"):
                    words["goal"] = after.goal.model_copy(update={"openings": before.goal.openings})
                assert after.model_copy(update=words).to_json() == before.to_json(), (voiced.env_id, difficulty, seed)


def test_below_every_minefield_s_threshold_a_scenario_is_its_task_byte_for_byte(reader):
    for env_id in GENERATED:
        for difficulty in (0, 1, 2):
            for seed in (1, 2, 3):
                overlaid = generate(env_id, difficulty, seed, reader)
                assert overlaid.minefields is None, (env_id, difficulty, seed)
                assert overlaid.to_json() == get_env(env_id).generate(difficulty, seed, reader).to_json()


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
