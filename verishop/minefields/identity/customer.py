"""The customer of an episode that carries the identity minefield: asked who it is (its email,
name, zip code, account, identity: with or without a "?"; `topics.read` with this minefield's own
topic words), it says what it gives, and nothing else about itself.

- The first time, it tells what the opening held back: tag `clarify`, a free turn. Asked again
  when it has said it already, it repeats it, paid (`continue`).
- `email_typo`: its email comes first with a typo; once the agent says no account was found, asks
  it to check the email, or asks again, it gives the right one (`clarify`: new).
- A message that asks nothing about who it is goes to the task's customer (None), and so does the
  agent's closing message.

Its words ride in `then`, beside its noised "Sure.", never noised themselves: a typo the noise put
in an email would be no customer's own mistake, and no agent could fix it.
"""

from __future__ import annotations

import re

from verishop.minefields.identity.overlay import introduction
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from verishop.scenarios.customers.topics import normalise, read
from verishop.scenarios.models import Scenario, Submission

# The phrases that ask who the customer is (in `topics.normalise`'s normal form: "e-mail" is "e mail").
IDENTITY_WORDS = {"identity": (
    "email", "emails", "e mail", "email address", "zip", "zip code", "zipcode", "postcode", "postal code",
    "your name", "full name", "your identity", "identify you", "identify yourself", "verify your identity",
    "verify your account", "verify you", "verify its you", "verify who you are", "identity verification",
    "account verification", "who you are", "find your account", "look up your account", "locate your account", "pull up your account",
    "access your account", "your account details", "which account", "account email",
)}
# The agent saying the account was not found, or asking the customer to check what it gave.
_NOT_FOUND = re.compile(r"\b(?:(?:could ?not|couldnt|can ?not|cant|did ?not|didnt|unable to|wasnt able to) "
                        r"(?:find|locate|match)|no account|not find|not found|no match|doesnt match|"
                        r"does not match|(?:double )?check (?:the|your|that) (?:email|spelling|address)|"
                        r"double check|recheck|typo|misspel\w*|mistyp\w*)\b")
_ABOUT_ACCOUNT = re.compile(r"\b(?:email|e mail|account)\b")
_MEMORY = "identity"


def reply(state: CustomerState, scenario: Scenario, message: str, submission: Submission,
          world: WorldView) -> CustomerTurn | None:
    identity = scenario.minefields.identity if scenario.minefields is not None else None
    if identity is None or submission.done:
        return None
    words = normalise(message)
    asked = "identity" in read(message, IDENTITY_WORDS).topics
    told_missing = _NOT_FOUND.search(words) is not None and _ABOUT_ACCOUNT.search(words) is not None
    memory = state.memory.get(_MEMORY) or {"told": identity.stated, "corrected": False}
    typo_pending = identity.gives == "email_typo" and memory["told"] and not memory["corrected"]
    if not (asked or (told_missing and typo_pending)):
        return None  # remembering nothing: the task's customer answers as it would without the minefield
    state.memory[_MEMORY] = memory
    if typo_pending:
        memory["corrected"] = True
        return CustomerTurn("Oh, sorry!", "clarify",
                            then=f"I mistyped it. {introduction(scenario, identity, corrected=True)}")
    if not memory["told"]:
        memory["told"] = True
        return CustomerTurn("Sure.", "clarify", then=introduction(scenario, identity))
    return CustomerTurn("As I said:", "continue", then=introduction(scenario, identity, corrected=memory["corrected"]))
