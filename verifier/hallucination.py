"""Hallucination: IDs the agent used before any tool had shown them to it.

IDs that *carry the task* are the ones scored: products recommended in any submission, put in
or changed in the cart, order and line IDs submitted or passed to initiate_return, and every ID
an order change or exchange was called with (order, lines, variants, address, payment method). An ID
carries no credit when no tool result showed it before that use (`verishop.verifier.exposure`).
IDs only *mentioned* in a message's text can lower the score (one no tool showed counts as
hallucinated) but never raise it: name-dropping IDs the agent has seen is not work.

    r_hall = 1 − 2·(hallucinated / used),  used = task IDs ∪ unseen IDs mentioned in text

An agent that attempted nothing (no commitment at all, `TaskScore.attempted`) earns no
credit: r_hall = min(0, …), so doing nothing scores 0 and inventing IDs scores below it. A
request that needs no ID (a policy answer) and was answered without hallucinating earns 1.
This rescales the reference's −share to [−1, 1] (see `verifier` docstring).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from verishop.scenarios.tool_names import CART_ADDS, INITIATE_RETURN, ORDER_WRITES
from verishop.verifier.exposure import ANY_ID_IN_TEXT, exposure
from verishop.verifier.transcript import Transcript, succeeded


@dataclass
class Hallucination:
    r_hall: float
    used: int
    hallucinated: list[str] = field(default_factory=list)


def hallucination(transcript: Transcript, attempted: bool) -> Hallucination:
    seen = exposure(transcript)
    task: dict[str, bool] = {}  # ID -> first use came before any tool showed it
    mentioned_unseen: list[str] = []

    def use(value: object, seq: int) -> None:
        if isinstance(value, str) and value.strip() and value.strip() not in task:
            task[value.strip()] = not seen.shown(value, seq)

    submissions = iter(transcript.submissions)
    for event in transcript.events:
        kind, seq = event["event"], event["seq"]
        if kind == "assistant_message":
            submission = next(submissions)
            for pid in submission.recommended_product_ids:
                use(pid, seq)
            use(submission.order_id, seq)
            use(submission.line_id, seq)
            mentioned_unseen += [i for i in ANY_ID_IN_TEXT.findall(str(event.get("text", "")))
                                 if not seen.shown(i, seq) and i not in mentioned_unseen]
        elif kind == "tool_call":
            arguments = event.get("arguments") or {}
            if event["tool"] in CART_ADDS and succeeded(event):
                use(arguments.get("product_id"), seq)
            elif event["tool"] == INITIATE_RETURN:
                use(arguments.get("order_id"), seq)
                use(arguments.get("line_id"), seq)
            elif event["tool"] in ORDER_WRITES:
                for value in (arguments.get("order_id"), arguments.get("line_id"), arguments.get("address_id"),
                              arguments.get("payment_method_id"), *(arguments.get("payment_method_ids") or ())):
                    use(value, seq)
                for change in arguments.get("changes") or ():
                    if isinstance(change, dict):
                        use(change.get("line_id"), seq)
                        use(change.get("product_id"), seq)
    # A mention before any tool showed the ID is a hallucination even if the ID turns up later.
    hallucinated = list(dict.fromkeys([*(value for value, unseen in task.items() if unseen), *mentioned_unseen]))
    used = len(set(task) | set(mentioned_unseen))
    r_hall = (1.0 if attempted else 0.0) if used == 0 else 1 - 2 * len(hallucinated) / used
    if not attempted:
        r_hall = min(0.0, r_hall)
    return Hallucination(r_hall=r_hall, used=used, hallucinated=hallucinated)
