"""Every scenario the generators make passes the checks a client's scenario must pass (the
crafted failures are in test_http.py, against the real server)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verishop.mcp_server.http.access import AllowedHosts, parse_host
from verishop.mcp_server.http.admission import InvalidScenario, check_scenario
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.envs import REGISTRY, generate


@pytest.mark.parametrize("env", sorted(REGISTRY))
def test_generated_scenarios_are_admitted(reader: CatalogReader, env: str) -> None:
    @settings(max_examples=25, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(difficulty=st.integers(0, MAX_DIFFICULTY), seed=st.integers(0, 2**31 - 1))
    def holds(difficulty: int, seed: int) -> None:
        check_scenario(generate(env, difficulty, seed, reader), reader)

    holds()


def test_the_first_problem_is_named_with_a_short_echo(reader: CatalogReader) -> None:
    scenario = generate("pd", 2, 1, reader)
    bad = scenario.model_copy(update={"env_id": "z" * 10_000})
    with pytest.raises(InvalidScenario) as caught:
        check_scenario(bad, reader)
    assert "env_id" in str(caught.value) and len(str(caught.value)) < 300


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
def test_only_exact_host_and_port_pairs_are_allowed(value: str) -> None:
    allowed = AllowedHosts.build("127.0.0.1", 8000)
    if allowed.allows_host(value):
        assert parse_host(value, 80) in {("127.0.0.1", 8000), ("localhost", 8000), ("[::1]", 8000)}


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "shop.lan:8000",
                                  "shop.lan:9000", "10.0.0.5:8000"])
def test_a_wildcard_bind_accepts_loopback_and_the_listed_hosts(host: str) -> None:
    allowed = AllowedHosts.build("0.0.0.0", 8000, ["shop.lan", "shop.lan:9000", "10.0.0.5"])
    assert allowed.allows_host(host)
    assert not allowed.allows_host("0.0.0.0:8000") and not allowed.allows_host("shop.lan:8001")
