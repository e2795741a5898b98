"""What each side loads at run time (issue 29, point 3): scoring episodes loads no server, no agent
and none of what plays an environment (its oracle, greedy baseline or customer); serving episodes
loads no verifier and none of an environment's check, oracle or greedy baseline.

The registry imports each role by name on first use (`EnvSpec.role`, importlib), which the
import-tree test (tests/test_layout.py) cannot see; so each side runs here in a fresh interpreter
started through the entry a user runs (`verishop verify`, `verishop serve`, or the server's own
`EpisodeHub` + `create_server` driven by the SDK's client) and reports the `verishop` modules it
loaded. Every rule is also checked the other way (each environment's check WAS loaded by scoring,
its generator and customer by serving), so an entry that loads nothing cannot pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from verishop.agents.evaluate import RUNNERS, Plan, new_eval_dir
from verishop.envs import ENVIRONMENTS, REGISTRY

DIFFICULTY = 1
SEED = 11
SUBPROCESS_TIMEOUT_S = 120

# Runs `verishop ARGS...` in this interpreter (as `python -m verishop` does), then, at exit, writes
# the sorted names of the `verishop` modules it loaded as JSON to the file named first.
DUMP_AT_EXIT = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(
    m for m in sys.modules if m == "verishop" or m.startswith("verishop.")))))
sys.argv[0] = "verishop"
from verishop.cli import main
main()
"""

# The server side alone, without the CLI: an `EpisodeHub` and the server `create_server` builds,
# driven by the SDK's own `Client` (not verishop.agents). One episode of every registered
# environment; in each, the agent looks at the conversation, searches, and speaks, so the
# simulated customer replies. Prints {"replies": {env_id: reply}, "modules": [...]}.
SERVE_EACH_ENV = """
import json, sys
from pathlib import Path
import anyio
from mcp import Client
from verishop.envs import ENVIRONMENTS
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.tools import create_server

async def main(catalog, runs, difficulty, seed):
    hub = EpisodeHub(catalog, runs)
    replies = {}
    try:
        for spec in ENVIRONMENTS:
            episode = await hub.open(await hub.generate_async(spec.env_id, difficulty, seed))
            async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
                for name, args in (("get_conversation", {}), ("search_catalog", {"query": "black"}),
                                   ("respond_to_customer", {"message": "Could you tell me more about what you need?"})):
                    result = await client.call_tool(name, args)
                    assert not result.is_error, (spec.env_id, name, result.content)
                replies[spec.env_id] = result.structured_content["customer_message"]
            await hub.close(episode.episode_id, "agent_stopped")
    finally:
        await hub.aclose()
    return replies

replies = anyio.run(main, Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
print(json.dumps({"replies": replies, "modules": sorted(
    m for m in sys.modules if m == "verishop" or m.startswith("verishop."))}))
"""


@dataclass(frozen=True)
class Rules:
    """What one side may load: no module of a forbidden package, no module of a forbidden role in
    any environment's folder; and it must have loaded every required role of every environment."""

    forbidden_packages: tuple[str, ...]
    forbidden_roles: tuple[str, ...]
    required_roles: tuple[str, ...]


SCORING = Rules(forbidden_packages=("verishop.mcp_server", "verishop.agents"),
                forbidden_roles=("oracle", "greedy", "customer"), required_roles=("check",))
SERVING = Rules(forbidden_packages=("verishop.verifier", "verishop.agents"),
                forbidden_roles=("check", "oracle", "greedy"), required_roles=("generator", "customer"))


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _role_of(module: str, folders: tuple[str, ...]) -> str | None:
    """The role file `module` is (or is inside) in an environment's folder, if it is one: the
    registered folders, and any folder under `verishop.envs` (one not registered counts too)."""
    for folder in (*folders, "verishop.envs"):
        if _in(module, folder) and module != folder:
            rest = module[len(folder) + 1:].split(".")
            return rest[1] if folder == "verishop.envs" and len(rest) > 1 else rest[0]
    return None


def broken_rules(loaded: list[str], rules: Rules, folders: tuple[str, ...]) -> list[str]:
    """Each way `loaded` (module names) breaks `rules` for the environments in `folders`."""
    broken = [f"{m} loaded (package {p} is forbidden)"
              for m in loaded for p in rules.forbidden_packages if _in(m, p)]
    broken += [f"{m} loaded (role {_role_of(m, folders)} is forbidden)"
               for m in loaded if _role_of(m, folders) in rules.forbidden_roles]
    broken += [f"{folder}.{role} not loaded" for folder in folders for role in rules.required_roles
               if f"{folder}.{role}" not in loaded]
    return broken


FOLDERS = tuple(spec.folder for spec in ENVIRONMENTS)


def test_the_rules_checker_names_every_forbidden_module_and_every_missing_role() -> None:
    """The negative control: fabricated module lists that break each rule are caught, one that
    keeps them all passes."""
    folders = ("verishop.envs.pd", "verishop.envs.return_")
    clean = ["verishop", "verishop.envs", "verishop.envs.pd", "verishop.envs.pd.check", "verishop.envs.return_.check",
             "verishop.verifier.runner", "verishop.scenarios.models"]
    assert broken_rules(clean, SCORING, folders) == []
    assert broken_rules([*clean, "verishop.agents.session"], SCORING, folders) == [
        "verishop.agents.session loaded (package verishop.agents is forbidden)"]
    assert broken_rules([*clean, "verishop.mcp_server"], SCORING, folders) == [
        "verishop.mcp_server loaded (package verishop.mcp_server is forbidden)"]
    assert broken_rules([*clean, "verishop.envs.return_.oracle"], SCORING, folders) == [
        "verishop.envs.return_.oracle loaded (role oracle is forbidden)"]
    # A helper module inside a role, and an environment folder the registry does not name.
    assert broken_rules([*clean, "verishop.envs.pd.greedy.words", "verishop.envs.toy.customer"], SCORING, folders) == [
        "verishop.envs.pd.greedy.words loaded (role greedy is forbidden)",
        "verishop.envs.toy.customer loaded (role customer is forbidden)"]
    assert broken_rules([m for m in clean if m != "verishop.envs.return_.check"], SCORING, folders) == [
        "verishop.envs.return_.check not loaded"]
    # Serving: the verifier's kit and a check are forbidden; a generator and customer are required.
    assert broken_rules(clean, SERVING, folders) == [
        "verishop.verifier.runner loaded (package verishop.verifier is forbidden)",
        "verishop.envs.pd.check loaded (role check is forbidden)",
        "verishop.envs.return_.check loaded (role check is forbidden)",
        "verishop.envs.pd.generator not loaded", "verishop.envs.pd.customer not loaded",
        "verishop.envs.return_.generator not loaded", "verishop.envs.return_.customer not loaded"]
    # A name that only starts like a forbidden package is not inside it.
    assert broken_rules(["verishop.agentsmith", *clean], SCORING, folders) == []


@pytest.fixture(scope="module")
def oracle_run(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One closed oracle episode of every registered environment, played through the real server in
    memory (not scored: scoring is what the test below watches)."""
    plan = Plan("oracle", tuple(spec.env_id for spec in ENVIRONMENTS), (DIFFICULTY,), 1, SEED)
    root = new_eval_dir(tmp_path_factory.mktemp("role-imports") / "runs", "oracle")
    anyio.run(RUNNERS["memory"], plan, catalog_path, root, 4, lambda: None)
    return root


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=SUBPROCESS_TIMEOUT_S, check=False)


def test_scoring_with_verishop_verify_loads_every_check_and_no_server_agent_or_player(
        oracle_run: Path, catalog_path: Path, tmp_path: Path) -> None:
    modules_file = tmp_path / "modules.json"
    done = _run(["-c", DUMP_AT_EXIT, str(modules_file), "verify", "--json", "--workers", "1",
                 "--catalog", str(catalog_path), str(oracle_run)], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    rewards = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(r["env_id"] for r in rewards) == sorted(REGISTRY)
    assert all(r["verdict"] == "scored" and r["is_correct"] for r in rewards), rewards
    loaded = json.loads(modules_file.read_text())
    broken = broken_rules(loaded, SCORING, FOLDERS)
    assert not broken, "\n".join(broken)


def test_serving_every_environment_loads_its_generator_and_customer_and_no_verifier_check_or_agent(
        catalog_path: Path, tmp_path: Path) -> None:
    done = _run(["-c", SERVE_EACH_ENV, str(catalog_path), str(tmp_path / "runs"), str(DIFFICULTY), str(SEED)],
                tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    served = json.loads(done.stdout)
    assert sorted(served["replies"]) == sorted(REGISTRY)
    assert all(reply.strip() for reply in served["replies"].values()), served["replies"]
    broken = broken_rules(served["modules"], SERVING, FOLDERS)
    assert not broken, "\n".join(broken)


async def test_verishop_serve_over_stdio_loads_no_verifier_check_or_agent(catalog_path: Path, tmp_path: Path) -> None:
    """The real `verishop serve --transport stdio` entry, one journey episode (whose requests are
    other environments' goals), driven by the SDK's client until the customer replies."""
    modules_file = tmp_path / "modules.json"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-P", "-c", DUMP_AT_EXIT, str(modules_file), "serve", "--transport", "stdio", "--env", "journey",
              "--difficulty", str(DIFFICULTY), "--seed", str(SEED), "--catalog", str(catalog_path),
              "--runs-dir", str(tmp_path / "runs")],
        env={"VERISHOP_HOME": str(tmp_path / "home")}, cwd=str(tmp_path))
    with anyio.fail_after(SUBPROCESS_TIMEOUT_S):
        async with Client(params) as client:
            for name, args in (("get_conversation", {}), ("search_catalog", {"query": "black"}),
                               ("respond_to_customer", {"message": "Could you tell me more about what you need?"})):
                result = await client.call_tool(name, args)
                assert not result.is_error, (name, result.content)
            assert result.structured_content["customer_message"].strip()
    # Leaving the client closed the server's stdin and waited for it to exit (killing it only after a
    # grace period, when no list would be written): the server wrote its list at its own exit.
    assert modules_file.is_file(), "the stdio server did not exit on its own when its stdin closed"
    loaded = json.loads(modules_file.read_text())
    journey = next(spec for spec in ENVIRONMENTS if spec.name == "journey")
    broken = broken_rules(loaded, SERVING, (journey.folder,))
    assert not broken, "\n".join(broken)
