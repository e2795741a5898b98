"""The shop's Faker draws a weighted name with its lists' running sums kept (scenarios/household.py):
every value it gives must be the one a plain Faker gives from the same seed, or scenarios change."""

from __future__ import annotations

import threading

from faker import Faker

from verishop.scenarios.household import faker

DRAWS = ("first_name", "last_name", "city", "street_address", "street_name", "building_number", "name", "address",
         "email", "phone_number", "zipcode", "state")


def _values(fake: Faker, seed: int) -> list[str]:
    fake.seed_instance(seed)
    return [getattr(fake, draw)() for draw in DRAWS for _ in range(3)]


def test_the_shops_faker_draws_what_a_plain_faker_draws_from_every_seed() -> None:
    plain = Faker("en_US")
    for seed in range(300):
        assert _values(faker(), seed) == _values(plain, seed), seed


def test_each_thread_has_its_own_faker_drawing_the_same_values() -> None:
    found: dict[int, list[str]] = {}

    def draw(n: int) -> None:
        found[n] = _values(faker(), 42)

    threads = [threading.Thread(target=draw, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(found) == 3 and found[0] == found[1] == found[2] == _values(Faker("en_US"), 42)
