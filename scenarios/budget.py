"""The per-turn tool budget (axis B_tool = 1 + ⌊d/2⌋), shared by the server that enforces it
and the verifier that reports it.

The budget counts *lookups*: read-only shop tools called between two messages to the
customer. Actions (cart changes, returns) are not counted: each is one the customer asked
for. Conversational tools (reading the conversation, answering the customer) are free.

Every message to the customer starts a new turn with the same budget, whether the verifier
will count that turn as free (a real question) or not: a free turn never refills more than a
paid one would, and since only a reply that tells something withheld is free, free turns are
bounded by what the customer held back, not by the agent.
"""

from verishop.scenarios.tool_names import IDENTIFICATION, LOOKUPS

# `find_customer` (issue 33) is read-only but no search of the task: a shop that makes the agent
# identify the customer before any order tool must not take that from the task's lookups (an agent
# that identifies would otherwise lose a lookup the environment's difficulty gave it). It has its
# own small cap per turn instead, so that no agent can try guessed names and zips by the hundred.
LOOKUP_TOOLS = LOOKUPS - IDENTIFICATION
IDENTIFY_CALLS_PER_TURN = 2

# How the server's refusal starts.
BUDGET_ERROR = "tool budget spent"
