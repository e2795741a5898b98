"""The customer's voice, as `verishop serve`, `eval` and `demo` take it (issue 35, docs/customer-voice.md).

    --customer-voice scripted       the customer's own words (the default; episodes keep their bytes)
    --customer-voice llm            a language model rewords each reply; needs --customer-voice-url
                                    and --customer-voice-model (any OpenAI-compatible server)
    --customer-voice replay:FILE    the rewordings a run with `llm` recorded, offline

The customer decides in code whatever the voice; only the words the agent reads change.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import typer

RECORD_FILE = "customer-voice.jsonl"  # beside the episodes of a run with `llm`, unless told otherwise
KEY_ENV = "VERISHOP_CUSTOMER_VOICE_KEY"
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_TEMPERATURE = 0.7

Decision = tuple[str | None, str | None]  # (the rewording, or None and why the scripted words stand)

CustomerVoiceOption = Annotated[str, typer.Option(
    "--customer-voice", help="Who words the customer's replies: scripted (the customer's own), llm (a language "
                             "model rewords each reply, checked fact by fact; scripted words where it fails), or "
                             "replay:FILE (the rewordings an llm run recorded, offline). docs/customer-voice.md")]
CustomerVoiceUrl = Annotated[str | None, typer.Option(
    "--customer-voice-url", help="--customer-voice llm: the OpenAI-compatible endpoint, e.g. "
                                 "http://127.0.0.1:8080/v1 (llama.cpp, vLLM, Ollama).")]
CustomerVoiceModel = Annotated[str | None, typer.Option(
    "--customer-voice-model", help="--customer-voice llm: the model name the endpoint serves.")]
CustomerVoiceKey = Annotated[str | None, typer.Option(
    "--customer-voice-key", envvar=KEY_ENV, show_envvar=True,
    help="--customer-voice llm: a bearer token, if the endpoint wants one.")]
CustomerVoiceTimeout = Annotated[float, typer.Option(
    "--customer-voice-timeout-s", min=0.1, max=600,
    help="--customer-voice llm: seconds one rewording may take; past it the scripted words are used.")]
CustomerVoiceTemperature = Annotated[float, typer.Option(
    "--customer-voice-temperature", min=0, max=2,
    help="--customer-voice llm: the sampling temperature (0: the model's likeliest wording; small models need it).")]
CustomerVoiceRecord = Annotated[Path | None, typer.Option(
    "--customer-voice-record", dir_okay=False,
    help=f"--customer-voice llm: where to record every rewording, for replay (default: <runs-dir>/{RECORD_FILE}).")]


@dataclass(frozen=True)
class VoiceSettings:
    mode: Literal["scripted", "llm", "replay"] = "scripted"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    record: Path | None = None  # llm: the recording (default: <runs>/RECORD_FILE)
    replay: Path | None = None  # replay: the recording read
    temperature: float = DEFAULT_TEMPERATURE

    @property
    def scripted(self) -> bool:
        return self.mode == "scripted"

    def serve_args(self) -> list[str]:
        """The same voice for a `verishop serve` this process starts (the key goes in its environment,
        `serve_env`, never on a command line that `ps` shows)."""
        if self.mode == "scripted":
            return []
        if self.mode == "replay":
            return ["--customer-voice", f"replay:{self.replay}"]
        args = ["--customer-voice", "llm", "--customer-voice-url", str(self.base_url), "--customer-voice-model",
                str(self.model), "--customer-voice-timeout-s", str(self.timeout_s), "--customer-voice-temperature",
                str(self.temperature)]
        return args + (["--customer-voice-record", str(self.record)] if self.record else [])

    def serve_env(self) -> dict[str, str]:
        return {KEY_ENV: self.api_key} if self.api_key else {}


def voice_settings(voice: str = "scripted", url: str | None = None, model: str | None = None,
                   api_key: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                   record: Path | None = None, temperature: float = DEFAULT_TEMPERATURE) -> VoiceSettings:
    """The settings the options say, or a usage error naming the option at fault."""
    name, _, file = voice.partition(":")
    if name == "scripted" and not file:
        settings = VoiceSettings()
    elif name == "llm" and not file:
        missing = [flag for flag, value in (("--customer-voice-url", url), ("--customer-voice-model", model))
                   if not value]
        if missing:
            raise typer.BadParameter(f"llm needs {' and '.join(missing)}", param_hint="--customer-voice")
        if not url.startswith(("http://", "https://")):  # type: ignore[union-attr]
            raise typer.BadParameter(f"expected an http(s) URL, got {url!r}", param_hint="--customer-voice-url")
        settings = VoiceSettings("llm", url, model, api_key, timeout_s,
                                 record=Path(os.path.abspath(record)) if record else None, temperature=temperature)
    elif name == "replay" and file:
        path = Path(os.path.abspath(file))
        if not path.is_file():
            raise typer.BadParameter(f"replay file {file!r} does not exist", param_hint="--customer-voice")
        try:
            read_recording(path)
        except (OSError, ValueError) as exc:
            raise typer.BadParameter(str(exc), param_hint="--customer-voice") from None
        settings = VoiceSettings("replay", replay=path)
    else:
        raise typer.BadParameter(f"expected scripted, llm or replay:FILE, got {voice!r}",
                                 param_hint="--customer-voice")
    if settings.mode != "llm" and (url or model or record):
        raise typer.BadParameter("--customer-voice-url, --customer-voice-model and --customer-voice-record apply "
                                 "to --customer-voice llm only", param_hint="--customer-voice")
    return settings


def read_recording(path: Path) -> dict[tuple[str, str], Decision]:
    """The decisions a run with `llm` recorded, by (scenario sha256, words); the first of a key wins.
    A line that is not a decision is an error naming it (a recording is data a run wrote)."""
    decisions: dict[tuple[str, str], Decision] = {}
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                key = (item["scenario_sha256"], item["words"])
                rewording, why = item.get("rewording"), item.get("why")
                if not all(isinstance(k, str) for k in key) or not isinstance(rewording, str | None) \
                        or not isinstance(why, str | None):
                    raise TypeError("a field has the wrong type")
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}: line {number} is not a recorded rewording ({exc})") from None
            decisions.setdefault(key, (rewording, why))
    return decisions
