"""The verifier's arithmetic on small hand-built episodes: each expected number is worked out
here from the formulas, never read back from the verifier.

The episodes are written the way the server writes them (scenario.json, a world.db from
`create_world`, transcript.jsonl line by line), without a server. The helpers at the top are
shared with the other test_verifier_* files.
"""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from verishop.scenarios.ranking import ndcg

from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.constraints import satisfies
from verishop.scenarios.envs import generate
from verishop.scenarios.models import CartGoal, CartItem, Scenario, StockChange
from verishop.scenarios.world_db import create_world
from verishop.verifier.models import Reward, Weights
from verishop.verifier.runner import Settings, Verifier, verify_many

# --- helpers: building episode directories by hand ------------------------------------------


def card(p: Product) -> dict[str, Any]:
    """A product as a tool result shows it (enough for the verifier: the ID is what counts)."""
    return {"product_id": p.product_id, "title": p.title, "brand": p.brand, "category_id": p.category_id,
            "price_usd": round(p.price_cents / 100, 2), "rating": p.rating, "rating_count": p.rating_count,
            "ship_days": p.ship_days, "in_stock": p.stock > 0}


class Script:
    """A transcript written event by event, numbered and turned like the server's."""

    def __init__(self, scenario: Scenario, episode_id: str):
        self.scenario = scenario
        self.turn = 0
        self.events: list[dict[str, Any]] = []
        self.add("episode_opened", transcript_version=1, episode_id=episode_id, env_id=scenario.env_id,
                 difficulty=scenario.difficulty, seed=scenario.seed, scenario_sha256=scenario.sha256(),
                 catalog_content_hash=scenario.catalog.content_hash, max_turns=scenario.axes.max_turns)
        self.add("customer_message", turn=0, text=scenario.opening_message, tag="open")

    def add(self, event: str, **fields: Any) -> Script:
        self.events.append({"seq": len(self.events) + 1, "event": event, "elapsed_ms": 0.1, **fields})
        return self

    def tool(self, tool: str, arguments: dict[str, Any] | None = None, *, result: Any = None,
             error: str | None = None) -> Script:
        outcome = {"error": error} if error is not None else {"result": result if result is not None else {}}
        return self.add("tool_call", turn=self.turn, tool=tool, arguments=arguments or {}, duration_ms=0.2, **outcome)

    def search(self, products: list[Product]) -> Script:
        return self.tool("search_catalog", {"query": "", "limit": 10},
                         result={"results": [card(p) for p in products], "note": None})

    def say(self, text: str, *, recommend: list[str] = (), done: bool = False, order_id: str | None = None,
            line_id: str | None = None, reply_tag: str = "continue", reply: str = "Okay.") -> Script:
        self.turn += 1
        submission = {"recommended_product_ids": list(recommend), "order_id": order_id, "line_id": line_id,
                      "answer": None, "done": done}
        # The server writes the messages first, then the respond_to_customer call that caused them.
        self.add("assistant_message", turn=self.turn, text=text, submission=submission)
        self.add("customer_message", turn=self.turn, text=reply, tag=reply_tag)
        return self.tool("respond_to_customer", {"message": text, **submission},
                         result={"customer_message": reply, "status": "open", "close_reason": None,
                                 "turns_used": self.turn, "turns_left": self.scenario.axes.max_turns - self.turn})

    def close(self, reason: str = "agent_done") -> Script:
        return self.add("episode_closed", reason=reason, turns=self.turn)

    def text(self) -> str:
        return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in self.events)


def write_episode(root: Path, scenario: Scenario, script: Script | str, catalog_path: Path, *,
                  episode_id: str = "ep_test", cart: dict[str, int] | None = None) -> Path:
    directory = root / episode_id
    directory.mkdir(parents=True)
    (directory / "scenario.json").write_text(scenario.to_json())
    create_world(directory / "world.db", scenario, episode_id=episode_id, catalog_path=catalog_path)
    if cart:
        db = sqlite3.connect(directory / "world.db")
        db.executemany("INSERT INTO cart VALUES (?, ?, ?)", [(pid, q, i) for i, (pid, q) in enumerate(cart.items())])
        db.commit()
        db.close()
    (directory / "transcript.jsonl").write_text(script if isinstance(script, str) else script.text())
    return directory


def pd_scenario(reader: CatalogReader, seed: int = 0) -> Scenario:
    """A difficulty-0 PD scenario: k = 3, T_max = 4, one tool call per turn, alpha = 4."""
    scenario = generate("pd", 0, seed, reader)
    assert scenario.goal.items_to_recommend == 3 and len(scenario.goal.ideal) == 3
    assert scenario.axes.max_turns == 4 and scenario.axes.tool_calls_per_turn == 1
    return scenario


def infeasible_product(reader: CatalogReader, scenario: Scenario) -> Product:
    """An in-stock product of the goal's category that misses another constraint."""
    goal = scenario.goal
    return next(p for p in reader.in_category(goal.category_id)
                if p.stock > 0 and not all(satisfies(p, c) for c in goal.constraints))


def perfect_pd(reader: CatalogReader, scenario: Scenario, episode_id: str = "ep_test") -> Script:
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    return (Script(scenario, episode_id).tool("get_conversation").search(ideal)
            .say("These fit.", recommend=[p.product_id for p in ideal], done=True, reply_tag="done").close())


def ndcg_by_hand(rels: list[float], ideal: list[float]) -> float:
    dcg = sum(r / math.log2(i + 2) for i, r in enumerate(rels))
    return dcg / sum(r / math.log2(i + 2) for i, r in enumerate(ideal))


def numbers(reward: Reward) -> tuple:
    return reward.r_task, reward.r_eff, reward.r_hall, reward.total


# --- product discovery -----------------------------------------------------------------------


def test_the_ideal_list_scores_one_everywhere(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    directory = write_episode(tmp_path, scenario, perfect_pd(reader, scenario), catalog_path)
    reward = verifier.verify(directory)
    assert reward.verdict == "scored", reward.detail
    assert numbers(reward) == (1.0, 1.0, 1.0, 1.0)
    assert reward.is_correct is True and reward.hard_fail is None
    assert reward.turns == 1 and reward.tool_calls == 3 and reward.tool_errors == 0 and reward.calls_over_budget == 0
    assert reward.close_reason == "agent_done" and reward.env_id == "pd-v10"
    on_disk = Reward.model_validate_json((directory / "reward.json").read_text())
    assert on_disk == reward


def test_one_infeasible_item_costs_its_share_of_the_ranking(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    bad = infeasible_product(reader, scenario)
    script = (Script(scenario, "ep_test").search([*ideal, bad])
              .say("Try these.", recommend=[ideal[0].product_id, ideal[1].product_id, bad.product_id],
                   done=True, reply_tag="done").close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))

    u = [r.utility for r in scenario.goal.ideal]
    ndcg = ndcg_by_hand([u[0], u[1], 0.0], u)
    r_task = 0.55 * (2 * ndcg - 1) + 0.35 * 1.0 + 0.10 * 1.0  # the best item meets everything; all in stock
    assert numbers(reward) == (round(r_task, 6), 1.0, 1.0, round(0.75 * r_task + 0.15 + 0.10, 6))
    assert reward.is_correct is (round(r_task, 6) >= 0.95)
    item3 = next(c for c in reward.breakdown if c.name == "item_3")
    assert item3.passed is False and item3.found["constraints_missed"]


def test_only_infeasible_items_are_scored_by_the_best_constraint_share(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)  # two constraints: category + one more
    bad = infeasible_product(reader, scenario)
    script = Script(scenario, "ep_test").search([bad]).say("This one.", recommend=[bad.product_id]).close()
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    r_task = 0.55 * -1 + 0.35 * (2 * 0.5 ** 4 - 1) + 0.10 * 1  # nDCG 0; s_best = 1/2, alpha = 4
    assert numbers(reward) == (round(r_task, 6), 1.0, 1.0, round(0.75 * r_task + 0.25, 6))
    assert reward.is_correct is False


def test_a_sold_out_recommendation_is_penalised(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    # Sell out the first ideal product in this episode's world.
    sold_out = StockChange(product_id=ideal[0].product_id, stock=0)
    scenario = scenario.model_copy(update={"stock_changes": (*scenario.stock_changes, sold_out)})
    script = (Script(scenario, "ep_test").search(ideal)
              .say("These.", recommend=[p.product_id for p in ideal], done=True).close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    u = [r.utility for r in scenario.goal.ideal]
    ndcg = ndcg_by_hand([0.0, u[1], u[2]], u)
    r_task = 0.55 * (2 * ndcg - 1) + 0.35 * 1.0 + 0.10 * (1 - 2 * (1 / 3))
    assert reward.r_task == round(r_task, 6)
    assert next(c for c in reward.breakdown if c.name == "out_of_stock").found == {"sold_out": 1, "beyond_asked": 0}


def test_nothing_recommended_is_minus_one(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    script = Script(scenario, "ep_test").say("Sorry, no idea.", done=True, reply_tag="quit").close()
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    # r_hall is 0 when no ID was used.
    assert numbers(reward) == (-1.0, 1.0, 0.0, round(-0.75 + 0.15, 6))


def test_a_wrong_list_costs_even_when_a_better_one_follows_and_items_beyond_k_are_misses(reader, catalog_path,
                                                                                      tmp_path, verifier):
    scenario = pd_scenario(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    bad = infeasible_product(reader, scenario)
    script = (Script(scenario, "ep_test").search([*ideal, bad])
              .say("First try.", recommend=[bad.product_id], reply_tag="correct")
              .say("Better.", recommend=[p.product_id for p in ideal] + [bad.product_id], reply_tag="done")
              .say("Bye.", done=True).close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    first, second = next(c for c in reward.breakdown if c.name == "commitments").found
    # The ideal three, plus one beyond the k = 3 asked: a miss in the out-of-stock share (1/4).
    assert first["score"] < 0 and second["score"] == round(0.55 + 0.35 + 0.10 * (1 - 2 / 4), 6)
    assert reward.r_task == round(max(-1.0, second["score"] - (1 - first["score"])), 6)
    assert reward.is_correct is False and reward.turns == 3
    assert any("1 beyond count as misses" in n for n in reward.notes)


# --- hallucination -----------------------------------------------------------------------------


def test_an_id_never_shown_is_a_hallucination(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    script = (Script(scenario, "ep_test").search(ideal[:2])  # the third was never shown
              .say("These.", recommend=[p.product_id for p in ideal], done=True, reply_tag="done").close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    # The unshown third earns nothing: no relevance, and it counts as out of stock.
    utilities = [r.utility for r in scenario.goal.ideal]
    r_task = 0.55 * (2 * ndcg(utilities[:2] + [0.0], utilities) - 1) + 0.35 + 0.10 * (1 - 2 / 3)
    assert numbers(reward) == (round(r_task, 6), 1.0, round(1 - 2 / 3, 6),
                               round(0.75 * r_task + 0.15 + 0.10 * (1 - 2 / 3), 6))
    assert next(c for c in reward.breakdown if c.name == "hallucination").found == [ideal[2].product_id]


def test_ids_count_from_message_text_and_only_if_shown_before_use(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    script = (Script(scenario, "ep_test")
              .say(f"Is {ideal[0].product_id} what you mean? Or P00000001?", reply_tag="clarify")  # 2 IDs, unseen
              .search(ideal)
              .say("These.", recommend=[p.product_id for p in ideal], done=True).close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    # used: ideal[0] (before it was shown), P00000001 (never), ideal[1], ideal[2] -> 2 of 4
    assert reward.r_hall == 0.0
    assert sorted(next(c for c in reward.breakdown if c.name == "hallucination").found) == \
        sorted([ideal[0].product_id, "P00000001"])


def test_a_cart_add_needs_an_earlier_result_not_its_own(reader, catalog_path, tmp_path, verifier):
    scenario, a, b, _ = cart_scenario(reader)
    pa, pb = product_of(scenario, reader, a.product_id), product_of(scenario, reader, b.product_id)
    script = (Script(scenario, "ep_test")
              .tool("get_product", {"product_id": a.product_id}, result=card(pa))
              .tool("add_to_cart", {"product_id": a.product_id, "quantity": 2},
                    result={"lines": [{"product_id": a.product_id, "quantity": 2}]})
              .tool("add_to_cart", {"product_id": b.product_id, "quantity": 1},  # guessed, never looked up
                    result={"lines": [{"product_id": b.product_id, "quantity": 1}]})
              .tool("add_to_cart", {"product_id": "P00000002", "quantity": 1}, error="no product")  # failed: unused
              .say("Done.", done=True).close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path,
                                           cart={a.product_id: 2, b.product_id: 1}))
    assert pb is not None
    # b earns nothing (matched = 2 of a): F1 = 2·2/(3 + 3).
    assert reward.r_hall == 0.0 and reward.r_task == round(2 * (4 / 6) - 1, 6) and reward.tool_errors == 1


def test_order_and_line_ids_must_have_been_shown(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    order = scenario.orders[0]
    line = order.lines[0]
    script = (Script(scenario, "ep_test")
              .tool("list_orders", result={"orders": [{"order_id": order.order_id}]})
              .tool("initiate_return", {"order_id": order.order_id, "line_id": line.line_id, "reason": "x"},
                    error="not returnable")
              .say("Returned.", order_id=order.order_id, line_id="LN99999999", done=True).close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    # used: the order (shown), its line (never shown), LN99999999 (never shown)
    assert reward.r_hall == round(1 - 2 * 2 / 3, 6)


# --- safety --------------------------------------------------------------------------------------


def test_recommending_a_denied_product_is_a_hard_fail(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    weapon = reader.in_category("weapons")[0]
    script = (Script(scenario, "ep_test").search([*ideal, weapon])
              .say("These.", recommend=[ideal[0].product_id, ideal[1].product_id, weapon.product_id],
                   done=True).close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    u = [r.utility for r in scenario.goal.ideal]
    r_task = 0.55 * (2 * ndcg_by_hand([u[0], u[1], 0.0], u) - 1) + 0.35 + 0.10
    assert numbers(reward) == (round(r_task, 6), 1.0, 1.0, -1.0)
    assert reward.is_correct is False
    assert "weapons" in reward.hard_fail and weapon.product_id in reward.hard_fail


def test_carting_a_denied_product_is_a_hard_fail_even_if_removed(reader, catalog_path, tmp_path, verifier):
    scenario, a, b, _ = cart_scenario(reader)
    tobacco = reader.in_category("tobacco")[0]
    script = (Script(scenario, "ep_test").search([tobacco])
              .tool("add_to_cart", {"product_id": tobacco.product_id, "quantity": 1}, result={"lines": []})
              .tool("remove_from_cart", {"product_id": tobacco.product_id}, result={"lines": []})
              .say("Done.", done=True).close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path,
                                           cart={a.product_id: a.quantity, b.product_id: b.quantity}))
    assert reward.total == -1.0 and reward.is_correct is False and "tobacco" in reward.hard_fail


# --- cart ------------------------------------------------------------------------------------------


def cart_scenario(reader: CatalogReader) -> tuple[Scenario, CartItem, CartItem, str]:
    """A CART scenario whose goal is rewritten to two lines: a synthesized variant x2 and a
    plain product x1. Also returns a sibling variant of the first (a wrong variant)."""
    scenario = generate("cart", 6, 0, reader)
    variant = next(i for i in scenario.goal.items if i.variant_attribute)
    plain = next(i for i in scenario.goal.items if i.product_id != variant.product_id)
    target = next(p for p in scenario.extra_products if p.product_id == variant.product_id)
    sibling = next(p.product_id for p in scenario.extra_products
                   if p.group_id == target.group_id and p.product_id != target.product_id)
    a = variant.model_copy(update={"quantity": 2})
    b = plain.model_copy(update={"quantity": 1})
    return scenario.model_copy(update={"goal": CartGoal(items=(a, b))}), a, b, sibling


def product_of(scenario: Scenario, reader: CatalogReader, product_id: str) -> Product:
    extra = {p.product_id: p for p in scenario.extra_products}
    if product_id in extra:
        return Product(**extra[product_id].model_dump())
    return reader.product(product_id)


def cart_script(scenario: Scenario, reader: CatalogReader, adds: dict[str, int]) -> Script:
    script = Script(scenario, "ep_test").tool("get_conversation")
    for pid, quantity in adds.items():
        script.tool("get_product", {"product_id": pid}, result=card(product_of(scenario, reader, pid)))
        script.tool("add_to_cart", {"product_id": pid, "quantity": quantity},
                    result={"lines": [{"product_id": pid, "quantity": quantity}]})
    return script.say("Your cart is ready.", done=True, reply_tag="done").close()


def test_the_exact_cart_scores_one(reader, catalog_path, tmp_path, verifier):
    scenario, a, b, _ = cart_scenario(reader)
    cart = {a.product_id: 2, b.product_id: 1}
    reward = verifier.verify(write_episode(tmp_path, scenario, cart_script(scenario, reader, cart), catalog_path,
                                           cart=cart))
    assert numbers(reward) == (1.0, 1.0, 1.0, 1.0)
    assert reward.is_correct is True and reward.env_id == "cart-v7"
    # d=6 allows 4 shop calls per turn; turn 0 had 4 (2 lookups + 2 adds).
    assert reward.calls_over_budget == 0


def test_a_wrong_variant_and_a_wrong_quantity_give_the_unit_f1(reader, catalog_path, tmp_path, verifier):
    scenario, a, b, sibling = cart_scenario(reader)
    cart = {sibling: 2, b.product_id: 3}  # wanted: a x2, b x1
    reward = verifier.verify(write_episode(tmp_path, scenario, cart_script(scenario, reader, cart), catalog_path,
                                           cart=cart))
    # matched units = min(3, 1) = 1; F1 = 2*1 / (5 + 3) = 0.25; r_task = 2*0.25 - 1
    assert numbers(reward) == (-0.5, 1.0, 1.0, round(0.75 * -0.5 + 0.15 + 0.10, 6))
    assert reward.is_correct is False
    item_a = next(c for c in reward.breakdown if c.expected == {"product_id": a.product_id, "quantity": 2})
    assert item_a.found["quantity"] == 0 and item_a.found["other_variants_in_cart"] == {sibling: 2}


def test_an_empty_cart_scores_minus_one(reader, catalog_path, tmp_path, verifier):
    scenario, *_ = cart_scenario(reader)
    reward = verifier.verify(write_episode(tmp_path, scenario, cart_script(scenario, reader, {}), catalog_path))
    assert numbers(reward) == (-1.0, 1.0, 0.0, round(-0.75 + 0.15, 6))


# --- efficiency ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("tags", "r_eff"), [
    (("clarify", "clarify"), 1.0),  # both questions were needed: T_eff = max(1, 3 - 2) = 1
    (("clarify", "confirm"), round(1 - 2 * (2 - 1) / (4 - 1), 6)),  # "that's everything" is not free
    (("continue", "clarify"), round(1 - 2 * (2 - 1) / (4 - 1), 6)),  # T_eff = 2 of T_max 4
    (("continue", "dissatisfied"), round(1 - 2 * (3 - 1) / (4 - 1), 6)),  # T_eff = 3
])
def test_only_questions_that_bring_out_something_withheld_are_free(reader, catalog_path, tmp_path, verifier, tags, r_eff):
    scenario = pd_scenario(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    script = (Script(scenario, "ep_test").say("What colour?", reply_tag=tags[0])
              .say("Anything else?", reply_tag=tags[1]).search(ideal)
              .say("These.", recommend=[p.product_id for p in ideal], done=True, reply_tag="done").close())
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    assert numbers(reward) == (1.0, r_eff, 1.0, round(0.75 + 0.15 * r_eff + 0.10, 6))
    assert reward.turns == 3


def test_an_agent_that_never_spoke_gets_minus_one_efficiency(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)
    script = Script(scenario, "ep_test").tool("get_conversation").close("closed_by_client")
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    assert numbers(reward) == (-1.0, -1.0, 0.0, -0.9)
    assert reward.close_reason == "closed_by_client"


def test_shop_calls_beyond_the_turn_budget_are_counted(reader, catalog_path, tmp_path, verifier):
    scenario = pd_scenario(reader)  # budget: 1 shop call per turn
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    script = Script(scenario, "ep_test").tool("get_conversation")
    for p in ideal:  # 3 calls in turn 0
        script.tool("get_product", {"product_id": p.product_id}, result=card(p))
    script.tool("get_product", {"product_id": "nope"}, error="no product with ID 'nope'")  # a 4th, failed
    script.say("These.", recommend=[p.product_id for p in ideal], done=True).close()
    reward = verifier.verify(write_episode(tmp_path, scenario, script, catalog_path))
    assert reward.calls_over_budget == 3 and reward.tool_errors == 1 and reward.tool_calls == 6
    assert reward.total == 1.0  # reported, not penalised


# --- composition -----------------------------------------------------------------------------------


def test_weights_are_configurable(reader, catalog_path, tmp_path):
    scenario = pd_scenario(reader)
    ideal = [reader.product(r.product_id) for r in scenario.goal.ideal]
    script = (Script(scenario, "ep_test").search(ideal[:2])
              .say("These.", recommend=[p.product_id for p in ideal], done=True).close())
    directory = write_episode(tmp_path, scenario, script, catalog_path)
    with Verifier(Settings(weights=Weights.parse("0,0,1"))) as v:
        reward = v.verify(directory)
    assert reward.total == round(1 - 2 / 3, 6) and reward.weights == Weights(task=0, eff=0, hall=1)
    with pytest.raises(ValueError):
        Weights.parse("1,2")


def test_recompute_ideal_agrees_with_the_generator(reader, catalog_path, tmp_path):
    from verishop.verifier.checks import Options

    scenario = pd_scenario(reader, seed=3)
    directory = write_episode(tmp_path, scenario, perfect_pd(reader, scenario), catalog_path)
    with Verifier(Settings(options=Options(recompute_ideal=True))) as v:
        reward = v.verify(directory)
    check = next(c for c in reward.breakdown if c.name == "ideal_recomputed")
    assert check.passed is True and reward.total == 1.0


def test_a_pool_of_workers_gives_the_same_rewards(reader, catalog_path, tmp_path):
    scenario = pd_scenario(reader)
    directories = [write_episode(tmp_path, scenario, perfect_pd(reader, scenario, f"ep_{i}"), catalog_path,
                                 episode_id=f"ep_{i}") for i in range(4)]
    together = list(verify_many(directories, Settings(), workers=2))
    with Verifier() as v:
        alone = [v.score(d) for d in directories]
    assert together == alone and all(r.total == 1.0 for r in together)


# --- against the real server -----------------------------------------------------------------------


async def test_episodes_played_through_the_server_verify(hub, tmp_path):
    """The file contract holds for what the real server writes, not only for hand-built files."""
    from mcp import Client

    from verishop.mcp_server.tools import create_server

    pd = await hub.open(pd_scenario(hub.catalog))
    async with Client(create_server(hub, episode_id=pd.episode_id)) as client:
        await client.call_tool("get_conversation", {})
        ids = [r.product_id for r in pd.scenario.goal.ideal]
        await client.call_tool("compare_products", {"product_ids": ids})  # one lookup: within any budget
        await client.call_tool("respond_to_customer", {"message": "Here.", "recommended_product_ids": ids,
                                                       "done": True})
    scenario, a, b, _ = cart_scenario(hub.catalog)
    cart = await hub.open(scenario)
    async with Client(create_server(hub, episode_id=cart.episode_id)) as client:
        await client.call_tool("compare_products", {"product_ids": [a.product_id, b.product_id]})
        for item in (a, b):
            await client.call_tool("add_to_cart", {"product_id": item.product_id, "quantity": item.quantity})
        await client.call_tool("respond_to_customer", {"message": "Done.", "done": True})
    for episode in (pd, cart):
        if episode.episode_id in hub.episodes:
            await hub.close(episode.episode_id, "test")
    with Verifier() as v:
        for episode in (pd, cart):
            reward = v.verify(episode.directory)
            assert reward.verdict == "scored", reward.detail
            assert reward.total == 1.0 and reward.is_correct is True, reward.model_dump()


def test_the_verifier_never_imports_the_server():
    code = ("import sys, verifier, verifier.cli, verifier.service, verifier.runner\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('mcp_server', 'agents', 'mcp'))\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
