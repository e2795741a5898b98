"""`verishop export RUN_DIR... --format openai`: episodes as chat conversations with their rewards,
one JSON object per line, for supervised fine-tuning or offline RL.

Each line: `{"episode_id", "env_id", "difficulty", "seed", "close_reason", "messages", "reward"}`.
`messages` is the episode as the agent lived it, in the OpenAI chat format: the system prompt,
the customer's opening message (user), then for every tool call in transcript order an assistant
message with one `tool_calls` entry (`content: ""`) followed by the `tool` message answering it
(the result as JSON, or the shop's error text). Later customer messages are not repeated as user
messages: the agent received them inside `respond_to_customer` and `get_conversation` results.
`reward` is the episode's reward.json (null if it was never verified). Episodes come from the
transcript and scenario files only; the server is not needed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

SCENARIO_FILE, TRANSCRIPT_FILE, REWARD_FILE = "scenario.json", "transcript.jsonl", "reward.json"


class ExportFormat(str, Enum):
    openai = "openai"


def episode_dirs(paths: list[Path]) -> list[Path]:
    """Each path is an episode folder or a folder of them (an eval run, a runs directory)."""
    found: list[Path] = []
    for path in paths:
        if (path / TRANSCRIPT_FILE).is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(p for p in path.iterdir() if (p / TRANSCRIPT_FILE).is_file())
        else:
            raise FileNotFoundError(f"{path} is not a directory")
    return found


def _events(path: Path) -> list[dict[str, Any]]:
    events = []
    for line in path.read_text().splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue  # a last line cut short by a killed server
    return sorted(events, key=lambda e: e.get("seq", 0))


def openai_record(directory: Path) -> dict[str, Any]:
    scenario = json.loads((directory / SCENARIO_FILE).read_text())
    events = _events(directory / TRANSCRIPT_FILE)
    messages: list[dict[str, Any]] = [{"role": "system", "content": scenario["system_prompt"]}]
    opening = next((e["text"] for e in events if e["event"] == "customer_message"), scenario["opening_message"])
    messages.append({"role": "user", "content": opening})
    close_reason = None
    for event in events:
        if event["event"] == "episode_closed":
            close_reason = event.get("reason")
        if event["event"] != "tool_call":
            continue
        call_id = f"call_{event['seq']}"
        messages.append({"role": "assistant", "content": "", "tool_calls": [{
            "id": call_id, "type": "function",
            "function": {"name": event["tool"], "arguments": json.dumps(event.get("arguments") or {},
                                                                        ensure_ascii=False)}}]})
        content = event["error"] if "error" in event else json.dumps(event.get("result"), ensure_ascii=False)
        messages.append({"role": "tool", "tool_call_id": call_id, "name": event["tool"], "content": content})
    reward_file = directory / REWARD_FILE
    reward = json.loads(reward_file.read_text()) if reward_file.is_file() else None
    return {"episode_id": directory.name, "env_id": scenario["env_id"], "difficulty": scenario["difficulty"],
            "seed": scenario["seed"], "close_reason": close_reason, "messages": messages, "reward": reward}


def export_lines(paths: list[Path]) -> Iterator[str]:
    from verishop.agents.sealed import read_split_index, redact_json

    for directory in episode_dirs(paths):
        # A test-split seed is exported as its index in the split, never itself (docs/scores.md#splits).
        yield json.dumps(redact_json(openai_record(directory), read_split_index(directory.parent)), ensure_ascii=False)


def export(
    run_dirs: Annotated[list[Path], typer.Argument(help="Episode folders, or folders of them (e.g. an eval run).")],
    format: Annotated[ExportFormat, typer.Option("--format", help="Output format.")] = ExportFormat.openai,
    out: Annotated[Path | None, typer.Option(help="Write here instead of standard output.")] = None,
) -> None:
    """Write episodes as OpenAI-format conversations with their rewards, one JSON per line."""
    try:
        lines = list(export_lines(run_dirs))
    except (OSError, ValueError, KeyError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    text = "".join(line + "\n" for line in lines)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text)
        typer.echo(f"{len(lines)} episodes written to {out}", err=True)
