"""The default episode: what stdio and `/mcp` serve to someone trying the tools by hand.

Two things differ from an episode made through `POST /episodes`:
- its lookup budget is the largest of the difficulty axis (`IDE_LOOKUPS_PER_TURN`, 7 lookups
  between two messages to the customer) unless `--lookups-per-turn` says otherwise, so that a
  client can chain a search, a product page and a comparison before it answers;
- when it has ended (done, the customer left, the turn budget, a DELETE), the next call or
  connection opens its successor from the next seed and lands there, instead of reading
  "episode ... is closed" until the server restarts. Opening waits for that call, so a client
  that leaves leaves no untouched episode behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.scenarios.difficulty import MAX_DIFFICULTY, axes_for
from verishop.scenarios.models import Scenario

IDE_LOOKUPS_PER_TURN = axes_for(MAX_DIFFICULTY).tool_calls_per_turn


def with_lookup_budget(scenario: Scenario, lookups_per_turn: int) -> Scenario:
    """The same scenario with another lookup budget (written into its scenario.json, so the
    verifier scores the episode against the budget it was played with)."""
    axes = scenario.axes.model_copy(update={"tool_calls_per_turn": lookups_per_turn})
    return scenario.model_copy(update={"axes": axes})


@dataclass
class DefaultEpisodes:
    """Opens the default episode, and its successor after each one ends (`EpisodeHub.on_default_closed`)."""

    hub: EpisodeHub
    env: str
    difficulty: int
    seed: int
    scenario: Scenario | None = None
    lookups_per_turn: int | None = IDE_LOOKUPS_PER_TURN  # None: the difficulty's own budget
    opened: int = 0

    async def open_next(self) -> Episode:
        scenario = self.scenario or await self.hub.generate_async(self.env, self.difficulty, self.seed + self.opened)
        if self.lookups_per_turn is not None:
            scenario = with_lookup_budget(scenario, self.lookups_per_turn)
        self.opened += 1
        return await self.hub.open(scenario, default=True)

    def renew_on_close(self) -> None:
        """From now on, a closed default episode is replaced when the next call comes."""
        self.hub.on_default_closed = self.open_next
