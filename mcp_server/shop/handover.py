"""Handing the conversation to a person (issue 33): the agent's summary for the human agent who
takes over, recorded in the episode world's `handovers` table.

It ends nothing by itself (the agent still closes with `respond_to_customer(done=true)`) and is
made once per conversation: a second hand-over is refused. Whether one was due is the verifier's
to judge, not the tool's, as with every write."""

from __future__ import annotations

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import Rejected
from verishop.mcp_server.models import HandoverReceipt


async def transfer_to_human(ep: Episode, summary: str) -> HandoverReceipt:
    text = summary.strip()
    if not text:
        raise Rejected("the summary is empty: say, for the person who takes over, what the customer needs and "
                       "which order it concerns")
    async with ep.db.execute("SELECT handover_id FROM handovers") as cur:
        earlier = await cur.fetchone()
    if earlier is not None:
        raise Rejected(f"already handed over ({earlier[0]}): a conversation is handed to a person once; "
                       "close it with respond_to_customer")
    handover_id = f"HO-{ep.calls:04d}"
    await ep.db.execute("INSERT INTO handovers VALUES (?, ?, ?)", (handover_id, text, ep.calls))
    return HandoverReceipt(handover_id=handover_id, summary=text,
                           note="A person will take over; tell the customer, then close with done=true.")
