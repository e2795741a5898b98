"""The journey customer: one request at a time, each judged by its own environment's
behaviour on its own part of the world (the other requests' cart items, returns and the orders
they change hidden; a change to any other order stays in sight, to object to);
when a request is handled, the customer thanks the agent and makes the next one.

Each customer message carries the index of the request it belongs to (`task`), which is
how the transcript, and the verifier, tell the requests apart.
"""

from __future__ import annotations

from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from verishop.scenarios.models import JourneyGoal, Submission


def _sub_state(state: CustomerState, index: int) -> CustomerState:
    states = state.memory.setdefault("requests", {})
    if index not in states:
        states[index] = CustomerState(state.scenario, state.lookup, state.rng)
    sub = states[index]
    sub.turns_taken += 1
    return sub


def reply(state: CustomerState, goal: JourneyGoal, message: str, sub: Submission,
          world: WorldView) -> CustomerTurn:
    from verishop.scenarios.customers import behaviour

    from verishop.envs.journey.generator import changed_elsewhere, foreign_ids

    index = state.memory.get("task", 0)
    request = goal.tasks[index]
    foreign = foreign_ids(goal, index)
    theirs = changed_elsewhere(goal, index)
    own_world = WorldView(cart={pid: n for pid, n in world.cart.items() if pid not in foreign},
                          returns=tuple(r for r in world.returns if r[1] not in foreign),
                          order_writes=tuple(w for w in world.order_writes if w.order_id not in theirs))
    turn = behaviour(request)(_sub_state(state, index), request, message, sub, own_world)
    if turn.tag == "done" and index + 1 < len(goal.tasks):
        state.memory["task"] = index + 1
        return CustomerTurn(turn.text, "continue", task=index + 1, then=goal.openings[index + 1])
    return CustomerTurn(turn.text, turn.tag, task=index)
