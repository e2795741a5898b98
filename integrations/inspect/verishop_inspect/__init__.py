"""verishop's episodes as an Inspect AI task (see task.py)."""

from verishop_inspect.task import shop_agent, verishop, verishop_scorer

__all__ = ["shop_agent", "verishop", "verishop_scorer"]
