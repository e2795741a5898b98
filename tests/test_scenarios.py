"""Scenarios: byte-identical from (env, difficulty, seed), feasible, and honest about what the
customer said."""

from __future__ import annotations


import pytest

from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.envs import REGISTRY, generate, get_env
from verishop.scenarios.models import Scenario


@pytest.mark.parametrize("env_id", sorted(REGISTRY))
@pytest.mark.parametrize("difficulty", [0, 4, 8, 12])
def test_same_inputs_give_byte_identical_scenarios(reader, env_id, difficulty):
    a = generate(env_id, difficulty, 17, reader).to_json()
    b = generate(env_id, difficulty, 17, reader).to_json()
    assert a == b
    assert Scenario.model_validate_json(a).to_json() == a
    assert generate(env_id, difficulty, 18, reader).to_json() != a


def test_axes_follow_the_reference_table():
    assert axes_for(0).constraints == 2 and axes_for(12).constraints == 8
    assert axes_for(0).max_turns == 4 and axes_for(12).max_turns == 10
    assert axes_for(4).search_top_k == 160 and axes_for(12).p_out_of_stock == 0.5
    assert axes_for(8).items_to_recommend == 5
    with pytest.raises(ValueError):
        axes_for(13)


def test_unknown_environment_is_a_clear_error():
    with pytest.raises(KeyError, match="unknown environment 'nope'"):
        get_env("nope")
    assert get_env("pd").env_id == get_env("pd-v10").env_id == "pd-v10"


