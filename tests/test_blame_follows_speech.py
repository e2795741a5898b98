"""Blame follows what the customer said (issue 28, break 4 and point 3).

Before: a detail the customer stated in a correction did not count as revealed, and its own typo
noise could break the exact-word match that decides whether it was told, so an agent's own
failure was charged to the customer ("withheld after it said that was everything"). Now any
customer message counts, compared with what the customer said before its noise: the server
records the clean words (`said`) and the verifier accepts them only when replaying the
customer's seeded noise on them gives back every recorded message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mutants import charged, misfit, play_scored, world_products
from support import reseal
from verishop.scenarios.constraints import describe
from verishop.scenarios.customers import SimulatedCustomer
from verishop.scenarios.customers.topics import constraint_topics, question_about
from verishop.scenarios.models import Scenario, Submission

DIFFICULTIES = (6, 8, 10, 12)


def cases(hub, env: str, want, most: int, seeds: range = range(200)) -> list[tuple[Scenario, object]]:
    found = []
    for seed in seeds:
        for d in DIFFICULTIES:
            scenario = hub.generate(env, d, seed, voice="plain")  # the tests below read its words
            got = want(scenario)
            if got:
                found.append((scenario, got))
                if len(found) == most:
                    return found
    return found


def no_customer_blame(reward) -> bool:
    return all(f.actor != "customer" for f in reward.failed_requirements)


def _pd_misfit(reader, scenario: Scenario, kinds: tuple[str, ...]):
    """(constraint, misfit): the first withheld constraint, of one of `kinds`, a product misses alone."""
    goal = scenario.goal
    unstated = [c for c in goal.constraints if not c.stated]
    if not unstated or unstated[0].kind not in kinds or any(c.kind == "in_stock" for c in goal.constraints):
        return None
    c = unstated[0]
    p = misfit(world_products(reader, scenario, goal.category_id), goal.constraints, c,
               {r.product_id for r in goal.ideal})
    return p and (c, p)


def _recommend(shop_ids: list[str]):
    async def say(shop) -> dict:
        for start in range(0, len(shop_ids), 10):
            await shop.call("compare_products", product_ids=shop_ids[start:start + 10])
        return await shop.call("respond_to_customer", message="How about these?", recommended_product_ids=shop_ids)
    return say


async def test_a_detail_the_customer_stated_in_a_correction_counts_as_revealed(hub, reader, verifier):
    """The agent recommends a misfit, is corrected (the customer names the requirement), asks
    until the customer has nothing more to tell, then recommends the same misfit: its own
    failure, charged to it as a revealed requirement, never to the customer."""
    def want(s: Scenario):
        found = _pd_misfit(reader, s, ("brand", "attribute"))
        return found if found and sum(not c.stated for c in s.goal.constraints) + 4 <= s.axes.max_turns else None

    found = cases(hub, "pd", want, most=4)
    assert len(found) >= 3
    for scenario, (c, product) in found:
        ids = [product.product_id]  # the misfit alone: a list holding a fitting product is accepted

        async def play(shop, goal, ids=ids) -> None:
            first = await _recommend(ids)(shop)
            assert first["status"] == "open"
            for _ in range(6):
                reply = await shop.call("respond_to_customer", message="Is there anything else I should know?")
                if reply["status"] != "open" or reply["customer_message"].startswith("No, that's everything"):
                    break
            await _recommend(ids)(shop)

        reward = await play_scored(hub, verifier, scenario, play)
        assert (describe(c), "revealed", "agent") in charged(reward), (scenario.seed, reward.failed_requirements)
        assert no_customer_blame(reward), reward.failed_requirements


def _typo_hit(scenario: Scenario, reader, question: str, words: str) -> bool:
    """Whether the customer's answer to `question` tells `words` only through its typo noise."""
    reply = SimulatedCustomer(scenario, reader.product).reply(question, Submission())
    clean = SimulatedCustomer(scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"p_noise": 0})}),
                              reader.product).reply(question, Submission())
    return words in clean.text and words not in reply.text


async def test_a_detail_told_through_typo_noise_counts_as_revealed(hub, reader, verifier):
    def want(s: Scenario):
        found = _pd_misfit(reader, s, ("brand", "attribute", "price_max", "rating_min", "ship_days_max"))
        if not found or s.axes.p_noise <= 0:
            return None
        c = found[0]
        question = question_about(constraint_topics(c.kind, c.attribute))
        return _typo_hit(s, reader, question, describe(c)) and (*found, question)

    found = cases(hub, "pd", want, most=3, seeds=range(400))
    assert len(found) >= 2
    for scenario, (c, product, question) in found:
        ids = [r.product_id for r in scenario.goal.ideal]
        ids[-1] = product.product_id

        async def play(shop, goal, ids=ids, question=question) -> None:
            await shop.call("respond_to_customer", message=question)
            await _recommend(ids)(shop)

        reward = await play_scored(hub, verifier, scenario, play)
        assert (describe(c), "revealed", "agent") in charged(reward), (scenario.seed, reward.failed_requirements)


async def test_a_cart_variant_told_through_typo_noise_counts_as_revealed(hub, reader, verifier):
    from test_failure_requirements import _cart_play, _sibling

    def want(s: Scenario):
        items = [i for i in s.goal.items if i.variant_attribute and not i.variant_stated]
        if not items or s.axes.p_noise <= 0:
            return None
        item = items[0]
        said = f"{item.variant_attribute.replace('_', ' ')} {item.variant_value}"
        sibling = _sibling(reader, s, item)
        return sibling and _typo_hit(s, reader, "Which one would you like?", said) and (item, sibling, said)

    found = cases(hub, "cart", want, most=2, seeds=range(600))
    assert found
    for scenario, (item, sibling, said) in found:
        play = _cart_play(scenario, {item.product_id: sibling.product_id})

        async def asked_first(shop, goal, play=play) -> None:
            await shop.call("respond_to_customer", message="Which one would you like?")
            await play(shop, goal)

        reward = await play_scored(hub, verifier, scenario, asked_first)
        assert (f"the {item.description} in {said}", "revealed", "agent") in charged(reward), \
            reward.failed_requirements


async def test_clean_words_that_the_customer_never_said_are_not_believed(hub, reader, verifier, tmp_path):
    """An edited `said` is tampering (`modified_after_close`); and even sealed again by the key's
    holder, a `said` that does not give back the recorded message under the customer's own seeded
    noise is ignored: the requirement stays withheld."""
    found = cases(hub, "pd", lambda s: _pd_misfit(reader, s, ("brand", "attribute")), most=1)
    scenario, (c, product) = found[0]
    ids = [r.product_id for r in scenario.goal.ideal]
    ids[-1] = product.product_id

    async def play(shop, goal) -> None:
        await shop.call("respond_to_customer", message="Let me look.")
        await _recommend(ids)(shop)

    reward = await play_scored(hub, verifier, scenario, play)
    assert (describe(c), "withheld", "agent") in charged(reward)
    folder = next(p for p in Path(hub.runs_dir).iterdir() if p.is_dir() and (p / "transcript.jsonl").exists())
    transcript = folder / "transcript.jsonl"
    events = [json.loads(line) for line in transcript.read_text().splitlines()]
    reply = next(e for e in events if e["event"] == "customer_message" and e.get("tag") != "open")
    reply["said"] = f"Good question. It should be {describe(c)}."
    transcript.write_text("".join(json.dumps(e) + "\n" for e in events))
    tampered = verifier.score(folder)
    assert (tampered.verdict, tampered.reason) == ("incomplete", "modified_after_close")
    reseal(folder, hub.seal_key)
    again = verifier.score(folder)
    assert (describe(c), "withheld", "agent") in charged(again), again.failed_requirements


@pytest.mark.parametrize("env", ["pd", "cart"])
def test_the_server_records_the_clean_words_only_where_noise_changed_them(reader, env):
    from verishop.scenarios.envs import generate

    scenario = next(s for s in (generate(env, 12, seed, reader) for seed in range(100)) if s.axes.p_noise > 0)
    customer = SimulatedCustomer(scenario, reader.product)
    turns = [customer.reply(m, Submission()) for m in ("Any brand?", "Which colour?", "Anything else?")]
    assert all(t.said is None or t.said != t.text for t in turns)


async def test_asking_precisely_beats_asking_anything_else_in_the_reward(hub, reader, verifier):
    """The goal-blind open question against the precise one, end to end: both learn what was
    held back and recommend the same right list; only the precise asker's questions are free."""
    found = cases(hub, "pd", lambda s: sum(not c.stated for c in s.goal.constraints) >= 2
                  and sum(not c.stated for c in s.goal.constraints) + 2 <= s.axes.max_turns and s.goal, most=3)
    assert found
    for scenario, goal in found:
        unstated = [c for c in goal.constraints if not c.stated]
        ideal = [r.product_id for r in goal.ideal]

        def asking(questions: list[str]):
            async def play(shop, _goal) -> None:
                for question in questions:
                    await shop.call("respond_to_customer", message=question)
                await _recommend(ideal)(shop)
            return play

        blind = await play_scored(hub, verifier, scenario, asking(["Anything else I should know?"] * len(unstated)))
        again = hub.generate("pd", scenario.difficulty, scenario.seed)
        precise = await play_scored(hub, verifier, again, asking(
            [question_about(constraint_topics(c.kind, c.attribute)) for c in unstated]))
        assert precise.is_correct and blind.is_correct
        assert precise.r_eff == 1.0 > blind.r_eff and precise.total > blind.total
