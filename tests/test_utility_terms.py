"""PD's utility is written out term by term for speed (issue 36); it must stay the weighed sum of
`dimension_scores`, float for float, on every product and persona."""

from __future__ import annotations

from verishop.envs import generate
from verishop.scenarios.catalog.generate import product_id
from verishop.scenarios.ranking import DIMENSIONS, dimension_scores, utility


def test_utility_is_the_weighed_sum_of_the_dimension_scores_exactly(reader):
    products = [p for p in (reader.product(product_id(row)) for row in range(1, 400)) if p is not None]
    assert len(products) > 100
    personas = [generate("pd", difficulty, seed, reader).goal.persona for difficulty in (0, 4, 8, 12)
                for seed in range(6)]
    compared = 0
    for persona in personas:
        reference = reader.product(persona.reference_product_id)
        for p in products:
            phi = dimension_scores(p, persona, reference)
            assert utility(p, persona, reference) == round(sum(persona.weights[d] * phi[d] for d in DIMENSIONS), 6)
            compared += 1
    assert compared > 2000
