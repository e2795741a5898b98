"""`verishop serve --transport http` as a real uvicorn subprocess: the control API, per-episode
MCP endpoints (Streamable HTTP and SSE), isolation between episodes, Host checks and closing."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from servers import started

JSON = {"content-type": "application/json"}
MADE_UP_EPISODE = "ep_" + "0123456789abcdef01234567"


@dataclass
class Server:
    base: str
    proc: subprocess.Popen
    runs_dir: Path
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def http_server(catalog_path: Path, root: Path) -> Iterator[Server]:
    runs_dir = root / "runs"
    with started(["serve", "--transport", "http", "--catalog", str(catalog_path), "--runs-dir", str(runs_dir)],
                 root / "server.log", {"VERISHOP_HOME": str(root / "home")}, cwd=root) as process:
        yield Server(process.base, process.proc, runs_dir, process.log_path)


@pytest.fixture(scope="module")
def server(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with http_server(catalog_path, tmp_path_factory.mktemp("http")) as srv:
        yield srv


def control(server: Server) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(base_url=server.base, timeout=httpx2.Timeout(30.0))


def mcp_client(url: str) -> Client:
    http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=60.0))
    return Client(streamable_http_client(url, http_client=http), raise_exceptions=True)


async def create_episode(server: Server, **body) -> dict:
    async with control(server) as http:
        r = await http.post("/episodes", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def transcript(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "transcript.jsonl").read_text().splitlines()]


def cart_lines(cart: dict) -> list[tuple[str, int]]:
    return [(line["product_id"], line["quantity"]) for line in cart["lines"]]


async def test_health(server: Server) -> None:
    async with control(server) as http:
        r = await http.get("/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"


async def test_two_episodes_concurrently_are_isolated(server: Server) -> None:
    eps = [await create_episode(server, env="pd", difficulty=12, seed=seed) for seed in (1, 2)]
    for ep, seed in zip(eps, (1, 2)):
        for key in ("episode_id", "mcp_url", "system_prompt", "opening_message"):
            assert ep.get(key), f"{key} missing: {ep}"
        assert ep["seed"] == seed and ep["difficulty"] == 12 and ep["status"] == "open"
        assert ep["mcp_url"] == f"{server.base}/episodes/{ep['episode_id']}/mcp"
        assert len(ep["episode_id"]) >= 20
        assert Path(ep["run_dir"]).parent == server.runs_dir
    ids = [ep["episode_id"] for ep in eps]
    assert ids[0] != ids[1]
    # Unguessable: long random tails, not sequential or derived from the seed.
    assert sum(a != b for a, b in zip(*ids)) >= 10

    # Different categories, so the two carts cannot coincide by accident.
    plan = {ids[0]: ("chargers", [2, 1]), ids[1]: ("cookware", [1, 3])}
    added = {i: anyio.Event() for i in ids}
    carts: dict[str, dict] = {}
    chosen: dict[str, list[str]] = {}
    openings: dict[str, str] = {}

    async def drive(ep: dict) -> None:
        me = ep["episode_id"]
        other = ids[1] if me == ids[0] else ids[0]
        category, quantities = plan[me]
        async with mcp_client(ep["mcp_url"]) as client:
            conv = await client.call_tool("get_conversation", {})
            openings[me] = conv.structured_content["messages"][0]["text"]
            found = await client.call_tool("search_catalog", {"category_id": category, "in_stock_only": True,
                                                              "limit": 5})
            assert not found.is_error, found.content
            products = [r["product_id"] for r in found.structured_content["results"]][:len(quantities)]
            assert len(products) == len(quantities)
            chosen[me] = products
            for product_id, quantity in zip(products, quantities):
                r = await client.call_tool("add_to_cart", {"product_id": product_id, "quantity": quantity})
                assert not r.is_error, r.content
            added[me].set()
            await added[other].wait()  # both carts are filled before either is read back
            carts[me] = (await client.call_tool("view_cart", {})).structured_content

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            for ep in eps:
                tg.start_soon(drive, ep)

    for ep in eps:
        me = ep["episode_id"]
        assert openings[me] == ep["opening_message"]
        assert cart_lines(carts[me]) == list(zip(chosen[me], plan[me][1])), "cart leaked between episodes"
    assert not set(chosen[ids[0]]) & set(chosen[ids[1]])

    # The calls were recorded in each episode's own transcript only.
    for ep in eps:
        me = ep["episode_id"]
        calls = [e for e in transcript(Path(ep["run_dir"])) if e["event"] == "tool_call"]
        assert [c["tool"] for c in calls] == ["get_conversation", "search_catalog", "add_to_cart", "add_to_cart",
                                              "view_cart"]
        assert [c["arguments"]["product_id"] for c in calls if c["tool"] == "add_to_cart"] == chosen[me]


async def test_made_up_episode_is_404(server: Server) -> None:
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "view_cart", "arguments": {}}}
    async with control(server) as http:
        r = await http.post(f"/episodes/{MADE_UP_EPISODE}/mcp", json=rpc,
                            headers={"accept": "application/json, text/event-stream"})
        assert r.status_code == 404
        assert MADE_UP_EPISODE in r.json()["error"]
        r = await http.get(f"/episodes/{MADE_UP_EPISODE}")
        assert r.status_code == 404
        r = await http.delete(f"/episodes/{MADE_UP_EPISODE}")
        assert r.status_code == 404
    # The SDK client cannot use it either.
    with anyio.fail_after(30), pytest.raises(Exception):
        async with mcp_client(f"{server.base}/episodes/{MADE_UP_EPISODE}/mcp") as client:
            await client.call_tool("view_cart", {})
    assert not (server.runs_dir / MADE_UP_EPISODE).exists()


async def test_foreign_host_header_is_421(server: Server) -> None:
    ep = await create_episode(server, env="pd", difficulty=1, seed=3)
    evil = {"host": "evil.example"}
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    before = sorted(os.listdir(server.runs_dir))
    async with control(server) as http:
        r = await http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 4}, headers=evil)
        assert r.status_code == 421, r.text
        r = await http.post(f"/episodes/{ep['episode_id']}/mcp", json=rpc,
                            headers={**evil, "accept": "application/json, text/event-stream"})
        assert r.status_code == 421, r.text
        r = await http.get(f"/episodes/{ep['episode_id']}", headers=evil)
        assert r.status_code == 421, r.text
        r = await http.delete(f"/episodes/{ep['episode_id']}", headers=evil)
        assert r.status_code == 421, r.text
        # The refused DELETE left the episode open.
        r = await http.get(f"/episodes/{ep['episode_id']}")
        assert r.status_code == 200 and r.json()["status"] == "open"
    assert sorted(os.listdir(server.runs_dir)) == before


@pytest.mark.parametrize(("body", "needle"), [
    pytest.param(b'{"env": "nope", "difficulty": 1, "seed": 1}', "nope", id="unknown-env"),
    pytest.param(b'{"env": "pd", "difficulty": 99, "seed": 1}', "difficulty", id="difficulty-99"),
    pytest.param(b'{"env": "pd", "seed": -1}', "seed", id="negative-seed"),
    pytest.param(b'{"env": "pd", "colour": "red"}', "colour", id="unknown-field"),
    pytest.param(b'{"env": "pd", "difficulty": 1,', "json", id="invalid-json"),
])
async def test_bad_create_body_is_400(server: Server, body: bytes, needle: str) -> None:
    before = sorted(os.listdir(server.runs_dir))
    async with control(server) as http:
        r = await http.post("/episodes", content=body, headers=JSON)
        assert r.status_code == 400, r.text
        error = r.json()
        assert error["error"]
        assert needle in json.dumps(error).lower(), error
        assert (await http.get("/health")).status_code == 200
    assert sorted(os.listdir(server.runs_dir)) == before


async def test_delete_closes_episode(server: Server) -> None:
    ep = await create_episode(server, env="pd", difficulty=1, seed=5)
    episode_id, run_dir = ep["episode_id"], Path(ep["run_dir"])
    with anyio.fail_after(30):
        async with mcp_client(ep["mcp_url"]) as client:
            r = await client.call_tool("view_cart", {})
            assert not r.is_error and r.structured_content["lines"] == []

    async with control(server) as http:
        r = await http.delete(f"/episodes/{episode_id}")
        assert r.status_code == 200, r.text
        assert r.json() == {"episode_id": episode_id, "status": "closed", "close_reason": "closed_by_client"}
        r = await http.get(f"/episodes/{episode_id}")
        assert r.status_code == 200 and r.json()["status"] == "closed"
        r = await http.delete(f"/episodes/{episode_id}")  # closing twice is harmless
        assert r.status_code == 200 and r.json()["status"] == "closed"

    with anyio.fail_after(30):
        async with mcp_client(ep["mcp_url"]) as client:
            r = await client.call_tool("view_cart", {})
            assert r.is_error
            assert "closed" in r.content[0].text and episode_id in r.content[0].text
            r = await client.call_tool("add_to_cart", {"product_id": "P12345678"})
            assert r.is_error and "closed" in r.content[0].text

    events = transcript(run_dir)
    assert events[-1]["event"] == "episode_closed"
    assert events[-1]["reason"] == "closed_by_client"
    assert [e["tool"] for e in events if e["event"] == "tool_call"] == ["view_cart"]
    assert (run_dir / "world.db").is_file() and not (run_dir / "world.db-wal").exists()


async def test_sse_transport(server: Server) -> None:
    ep = await create_episode(server, env="pd", difficulty=1, seed=6)
    assert ep["sse_url"] == f"{server.base}/episodes/{ep['episode_id']}/sse"
    with anyio.fail_after(30):
        async with Client(sse_client(ep["sse_url"]), raise_exceptions=True) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert len(tools) >= 14 and {"search_catalog", "get_current_date"} <= tools
            r = await client.call_tool("get_current_date", {})
            assert not r.is_error, r.content
            assert set(r.structured_content) == {"today", "weekday"}
    calls = [e for e in transcript(Path(ep["run_dir"])) if e["event"] == "tool_call"]
    assert [c["tool"] for c in calls] == ["get_current_date"]


async def test_a_collection_picks_one_of_its_environments_by_seed(server: Server) -> None:
    from verishop.scenarios.envs import collection

    members = {spec.env_id for spec in collection("C8")}
    seen = set()
    for seed in range(12):
        ep = await create_episode(server, collection="C8", difficulty=2, seed=seed)
        assert ep["env_id"] in members
        seen.add(ep["env_id"])
        again = await create_episode(server, collection="c8", difficulty=2, seed=seed)
        assert again["env_id"] == ep["env_id"] and again["opening_message"] == ep["opening_message"]
    assert len(seen) > 1
    async with control(server) as http:
        r = await http.post("/episodes", json={"collection": "C3"})
        assert r.status_code == 400 and "unknown collection" in r.json()["error"]
        r = await http.post("/episodes", json={"collection": "C1", "env": "pd"})
        assert r.status_code == 400 and "either env or collection" in r.json()["error"]


def strict_json_lines(path: Path) -> list[dict]:
    def refuse(token: str):
        raise ValueError(f"non-JSON token {token}")

    return [json.loads(line, parse_constant=refuse) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("number", ["Infinity", "-Infinity", "NaN", "1e30", "1e400"])
async def test_a_non_finite_or_huge_price_is_a_clear_tool_error(server: Server, number: str) -> None:
    """Raw JSON-RPC (the tokens a Python or JavaScript client can emit), over the real server:
    refused at the schema with the field named, never an OverflowError, transcript strict JSON."""
    ep = await create_episode(server, env="pd", difficulty=12, seed=7)
    body = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalog",'
            '"arguments":{"query":"charger","max_price_usd":%s}}}' % number)
    headers = {**JSON, "accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
    async with control(server) as http:
        r = await http.post(ep["mcp_url"], content=body, headers=headers)
        assert r.status_code == 200, r.text
        data = next(json.loads(line[5:]) for line in r.text.splitlines() if line.startswith("data:"))
        result = data["result"]
        assert result["isError"] is True
        assert "max_price_usd" in result["content"][0]["text"], result
        assert (await http.get("/health")).status_code == 200
    events = strict_json_lines(Path(ep["run_dir"]) / "transcript.jsonl")
    assert not [e for e in events if e["event"] == "tool_call"]  # refused before the shop ran: no lookup spent


@pytest.mark.parametrize("host", ["127.0.0.1:evil", "localhost:{port}@evil.com", "127.0.0.1:{port}.evil.com",
                                  "localhost", "0.0.0.0:{port}", "LOCALHOST:{other}"])
async def test_host_is_matched_exactly_not_by_prefix(server: Server, host: str) -> None:
    port = int(server.base.rsplit(":", 1)[1])
    forged = {"host": host.format(port=port, other=port + 1)}
    async with control(server) as http:
        for method, path in (("GET", "/health"), ("POST", "/episodes"), ("GET", "/curriculum"),
                             ("POST", f"/episodes/{MADE_UP_EPISODE}/mcp")):
            r = await http.request(method, path, headers={**forged, **JSON}, content=b"{}")
            assert r.status_code == 421, (host, path, r.status_code, r.text)
        for good in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}"):
            assert (await http.get("/health", headers={"host": good})).status_code == 200
        for origin in (f"http://127.0.0.1:{port}.evil.com", f"http://localhost:{port}@evil.com", "null"):
            r = await http.get("/health", headers={"origin": origin})
            assert r.status_code == 403, (origin, r.status_code)
        assert (await http.get("/health", headers={"origin": f"http://localhost:{port}"})).status_code == 200


async def test_without_a_token_reading_an_episode_never_shows_its_seed_or_folder(server: Server) -> None:
    ep = await create_episode(server, env="pd", difficulty=2, seed=8)
    assert ep["seed"] == 8 and ep["run_dir"]  # the creator learns them
    async with control(server) as http:
        shown = (await http.get(f"/episodes/{ep['episode_id']}")).json()
    assert shown["status"] == "open" and shown["mcp_url"] == ep["mcp_url"]
    assert "seed" not in shown and "run_dir" not in shown


async def test_errors_echo_at_most_a_short_prefix_and_bodies_are_capped(server: Server) -> None:
    before = sorted(os.listdir(server.runs_dir))
    async with control(server) as http:
        r = await http.post("/episodes", json={"env": "x" * 100_000, "difficulty": 1})
        assert r.status_code == 400 and len(r.text) < 400, r.text[:500]
        r = await http.post("/episodes", json={"env": "pd", "difficulty": 1, "x" * 100_000: 1})
        assert r.status_code == 400 and len(r.text) < 400, r.text[:500]
        r = await http.post("/episodes", content=b'{"env": "pd", "pad": "' + b"x" * (2 << 20) + b'"}', headers=JSON)
        assert r.status_code == 413, r.text[:500]
        r = await http.get(f"/episodes/ep_{'0' * 5000}")
        assert r.status_code == 404 and len(r.text) < 400
        assert (await http.get("/health")).status_code == 200
    assert sorted(os.listdir(server.runs_dir)) == before


def _scenario(catalog_path: Path, env: str, difficulty: int, seed: int) -> dict:
    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.envs import generate

    with CatalogReader(catalog_path) as reader:
        return json.loads(generate(env, difficulty, seed, reader).to_json())


def _crafted(catalog_path: Path, case: str) -> dict:
    """A generated scenario with one thing broken, as a client might send it."""
    if case == "duplicate-order-ids":
        s = _scenario(catalog_path, "return", 6, 1)
        s["orders"][1]["order_id"] = s["orders"][0]["order_id"]
    elif case == "duplicate-stock-changes":
        s = _scenario(catalog_path, "sub", 6, 1)
        s["stock_changes"].append(s["stock_changes"][0])
    elif case == "huge-quantity":
        s = _scenario(catalog_path, "return", 6, 1)
        s["orders"][0]["lines"][0]["quantity"] = 10**30
    elif case == "unknown-category":
        s = _scenario(catalog_path, "return", 6, 1)
        s["orders"][0]["lines"][0]["category_id"] = "spaceships"
    elif case == "unknown-category-of-an-extra-product":
        s = _scenario(catalog_path, "pd", 2, 1)
        s["extra_products"] = [{"product_id": "P99999991", "group_id": "G1", "title": "A spaceship", "brand": "Acme",
                                "category_id": "spaceships", "price_cents": 100, "rating": 4.0, "rating_count": 3,
                                "ship_days": 2, "stock": 5, "attrs": {}}]
    elif case == "today-9999":
        s = _scenario(catalog_path, "return", 6, 1)
        s["today"] = "9999-12-31"
    elif case == "journey-without-tasks":
        s = _scenario(catalog_path, "journey", 4, 1)
        s["goal"]["tasks"], s["goal"]["openings"] = [], []
    elif case == "huge-browsing-history":
        s = _scenario(catalog_path, "pd", 2, 1)
        s["browsing_history"] = [f"P{i:08d}" for i in range(20_000)]
    elif case == "made-up-env":
        s = _scenario(catalog_path, "pd", 2, 1)
        s["env_id"] = "pd-v99"
    elif case == "long-opening":
        s = _scenario(catalog_path, "pd", 2, 1)
        s["opening_message"] = "hi " * 5_000
    elif case == "goal-order-not-in-orders":
        s = _scenario(catalog_path, "status", 6, 1)
        s["goal"]["order_id"] = "W0000000"
    elif case == "sell-out-rule-out-of-range":
        s = _scenario(catalog_path, "pd", 12, 1)
        s["sell_outs"][0]["multiplier"] = 0
    elif case == "sell-out-rule-category-as-sql":
        s = _scenario(catalog_path, "pd", 12, 1)
        s["sell_outs"][0]["category_id"] = "x' OR 1=1 --"
    elif case == "infinite-axis":
        s = _scenario(catalog_path, "pd", 2, 1)
        s["axes"]["max_turns"] = 10**30
    else:
        raise AssertionError(case)
    return s


@pytest.mark.parametrize("case", ["duplicate-order-ids", "duplicate-stock-changes", "huge-quantity",
                                  "unknown-category", "unknown-category-of-an-extra-product", "today-9999", "journey-without-tasks", "huge-browsing-history",
                                  "made-up-env", "long-opening", "goal-order-not-in-orders", "infinite-axis",
                                  "sell-out-rule-out-of-range", "sell-out-rule-category-as-sql"])
async def test_a_crafted_client_scenario_is_refused_with_422_and_nothing_written(server: Server, catalog_path: Path,
                                                                              case: str) -> None:
    before = sorted(os.listdir(server.runs_dir))
    async with control(server) as http:
        r = await http.post("/episodes", json={"scenario": _crafted(catalog_path, case)})
        assert r.status_code == 422, (r.status_code, r.text[:500])
        assert r.json()["error"].startswith("invalid scenario") and len(r.text) < 400, r.text[:500]
        assert (await http.get("/health")).status_code == 200
    assert sorted(os.listdir(server.runs_dir)) == before


async def test_a_six_megabyte_opening_is_refused_before_it_is_read(server: Server, catalog_path: Path) -> None:
    scenario = _scenario(catalog_path, "pd", 2, 1)
    scenario["opening_message"] = "x" * (6 << 20)
    async with control(server) as http:
        r = await http.post("/episodes", json={"scenario": scenario})
    assert r.status_code == 413


@pytest.mark.parametrize(("env", "difficulty"), [("pd", 3), ("return", 6), ("journey", 8), ("bundle", 5)])
async def test_a_sound_client_scenario_is_accepted(server: Server, catalog_path: Path, env: str,
                                                   difficulty: int) -> None:
    scenario = _scenario(catalog_path, env, difficulty, 4)
    ep = await create_episode(server, scenario=scenario)
    assert ep["opening_message"] == scenario["opening_message"]
    assert json.loads(Path(ep["run_dir"], "scenario.json").read_text()) == scenario
