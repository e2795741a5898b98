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
def chat(prompt):
    raise RuntimeError("a real LLM call: the driver must stub it")
'''

FAKE_BENCH = '''
from ecomrlve import llm

PRODUCTS = [{"id": f"E{i:04d}", "title": f"usb-c charger {i}"} for i in range(50)]
SEEN = {"search_arguments": [], "answered": [], "sizes": []}


class Env:
    def __init__(self, size):
        self.size = size
        self.open = False

    def reset(self, seed=None):
        self.open = True
        return {"message": llm.chat(f"open the conversation, seed {seed}")}

    def step(self, action):
        kind, payload = action
        if kind == "search":
            return {"results": search(payload)}, 0.0, False, False, {}
        SEEN["answered"].append(payload)
        self.open = False
        return {}, 1.0, True, False, {}


def search(arguments):
    words = arguments["query"].split()
    return [p["id"] for p in PRODUCTS if all(w in p["title"] for w in words)][: arguments["limit"]]


def make_env(catalog_size, seed):
    SEEN["sizes"].append(catalog_size)
    return Env(catalog_size)


def search_action(arguments):
    SEEN["search_arguments"].append(arguments)
    return ("search", arguments)


def answer_action(observation):
    return ("answer", observation["results"][:3])


def search_direct(env, arguments):
    return search(arguments)
'''


def write_checkout(root: Path, bench_source: str = FAKE_BENCH) -> Path:
    package = root / "src" / "ecomrlve"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "llm.py").write_text(textwrap.dedent(FAKE_LLM))
    (package / "bench.py").write_text(textwrap.dedent(bench_source))
    return root


@pytest.fixture
def forget_fake_package() -> Iterator[None]:
    """Each test imports its own fake checkout: drop the previous one's modules and paths."""
    path_before = list(sys.path)
    yield
    for name in [n for n in sys.modules if n == "ecomrlve" or n.startswith("ecomrlve.")]:
        del sys.modules[name]
    sys.path[:] = path_before


def tiny(tmp_path: Path, *extra: str) -> list[str]:
    return ["--sizes", "1000", "--rounds", "1", "--episodes", "2", "--calls", "3", "--http-calls", "0",
            "--cache-dir", str(tmp_path / "catalogs"), "--json", str(tmp_path / "out.json"), *extra]


async def test_with_a_checkout_the_peer_plays_the_same_job_with_its_llm_stubbed(tmp_path, forget_fake_package):
    checkout = write_checkout(tmp_path / "EcomRLVE-Gym")
    payload = await small_shop.main(tiny(tmp_path, "--peer", str(checkout)))

    from ecomrlve import bench as fake, llm
    assert payload["peer"]["source"] == f"this run: {checkout}"
    runs = small_shop.WARMUP + 2
    assert payload["peer"]["llm_calls_stubbed"] == runs  # one per reset, none reached the real function
    with pytest.raises(RuntimeError, match="a real LLM call"):
        llm.chat("after the run the peer's own function is back")
    assert fake.SEEN["sizes"] == [1000]
    assert all("query" in a and "category_id" in a for a in fake.SEEN["search_arguments"])
    assert len(fake.SEEN["answered"]) == runs
    theirs, ours = payload["peer"]["results"][1000], payload["results"][1000]
    for figure in ("creation", "search_step", "search_direct", "scripted"):
        assert theirs[figure]["cpu_ms"] >= 0 and theirs[figure]["n"] == 2, figure
    assert theirs["episodes_per_s"]["value"] > 0
    assert ours["episodes_scored"] == {"value": 2, "of": 2}
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
    checkout = write_checkout(tmp_path / "peer", FAKE_BENCH.replace("def search_direct(", "def search_itself("))
    with pytest.raises(SystemExit, match=r"no ecomrlve\.bench\.search_direct \(entry 'search_direct'\).*"
                                         r"--peer-entry search_direct=module:attribute"):
        await small_shop.main(tiny(tmp_path, "--peer", str(checkout)))
    assert not (tmp_path / "out.json").exists()


async def test_an_entry_point_can_be_pointed_elsewhere_from_the_command_line(tmp_path, forget_fake_package):
    checkout = write_checkout(tmp_path / "peer", FAKE_BENCH.replace("def search_direct(", "def search_itself("))
    payload = await small_shop.main(tiny(tmp_path, "--peer", str(checkout),
                                         "--peer-entry", "search_direct=ecomrlve.bench:search_itself"))
    assert payload["peer"]["results"][1000]["search_direct"]["n"] == 2


def test_the_driver_names_what_is_wrong_with_a_checkout(tmp_path, forget_fake_package):
    with pytest.raises(peer_ecomrlve.PeerContractError, match="no such directory"):
        peer_ecomrlve.load_peer(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(peer_ecomrlve.PeerContractError, match="has no module 'ecomrlve.bench'"):
        peer_ecomrlve.load_peer(tmp_path / "empty")
    with pytest.raises(peer_ecomrlve.PeerContractError, match="unknown --peer-entry reset"):
        peer_ecomrlve.load_peer(tmp_path / "empty", {"reset": "x:y"})
    checkout = write_checkout(tmp_path / "stepless", FAKE_BENCH.replace("    def step(self, action):",
                                                                          "    def act(self, action):"))
    peer = peer_ecomrlve.load_peer(checkout)
    with pytest.raises(peer_ecomrlve.PeerContractError, match="without step\\(\\)"):
        peer.env(1000, 1)
