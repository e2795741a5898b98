"""Plots as self-contained SVG data URIs (matplotlib's object API, no pyplot and so no global
figure state; rendered offline, glyphs drawn as paths so no font is needed to view them). An <img> keeps each SVG's ids apart from the page's and runs
none of its content."""

from __future__ import annotations

import base64
import io
from typing import Any

from verishop.agents.report.load import Run

try:
    from matplotlib import rc_context
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter
except ImportError as exc:  # pragma: no cover - the message says how to fix it
    raise ImportError("`verishop report` needs matplotlib: pip install 'verishop[report]'") from exc

RC = {"svg.fonttype": "path", "svg.hashsalt": "verishop", "font.size": 9, "axes.spines.top": False,
      "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3}
PARTS = ("r_task", "r_eff", "r_hall")


def _text(label: str) -> str:
    """A label shown as written: no mathtext, and not hidden by a leading underscore."""
    label = label.replace("$", r"\$")
    return " " + label if label.startswith("_") else label


def _data_uri(fig: Figure) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode()


def _per_difficulty(rows: list[dict[str, Any]], key: str) -> tuple[list[int], list[float]]:
    points = [(r["difficulty"], r[key]) for r in rows if isinstance(r["difficulty"], int) and r[key] is not None]
    return [d for d, _ in points], [v for _, v in points]


def env_figure(series: dict[str, list[dict[str, Any]]]) -> str:
    """Solved share, mean total, and turns and tool calls against difficulty (one colour per
    run), and the mean reward parts of each run."""
    with rc_context(RC):
        fig = Figure(figsize=(12, 2.9), layout="constrained")
        solved, total, work, parts = fig.subplots(1, 4, width_ratios=(1, 1, 1, 0.8))
        for index, (label, rows) in enumerate(series.items()):
            colour = f"C{index % 10}"
            solved.plot(*_per_difficulty(rows, "solved_share"), marker="o", markersize=3, color=colour,
                        label=_text(label))
            total.plot(*_per_difficulty(rows, "total"), marker="o", markersize=3, color=colour)
            work.plot(*_per_difficulty(rows, "tool_calls"), marker="o", markersize=3, color=colour)
            work.plot(*_per_difficulty(rows, "turns"), linestyle="--", marker="o", markersize=3, color=colour)
        solved.set(title="solved share", xlabel="difficulty", ylim=(-0.03, 1.03))
        solved.yaxis.set_major_formatter(PercentFormatter(1.0))
        total.set(title="mean total", xlabel="difficulty", ylim=(-1.05, 1.05))
        total.axhline(0, color="grey", linewidth=0.6)
        work.set(title="tool calls (solid), turns (dashed)", xlabel="difficulty")
        work.set_ylim(bottom=0)
        width = 0.8 / max(1, len(series))
        for i, (label, rows) in enumerate(series.items()):
            everything = next((r for r in rows if r["difficulty"] == "all"), None)
            values = [(everything or {}).get(p) or 0.0 for p in PARTS]
            parts.bar([x + i * width for x in range(len(PARTS))], values, width=width, color=f"C{i % 10}",
                      label=_text(label))
        parts.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(PARTS))], PARTS)
        parts.set(title="mean reward parts", ylim=(-1.05, 1.05))
        parts.axhline(0, color="grey", linewidth=0.6)
        if len(series) > 1:
            solved.legend(fontsize=7, loc="best")
        return _data_uri(fig)


def overview_figure(runs: list[Run], rows: dict[str, list[dict[str, Any]]]) -> str:
    """Solved share per environment, one bar per run."""
    envs = sorted({r["env_id"] for run_rows in rows.values() for r in run_rows})
    with rc_context(RC):
        fig = Figure(figsize=(11, 0.6 + 0.2 * len(envs) * max(1, len(runs))), layout="constrained")
        ax = fig.subplots()
        height = 0.8 / max(1, len(runs))
        for i, run in enumerate(runs):
            share = {r["env_id"]: r["solved_share"] for r in rows[run.label] if r["difficulty"] == "all"}
            ax.barh([y + i * height for y in range(len(envs))], [share.get(e, 0.0) for e in envs], height=height,
                    label=_text(run.label))
        ax.set_yticks([y + height * (len(runs) - 1) / 2 for y in range(len(envs))], [_text(e) for e in envs])
        ax.invert_yaxis()
        ax.set(xlim=(0, 1), title="solved share per environment (all difficulties)")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        if len(runs) > 1:
            ax.legend(fontsize=7, loc="lower right")
        return _data_uri(fig)
