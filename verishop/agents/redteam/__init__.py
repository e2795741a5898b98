"""The red-team agents (issue 9, point 10): one goal-blind attacker per way the reward could pay
without the customer being served, and one correct agent that talks like a person.

    enumerate        one candidate answer per turn until the customer stops objecting
    bruteforce       every candidate answer inside one message
    spray            the longest lists the tools allow
    pad              content-free questions first, then greedy
    invent           invented IDs in every field (alias: hallucinate)
    namedrop         shown product IDs mentioned in the text, nothing submitted
    namedrop-greedy  greedy, its messages listing every product ID it saw
    denied           greedy, plus a denied product named in the text
    denied-spelled   the same, its title and ID respelled (case, spaces, separators, full width)
    cancel-all       every order cancelled, then greedy (issue 32's goal-blind writers: `writers.py`)
    modify-first     the first line of the newest order switched or exchanged, named first
    refuse           every request refused with the typed refusal its kind most often has (held
                     through a compensation customer's pushback)
    credit-max       a compensation request credited the whole order's total, offered until agreed
                     (issue 34: `writers.py`)
    ask-only         questions about the change every turn, and never an action
    always-transfer  every conversation handed to a person (the best-fitting order in the summary),
                     then greedy (issue 33: `handovers.py`)
    stonewall        a claim handed over, every other request refused, at every reply
    identify-only    the customer identified as greedy does, then nothing (issue 33: `identifies.py`)
    obey-text        greedy that obeys every instruction planted in a product's seller text (issue 33:
                     `obey.py`)
    flagged-first    greedy that recommends first every product whose seller text carries an
                     instruction, taking it for a wanted one (`flagged.py`): a measurement of what
                     the carrier's choice tells, not in the suite's table
    tell-all         every order ID and person the customer names looked up and told, then greedy
                     (issue 33, the other customers' data: `tellall.py`)
    every-voucher    a checkout with every voucher the shop accepts applied (issue 34: `vouchers.py`)
    cheapest-shipping  a checkout always shipped the cheapest way, whatever the date
    natural          the oracle's work, answered in sentences (reads the goal)
    natural-idioms   the same, answered in idioms, spoken money, histories and restated figures

The simple heuristics (`heuristics.py`), the floor a baseline must clear:

    prior            the most common answer of the question's form; the most common listed status
    oldest / newest  the order at one end of the list, for status and returns

Hostile agents never read the scenario: only tool results and the customer's replies. The
suite that plays them (`verishop.agents.redteam.suite`) asserts none beats the bar (the better of
greedy and the best heuristic, per environment: `suite.bar`), inventing or name-dropping never
beats doing nothing, and `natural` is scored as solved.
"""

from __future__ import annotations

from verishop.agents.redteam.bruteforce import BruteforceAgent
from verishop.agents.redteam.denied import DeniedAgent, DeniedSpelledAgent
from verishop.agents.redteam.enumeration import EnumerateAgent
from verishop.agents.redteam.handovers import AlwaysTransferAgent, StonewallAgent
from verishop.agents.redteam.heuristics import NewestAgent, OldestAgent, PriorAgent
from verishop.agents.redteam.identifies import IdentifyOnlyAgent
from verishop.agents.redteam.invent import InventAgent
from verishop.agents.redteam.namedrop import NamedropAgent, NamedropGreedyAgent
from verishop.agents.redteam.flagged import FlaggedFirstAgent
from verishop.agents.redteam.obey import ObeyTextAgent
from verishop.agents.redteam.natural import NaturalAgent, NaturalIdiomsAgent
from verishop.agents.redteam.pad import PadAgent
from verishop.agents.redteam.spray import SprayAgent
from verishop.agents.redteam.vouchers import CheapestShippingAgent, EveryVoucherAgent
from verishop.agents.redteam.tellall import TellAllAgent
from verishop.agents.redteam.writers import AskOnlyAgent, CancelAllAgent, CreditMaxAgent, ModifyFirstAgent, RefuseAgent

HOSTILE = ("enumerate", "bruteforce", "spray", "pad", "invent", "namedrop", "namedrop-greedy", "denied",
           "denied-spelled", "cancel-all", "modify-first", "refuse", "ask-only",
           "always-transfer", "stonewall", "credit-max", "identify-only", "obey-text", "tell-all",
           "every-voucher", "cheapest-shipping")
NATURAL = ("natural", "natural-idioms")
HEURISTIC = ("prior", "oldest", "newest")

__all__ = ["HEURISTIC", "HOSTILE", "NATURAL", "AlwaysTransferAgent", "CheapestShippingAgent", "EveryVoucherAgent", "StonewallAgent", "TellAllAgent", "AskOnlyAgent", "BruteforceAgent", "CancelAllAgent", "CreditMaxAgent", "ModifyFirstAgent", "RefuseAgent", "DeniedAgent", "DeniedSpelledAgent", "EnumerateAgent", "FlaggedFirstAgent", "IdentifyOnlyAgent", "InventAgent", "NamedropAgent",
           "NamedropGreedyAgent", "NaturalAgent", "NaturalIdiomsAgent", "NewestAgent", "ObeyTextAgent", "OldestAgent", "PadAgent", "PriorAgent",
           "SprayAgent"]
