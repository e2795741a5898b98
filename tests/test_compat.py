"""Which agent libraries live beside verishop (opt-in: `make test-compat`, about ten minutes the
first time). The wheel is installed outside the repository in a fresh venv with an empty HOME:
- beside the current OpenAI Agents SDK, inspect-ai (the Inspect task of integrations/inspect, on
  verishop's own mcp 2.x) and TRL (CPU torch), in ONE venv, each driving verishop;
- langchain-mcp-adapters, which pins mcp below 2, in its OWN venv, starting verishop's console
  script from the first venv by absolute path over stdio (the documented pattern for any library
  that needs mcp 1.x). docs/install.md quotes what this test shows."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_wheel import INSTALL_TIMEOUT_S, REPO, RUN_TIMEOUT_S, FreshInstall, wheel  # noqa: F401 (a fixture)

pytestmark = pytest.mark.compat
CPU_TORCH = "torch==2.13.0"  # the CPU wheel this machine keeps on disk (docs/training.md)
LIBRARIES = ("openai-agents>=0.24,<1", "inspect-ai>=0.3.280,<0.4", "trl>=1.8,<2", "pytest>=8,<10")


def _venv(root: Path) -> FreshInstall:
    fresh = FreshInstall(root)
    subprocess.run([shutil.which("python3") or sys.executable, "-m", "venv", str(fresh.venv)], check=True,
                   timeout=RUN_TIMEOUT_S)
    return fresh


def _versions(fresh: FreshInstall, *names: str) -> dict[str, str]:
    code = ("import json, importlib.metadata as m; "
            f"print(json.dumps({{n: m.version(n) for n in {list(names)!r}}}))")
    return json.loads(fresh.run(fresh.bin("python"), "-c", code).stdout)


@pytest.fixture(scope="module")
def together(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> FreshInstall:  # noqa: F811
    fresh = _venv(tmp_path_factory.mktemp("together"))
    fresh.run(fresh.bin("pip"), "install", "--quiet", CPU_TORCH, timeout_s=INSTALL_TIMEOUT_S)
    fresh.run(fresh.bin("pip"), "install", "--quiet", str(wheel), *LIBRARIES,
              str(REPO / "integrations" / "inspect"), timeout_s=INSTALL_TIMEOUT_S)
    return fresh


def test_one_venv_resolves_verishop_the_agents_sdk_inspect_and_trl_on_mcp_2(together):
    versions = _versions(together, "verishop", "mcp", "openai-agents", "inspect-ai", "trl", "torch")
    print("verishop-compat:", json.dumps(versions))
    assert versions["mcp"].split(".")[0] == "2"
    assert together.run(together.bin("pip"), "check").returncode == 0


def test_the_agents_sdk_plays_its_example_in_eval(together):
    shutil.copy(REPO / "examples" / "agents_sdk_agent.py", together.work / "agents_sdk_agent.py")
    done = together.run("verishop", "eval", "--agent", "agents_sdk_agent.py:agent", "--env", "pd",
                        "--episodes", "2", "--json")
    summary = json.loads(done.stdout)
    assert summary["failures"] == [] and summary["rows"][-1]["scored"] == 2


def test_the_inspect_task_plays_against_verishop_in_the_same_venv(together):
    done = together.run(together.bin("python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(REPO / "integrations" / "inspect" / "tests"),
                        timeout_s=RUN_TIMEOUT_S)
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout[-2000:]


def test_the_trl_environment_factory_plays_a_tool_call_in_the_same_venv(together):
    script = together.work / "trl_step.py"
    script.write_text(TRL_STEP)
    done = together.run(together.bin("python"), str(script))
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["trl"] and result["opening"] and result["found"] > 0, result


TRL_STEP = '''
import json, os, socket, subprocess, sys, time
from pathlib import Path
import httpx, trl
from verishop.agents.trl import make_environment_factory

with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
server = subprocess.Popen([str(Path(sys.executable).parent / "verishop"), "serve", "--transport", "http",
                           "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    base, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 120
    while True:
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert server.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    env = make_environment_factory(base)()
    opening = env.reset(env="pd", difficulty=0, seed=1)
    found = json.loads(env.search_catalog(query="charger"))["results"]
    print(json.dumps({"trl": trl.__version__, "opening": bool(opening), "found": len(found)}))
finally:
    server.terminate(); server.wait(timeout=30)
'''


def test_langchain_mcp_adapters_from_its_own_venv_drive_verishop_by_absolute_path(together, tmp_path_factory):
    own = _venv(tmp_path_factory.mktemp("langchain"))
    own.run(own.bin("pip"), "install", "--quiet", "langchain-mcp-adapters", timeout_s=INSTALL_TIMEOUT_S)
    versions = _versions(own, "langchain-mcp-adapters", "mcp")
    print("verishop-compat: langchain venv", json.dumps(versions))
    script = own.work / "lc.py"
    script.write_text(LANGCHAIN.replace("VERISHOP", together.bin("verishop")))
    done = own.run(own.bin("python"), str(script))
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"search_catalog", "respond_to_customer"} <= set(result["tools"])
    assert result["found"] > 0


LANGCHAIN = '''
import asyncio, json
from langchain_mcp_adapters.client import MultiServerMCPClient

async def main():
    client = MultiServerMCPClient({"shop": {"command": "VERISHOP", "args": ["serve", "--transport", "stdio"],
                                            "transport": "stdio"}})
    tools = {t.name: t for t in await client.get_tools()}
    out = await tools["search_catalog"].ainvoke({"query": "charger", "limit": 3})
    text = out if isinstance(out, str) else json.dumps(out, default=str)
    print(json.dumps({"tools": sorted(tools), "found": text.count("product_id")}))

asyncio.run(main())
'''
