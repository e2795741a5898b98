"""Why an episode failed (issue 22): every failed check names its requirement, the requirement's
source and an actor.

Mutation oracles (tests/mutants.py) play each environment's oracle through the real server and
customer with exactly one requirement broken, of each source the environment has; the verifier
must charge exactly that requirement, to the agent, with that source. Oracle and baseline runs
must charge nothing to the customer or the world, and the detectors that would must fire on a
customer that hid what it was asked and on a world that contradicts its goal."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from mutants import (
    KeepOpen,
    ask_until,
    category_of,
    charged,
    misfit,
    play_scored,
    recommend_list,
    sold_out_fit,
    world_products,
)
from support import play_run, reseal
from verishop.agents.oracles import play_for
from verishop.scenarios.constraints import describe
from verishop.scenarios.customers.topics import constraint_topics, question_about
from verishop.envs.bundle.generator import say_category
from verishop.envs.pd.generator import PRIORITY_WORDS
from verishop.scenarios.models import Scenario
from verishop.verifier.blame import annotate, explain
from verishop.verifier.catalogs import CatalogCache
from verishop.verifier.files import load_episode
from verishop.verifier.requirements import IN_STOCK, SHOWN

ENVS = ("pd", "sub", "cart", "return", "status", "policy", "bundle", "journey")
DIFFICULTIES = (2, 4, 6, 8, 10, 12)
SEEDS = range(60)
STATUS_WORDS = ("processing", "shipped", "in transit", "delivered", "cancelled")


def find(hub, env: str, want):
    """The first (seed, difficulty) whose scenario `want` accepts, with what it returned."""
    for seed in SEEDS:
        for d in DIFFICULTIES:
            scenario = hub.generate(env, d, seed)
            found = want(scenario)
            if found:
                return scenario, found
    pytest.fail(f"no {env} scenario in {len(SEEDS)} seeds fits the mutation")


def assert_exactly(reward, requirement: str, source: str) -> None:
    assert charged(reward) == {(requirement, source, "agent")}, reward.failed_requirements
    failed = [c for c in reward.breakdown if c.passed is False]
    assert failed and all(c.requirement is not None and c.actor == "agent" for c in failed)


# --- product discovery and substitution ------------------------------------------------------


def breach(products, constraints, avoid, source: str):
    """A product breaking one constraint `source` ("stated" or "withheld") holds, with that
    constraint; for "shop", a fitting product the episode sold out."""
    if source == "shop":
        p = sold_out_fit(products, constraints, avoid)
        return p and (None, p)
    for c in constraints:
        if c.kind != "category" and c.stated == (source == "stated"):
            p = misfit(products, constraints, c, avoid)
            if p is not None:
                return c, p
    return None


def _constraint_case(reader, source: str, category_id_of, avoid_of):
    def want(scenario: Scenario):
        goal = scenario.goal
        if any(c.kind == "in_stock" for c in goal.constraints):
            return None
        products = world_products(reader, scenario, category_id_of(goal))
        avoid = avoid_of(goal)
        return breach(products, goal.constraints, avoid, source)
    return want


@pytest.mark.parametrize("env", ["pd", "sub"])
@pytest.mark.parametrize("source", ["stated", "revealed", "withheld", "shop"])
async def test_a_recommendation_that_breaks_one_requirement_is_charged_that_requirement_and_its_source(
        hub, reader, verifier, env, source):
    avoid = (lambda g: {r.product_id for r in g.ideal}) if env == "pd" else \
        (lambda g: {r.product_id for r in g.ideal} | {g.original_product_id})
    scenario, (c, product) = find(hub, env, _constraint_case(reader, source, lambda g: g.category_id, avoid))
    ids = [r.product_id for r in scenario.goal.ideal]
    ids[-1] = product.product_id
    question = question_about(constraint_topics(c.kind, c.attribute)) if c else ""
    before = (lambda shop: ask_until(shop, describe(c), question)) if source == "revealed" else None
    reward = await play_scored(hub, verifier, scenario, recommend_list(ids, before))
    assert_exactly(reward, IN_STOCK if source == "shop" else describe(c), source)


@pytest.mark.parametrize("source", ["stated", "revealed", "withheld"])
async def test_a_list_that_fits_but_is_not_the_best_is_charged_to_what_matters_most(hub, reader, verifier, source):
    from verishop.scenarios.constraints import satisfies
    from verishop.scenarios.ranking import utility

    def want(scenario: Scenario):
        goal = scenario.goal
        persona = goal.persona
        if persona.priority is None or persona.priority_stated != (source == "stated"):
            return None
        ideal = {r.product_id: r.utility for r in goal.ideal}
        reference = reader.product(persona.reference_product_id)
        fits = [p for p in world_products(reader, scenario, goal.category_id) if p.stock > 0
                and p.product_id not in ideal and all(satisfies(p, c) for c in goal.constraints)]
        worse = [p for p in fits if utility(p, persona, reference) < min(ideal.values())]
        return worse and min(worse, key=lambda p: utility(p, persona, reference))

    scenario, product = find(hub, "pd", want)
    ids = [r.product_id for r in scenario.goal.ideal]
    ids[-1] = product.product_id
    priority = scenario.goal.persona.priority
    before = (lambda shop: ask_until(shop, PRIORITY_WORDS[priority], "What matters most to you?")) \
        if source == "revealed" else None
    reward = await play_scored(hub, verifier, scenario, recommend_list(ids, before))
    best = {"price": "prices", "rating": "reviews", "ship": "delivery times"}[priority]
    assert_exactly(reward, f"the best {best} among products that fit", source)


@pytest.mark.parametrize("source", ["stated", "revealed", "withheld"])
async def test_an_alternative_that_fits_but_is_far_from_the_original_is_charged_to_the_original(
        hub, reader, verifier, source):
    from verishop.scenarios.constraints import satisfies
    from verishop.scenarios.ranking import substitute_relevance

    def want(scenario: Scenario):
        goal = scenario.goal
        if goal.original_stated != (source == "stated") or not goal.original_title:
            return None
        original = reader.product(goal.original_product_id)
        ideal = {r.product_id: r.utility for r in goal.ideal}
        far = [p for p in world_products(reader, scenario, goal.category_id) if p.stock > 0
               and p.product_id not in ideal and p.product_id != goal.original_product_id
               and all(satisfies(p, c) for c in goal.constraints)
               and substitute_relevance(p, original, goal.constraints, goal.similarity_weight) < min(ideal.values())]
        return far and far[0]

    scenario, product = find(hub, "sub", want)
    goal = scenario.goal
    ids = [r.product_id for r in goal.ideal]
    ids[-1] = product.product_id
    before = (lambda shop: ask_until(shop, goal.original_title, "Which one was it?")) if source == "revealed" else None
    reward = await play_scored(hub, verifier, scenario, recommend_list(ids, before))
    assert_exactly(reward, f"as close as the best alternatives to the {goal.original_title}", source)


# --- cart ------------------------------------------------------------------------------------


def _sibling(reader, scenario: Scenario, item):
    target = next(p for p in world_products(reader, scenario, _category(reader, scenario, item.product_id))
                  if p.product_id == item.product_id)
    return next((p for p in world_products(reader, scenario, target.category_id)
                 if p.group_id == target.group_id and p.product_id != item.product_id and p.stock > 0
                 and p.attrs.get(item.variant_attribute) != item.variant_value), None)


def _category(reader, scenario: Scenario, product_id: str) -> str:
    extra = next((e for e in scenario.extra_products if e.product_id == product_id), None)
    return extra.category_id if extra else reader.product(product_id).category_id


def _cart_play(scenario: Scenario, swap: dict[str, str], quantity_up: str | None = None, unseen: str | None = None,
               ask: str | None = None):
    async def play(shop, goal) -> None:
        if ask:
            await ask_until(shop, ask, "Which one would you like?")
        ids = [swap.get(item.product_id, item.product_id) for item in goal.items]
        await shop.call("compare_products", product_ids=[pid for pid in ids if pid != unseen])
        for item, pid in zip(goal.items, ids):
            await shop.call("add_to_cart", product_id=pid, quantity=item.quantity + (pid == quantity_up))
        await shop.call("respond_to_customer", message="Everything you asked for is in your cart.")
    return play


@pytest.mark.parametrize("source", ["stated", "revealed", "withheld"])
async def test_a_wrong_variant_in_the_cart_is_charged_to_that_variant_and_its_source(hub, reader, verifier, source):
    def want(scenario: Scenario):
        for item in scenario.goal.items:
            if item.variant_attribute and item.variant_stated == (source == "stated"):
                sibling = _sibling(reader, scenario, item)
                if sibling is not None:
                    return item, sibling
        return None

    scenario, (item, sibling) = find(hub, "cart", want)
    said = f"{str(item.variant_attribute).replace('_', ' ')} {item.variant_value}"
    reward = await play_scored(hub, verifier, scenario, _cart_play(
        scenario, {item.product_id: sibling.product_id}, ask=said if source == "revealed" else None))
    assert_exactly(reward, f"the {item.description} in {said}", source)


async def test_a_wrong_quantity_and_an_unseen_product_in_the_cart_are_charged_as_stated_and_shop(
        hub, verifier):
    scenario, item = find(hub, "cart", lambda s: len(s.goal.items) > 1 and s.goal.items[0])
    reward = await play_scored(hub, verifier, scenario, _cart_play(scenario, {}, quantity_up=item.product_id))
    assert_exactly(reward, f"{item.quantity} × the {item.description}", "stated")
    scenario = hub.generate("cart", scenario.difficulty, scenario.seed)
    reward = await play_scored(hub, verifier, scenario, _cart_play(scenario, {}, unseen=item.product_id))
    assert_exactly(reward, SHOWN, "shop")


# --- order status ----------------------------------------------------------------------------


def _status_play(order_id: str, status: str, ask: str | None = None):
    async def play(shop, goal) -> None:
        if ask:
            await ask_until(shop, ask, "Which order do you mean?")
        order = await shop.call("check_order", order_id=order_id)
        await shop.call("respond_to_customer", message=f"Your order {order['order_id']} is {status}.",
                        order_id=order["order_id"], answer=status, done=True)
    return play


@pytest.mark.parametrize("source", ["stated", "revealed", "withheld"])
async def test_naming_another_order_is_charged_to_the_order_the_customer_means(hub, verifier, source):
    def want(scenario: Scenario):
        goal = scenario.goal
        others = [o for o in scenario.orders if o.order_id != goal.order_id]
        return others and goal.indirect == (source != "stated") and others[0]

    scenario, other = find(hub, "status", want)
    goal = scenario.goal
    reward = await play_scored(hub, verifier, scenario, _status_play(
        other.order_id, goal.status.replace("_", " "), ask=goal.description if source == "revealed" else None))
    assert_exactly(reward, goal.description, source)


async def test_a_requirement_told_only_after_the_answer_was_committed_counts_as_withheld(hub, verifier):
    scenario, other = find(hub, "status", lambda s: s.goal.indirect and next(
        (o for o in s.orders if o.order_id != s.goal.order_id), None))
    goal = scenario.goal

    async def play(shop, _goal) -> None:
        order = await shop.call("check_order", order_id=other.order_id)
        await shop.call("respond_to_customer", message=f"Your order {order['order_id']} is on its way.",
                        order_id=order["order_id"], answer=goal.status.replace("_", " "))
        await ask_until(shop, goal.description, "Which order do you mean?")  # told now, too late

    reward = await play_scored(hub, verifier, scenario, play)
    assert_exactly(reward, goal.description, "withheld")


async def test_a_wrong_status_for_the_right_order_is_charged_to_the_shop_fact(hub, verifier):
    scenario, goal = find(hub, "status", lambda s: s.goal)
    wrong = next(w for w in STATUS_WORDS if w != goal.status.replace("_", " "))
    reward = await play_scored(hub, verifier, scenario, _status_play(goal.order_id, wrong))
    assert_exactly(reward, f"its status: {goal.status.replace('_', ' ')}", "shop")


# --- policy ----------------------------------------------------------------------------------


def _policy_play(answer: str | None, questions: int):
    async def play(shop, goal) -> None:
        from verishop.envs.policy.oracle import policy_query

        await shop.call("search_policies", query=policy_query(goal), limit=10)
        from verishop.envs.policy.customer import situation_topics
        from verishop.scenarios.customers.topics import question_about

        for detail in goal.unstated[:questions]:  # asked by its topic: a free turn (issue 28)
            await shop.call("respond_to_customer", message=question_about(situation_topics(detail)))
        await shop.call("respond_to_customer", message=f"The answer is {answer}." if answer else "Sorry, bye.",
                        answer=answer, done=True)
    return play


def _wrong_number(answer: str) -> str:
    return f"{float(answer) * 3 + 7:g}"


@pytest.mark.parametrize("source", ["stated", "withheld", "shop"])
async def test_a_policy_answer_is_charged_to_the_question_a_detail_never_asked_for_or_the_policy(
        hub, verifier, source):
    def want(scenario: Scenario):
        goal = scenario.goal
        return goal.answer_kind == "numeric" and (len(goal.unstated) == 1 if source == "withheld" else True) and goal

    scenario, goal = find(hub, "policy", want)
    answer = None if source == "stated" else _wrong_number(goal.answer)
    questions = len(goal.unstated) if source == "shop" else 0
    reward = await play_scored(hub, verifier, scenario, _policy_play(answer, questions))
    expected = {"stated": "an answer to the question", "withheld": goal.unstated[0] if goal.unstated else "",
                "shop": f"the policy's answer: {goal.answer}"}[source]
    assert_exactly(reward, expected, source)


# --- returns ---------------------------------------------------------------------------------


def _return_play(line_id: str | None = None, replacement: str | None = None, asks: tuple[str, ...] = (),
                 question: str = "Which item do you mean?"):
    async def play(shop, goal) -> None:
        if asks:  # one precise question tells every detail it asks about
            await ask_until(shop, asks[0], question)
        await shop.call("check_order", order_id=goal.order_id)
        recommended = [replacement or goal.replacement_product_id] if goal.replacement else []
        if recommended:
            await shop.call("compare_products", product_ids=recommended)
        await shop.call("initiate_return", order_id=goal.order_id, line_id=goal.line_id, reason=goal.reason)
        await shop.call("respond_to_customer", message="Your return is started.", order_id=goal.order_id,
                        line_id=line_id or goal.line_id, recommended_product_ids=recommended or None, done=True)
    return play


@pytest.mark.parametrize("source", ["stated", "revealed", "withheld"])
async def test_naming_another_line_is_charged_to_the_item_the_customer_described(hub, verifier, source):
    def want(scenario: Scenario):
        goal = scenario.goal
        order = next(o for o in scenario.orders if o.order_id == goal.order_id)
        others = [line for line in order.lines if line.line_id != goal.line_id]
        return others and bool(goal.details) == (source != "stated") and others[0]

    scenario, other = find(hub, "return", want)
    goal = scenario.goal
    asks = goal.details if source == "revealed" else ()
    reward = await play_scored(hub, verifier, scenario, _return_play(line_id=other.line_id, asks=asks))
    assert_exactly(reward, f"return {goal.description}", source)


@pytest.mark.parametrize("source", ["stated", "revealed", "withheld", "shop"])
async def test_a_replacement_that_breaks_one_requirement_is_charged_that_requirement(hub, reader, verifier, source):
    def want(scenario: Scenario):
        goal = scenario.goal
        if not goal.replacement or any(c.kind == "in_stock" for c in goal.replacement):
            return None
        products = world_products(reader, scenario, category_of(goal.replacement, ""))
        avoid = {goal.replacement_product_id or ""}
        return breach(products, goal.replacement, avoid, source)

    scenario, (c, product) = find(hub, "return", want)
    asks = (describe(c),) if source == "revealed" else ()
    question = question_about(constraint_topics(c.kind, c.attribute)) if c else ""
    reward = await play_scored(hub, verifier, scenario, _return_play(replacement=product.product_id, asks=asks,
                                                                     question=question))
    assert_exactly(reward, IN_STOCK if source == "shop" else describe(c), source)


# --- bundles ---------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["stated", "revealed", "withheld", "shop"])
async def test_a_bundle_missing_one_need_is_charged_that_need_and_its_source(hub, reader, verifier, source):
    def want(scenario: Scenario):
        goal = scenario.goal
        pairs = list(zip(goal.categories, goal.reference_product_ids))
        if source == "shop":
            refs = {pid: reader.product(pid) for _, pid in pairs}
            for cat, pid in pairs:
                p = next((p for p in world_products(reader, scenario, cat) if p.stock <= 0
                          and p.price_cents <= refs[pid].price_cents), None)
                if p is not None:
                    return cat, pid, p.product_id
            return None
        return next(((cat, pid, None) for cat, pid in pairs if (cat in goal.unstated) == (source != "stated")), None)

    scenario, (cat, ref, swap) = find(hub, "bundle", want)
    ids = [swap if pid == ref else pid for pid in scenario.goal.reference_product_ids]
    ids = [pid for pid in ids if pid is not None]
    before = (lambda shop: ask_until(shop, say_category(cat), "What else do you need?")) if source == "revealed" \
        else None
    reward = await play_scored(hub, verifier, scenario, recommend_list(ids, before))
    assert_exactly(reward, IN_STOCK if source == "shop" else say_category(cat), source)


# --- journeys --------------------------------------------------------------------------------


async def test_a_journey_charges_the_broken_requirement_to_its_request(hub, verifier):
    def want(scenario: Scenario):
        return next((i for i, t in enumerate(scenario.goal.tasks) if t.kind == "policy"
                     and t.answer_kind == "numeric"), None) is not None and scenario

    scenario, _ = find(hub, "journey", want)
    goal = scenario.goal
    index = next(i for i, t in enumerate(goal.tasks) if t.kind == "policy" and t.answer_kind == "numeric")
    request = goal.tasks[index]

    async def play(shop, journey) -> None:
        for i, task in enumerate(journey.tasks):
            session = shop if i == len(journey.tasks) - 1 else KeepOpen(shop)
            if i == index:
                await _policy_play(_wrong_number(task.answer), len(task.unstated))(session, task)
            else:
                await play_for(task)(session, task)

    reward = await play_scored(hub, verifier, scenario, play)
    assert_exactly(reward, f"request {index + 1}: the policy's answer: {request.answer}", "shop")


# --- no failure is the customer's or the world's, and the detectors work ----------------------


def test_oracle_and_baseline_episodes_charge_nothing_to_the_customer_or_the_environment(catalog_path, tmp_path):
    for agent in ("oracle", "greedy", "null"):
        root = play_run(agent, ENVS, (1, 6, 11), 3, 500, catalog_path, tmp_path / agent)
        rewards = [json.loads(p.read_text()) for p in root.glob("*/reward.json")]
        assert len(rewards) == len(ENVS) * 3
        for reward in rewards:
            actors = {f["actor"] for f in reward["failed_requirements"]}
            assert actors <= {"agent"}, (agent, reward["env_id"], reward["failed_requirements"])
            for check in reward["breakdown"]:
                if check.get("passed") is False:
                    assert check["requirement"] and check["source"] and check["actor"] == "agent", check
                else:
                    assert "requirement" not in check and "source" not in check
            if agent == "oracle":
                assert reward["failed_requirements"] == [], reward["failed_requirements"]
        if agent != "oracle":
            assert any(r["failed_requirements"] for r in rewards)


async def test_a_customer_that_says_that_is_everything_while_hiding_a_requirement_is_charged(hub, reader, verifier):
    scenario, (c, product) = find(hub, "pd", _constraint_case(reader, "withheld", lambda g: g.category_id,
                                                              lambda g: {r.product_id for r in g.ideal}))
    ids = [r.product_id for r in scenario.goal.ideal]
    ids[-1] = product.product_id
    reward = await play_scored(hub, verifier, scenario, recommend_list(ids))
    assert charged(reward) == {(describe(c), "withheld", "agent")}
    catalogs = CatalogCache()
    try:
        ep = load_episode(Path(hub.runs_dir) / reward.episode_id, catalogs)
        # The customer bug the detector exists for: "that's everything" with a requirement untold,
        # said before the agent committed its list.
        opening = ep.transcript.customer[0]
        ep.transcript.customer.insert(1, {"event": "customer_message", "seq": opening["seq"], "tag": "confirm",
                                          "text": "No, that's everything I need."})
        _, failed = annotate(explain(ep, [c for c in reward.breakdown if c.passed is False]))
    finally:
        catalogs.close()
    assert {(f.requirement, f.source, f.actor) for f in failed} == {(describe(c), "withheld", "customer")}


async def test_a_world_that_contradicts_its_goal_is_charged_to_the_environment(hub, verifier):
    scenario, ideal = find(hub, "pd", lambda s: s.goal.ideal[0].product_id)
    reward = await play_scored(hub, verifier, scenario, play_for(scenario.goal))
    assert reward.is_correct and charged(reward) == set()
    directory = Path(hub.runs_dir) / reward.episode_id
    db = sqlite3.connect(directory / "world.db")  # the goal's best product sold out after the fact
    with db:
        db.execute("INSERT OR REPLACE INTO stock_changes VALUES (?, 0)", (ideal,))
    db.close()  # its WAL folded back into world.db
    reseal(directory, hub.seal_key)  # a world made so by its server, not edited after close
    rescored = verifier.score(directory)
    assert not rescored.is_correct
    assert {f.actor for f in rescored.failed_requirements} == {"environment"}
    assert (IN_STOCK, "shop", "environment") in charged(rescored)
