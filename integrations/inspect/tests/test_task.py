"""The Inspect task against real verishop processes (the shop and its verifier sidecar, from the
repository's own venv) with Inspect's mock model, which plays scripted tool calls: no network,
no GPU. Run by `make test-inspect` in the repository root."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from verishop_inspect import verishop

REPO = Path(__file__).resolve().parents[3]
VERISHOP_PYTHON = os.environ.get("VERISHOP_PYTHON", str(REPO / ".venv" / "bin" / "python"))
STARTUP_DEADLINE_S = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _running(args: list[str], log: Path, home: Path) -> Iterator[str]:
    port = _free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen([VERISHOP_PYTHON, "-P", "-m", "verishop", *args, "--port", str(port)], stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=REPO,
                                env={**os.environ, "VERISHOP_HOME": str(home)})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_DEADLINE_S
        while True:
            assert proc.poll() is None, log.read_text()
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def verishop_urls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    root = tmp_path_factory.mktemp("verishop")
    catalog = root / "catalog.db"
    subprocess.run([VERISHOP_PYTHON, "-P", "-c", "import sys; from verishop.scenarios.catalog.build import build_catalog; "
                    "build_catalog(sys.argv[1], size=4000, seed=3)", str(catalog)], cwd=REPO, check=True, timeout=120)
    runs = root / "runs"
    runs.mkdir()
    common = ["--catalog", str(catalog), "--runs-dir", str(runs)]
    with _running(["serve", "--transport", "http", "--no-default-episode", *common], root / "shop.log", root) as shop, \
            _running(["verifier", "serve", *common], root / "verifier.log", root) as verifier:
        yield shop, verifier, runs


def test_the_mock_model_plays_an_episode_and_the_verifier_scores_it(verishop_urls, tmp_path):
    shop, verifier, runs = verishop_urls
    model = "mockllm/model"
    script = [ModelOutput.for_tool_call(model, "get_conversation", {}),
              ModelOutput.for_tool_call(model, "search_catalog", {"query": "", "limit": 3}),
              ModelOutput.for_tool_call(model, "respond_to_customer", {"message": "I could not find it, sorry.",
                                                                       "done": True}),
              ModelOutput.from_content(model, "The customer has left.")]
    for output in script:  # given usage, the mock never counts tokens (tiktoken would download its tables)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    [log] = inspect_eval(verishop(server_url=shop, verifier_url=verifier, env="pd", difficulty=0, seeds=1),
                         model=get_model(model, custom_outputs=script), log_dir=str(tmp_path / "logs"),
                         display="none")
    assert log.status == "success", log.error.traceback if log.error else log.status
    [sample] = log.samples
    calls = [c.function for m in sample.messages if m.role == "assistant" for c in (m.tool_calls or [])]
    assert calls == ["get_conversation", "search_catalog", "respond_to_customer"]
    tool_replies = [m for m in sample.messages if m.role == "tool"]
    assert all(not m.error for m in tool_replies) and "results" in tool_replies[1].text
    score = sample.scores["verishop_scorer"]
    reward = score.metadata["reward"]
    assert reward["verdict"] == "scored" and reward["close_reason"] == "agent_done"
    assert score.value == {"total": reward["total"], "solved": 0.0}
    assert (runs / score.metadata["episode_id"] / "reward.json").is_file()
    metrics = {(s.name, name): m.value for s in log.results.scores for name, m in s.metrics.items()}
    assert metrics == {("total", "mean"): reward["total"], ("solved", "mean"): 0.0}
