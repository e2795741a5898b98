"""Run by verishop's Python: the tool calls verishop's oracle makes on (env, difficulty, seed),
played on an in-process shop, as JSON on stdout. The episode is deterministic, so the same calls
replayed through OpenEnv's client solve it again."""

import asyncio
import json
import sys

from verishop.agents.scripted import make_agent
from verishop.agents.session import ToolFailed
from verishop.local import LocalShop


class Recorder:
    def __init__(self, episode):
        self.episode, self.calls = episode, []

    async def call(self, tool, **arguments):
        self.calls.append({"tool": tool, "arguments": arguments})
        result = await self.episode.acall(tool, arguments)
        if result.error is not None:
            raise ToolFailed(result.error)
        return result.data


async def main(env: str, difficulty: int, seed: int, agent: str) -> None:
    shop = LocalShop()
    episode = await shop.aopen(env=env, difficulty=difficulty, seed=seed)
    recorder = Recorder(episode)
    await make_agent(agent, episode.scenario).play(recorder)
    reward = await episode.areward()
    json.dump({"calls": recorder.calls, "total": reward.total}, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
