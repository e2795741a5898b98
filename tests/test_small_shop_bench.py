"""The harness of `bench/small_shop.py` (issue 24): a tiny run of verishop's side, and the peer
driver's contract tested with a fake EcomRLVE-Gym checkout that this test writes into a temporary
folder. The fake stands for the peer's shape only (a Gymnasium-style env, a search function, an LLM
call that must never really happen): these tests check OUR harness, not EcomRLVE-Gym."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import peer_ecomrlve  # noqa: E402  (scripts in bench/, not a package)
import small_shop  # noqa: E402

FAKE_LLM = '''
def _ollama_generate(prompt, **options):
    raise RuntimeError("a real LLM call: the driver must stub it")
'''

# The shape of EcomRLVE-Gym's `ecom_rlve.server.openenv.EcomRLVEEnv` (owlgebra-ai/ShopRLVE-Gym), as
# the driver calls it: reset(env_id, difficulty, seed), step(action JSON) -> (observation, reward,
# done, info), the observation's tool_results, and its LLM call looked up on its module.
FAKE_ENV = '''
import json
from dataclasses import dataclass, field

from ecom_rlve.simulator import llm_backend
from ecom_rlve.tools.catalog import catalog_search

SEEN = {"actions": [], "sizes": [], "resets": []}


@dataclass
class Observation:
    conversation: list = field(default_factory=list)
    tool_results: list = field(default_factory=list)


class EcomRLVEEnv:
    validate_rewards = True
    dump_dir = "debug_dumps"

    def __init__(self, collection="C1", seed=42, config=None):
        SEEN["sizes"].append((config or {}).get("n_synthetic_products"))
        self._state = None

    def reset(self, env_id=None, difficulty=None, seed=None):
        SEEN["resets"].append((env_id, difficulty, seed))
        self._state = {"seed": seed}
        text = llm_backend._ollama_generate(f"open the conversation, seed {seed}") or "Looking for a charger."
        return Observation(conversation=[{"role": "user", "content": text}])

    def step(self, action_json):
        action = json.loads(action_json)
        SEEN["actions"].append(action)
        results = [{"name": c["name"], "args": c["args"],
                    "result": catalog_search(c["args"]["query"], c["args"].get("filters"), c["args"]["top_k"],
                                             state=self._state)}
                   for c in action.get("tool_calls", [])]
        done = bool(action.get("answer", {}).get("done"))
        return Observation(tool_results=results), (1.0 if done else 0.0), done, {}
'''

FAKE_CATALOG = '''
PRODUCTS = [{"product_id": f"E{i:04d}", "title": f"usb-c charger {i}"} for i in range(50)]


def catalog_search(query, filters=None, top_k=20, *, state=None):
    words = query.split()
    return [p for p in PRODUCTS if all(w in p["title"] for w in words)][:top_k]


def search_itself(env, arguments):
    return catalog_search(arguments.get("query") or "usb-c", None, 5, state=None)
'''


def write_checkout(root: Path, env_source: str = FAKE_ENV, llm_source: str = FAKE_LLM) -> Path:
    package = root / "src" / "ecom_rlve"
    for folder in ("", "simulator", "server", "tools"):
        (package / folder).mkdir(parents=True, exist_ok=True)
        (package / folder / "__init__.py").write_text("")
    (package / "simulator" / "llm_backend.py").write_text(textwrap.dedent(llm_source))
    (package / "server" / "openenv.py").write_text(textwrap.dedent(env_source))
    (package / "tools" / "catalog.py").write_text(textwrap.dedent(FAKE_CATALOG))
    return root


@pytest.fixture
def forget_fake_package() -> Iterator[None]:
    """Each test imports its own fake checkout: drop the previous one's modules and paths."""
    path_before = list(sys.path)
    yield
    for name in [n for n in sys.modules if n == "ecom_rlve" or n.startswith("ecom_rlve.")]:
        del sys.modules[name]
    sys.path[:] = path_before


def tiny(tmp_path: Path, *extra: str) -> list[str]:
    return ["--sizes", "1000", "--rounds", "1", "--episodes", "2", "--calls", "3", "--http-calls", "0",
            "--cache-dir", str(tmp_path / "catalogs"), "--json", str(tmp_path / "out.json"), *extra]


async def test_with_a_checkout_the_peer_plays_the_same_job_with_its_llm_stubbed(tmp_path, forget_fake_package):
    checkout = write_checkout(tmp_path / "EcomRLVE-Gym")
    payload = await small_shop.main(tiny(tmp_path, "--peer", str(checkout)))

    from ecom_rlve.server import openenv as fake
    from ecom_rlve.simulator import llm_backend
    assert payload["peer"]["source"] == f"this run: {checkout}"
    runs = small_shop.WARMUP + 2
    assert payload["peer"]["llm_calls_stubbed"] == runs  # one per reset, none reached the real function
    with pytest.raises(RuntimeError, match="a real LLM call"):
        llm_backend._ollama_generate("after the run the peer's own function is back")
    assert fake.SEEN["sizes"] == [1000]
    assert fake.EcomRLVEEnv.dump_dir == "" and fake.EcomRLVEEnv.validate_rewards is False  # debug levers off
    assert [r[0] for r in fake.SEEN["resets"]] == ["PD"] * runs
    searches = [a for a in fake.SEEN["actions"] if a.get("tool_calls")]
    answers = [a for a in fake.SEEN["actions"] if a.get("answer")]
    assert len(searches) == len(answers) == runs
    assert all(a["tool_calls"][0]["name"] == "catalog.search" and a["tool_calls"][0]["args"]["query"]
               for a in searches)
    assert all(a["answer"]["done"] and a["answer"]["env"] == "PD" for a in answers)
    theirs, ours = payload["peer"]["results"][1000], payload["results"][1000]
    for figure in ("creation", "search_step", "search_direct", "scripted"):
        assert theirs[figure]["cpu_ms"] >= 0 and theirs[figure]["n"] == 2, figure
    assert theirs["episodes_per_s"]["value"] > 0
    assert ours["episodes_scored"] == {"value": 2, "of": 2}
    assert ours["local_episodes_scored"] == {"value": 2, "of": 2}
    for figure in ("local_scripted", "local_mcp_scripted"):
        assert ours[figure]["cpu_ms"] > 0, figure
    assert json.loads((tmp_path / "out.json").read_text())["peer"]["source"].startswith("this run")


async def test_without_a_checkout_the_issue_s_figures_are_a_labelled_reference_column(tmp_path, capsys):
    payload = await small_shop.main(tiny(tmp_path))
    out = capsys.readouterr().out
    assert payload["peer"]["source"] == small_shop.PEER_LABEL_PUBLISHED
    assert payload["peer"]["results"][1000]["creation"] == {"cpu_ms": 3.80}
    assert "EcomRLVE (issue 24, not this run)" in out and "issue 24's measurement, not this run" in out
    ours = payload["results"][1000]
    assert ours["episodes_scored"] == {"value": 2, "of": 2}
    # Every step and every floor is measured in the run itself.
    for figure in ("creation", "generate", "bare_sqlite", "search_step", "search_step_sdk", "search_direct", "noop",
                   "noop_sdk", "noop_floor", "connect", "answer_close", "verify", "scripted"):
        assert ours[figure]["cpu_ms"] > 0, figure
    assert ours["scripted"]["cpu_ms"] >= ours["creation"]["cpu_ms"] + ours["verify"]["cpu_ms"]


async def test_a_checkout_without_an_entry_point_stops_the_bench_naming_it(tmp_path, forget_fake_package):
    checkout = write_checkout(tmp_path / "peer", llm_source=FAKE_LLM.replace("def _ollama_generate(", "def chat("))
    with pytest.raises(SystemExit, match=r"no ecom_rlve\.simulator\.llm_backend\._ollama_generate \(entry 'llm'\).*"
                                         r"--peer-entry llm=module:attribute"):
        await small_shop.main(tiny(tmp_path, "--peer", str(checkout)))
    assert not (tmp_path / "out.json").exists()


async def test_an_entry_point_can_be_pointed_elsewhere_from_the_command_line(tmp_path, forget_fake_package):
    checkout = write_checkout(tmp_path / "peer")
    payload = await small_shop.main(tiny(tmp_path, "--peer", str(checkout),
                                         "--peer-entry", "search_direct=ecom_rlve.tools.catalog:search_itself"))
    assert payload["peer"]["results"][1000]["search_direct"]["n"] == 2


def test_the_driver_names_what_is_wrong_with_a_checkout(tmp_path, forget_fake_package):
    with pytest.raises(peer_ecomrlve.PeerContractError, match="no such directory"):
        peer_ecomrlve.load_peer(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(peer_ecomrlve.PeerContractError, match="has no module 'ecom_rlve.simulator.llm_backend'"):
        peer_ecomrlve.load_peer(tmp_path / "empty")
    with pytest.raises(peer_ecomrlve.PeerContractError, match="unknown --peer-entry reset"):
        peer_ecomrlve.load_peer(tmp_path / "empty", {"reset": "x:y"})
    checkout = write_checkout(tmp_path / "envless", env_source="SEEN = {}\n")
    peer = peer_ecomrlve.load_peer(checkout)
    with pytest.raises(peer_ecomrlve.PeerContractError, match="no ecom_rlve.server.openenv.EcomRLVEEnv"):
        peer.env(1000, 1)
