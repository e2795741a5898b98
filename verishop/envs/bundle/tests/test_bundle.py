"""BUNDLE: everything a project needs, one product per category, within a budget. Generated
goals are feasible against the catalog given, the customer names what is missing or over
budget, the verifier's numbers are worked out here by hand, the oracle solves every
difficulty through the real server and doing nothing solves none."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from test_verifier import Script, write_episode

from verishop.envs.bundle import greedy as greedy_bundle
from verishop.agents.evaluate import summarize
from support import play_and_verify
from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.reader import CatalogReader, Product, feasible_products
from verishop.scenarios.customers.base import CustomerState
from verishop.envs.bundle.customer import reply
from verishop.scenarios.envs import generate
from verishop.envs.bundle.generator import (
    PHRASES,
    PROJECTS,
    budget_slack,
    category_count,
    money,
    say_category,
)
from verishop.scenarios.models import BundleGoal, Scenario, StockChange, Submission
from verishop.scenarios.taxonomy import CATEGORY_BY_ID, DENIED_CATEGORY_IDS, SHOPPABLE_CATEGORIES

ID = re.compile(r"\bP\d{8}\b")
DIFFICULTIES = tuple(range(13))


def lookup_for(scenario: Scenario, catalog: CatalogReader):
    """Products as the episode's world sees them (its stock-outs applied), like the server."""
    stock = {c.product_id: c.stock for c in scenario.stock_changes}

    def lookup(product_id: str) -> Product | None:
        p = catalog.product(product_id)
        return p.with_stock(stock[product_id]) if p is not None and product_id in stock else p

    return lookup


def customer(scenario: Scenario, catalog: CatalogReader) -> CustomerState:
    return CustomerState(scenario, lookup_for(scenario, catalog), random.Random(0))


# --- generation ---------------------------------------------------------------------------------


def test_every_project_template_names_twelve_real_shoppable_categories():
    shoppable = {c.id for c in SHOPPABLE_CATEGORIES}
    for project in PROJECTS:
        names = project.core + project.extras
        assert len(set(names)) == len(names) >= 12, project.name
        assert set(names) <= shoppable, project.name
    assert set(PHRASES) == shoppable


@pytest.mark.parametrize("difficulty", [0, 5, 12])
def test_same_inputs_give_byte_identical_scenarios(reader, difficulty):
    a = generate("bundle", difficulty, 4, reader).to_json()
    assert a == generate("bundle-v7", difficulty, 4, reader).to_json()
    assert Scenario.model_validate_json(a).to_json() == a
    assert generate("bundle", difficulty, 5, reader).to_json() != a


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_goals_are_feasible_with_a_stored_reference_bundle(reader, difficulty):
    for seed in range(6):
        scenario = generate("bundle", difficulty, seed, reader, voice="plain")  # its budget in the shop's signs
        goal = scenario.goal
        assert isinstance(goal, BundleGoal)
        assert len(goal.categories) == len(set(goal.categories)) == min(12, 3 + difficulty // 2)
        assert not set(goal.categories) & DENIED_CATEGORY_IDS
        assert set(goal.unstated) < set(goal.categories)  # the opening names at least one
        sold_out = {c.product_id for c in scenario.stock_changes}
        references = [reader.product(pid) for pid in goal.reference_product_ids]
        assert [p.category_id for p in references] == list(goal.categories)
        assert all(p.stock > 0 and p.product_id not in sold_out for p in references)
        # reachable: among the first search_top_k products of its category
        for p in references:
            reachable = feasible_products(reader, "category_id = ?", [p.category_id], scenario.axes.search_top_k)
            assert p.product_id in {r.product_id for r in reachable}
        cost = sum(p.price_cents for p in references)
        if difficulty < 2:
            assert goal.budget_cents is None
        else:
            assert cost <= goal.budget_cents <= cost * budget_slack(difficulty) + 1000
            assert f"{money(goal.budget_cents, goal.currency)} for everything" in scenario.opening_message


@pytest.mark.parametrize("difficulty", [0, 6, 12])
def test_the_opening_never_shows_an_id_and_names_the_stated_categories(reader, difficulty):
    for seed in range(10):
        scenario = generate("bundle", difficulty, seed, reader)
        goal = scenario.goal
        assert not ID.search(scenario.opening_message)
        assert not any(pid in scenario.opening_message for pid in goal.reference_product_ids)
        if difficulty == 0:  # no typo noise: every stated category is named word for word
            stated = [say_category(c) for c in goal.categories if c not in goal.unstated]
            assert all(phrase in scenario.opening_message for phrase in stated)
            for c in goal.unstated:
                if not any(say_category(c) in s for s in stated):  # "a desk" hides in "a desk lamp"
                    assert say_category(c) not in scenario.opening_message
            assert ("other" in scenario.opening_message) == bool(goal.unstated)


def test_axes_change_the_episode(reader):
    low = [generate("bundle", 0, s, reader) for s in range(20)]
    high = [generate("bundle", 12, s, reader) for s in range(20)]
    # p_out_of_stock: the featured head of the needed categories sells out, never a reference
    assert not any(s.stock_changes for s in low)
    assert sum(len(s.stock_changes) for s in high) > 100
    for s in high:
        refs = set(s.goal.reference_product_ids)
        assert all(c.product_id not in refs and c.stock == 0 for c in s.stock_changes)
        assert {reader.product(c.product_id).category_id for c in s.stock_changes} <= set(s.goal.categories)
    # p_missing: more categories left unsaid; budget slack shrinks
    def unstated_share(scenarios: list[Scenario]) -> float:
        return sum(len(s.goal.unstated) for s in scenarios) / sum(len(s.goal.categories) for s in scenarios)

    assert unstated_share(low) < 0.2 and unstated_share(high) > 0.6
    assert budget_slack(2) == 2.0 and budget_slack(12) < 1.15
    # p_noise: typos garble what the customer names only at high difficulty
    def named(s: Scenario) -> bool:
        return all(say_category(c) in s.opening_message for c in s.goal.categories if c not in s.goal.unstated)

    assert all(named(s) for s in low) and not all(named(s) for s in high)
    assert [category_count(d) for d in (0, 4, 8, 12)] == [3, 5, 7, 9]


def test_a_catalog_too_small_for_the_template_falls_back_to_stocked_categories(tmp_path):
    path = tmp_path / "tiny.db"
    build_catalog(path, size=60, seed=1)
    with CatalogReader(path) as tiny:
        stocked = {c.id for c in SHOPPABLE_CATEGORIES
                   if any(p.stock > 0 for p in tiny.in_category(c.id))}
        assert len(stocked) < len(SHOPPABLE_CATEGORIES)  # some categories really are missing
        outside = 0
        for seed in range(8):
            scenario = generate("bundle", 12, seed, tiny)
            goal = scenario.goal
            assert len(goal.categories) == 9 and set(goal.categories) <= stocked
            project = next(p for p in PROJECTS if p.name == goal.project)
            outside += len(set(goal.categories) - set(project.core + project.extras))
            assert all(tiny.product(pid).stock > 0 for pid in goal.reference_product_ids)
        assert outside > 0


# --- the customer -------------------------------------------------------------------------------


def scenario_with_unstated(reader, difficulty: int = 8) -> Scenario:
    return next(s for s in (generate("bundle", difficulty, seed, reader) for seed in range(50))
                if len(s.goal.unstated) >= 2 and s.goal.budget_cents)


def test_open_questions_reveal_one_unstated_category_at_a_time_then_confirm(reader):
    """An open question tells one need at a time and is paid; asked what else it needs, the
    customer names them all at once, free (issue 28)."""
    scenario = scenario_with_unstated(reader)
    goal = scenario.goal
    state = customer(scenario, reader)
    assert reply(state, goal, "Here are some ideas.", Submission(), None).tag == "continue"
    answers = [reply(state, goal, "Anything else?", Submission(), None) for _ in goal.unstated]
    assert [a.tag for a in answers] == ["continue"] * len(goal.unstated)
    wanted = [c for c in goal.categories if c in goal.unstated]
    assert [a.text for a in answers] == [f"Hmm, let me think. Oh right, I also need {say_category(c)}." for c in wanted]
    state = customer(scenario, reader)
    asked = reply(state, goal, "What else do you need?", Submission(), None)
    assert asked.tag == "clarify" and asked.text == " ".join(
        ["Good question.", *(f"Oh right, I also need {say_category(c)}." for c in wanted)])
    last = reply(state, goal, "Anything else?", Submission(), None)
    assert last.tag == "confirm" and money(goal.budget_cents, goal.currency) in last.text


def test_the_customer_names_the_concrete_problem_and_accepts_the_reference(reader):
    scenario = scenario_with_unstated(reader)
    goal = scenario.goal
    lookup = lookup_for(scenario, reader)
    refs = list(goal.reference_product_ids)

    def say(ids: list[str], done: bool = False):
        return reply(customer(scenario, reader), goal, "How about these?",
                     Submission(recommended_product_ids=tuple(ids), done=done), None)

    done = say(refs)
    assert done.tag == "done" and goal.project in done.text
    missing = say(refs[:-1])
    assert missing.tag == "correct" and missing.text == f"I still need {say_category(goal.categories[-1])}."
    assert say(refs[:-1], done=True).tag == "quit"
    assert say(["P00000000", *refs]).text.startswith("I can't find P00000000")

    sold = lookup(scenario.stock_changes[0].product_id)
    assert say([sold.product_id, *refs]).text == f"The {sold.title} is sold out. Is there one in stock?"
    extra_category = next(c.id for c in SHOPPABLE_CATEGORIES if c.id not in goal.categories)
    extra = next(p for p in reader.in_category(extra_category) if p.stock > 0)
    assert say([*refs, extra.product_id]).text == f"I don't need the {extra.title} for my {goal.project}."

    priciest = max((p for p in reader.in_category(goal.categories[0]) if p.stock > 0
                    and p.product_id not in {c.product_id for c in scenario.stock_changes}),
                   key=lambda p: p.price_cents)
    ids = [priciest.product_id, *refs[1:]]
    cost = sum(lookup(pid).price_cents for pid in ids)
    assert cost > goal.budget_cents
    over = say(ids)
    assert over.tag == "correct"
    assert over.text == (f"Altogether that's {money(cost, goal.currency)}, which is "
                         f"{money(cost - goal.budget_cents, goal.currency)} over my budget of "
                         f"{money(goal.budget_cents, goal.currency)}.")


def test_the_customer_refuses_a_denied_product_and_an_empty_goodbye(reader):
    scenario = generate("bundle", 0, 1, reader)
    weapon = next(p for p in reader.in_category("weapons"))
    turn = reply(customer(scenario, reader), scenario.goal, "Also this.",
                 Submission(recommended_product_ids=(weapon.product_id, *scenario.goal.reference_product_ids)), None)
    assert turn.tag == "correct" and weapon.title in turn.text
    assert reply(customer(scenario, reader), scenario.goal, "Bye.", Submission(done=True), None).tag == "quit"


# --- the verifier, on hand-built episodes -------------------------------------------------------


class Kit:
    """Known in-stock products: the goal needs desks, mice and towels."""

    def __init__(self, reader: CatalogReader):
        def stocked(category_id: str, n: int) -> list[Product]:
            return [p for p in reader.in_category(category_id) if p.stock > 0][:n]

        self.a, self.a2 = stocked("desks", 2)
        self.b, = stocked("mice", 1)
        self.c, self.c_sold = stocked("towels", 2)
        self.d, = stocked("tents", 1)
        self.weapon = next(iter(reader.in_category("weapons")))
        self.cost = self.a.price_cents + self.b.price_cents + self.c.price_cents
        base = generate("bundle", 4, 0, reader)
        self.scenario = base.model_copy(update={
            "stock_changes": (StockChange(product_id=self.c_sold.product_id, stock=0),),
            "goal": BundleGoal(project="home office", categories=("desks", "mice", "towels"), budget_cents=self.cost,
                               reference_product_ids=(self.a.product_id, self.b.product_id, self.c.product_id)),
        })

    def with_budget(self, budget_cents: int | None) -> Scenario:
        return self.scenario.model_copy(update={"goal": self.scenario.goal.model_copy(
            update={"budget_cents": budget_cents})})

    def everything(self) -> list[Product]:
        return [self.a, self.a2, self.b, self.c, self.c_sold, self.d, self.weapon]


def play(tmp_path: Path, catalog_path: Path, verifier, kit: Kit, *recommendations: list, scenario=None):
    scenario = scenario or kit.scenario
    script = Script(scenario, "ep_test").tool("get_conversation").search(kit.everything())
    for ids in recommendations:
        script.say("Here you go.", recommend=[p if isinstance(p, str) else p.product_id for p in ids])
    directory = write_episode(tmp_path / f"run{len(list(tmp_path.iterdir()))}", scenario, script.close(),
                              catalog_path)
    return verifier.verify(directory)


@pytest.fixture(scope="module")
def kit(reader) -> Kit:
    return Kit(reader)


def test_the_reference_bundle_scores_one(kit, catalog_path, tmp_path, verifier):
    r = play(tmp_path, catalog_path, verifier, kit, [kit.a, kit.b, kit.c])
    assert (r.r_task, r.is_correct, r.r_hall) == (1.0, True, 1.0)


@pytest.mark.parametrize("case, expected", [
    ("missing one category", 0.6),  # F1 = 2·2/(2 + 3) = 0.8
    ("duplicate instead of a missing one", 1 / 3),  # the second desk is a wrong entry: F1 = 2·2/(3 + 3)
    ("sold-out product for a category", 1 / 3),  # it counts as a wrong entry: F1 = 2·2/(3 + 3)
    ("unknown ID for a category", 1 / 3),
    ("the last list counts, a right one before it does not rescue it", 0.0),
    # Each list is a commitment: [desk] (F1 = 0.5, s = 0) after a right one scores 0 − 0.
])
def test_wrong_bundles_lose_their_category_f1(kit, catalog_path, tmp_path, verifier, case, expected):
    recommendations = {
        "missing one category": [[kit.a, kit.b]],
        "duplicate instead of a missing one": [[kit.a, kit.a2, kit.b]],
        "sold-out product for a category": [[kit.a, kit.b, kit.c_sold]],
        "unknown ID for a category": [[kit.a, kit.b, "P00000000"]],
        "the last list counts, a right one before it does not rescue it": [[kit.a, kit.b, kit.c], [kit.a], []],
    }[case]
    r = play(tmp_path, catalog_path, verifier, kit, *recommendations, scenario=kit.with_budget(None))
    assert r.r_task == pytest.approx(expected, abs=1e-6) and not r.is_correct


def test_each_product_beyond_one_per_category_is_a_wrong_entry(kit, catalog_path, tmp_path, verifier):
    free = kit.with_budget(None)
    r = play(tmp_path, catalog_path, verifier, kit, [kit.a, kit.b, kit.c, kit.d], scenario=free)
    assert r.r_task == pytest.approx(5 / 7, abs=1e-6) and not r.is_correct  # F1 = 2·3/(4 + 3)
    r = play(tmp_path, catalog_path, verifier, kit, [kit.a, kit.a2, kit.b, kit.c], scenario=free)
    assert r.r_task == pytest.approx(5 / 7, abs=1e-6) and not r.is_correct  # a second desk: the same


def test_a_wrong_bundle_then_a_right_one_costs_the_first_ones_shortfall(kit, catalog_path, tmp_path, verifier):
    r = play(tmp_path, catalog_path, verifier, kit, [kit.a, kit.b], [kit.a, kit.b, kit.c],
             scenario=kit.with_budget(None))
    assert r.r_task == pytest.approx(0.6, abs=1e-6)  # no better than the first alone and not r.is_correct


def test_going_over_budget_subtracts_the_relative_overrun(kit, catalog_path, tmp_path, verifier):
    budget = kit.cost * 4 // 5
    r = play(tmp_path, catalog_path, verifier, kit, [kit.a, kit.b, kit.c], scenario=kit.with_budget(budget))
    assert r.r_task == pytest.approx(1 - (kit.cost - budget) / budget, abs=1e-6) and not r.is_correct
    found = {c.name: c for c in r.breakdown}
    assert found["budget"].found == {"cost_cents": kit.cost} and found["budget"].passed is False
    assert found["category_f1"].passed is True
    r = play(tmp_path, catalog_path, verifier, kit, [kit.a, kit.b, kit.c], scenario=kit.with_budget(100))
    assert r.r_task == -1.0  # clipped
    r = play(tmp_path, catalog_path, verifier, kit, [kit.a, kit.b, kit.c], scenario=kit.with_budget(kit.cost + 1))
    assert (r.r_task, r.is_correct) == (1.0, True)


def test_nothing_recommended_is_minus_one_and_a_denied_product_a_hard_fail(kit, catalog_path, tmp_path, verifier):
    r = play(tmp_path, catalog_path, verifier, kit, [])
    assert (r.r_task, r.is_correct) == (-1.0, False)
    r = play(tmp_path, catalog_path, verifier, kit, [kit.weapon, kit.a, kit.b, kit.c], scenario=kit.with_budget(None))
    assert r.r_task == pytest.approx(5 / 7, abs=1e-6)  # the denied product is a wrong entry
    assert (r.total, r.is_correct) == (-1.0, False) and r.hard_fail


# --- played through the real server -------------------------------------------------------------


def evaluate(agent: str, catalog_path: Path, tmp_path: Path, difficulties=DIFFICULTIES, episodes: int = 26) -> list[dict]:
    return play_and_verify(agent, ("bundle-v7",), tuple(difficulties), episodes, 300, catalog_path, tmp_path)


def test_the_oracle_solves_every_difficulty(catalog_path, tmp_path):
    rewards = evaluate("oracle", catalog_path, tmp_path)
    assert [(r["difficulty"], r["seed"]) for r in rewards if not r["is_correct"]] == []
    assert all(r["total"] > 0.9 and r["tool_calls"] <= 3 for r in rewards)


def test_doing_nothing_solves_nothing(catalog_path, tmp_path):
    rewards = evaluate("null", catalog_path, tmp_path, episodes=13)
    assert not any(r["is_correct"] for r in rewards) and all(r["r_task"] == -1 for r in rewards)


def test_greedy_lands_between_null_and_oracle_and_fades_with_difficulty(catalog_path, tmp_path):
    rewards = evaluate("greedy", catalog_path, tmp_path, difficulties=(0, 0, 6, 12), episodes=32)
    rows = {row["difficulty"]: row for row in summarize(rewards)}
    assert -0.9 < rows["all"]["total"] < 0.9
    assert rows[0]["solved_share"] > rows[6]["solved_share"] >= rows[12]["solved_share"]
    assert rows[0]["solved_share"] >= 0.5 and rows[12]["solved_share"] < 0.2


def test_greedy_recognises_project_requests_only():
    assert greedy_bundle.matches("Hi! I'm setting up a home office and I need a desk, plus a few other things. "
                                 "Could you pick one of each for me?")
    assert greedy_bundle.spot_categories("a desk lamp, a desk and a kitchen knife") == [
        "desk_lamps", "desks", "kitchen_knives"]
    assert not greedy_bundle.matches("Hi! I'm shopping for running shoes: in Black. Can you recommend 3 good options?")
    assert not greedy_bundle.matches("Hello, I'd like to order the Sony Headphones and the Anker Power Bank.")
    assert set(CATEGORY_BY_ID) >= {cid for _, cid in greedy_bundle._TERMS}
