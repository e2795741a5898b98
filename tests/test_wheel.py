"""verishop as a user gets it (opt-in: `make test-wheel`, a few minutes): `python -m build`, then in a
fresh venv outside the repository, in an empty folder with an empty HOME and no VERISHOP_HOME:
`pip install <wheel>`, `verishop --version`, `verishop demo` (it builds the default catalog on
first use), `verishop serve` over stdio driven by the MCP SDK's stdio client, `verishop eval` with
a user agent from a file, `verishop report` on that run, the OpenAI Agents SDK installed beside it
(both import, and the Agents SDK example plays), and the extras resolving from the wheel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import anyio
import pytest

pytestmark = pytest.mark.wheel
REPO = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
INSTALL_TIMEOUT_S = 900
RUN_TIMEOUT_S = 600
PASSED_THROUGH = ("PATH", "TMPDIR", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                  "http_proxy", "https_proxy", "no_proxy")


class FreshInstall:
    """A venv in `root/venv`, commands run in the empty `root/work` with HOME=`root/home`."""

    def __init__(self, root: Path):
        self.venv, self.work, self.home = root / "venv", root / "work", root / "home"
        self.work.mkdir()
        self.home.mkdir()
        # The machine's pip settings (its index, its certificates) stay; nothing of verishop's does.
        self.env = {k: v for k, v in os.environ.items() if k in PASSED_THROUGH or k.startswith("PIP_")}
        self.env["HOME"] = str(self.home)
        self.env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{self.env.get('PATH', '/usr/bin:/bin')}"
        assert "VERISHOP_HOME" not in self.env and not str(self.work).startswith(str(REPO))

    def run(self, *args: str, timeout_s: float = RUN_TIMEOUT_S, check: bool = True,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        done = subprocess.run(list(args), cwd=cwd or self.work, env=self.env, capture_output=True, text=True,
                              timeout=timeout_s)
        if check:
            assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], capture_output=True,
                          text=True, timeout=INSTALL_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert len(list(out.glob("*.tar.gz"))) == 1
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> FreshInstall:
    fresh = FreshInstall(tmp_path_factory.mktemp("fresh"))
    python = shutil.which("python3") or sys.executable
    subprocess.run([python, "-m", "venv", str(fresh.venv)], check=True, timeout=RUN_TIMEOUT_S)
    fresh.run(fresh.bin("pip"), "install", "--quiet", str(wheel), timeout_s=INSTALL_TIMEOUT_S)
    return fresh


def test_version_prints_the_package_version(installed):
    assert installed.run("verishop", "--version").stdout.strip() == f"verishop {VERSION}"
    where = installed.run(installed.bin("python"), "-c", "import verishop; print(verishop.__file__)").stdout
    assert where.startswith(str(installed.venv)), "imported from the wheel, not the repository"


def test_demo_builds_the_default_catalog_and_plays_scored_episodes(installed):
    done = installed.run("verishop", "demo")
    assert "Building the default catalog" in done.stderr
    assert list((installed.home / ".cache" / "verishop" / "catalogs").glob("catalog-*.db"))
    assert done.stdout.count("reward: total") == 5, done.stdout[-3000:]
    assert "of 5 episodes solved" in done.stdout


def test_serve_over_stdio_answers_a_real_mcp_client(installed):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=installed.bin("verishop"), args=["serve", "--transport", "stdio"],
                                   env=installed.env, cwd=str(installed.work))

    async def session() -> tuple[list[str], dict, dict]:
        with anyio.fail_after(RUN_TIMEOUT_S):
            return await _talk(params)

    async def _talk(params) -> tuple[list[str], dict, dict]:
        async with Client(params) as client:
            tools = sorted(t.name for t in (await client.list_tools()).tools)
            conversation = (await client.call_tool("get_conversation", {})).structured_content
            found = (await client.call_tool("search_catalog", {"query": "", "category_id": "chargers",
                                                               "limit": 3})).structured_content
            return tools, conversation, found

    tools, conversation, found = anyio.run(session)
    assert {"search_catalog", "get_product", "respond_to_customer", "get_conversation"} <= set(tools)
    assert conversation["messages"][0]["role"] == "customer" and conversation["messages"][0]["text"]
    assert len(found["results"]) == 3 and all(p["product_id"] for p in found["results"])


def _eval(installed: FreshInstall, example: str, runs: str) -> dict:
    shutil.copy(REPO / "examples" / example, installed.work / example)
    done = installed.run("verishop", "eval", "--agent", f"{example}:agent", "--env", "pd,cart", "--difficulty",
                         "0-3", "--episodes", "2", "--junit", "junit.xml", "--json", "--runs-dir", runs)
    summary = json.loads(done.stdout)
    assert summary["failures"] == []
    for row in (r for r in summary["rows"] if r["difficulty"] == "all"):
        assert (row["episodes"], row["scored"], row["failed"]) == (2, 2, 0), row
    assert (installed.work / "junit.xml").is_file()
    return summary


def test_eval_plays_a_user_agent_from_a_file_and_report_renders_the_run(installed, wheel):
    summary = _eval(installed, "my_agent.py", "runs")
    assert (installed.work / summary["run_dir"]).is_dir(), "runs go where --runs-dir says, here in the work folder"
    without = installed.run("verishop", "report", summary["run_dir"], check=False)
    assert without.returncode != 0 and "pip install 'verishop[report]'" in without.stderr + without.stdout
    installed.run(installed.bin("pip"), "install", "--quiet", f"{wheel}[report]", timeout_s=INSTALL_TIMEOUT_S)
    installed.run("verishop", "report", summary["run_dir"], "--out", "report.html")
    html = (installed.work / "report.html").read_text()
    assert "my_agent.agent" in html
    assert "data:image/svg" in html, "the plots are drawn"


def test_the_openai_agents_sdk_installs_beside_verishop_and_its_example_plays(installed):
    installed.run(installed.bin("pip"), "install", "--quiet", "openai-agents>=0.24,<0.25",
                  timeout_s=INSTALL_TIMEOUT_S)
    both = installed.run(installed.bin("python"), "-c",
                         "import agents, verishop, verishop.agents.evaluate; from agents import Runner; "
                         "print(agents.__file__); print(verishop.__version__)").stdout.split()
    assert both[0].endswith("site-packages/agents/__init__.py") and both[1] == VERSION
    _eval(installed, "agents_sdk_agent.py", "runs-sdk")


@pytest.mark.parametrize("extra", ["gym", "train", "trl", "ray", "adapters"])
def test_the_heavy_extras_resolve_from_the_wheel(installed, wheel, extra):
    done = installed.run(installed.bin("pip"), "install", "--dry-run", "--ignore-installed", "--quiet", "--report", "-",
                         f"{wheel}[{extra}]", timeout_s=INSTALL_TIMEOUT_S)
    would_install = {item["metadata"]["name"].lower() for item in json.loads(done.stdout)["install"]}
    expected = {"gym": {"gymnasium"}, "train": {"trl", "datasets"}, "trl": {"trl", "datasets"}, "ray": {"ray"},
                "adapters": {"gymnasium", "trl", "transformers", "torch", "openai-agents"}}[extra]
    assert expected <= would_install, sorted(would_install)


@pytest.mark.parametrize("transport", ["http", "stdio", "memory"])
def test_eval_from_a_clone_root_uses_the_installed_package_not_the_clone_folder(installed, transport):
    """A newcomer runs the docs' recipes from the clone's root, where a partial `verishop/` folder
    (the package's top level, without the `scenarios`, `mcp_server` and `verifier` it maps in)
    sits in the working directory: every process eval starts must import the installed wheel."""
    clone = installed.work / f"clone-{transport}"
    shutil.copytree(REPO / "verishop", clone / "verishop", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "examples" / "my_agent.py", clone / "my_agent.py")
    done = installed.run("verishop", "eval", "--agent", "my_agent.py:agent", "--env", "pd", "--episodes", "1",
                         "--transport", transport, "--json", "--runs-dir", "runs", cwd=clone)
    summary = json.loads(done.stdout)
    assert summary["failures"] == [] and "No module named" not in done.stderr, done.stderr[-2000:]
