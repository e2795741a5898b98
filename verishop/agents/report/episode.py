"""One episode's page: the conversation turn by turn, every tool call (arguments, result or
error, duration), each submission, and beside each turn the verifier's checks that concern it.

Checks carry no turn, so they are placed by what they judge: "request N …" beside the last turn
that served request N of a journey, episode-wide checks (efficiency, hallucination, safety) beside
the closing, every other task check beside the last turn that submitted something (what the
agent committed is what is scored)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html import escape
from typing import Any

from verishop.agents.report.load import MAX_RESULT_CHARS, EpisodeRecord

EPISODE_WIDE = frozenset({"efficiency", "hallucination", "safety"})
_REQUEST = re.compile(r"^request (\d+)\b")


@dataclass
class Block:
    """One turn: the tool calls before a message to the customer, the message, the reply."""

    number: int
    task: Any = None
    events: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    replied: bool = False

    @property
    def message(self) -> dict[str, Any] | None:
        return next((e for e in self.events if e.get("event") == "assistant_message"), None)


def split_turns(events: list[dict[str, Any]]) -> tuple[list[Block], Block]:
    """The turns in order (turn 0 holds the opening) and a closing block."""
    blocks = [Block(0)]
    closing = Block(-1)
    task = None
    for event in events:
        kind = event.get("event")
        if kind == "episode_opened":
            continue
        if kind == "episode_closed":
            closing.events.append(event)
            continue
        current = blocks[-1]
        # respond_to_customer is recorded after the messages it carried: it belongs to their turn.
        starts_turn = kind == "assistant_message" or (kind == "tool_call"
                                                      and event.get("tool") != "respond_to_customer")
        if starts_turn and (current.replied or current.number == 0):
            current = Block(len(blocks), task)
            blocks.append(current)
        if kind == "tool_call" and event.get("tool") == "respond_to_customer" and current.message is not None:
            # The call is written after the message and reply it produced; it is shown where it was made.
            current.events.insert(current.events.index(current.message), event)
        else:
            current.events.append(event)
        if kind == "customer_message":
            current.replied = current.number > 0
            task = event.get("task", task)
            if current.number == 0:
                current.task = task
    return blocks, closing


def place_checks(blocks: list[Block], closing: Block, checks: list[dict[str, Any]]) -> None:
    answered = [b for b in blocks if b.message is not None]
    submitted = [b for b in answered if _submitted(b.message)]
    for check in checks:
        name = str(check.get("name", ""))
        target = closing
        if (match := _REQUEST.match(name)) is not None:
            serving = [b for b in answered if b.task == int(match.group(1)) - 1]
            target = serving[-1] if serving else closing
        elif name not in EPISODE_WIDE:
            target = (submitted or answered or [closing])[-1]
        target.checks.append(check)


def _submitted(message: dict[str, Any] | None) -> bool:
    submission = (message or {}).get("submission")
    return isinstance(submission, dict) and any(v for k, v in submission.items() if k != "done")


def layout_json(value: Any, width: int = 72, indent: int = 0) -> str:
    """JSON on one line when it fits, else one element per line, recursively."""
    flat = json.dumps(value, ensure_ascii=False, default=str)
    if len(flat) + indent <= width or not isinstance(value, list | dict) or not value:
        return flat
    pad = " " * (indent + 1)
    if isinstance(value, list):
        items = [pad + layout_json(v, width, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = [f"{pad}{json.dumps(str(k), ensure_ascii=False)}: {layout_json(v, width, indent + 1)}"
             for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def pretty(value: Any, limit: int = MAX_RESULT_CHARS) -> str:
    text = value if isinstance(value, str) else layout_json(value)
    if len(text) > limit:
        text = f"{text[:limit]}\n… ({len(text) - limit:,} more characters)"
    return escape(text)


def _short(value: Any, width: int = 100) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return escape(text if len(text) <= width else text[: width - 1] + "…")


def _event(event: dict[str, Any]) -> str:
    kind = event.get("event")
    if kind == "customer_message":
        tag = f' <span class="tag">{escape(str(event["tag"]))}</span>' if event.get("tag") else ""
        return f'<div class="msg customer"><b>customer</b>{tag}<p>{escape(str(event.get("text", "")))}</p></div>'
    if kind == "assistant_message":
        submission = event.get("submission") if isinstance(event.get("submission"), dict) else {}
        parts = {k: v for k, v in submission.items() if v not in (None, [], "", False)}
        shown = f'<div class="submission">submits <code>{pretty(parts)}</code></div>' if parts else ""
        return (f'<div class="msg assistant"><b>assistant</b><p>{escape(str(event.get("text", "")))}</p>'
                f"{shown}</div>")
    if kind == "tool_call":
        error = event.get("error")
        duration = event.get("duration_ms")
        took = (f' · <span title="wall time of the call on the server">server {float(duration):.1f} ms</span>'
                if isinstance(duration, int | float) else "")
        outcome = (f'<p class="error">error: {escape(str(error))}</p>' if error is not None
                   else f"<h5>result</h5><pre>{pretty(event.get('result'))}</pre>")
        return (f'<details class="call{" failed" if error is not None else ""}"><summary>→ '
                f'<code>{escape(str(event.get("tool", "?")))}</code>({_short(event.get("arguments", {}))})'
                f'<span class="took">{took}</span>{" · <b>error</b>" if error is not None else ""}</summary>'
                f"<h5>arguments</h5><pre>{pretty(event.get('arguments', {}))}</pre>{outcome}</details>")
    if kind == "episode_closed":
        return (f'<div class="closed">episode closed: <b>{escape(str(event.get("reason")))}</b> after '
                f'{escape(str(event.get("turns", "?")))} turns</div>')
    return f'<div class="other">{escape(str(kind))} <code>{_short(event, 160)}</code></div>'


def product_titles(events: list[dict[str, Any]]) -> dict[str, str]:
    """Product ID -> title, from every product the episode's tool results showed."""
    titles: dict[str, str] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("product_id"), str) and isinstance(value.get("title"), str):
                titles.setdefault(value["product_id"], value["title"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for event in events:
        if event.get("event") == "tool_call":
            walk(event.get("result"))
    return titles


def with_titles(value: Any, titles: dict[str, str]) -> Any:
    """`value` with each product ID written as "P12345678 · its title" where the title is known."""
    if isinstance(value, str) and value in titles:
        return f"{value} · {titles[value]}"
    if isinstance(value, list):
        return [with_titles(item, titles) for item in value]
    if isinstance(value, dict):
        return {key: with_titles(item, titles) for key, item in value.items()}
    return value


def _check(check: dict[str, Any], titles: dict[str, str] | None = None) -> str:
    titles = titles or {}
    passed = check.get("passed")
    state = "pass" if passed else "fail" if passed is False else "na"
    score = check.get("score")
    shown = f" · {float(score):+.3f}" if isinstance(score, int | float) else ""
    why = ""
    if check.get("requirement") is not None:
        why = (f'<dt>requirement</dt><dd class="why">{escape(str(check["requirement"]))} '
               f'<span class="source">{escape(str(check.get("source")))}</span> '
               f'<span class="actor">charged to {escape(str(check.get("actor")))}</span></dd>')
    return (f'<div class="check {state}"><div class="name">{"✓" if passed else "✗" if passed is False else "·"} '
            f'{escape(str(check.get("name", "?")))}{shown}</div><dl>{why}<dt>expected</dt><dd><pre>'
            f'{pretty(with_titles(check.get("expected"), titles), 1500)}</pre></dd><dt>found</dt><dd><pre>'
            f'{pretty(with_titles(check.get("found"), titles), 1500)}'
            f"</pre></dd></dl></div>")


def _block(block: Block, title: str, titles: dict[str, str]) -> str:
    checks = "".join(_check(c, titles) for c in block.checks) or '<p class="none">no check concerns this turn</p>'
    return (f'<section class="turn"><h4>{title}</h4><div class="events">{"".join(map(_event, block.events))}'
            f'</div><aside class="checks">{checks}</aside></section>')


def _yes_no(value: object) -> str | None:
    return None if value is None else "yes" if value else "no"


def render_episode(episode: EpisodeRecord, anchor: str, run_label: str) -> str:
    reward = episode.reward
    blocks, closing = split_turns(episode.events)
    breakdown = reward.get("breakdown") if isinstance(reward.get("breakdown"), list) else []
    place_checks(blocks, closing, [c for c in breakdown if isinstance(c, dict)])
    number = lambda key: (f"{float(reward[key]):+.3f}" if isinstance(reward.get(key), int | float)  # noqa: E731
                          else "—")
    facts = [("run", run_label), ("environment", reward.get("env_id")), ("difficulty", reward.get("difficulty")),
             ("seed", reward.get("seed")), ("customer voice", episode.voice), ("verdict", reward.get("verdict")),
             ("solved", "yes" if episode.solved else "no"), ("total", number("total")),
             ("r_task", number("r_task")), ("r_eff", number("r_eff")), ("r_hall", number("r_hall")),
             ("turns", reward.get("turns")), ("tool calls", reward.get("tool_calls")),
             ("tool errors", reward.get("tool_errors")), ("closed", reward.get("close_reason")),
             ("minefields carried", ", ".join(reward.get("minefields") or []) or None),
             ("minefield hit", reward.get("minefield_hit")), ("task done", _yes_no(reward.get("task_correct"))),
             ("hard fail", reward.get("hard_fail")), ("folder", str(episode.directory))]
    table = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in facts if v is not None)
    notes = [*episode.notes, *(reward.get("notes") or []), *([reward["detail"]] if reward.get("detail") else [])]
    noted = "".join(f"<li>{escape(str(n))}</li>" for n in notes)
    titles = product_titles(episode.events)
    turns = "".join(_block(b, "opening" if b.number == 0 else f"turn {b.number}", titles) for b in blocks)
    status = "solved" if episode.solved else "unsolved"
    return (f'<article class="episode {status}" id="{anchor}"><p class="back"><a href="#top">↑ back to the report'
            f'</a></p><h2>{escape(episode.episode_id)} <span class="badge {status}">{status}</span></h2>'
            f'<dl class="facts">{table}</dl>{f"<ul class=notes>{noted}</ul>" if noted else ""}'
            f'<h3>conversation and checks</h3>{turns}{_block(closing, "closing", titles)}</article>')
