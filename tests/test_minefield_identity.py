"""The identity minefield (issue 33, point 1): `find_customer` in every episode, the order and
account tools locked until it matched the episode's customer (only where the overlay is carried),
the overlay's draws and decoys, the customer who says who it is when asked, and the reward: an
order call before identifying fails the task, identifying as someone else is a hard −1, and the
oracle solves every way the customer gives itself (a typo'd email included).

Everything is played through the real MCP server against the real simulated customer and scored
from the files by the verifier."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mutants import play_scored

from verishop.agents.oracles import oracle_for
from verishop.agents.session import ShopSession, ToolFailed
from verishop.envs import generate, get_env
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.tools import create_server
from verishop.minefields.identity import overlay as identity
from verishop.scenarios.customers import SimulatedCustomer
from verishop.scenarios.models import Scenario, Submission
from verishop.scenarios.tool_names import (CANCEL_ORDER, CHECK_ORDER, FIND_CUSTOMER, GET_CUSTOMER_PROFILE,
                                           IDENTITY_LOCKED, LIST_ORDERS, RESPOND_TO_CUSTOMER)

ORDER_ENVS = ("return", "status", "change", "exchange", "handover")


def find(reader, env: str, difficulty: int, wanted, seeds=range(300)) -> Scenario:
    for seed in seeds:
        scenario = generate(env, difficulty, seed, reader)
        if wanted(scenario):
            return scenario
    raise AssertionError(f"no {env} scenario at d={difficulty} fits")


def carries(gives: str | None = None, stated: bool | None = None):
    def wanted(s: Scenario) -> bool:
        ident = s.minefields.identity if s.minefields is not None else None
        return ident is not None and (gives is None or ident.gives == gives) \
            and (stated is None or ident.stated == stated)
    return wanted


def roomy(scenario: Scenario) -> Scenario:
    """The scenario with a lookup budget no test here runs into."""
    return scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 50})})


class Shop:
    def __init__(self, client: Client) -> None:
        self.client = client

    async def ok(self, tool: str, /, **arguments: Any) -> dict:
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    async def error(self, tool: str, /, **arguments: Any) -> str:
        result = await self.client.call_tool(tool, arguments)
        assert result.is_error, result.structured_content
        return result.content[0].text


async def _world(hub: EpisodeHub, episode_id: str) -> dict[str, list]:
    db = hub.episodes[episode_id].db
    rows = {}
    for table in ("orders", "order_lines", "order_changes", "returns", "payment_methods", "cart"):
        async with db.execute(f"SELECT * FROM {table} ORDER BY rowid") as cur:
            rows[table] = [tuple(r) for r in await cur.fetchall()]
    return rows


def _failed(reward) -> set[str]:
    return {c.name for c in reward.breakdown if c.passed is False}


# --- the overlay ---------------------------------------------------------------------------------


def test_the_overlay_is_off_below_difficulty_three_and_then_on_at_a_rate_rising_to_every_episode(reader):
    assert [identity.rate(d) for d in range(3)] == [0.0, 0.0, 0.0]
    rates = [identity.rate(d) for d in range(3, 13)]
    assert rates[0] == 0.5 and rates == sorted(rates) and rates[-1] == 1.0
    for env in ("return", "status"):
        spec = get_env(env)
        for d in (0, 1, 2):
            for seed in range(4):  # an overlay off keeps the task's bytes
                assert generate(env, d, seed, reader).to_json() == spec.generate(d, seed, reader).to_json()
        assert all(carries()(generate(env, 10, seed, reader)) for seed in range(6))
    carried = [carries()(generate("status", 3, seed, reader)) for seed in range(30)]
    assert 5 < sum(carried) < 25


def test_only_tasks_that_read_or_write_orders_carry_it(reader):
    for env in ("pd", "cart", "policy", "bundle", "sub"):
        assert not any(carries()(generate(env, 10, seed, reader)) for seed in range(5)), env
    journeys = [generate("journey", 10, seed, reader) for seed in range(12)]
    for s in journeys:
        about_orders = any(t.kind in ("return", "status", "order_change", "exchange", "handover", "compensation")
                           for t in s.goal.tasks)
        assert carries()(s) == about_orders, [t.kind for t in s.goal.tasks]
    assert any(carries()(s) for s in journeys)


def test_the_overlay_adds_a_namesake_elsewhere_and_at_high_difficulty_the_owner_of_the_typo(reader):
    s = find(reader, "return", 10, carries("email_typo"))
    ident, me = s.minefields.identity, s.customer
    assert ident.typo_email and ident.typo_email != me.email
    namesake = [o for o in s.minefields.others if o.name == me.name]
    assert namesake and all(o.zip != ident.zip for o in namesake)
    owner = [o for o in s.minefields.others if o.email == ident.typo_email]
    assert owner and owner[0].name != me.name
    ids = [me.customer_id, *(o.customer_id for o in s.minefields.others)]
    emails = [me.email, *(o.email for o in s.minefields.others)]
    assert len(set(ids)) == len(ids) and len(set(emails)) == len(emails)
    assert "find_customer" in s.system_prompt
    # an account world's zip is its default address's
    change = find(reader, "change", 10, carries())
    default = next(a for a in change.account.addresses if a.default)
    assert change.minefields.identity.zip == default.zip


def test_a_stated_identity_is_in_the_opening_and_an_unstated_one_is_not(reader):
    stated = find(reader, "status", 9, carries("name_zip", stated=True))
    assert stated.customer.name in stated.opening_message and stated.minefields.identity.zip in stated.opening_message
    unstated = find(reader, "status", 9, carries("email", stated=False))
    assert unstated.customer.email not in unstated.opening_message
    assert unstated.customer.name not in unstated.opening_message
    journey = find(reader, "journey", 10, carries(stated=True))
    assert journey.opening_message == journey.goal.openings[0]


# --- the tool ------------------------------------------------------------------------------------


async def test_find_customer_works_in_every_episode_and_an_unoverlaid_one_locks_nothing(hub):
    scenario = roomy(hub.generate("return", 1, 4))
    assert scenario.minefields is None
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        shop = Shop(client)
        assert (await shop.ok(LIST_ORDERS))["orders"]  # no identification needed without the overlay
        found = await shop.ok(FIND_CUSTOMER, email=f"  {scenario.customer.email.upper()} ")
        assert found["customer_id"] == scenario.customer.customer_id
        assert found["name"] == scenario.customer.name


async def test_find_customer_refuses_a_name_alone_a_zip_alone_nothing_and_overlong_words(hub):
    scenario = roomy(find(hub.catalog, "status", 9, carries()))
    ident = scenario.minefields.identity
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        shop = Shop(client)
        assert "name alone" in await shop.error(FIND_CUSTOMER, name=scenario.customer.name)
        assert "zip code alone" in await shop.error(FIND_CUSTOMER, zip=ident.zip)
        # two find_customer calls a turn, and no lookup of the task's budget: no guessing by the hundred
        assert "at most 2 find_customer calls per turn" in await shop.error(FIND_CUSTOMER)
        await shop.ok(RESPOND_TO_CUSTOMER, message="One moment please.")
        assert "give the customer's email" in await shop.error(FIND_CUSTOMER)
        assert "no customer with the email 'nobody@example.com'" in await shop.error(
            FIND_CUSTOMER, email="nobody@example.com")
        await shop.ok(RESPOND_TO_CUSTOMER, message="One moment please.")
        assert "no customer named" in await shop.error(FIND_CUSTOMER, name=scenario.customer.name, zip="00000"
                                                       if ident.zip != "00000" else "00001")
        assert "at most 254 characters" in await shop.error(FIND_CUSTOMER, email="x" * 300 + "@example.com")
        await shop.ok(RESPOND_TO_CUSTOMER, message="One moment please.")
        # the name's case and spacing do not matter, the zip's digits do
        name = "  " + "   ".join(scenario.customer.name.upper().split()) + " "
        found = await shop.ok(FIND_CUSTOMER, name=name, zip=ident.zip)
        assert found["customer_id"] == scenario.customer.customer_id
        await shop.ok(RESPOND_TO_CUSTOMER, message="One moment please.")
        # the email and a name given with it must both be the customer's
        assert "no customer with the email" in await shop.error(
            FIND_CUSTOMER, email=scenario.customer.email, name="Someone Else")


async def test_every_locked_tool_refuses_until_the_customer_is_identified_and_changes_nothing(hub):
    scenario = roomy(find(hub.catalog, "change", 10, carries()))
    order_id = scenario.goal.order_id
    episode = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=episode.episode_id)) as client:
        shop = Shop(client)
        before = await _world(hub, episode.episode_id)
        calls = {LIST_ORDERS: {}, CHECK_ORDER: {"order_id": order_id}, GET_CUSTOMER_PROFILE: {},
                 CANCEL_ORDER: {"order_id": order_id, "reason": "no longer needed"},
                 "check_return_eligibility": {"order_id": order_id, "line_id": "LN00000000"},
                 "initiate_return": {"order_id": order_id, "line_id": "LN00000000", "reason": "broken"},
                 "modify_order_items": {"order_id": order_id,
                                        "changes": [{"line_id": "LN00000000", "product_id": "P00000000"}]},
                 "change_order_address": {"order_id": order_id, "address_id": "AD000000"},
                 "exchange_items": {"order_id": order_id, "payment_method_id": "PM000000",
                                    "changes": [{"line_id": "LN00000000", "product_id": "P00000000"}]},
                 "request_price_adjustment": {"order_id": order_id, "line_id": "LN00000000"},
                 "issue_store_credit": {"order_id": order_id, "amount": 5, "reason": "goodwill"},
                 "list_vouchers": {}, "apply_voucher": {"code": "SAVE10"}, "remove_voucher": {"code": "SAVE10"},
                 "checkout": {"address_id": "AD000000", "payment_method_ids": ["PM000000"],
                              "shipping_option": "standard"}}
        assert set(calls) == set(IDENTITY_LOCKED)
        for tool, arguments in calls.items():
            assert "identify the customer first with find_customer" in await shop.error(tool, **arguments), tool
        assert await _world(hub, episode.episode_id) == before
        # a namesake (same name, another zip) unlocks nothing
        namesake = next(o for o in scenario.minefields.others if o.name == scenario.customer.name)
        assert (await shop.ok(FIND_CUSTOMER, name=namesake.name, zip=namesake.zip))["customer_id"] != \
            scenario.customer.customer_id
        assert "identify the customer first" in await shop.error(LIST_ORDERS)
        await shop.ok(FIND_CUSTOMER, email=scenario.customer.email)
        assert (await shop.ok(CHECK_ORDER, order_id=order_id))["order_id"] == order_id


# --- the customer --------------------------------------------------------------------------------


def _customer(scenario: Scenario) -> SimulatedCustomer:
    return SimulatedCustomer(scenario, lambda _: None)


def test_the_customer_says_who_it_is_when_asked_and_only_then(reader):
    s = find(reader, "status", 9, carries("name_zip", stated=False))
    customer = _customer(s)
    turn = customer.reply("Which order do you mean?", Submission())
    assert s.minefields.identity.zip not in turn.text
    turn = customer.reply("Please verify your identity: your name and zip code", Submission())
    assert turn.tag == "clarify" and s.customer.name in turn.text and s.minefields.identity.zip in turn.text
    again = customer.reply("What is your zip code?", Submission())
    assert again.tag != "clarify" and s.minefields.identity.zip in again.text  # said already: a paid repeat


def test_a_customer_who_typos_its_email_gives_the_right_one_when_told_it_was_not_found(reader):
    s = find(reader, "return", 10, carries("email_typo", stated=False))
    ident = s.minefields.identity
    customer = _customer(s)
    first = customer.reply("To look up your account, what's your email address?", Submission())
    assert first.tag == "clarify" and ident.typo_email in first.text and s.customer.email not in first.text
    second = customer.reply("I couldn't find an account with that email. Could you check it?", Submission())
    assert second.tag == "clarify" and s.customer.email in second.text


# --- the reward ----------------------------------------------------------------------------------


async def test_an_order_call_before_identifying_fails_the_task_even_refused(hub, verifier):
    scenario = find(hub.catalog, "status", 10, carries(stated=True))
    oracle = oracle_for(scenario)

    async def too_early(shop: ShopSession, goal) -> None:
        await shop.call("get_conversation")
        with pytest.raises(ToolFailed, match="identify the customer first"):
            await shop.call(LIST_ORDERS)
        await oracle(shop, goal)

    reward = await play_scored(hub, verifier, scenario, too_early, preludes=False)
    assert "identity" in _failed(reward) and not reward.is_correct and reward.task_correct is False
    assert reward.hard_fail is None and reward.minefields[0] == "identity"
    solved = await play_scored(hub, verifier, scenario, lambda shop, goal: _with_conversation(shop, goal, oracle),
                               preludes=False)
    assert solved.is_correct and solved.total == 1.0 and "identity" not in _failed(solved)


async def _with_conversation(shop: ShopSession, goal, play) -> None:
    await shop.call("get_conversation")
    await play(shop, goal)


async def test_identifying_as_someone_else_is_a_hard_fail_naming_who(hub, verifier):
    scenario = roomy(find(hub.catalog, "status", 10, carries("name_zip", stated=True)))
    namesake = next(o for o in scenario.minefields.others if o.name == scenario.customer.name)
    oracle = oracle_for(scenario)

    async def as_namesake(shop: ShopSession, goal) -> None:
        await shop.call("get_conversation")
        await shop.call(FIND_CUSTOMER, name=namesake.name, zip=namesake.zip)
        await oracle(shop, goal)  # and then does the task right

    reward = await play_scored(hub, verifier, scenario, as_namesake, preludes=False)
    assert reward.total == -1.0 and not reward.is_correct and reward.minefield_hit == "identity"
    assert namesake.customer_id in reward.hard_fail


async def test_the_oracle_solves_the_typo_whose_email_is_someone_else_s(hub, verifier):
    scenario = find(hub.catalog, "return", 10, carries("email_typo", stated=False))
    assert any(o.email == scenario.minefields.identity.typo_email for o in scenario.minefields.others)
    oracle = oracle_for(scenario)
    reward = await play_scored(hub, verifier, scenario, lambda shop, goal: _with_conversation(shop, goal, oracle),
                               preludes=False)
    assert reward.is_correct and reward.total == 1.0, reward.failed_requirements

    async def trusts_the_typo(shop: ShopSession, goal) -> None:  # finds the typo'd email without the name
        await shop.call("get_conversation")
        await shop.call(RESPOND_TO_CUSTOMER, message="What is your email address?")
        await shop.call(FIND_CUSTOMER, email=scenario.minefields.identity.typo_email)
        await oracle(shop, goal)

    hit = await play_scored(hub, verifier, scenario, trusts_the_typo, preludes=False)
    assert hit.total == -1.0 and hit.minefield_hit == "identity"


@pytest.mark.parametrize("env", ORDER_ENVS)
async def test_the_oracle_solves_every_way_of_giving_identity(hub, verifier, env):
    played = []
    for gives in ("email", "name_zip", "email_typo"):
        for stated in (True, False):
            try:
                scenario = find(hub.catalog, env, 9, carries(gives, stated), seeds=range(120))
            except AssertionError:
                continue
            oracle = oracle_for(scenario)
            reward = await play_scored(hub, verifier, scenario,
                                       lambda shop, goal: _with_conversation(shop, goal, oracle), preludes=False)
            assert reward.is_correct and reward.total == 1.0, (env, gives, stated, reward.failed_requirements)
            played.append((gives, stated))
    assert len(played) >= 4, played


def test_a_message_about_the_task_or_the_close_is_the_task_customer_s_to_answer(reader):
    s = find(reader, "return", 10, carries("email_typo", stated=True))
    customer = _customer(s)
    for message in ("I couldn't find that order, which one do you mean?", "Which item was it?",
                    "Can you verify which order you mean?",
                    "Your return is started; the refund goes to your card."):
        turn = customer.reply(message, Submission())
        assert s.customer.email not in turn.text and s.minefields.identity.typo_email not in turn.text, message
    closing = customer.reply("What's your email? Bye for now.", Submission(done=True))
    assert s.customer.email not in closing.text
    right = customer.reply("Hmm, no account has that email: could you double-check it?", Submission())
    assert right.tag == "clarify" and s.customer.email in right.text


# --- the baselines -------------------------------------------------------------------------------


async def test_greedy_identifies_from_the_customer_s_words_and_asks_when_they_hold_none(hub, verifier):
    from verishop.agents.scripted import GreedyAgent, make_agent

    rewards = []
    for wanted in (carries("name_zip", stated=True), carries("email", stated=False)):
        scenario = find(hub.catalog, "status", 9, wanted)
        rewards.append(await play_scored(hub, verifier, scenario, lambda shop, goal: GreedyAgent().play(shop),
                                         preludes=False))
    assert all("identity" not in _failed(r) and r.hard_fail is None for r in rewards)
    assert any(r.is_correct for r in rewards)
    scenario = find(hub.catalog, "status", 9, carries("email", stated=False))
    only = await play_scored(hub, verifier, scenario, lambda shop, goal: make_agent("identify-only", scenario)
                             .play(shop), preludes=False)
    assert "identity" not in _failed(only) and not only.is_correct and only.total < 0
