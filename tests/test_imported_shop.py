"""Every environment on an imported shop (issue 21): the sample feeds of examples/shop, with
categories and attribute names the generated taxonomy lacks, generate all eight environments at
every difficulty, deterministically; the shop's policy file replaces the generated policy; no
constraint is built on a field the feed lacks; the oracle solves every episode and doing nothing
none; the red team holds; and a catalog too small says what it needs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verishop.agents.redteam import HEURISTIC
from verishop.agents.redteam.suite import bar, play_all, table
from verishop.scenarios.catalog.feeds.run import run_import
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader
from verishop.scenarios.envs import REGISTRY, generate
from verishop.scenarios.models import StorePolicy
from verishop.scenarios.policy import return_window
from support import play_and_verify

SHOP = Path(__file__).parent.parent / "examples" / "shop"
FEEDS = {"merchant-tsv": "merchant.tsv", "merchant-xml": "merchant.xml", "shopify": "shopify.csv"}
ALL_DIFFICULTIES = tuple(range(13))
ENV_IDS = tuple(REGISTRY)
SHORT = tuple(spec.short_name for spec in REGISTRY.values())


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("shops")
    paths = {}
    for name, feed in FEEDS.items():
        paths[name] = folder / f"{name}.db"
        run_import([SHOP / feed], paths[name], policy=SHOP / "policy.yaml")
    return paths


@pytest.mark.parametrize("feed", FEEDS)
def test_all_eight_environments_generate_at_every_difficulty_the_same_way_twice(shops, feed):
    with CatalogReader(shops[feed]) as catalog:
        for env in SHORT:
            for d in ALL_DIFFICULTIES:
                first = generate(env, d, 500 + d, catalog)
                assert first.catalog.content_hash == catalog.meta["content_hash"]
                assert generate(env, d, 500 + d, catalog).to_json() == first.to_json()


@pytest.mark.parametrize("feed", FEEDS)
def test_the_shops_policy_file_replaces_the_generated_policy_in_every_episode(shops, feed):
    with CatalogReader(shops[feed]) as catalog:
        for env in SHORT:
            for seed in range(3):
                policy = generate(env, 6, seed, catalog).policy
                assert policy.shop is not None and policy.rules is None, env
                text = {c.policy_id: c.text for c in policy.clauses}
                assert "Fountain Pens can be returned within 14 days" in text["POL-RETURNS"]
                assert text["POL-FINAL-SALE"] == "Loose Leaf Tea are final sale and cannot be returned."
                assert "Craft Knives" in text["POL-RESTRICTED"] and "Verishop Plus" not in " ".join(text.values())


def _window_answers(catalog_path: Path) -> dict[str, str]:
    """Policy questions asking a category's plain return window, by question, over many seeds."""
    found = {}
    with CatalogReader(catalog_path) as catalog:
        for seed in range(120):
            goal = generate("policy", 0, seed, catalog).goal
            if goal.question.startswith("How many days after delivery"):
                found[goal.question] = goal.answer
    return found


def test_policy_answers_follow_the_shops_file(shops, tmp_path):
    policy = (SHOP / "policy.yaml").read_text().replace("return_window_days: 30", "return_window_days: 40")
    (tmp_path / "policy.yaml").write_text(policy)
    run_import([SHOP / "merchant.tsv"], tmp_path / "shop40.db", policy=tmp_path / "policy.yaml")
    before, after = _window_answers(shops["merchant-tsv"]), _window_answers(tmp_path / "shop40.db")
    notebooks = "How many days after delivery do I have to return the notebook?"
    pens = "How many days after delivery do I have to return the fountain pen?"
    assert before[notebooks] == "30" and after[notebooks] == "40"
    assert before.get(pens, "14") == "14" and after.get(pens, "14") == "14"  # its own window, unchanged


def test_the_shops_rules_apply_as_written(shops):
    with CatalogReader(shops["merchant-tsv"]) as catalog:
        policy: StorePolicy = generate("return", 3, 1, catalog).policy
    assert return_window(policy, "shop_fountain_pens") == 14
    assert return_window(policy, "shop_teapots", gift=True) == 45 + 21
    assert return_window(policy, "shop_loose_leaf_tea") is None
    with pytest.raises(ValueError, match="no membership, holiday or defect clauses"):
        return_window(policy, "shop_teapots", tier="Plus")


@pytest.mark.parametrize(("feed", "absent"), [("merchant-tsv", {"rating_min"}),
                                                ("shopify", {"rating_min", "ship_days_max"})])
def test_no_constraint_is_built_on_a_field_the_feed_lacks(shops, feed, absent):
    kinds = set()
    with CatalogReader(shops[feed]) as catalog:
        for env in ("pd", "sub", "return"):
            for seed in range(40):
                goal = generate(env, 12, seed, catalog).goal
                for c in getattr(goal, "constraints", ()) or getattr(goal, "replacement", ()) or ():
                    kinds.add(c.kind)
                persona = getattr(goal, "persona", None)
                if persona is not None:
                    assert persona.priority != "rating"
    assert kinds and not kinds & absent
    assert {"attribute", "price_max"} <= kinds


@pytest.mark.parametrize("feed", FEEDS)
def test_the_oracle_solves_every_episode_on_an_imported_shop(shops, feed, tmp_path):
    rewards = play_and_verify("oracle", ENV_IDS, ALL_DIFFICULTIES, 13, 300, shops[feed], tmp_path, transport="local")
    unsolved = [(r["env_id"], r["difficulty"], r["seed"]) for r in rewards if not r["is_correct"]]
    assert unsolved == [] and len(rewards) == len(ENV_IDS) * 13


@pytest.mark.parametrize("feed", FEEDS)
def test_doing_nothing_solves_nothing_on_an_imported_shop(shops, feed, tmp_path):
    rewards = play_and_verify("null", ENV_IDS, (0, 4, 8, 12), 4, 300, shops[feed], tmp_path)
    assert not any(r["is_correct"] for r in rewards) and all(r["total"] < 0 for r in rewards)


def test_the_red_team_holds_on_an_imported_shop(shops, tmp_path):
    agents = ("null", "greedy", *HEURISTIC, "spray", "invent", "namedrop", "denied", "natural")
    rewards = play_all(agents, SHORT, (0, 4, 8, 12), 4, 7300, shops["merchant-tsv"], tmp_path, transport="local")
    cells = table(rewards)
    for env in SHORT:
        # The bar is the better of greedy and the simple heuristics (issue 28), and doing nothing
        # for the mean total: a wrong commitment costs more than silence.
        solved, mean_total = bar(cells, env)
        mean_total = max(mean_total, cells["null"][env].mean_total)
        for hostile in ("spray", "invent", "namedrop", "denied"):
            assert cells[hostile][env].solved <= solved, (hostile, env)
            assert cells[hostile][env].mean_total <= mean_total + 1e-9, (hostile, env)
        for inventing in ("invent", "namedrop"):
            assert cells[inventing][env].mean_total <= cells["null"][env].mean_total + 1e-9, (inventing, env)
        assert cells["natural"][env].solved_share >= 0.95, env
    pitched = [r for r in rewards["denied"] if r.get("hard_fail")]
    assert pitched and all(r["total"] == -1.0 and not r["is_correct"] for r in pitched)


def test_a_catalog_too_small_for_an_environment_says_what_it_needs(tmp_path):
    feed = tmp_path / "tiny.tsv"
    feed.write_text("id\ttitle\tavailability\tprice\tbrand\tproduct_type\tcolor\n" + "".join(
        f"T{i}\tMug {i}\tin_stock\t{9 + i}.00 USD\tClayworks\tKitchen > Mugs\t{('Blue', 'Red')[i % 2]}\n"
        for i in range(3)))
    run_import([feed], tmp_path / "tiny.db")
    with CatalogReader(tmp_path / "tiny.db") as catalog:
        generate("pd", 0, 1, catalog)  # three mugs are enough to ask for one
        with pytest.raises(CatalogError, match=re.escape("too small for sub-v9 at difficulty 0: it needs a category "
                                                         "with at least")):
            generate("sub", 0, 1, catalog)
        with pytest.raises(CatalogError, match="cart-v7 needs a category whose products come in variants"):
            generate("cart", 0, 1, catalog)


NO_FILTERS = dict(query="", brand=None, min_price_usd=None, max_price_usd=None, min_rating=None, max_ship_days=None,
                  attributes={}, in_stock_only=False, limit=5)


async def test_a_wrong_category_names_the_shops_own_categories(shops, tmp_path):
    from verishop.mcp_server.episodes.hub import EpisodeHub
    from verishop.mcp_server.errors import ShopError
    from verishop.mcp_server.shop.catalog import search_catalog

    hub = EpisodeHub(shops["merchant-tsv"], tmp_path / "runs")
    try:
        with CatalogReader(shops["merchant-tsv"]) as catalog:
            episode = await hub.open(generate("pd", 2, 1, catalog))
        with pytest.raises(ShopError, match="unknown category 'chargers'; valid categories: shop_bottled_ink, "):
            await search_catalog(episode, category_id="chargers", **NO_FILTERS)
        found = await search_catalog(episode, category_id="shop_teapots", **NO_FILTERS)
        assert found.results and all(r.category_id == "shop_teapots" for r in found.results)
    finally:
        await hub.aclose()


def test_scenarios_on_an_imported_shop_pass_the_servers_admission_and_a_forged_shop_rule_does_not(shops):
    from verishop.mcp_server.http.admission import InvalidScenario, check_scenario

    with CatalogReader(shops["shopify"]) as catalog:
        for env in SHORT:
            check_scenario(generate(env, 6, 2, catalog), catalog)
        scenario = generate("policy", 6, 2, catalog)
        forged = scenario.policy.shop.model_copy(update={"restocking_fee_categories": ("weapons_cache",)})
        policy = scenario.policy.model_copy(update={"shop": forged})
        with pytest.raises(InvalidScenario, match="'weapons_cache' is not a category of the shop"):
            check_scenario(scenario.model_copy(update={"policy": policy}), catalog)


def test_an_imported_catalog_without_a_policy_file_runs_every_environment_on_the_generated_policy(tmp_path):
    run_import([SHOP / "shopify.csv"], tmp_path / "shop.db")
    with CatalogReader(tmp_path / "shop.db") as catalog:
        for env in SHORT:
            for d in (0, 6, 12):
                scenario = generate(env, d, 40 + d, catalog)
                assert scenario.policy.shop is None and scenario.policy.final_sale_categories == ("socks", "pillows")
