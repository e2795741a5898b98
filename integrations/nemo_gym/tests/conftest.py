"""NeMo Gym 0.4's own machinery, started once for the module: `ng_run` (its head server, Ray, and
one subprocess per server: verishop's resources server, NeMo Gym's built-in simple_agent, the
scripted policy model) on 127.0.0.1, with every server venv pointing at this test venv
(`skip_venv_if_present`, so nothing is installed); stopped with SIGINT, as Ctrl-C stops it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

HERE = Path(__file__).parent
PACKAGE = HERE.parent
BIN = Path(sys.executable).parent
START_S = 240.0
SERVERS = ("verishop", "verishop_simple_agent", "policy_model")


def verishop_python() -> str:
    python = os.environ.get("VERISHOP_PYTHON")
    if not python:
        pytest.fail("set VERISHOP_PYTHON to the repository venv's python (make test-nemo-gym does)")
    return python


def scripted(env: str, difficulty: int, seed: int, agent: str) -> dict:
    """The calls verishop's scripted `agent` makes on that episode, and the total it earned."""
    out = subprocess.run([verishop_python(), str(HERE / "oracle_calls.py"), env, str(difficulty), str(seed), agent],
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Gym:
    project: Path
    head_port: int
    urls: dict[str, str]
    scripts: Path

    def ng(self, command: str, *overrides: str, timeout_s: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN / command), "+head_server.host=127.0.0.1", f"+head_server.port={self.head_port}",
                               *overrides], cwd=self.project, capture_output=True, text=True, timeout=timeout_s)


def _project(root: Path) -> Path:
    """NeMo Gym's layout, which `ng_run` resolves from its working directory: this package's
    resources server and the tests' policy model; simple_agent is NeMo Gym's built-in one."""
    (root / "resources_servers").mkdir()
    (root / "responses_api_models").mkdir()
    (root / "resources_servers" / "verishop").symlink_to(PACKAGE / "resources_servers" / "verishop")
    (root / "responses_api_models" / "scripted_policy").symlink_to(HERE / "scripted_policy")
    for server in ("resources_servers/verishop", "responses_api_agents/simple_agent",
                   "responses_api_models/scripted_policy"):
        (root / "venvs" / server).mkdir(parents=True)
        (root / "venvs" / server / ".venv").symlink_to(sys.prefix)
    return root


@pytest.fixture(scope="session")
def gym(tmp_path_factory):
    project = _project(tmp_path_factory.mktemp("gym"))
    scripts = project / "scripts.json"
    scripts.write_text("{}")
    head_port = free_port()
    log = open(project / "ng_run.log", "w")
    process = subprocess.Popen(
        [str(BIN / "ng_run"),
         "+config_paths=[resources_servers/verishop/configs/verishop.yaml,"
         "responses_api_models/scripted_policy/configs/scripted_policy.yaml]",
         "+skip_venv_if_present=true", f"+uv_venv_dir={project / 'venvs'}",
         f"+policy_model.responses_api_models.scripted_policy.scripts_fpath={scripts}",
         "+head_server.host=127.0.0.1", f"+head_server.port={head_port}"],
        cwd=project, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "VERISHOP_PYTHON": verishop_python()})
    deadline = time.monotonic() + START_S
    try:
        urls = _wait_for_servers(process, head_port, deadline, project / "ng_run.log")
        yield Gym(project, head_port, urls, scripts)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()


def _wait_for_servers(process: subprocess.Popen, head_port: int, deadline: float, log: Path) -> dict[str, str]:
    urls: dict[str, str] = {}
    while True:
        assert process.poll() is None, f"ng_run exited:\n{log.read_text()[-4000:]}"
        try:
            if not urls:
                instances = requests.get(f"http://127.0.0.1:{head_port}/server_instances", timeout=2).json()
                urls = {instance["config_path"]: instance["url"] for instance in instances}
            if set(urls) == set(SERVERS) and all(requests.get(url, timeout=2).status_code == 200 for url in urls.values()):
                return urls
        except requests.RequestException:
            pass
        assert time.monotonic() < deadline, f"NeMo Gym's servers did not come up in time:\n{log.read_text()[-4000:]}"
        time.sleep(0.5)
