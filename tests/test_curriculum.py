"""The adaptive curriculum's rule (reference §5), its SQLite store and the verifier's feed."""

from __future__ import annotations

import multiprocessing
import random
import threading
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verishop.scenarios.curriculum import Params, Window, choose, record, sample
from verishop.scenarios.curriculum_store import CurriculumStore
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.verifier.curriculum import CurriculumFeed
from verishop.verifier.models import Reward

DEFAULT = Params()


def play(window: Window, outcomes: list[bool], params: Params = DEFAULT, difficulty: int | None = None) -> Window:
    for solved in outcomes:
        window = record(window, window.high if difficulty is None else difficulty, solved, params)
    return window


def test_a_window_starts_at_zero_and_only_samples_zero():
    rng = random.Random(1)
    assert Window() == Window(0, 0, 0, 0)
    assert {sample(Window(), rng) for _ in range(50)} == {0}


def test_sampling_covers_the_window_uniformly():
    rng = random.Random(2)
    draws = [sample(Window(3, 7), rng) for _ in range(5000)]
    assert set(draws) == {3, 4, 5, 6, 7}
    assert all(abs(draws.count(d) / len(draws) - 0.2) < 0.03 for d in range(3, 8))


def test_a_solved_check_moves_the_top_up_one_level_and_resets_the_counters():
    window = play(Window(), [True] * 31)
    assert window == Window(0, 0, attempts=31, solved=31)
    assert play(window, [True]) == Window(0, 1)


def test_the_threshold_is_a_share_of_the_check():
    assert play(Window(), [True] * 29 + [False] * 3) == Window(0, 1)  # 90.6%
    assert play(Window(), [True] * 28 + [False] * 4) == Window(0, 0)  # 87.5%: counters reset, no move
    params = Params(episodes_per_check=10, threshold=0.9)
    assert play(Window(), [True] * 9 + [False], params) == Window(0, 1)  # exactly 90%


def test_episodes_below_the_top_do_not_count():
    window = Window(0, 2, attempts=1, solved=1)
    assert play(window, [True] * 100, difficulty=1) == window
    assert play(window, [False] * 100, difficulty=0) == window


def test_a_failed_check_never_demotes():
    window = Window(2, 5)
    assert play(window, [False] * 32) == window


def test_the_window_keeps_at_most_five_levels():
    assert play(Window(0, 4), [True] * 32) == Window(1, 5)
    assert play(Window(1, 5), [True] * 32) == Window(2, 6)
    assert play(Window(0, 1), [True] * 4, Params(episodes_per_check=4, max_width=2)) == Window(1, 2)


def test_the_top_stops_at_twelve():
    window = play(Window(8, 12), [True] * 32)
    assert window == Window(8, 12)


def test_params_and_windows_refuse_nonsense():
    with pytest.raises(ValueError):
        Params(episodes_per_check=0)
    with pytest.raises(ValueError):
        Params(threshold=1.5)
    with pytest.raises(ValueError):
        Window(3, 2)
    with pytest.raises(ValueError):
        Window(0, MAX_DIFFICULTY + 1)


def test_choose_draws_the_environment_from_the_list_and_the_level_from_its_window():
    rng = random.Random(3)
    windows = {"pd-v4": Window(4, 6), "sub-v3": Window(0, 0)}
    picks = [choose(["pd-v4", "sub-v3"], windows, rng) for _ in range(400)]
    assert {env for env, _ in picks} == {"pd-v4", "sub-v3"}
    assert {d for env, d in picks if env == "pd-v4"} == {4, 5, 6}
    assert {d for env, d in picks if env == "sub-v3"} == {0}
    assert choose(["cart-v2"], windows, rng) == ("cart-v2", 0)  # never seen: [0, 0]


params_strategy = st.builds(Params, episodes_per_check=st.integers(1, 6), threshold=st.floats(0.0, 1.0),
                            max_width=st.integers(1, 6), max_level=st.integers(0, MAX_DIFFICULTY))
episodes_strategy = st.lists(st.tuples(st.integers(0, MAX_DIFFICULTY), st.booleans()), max_size=300)


@settings(max_examples=300, deadline=None)
@given(params=params_strategy, episodes=episodes_strategy, top_bias=st.lists(st.booleans(), max_size=300))
def test_any_history_keeps_the_invariants(params: Params, episodes, top_bias):
    window = Window()
    for i, (difficulty, solved) in enumerate(episodes):
        if i < len(top_bias) and top_bias[i]:
            difficulty = window.high  # most random difficulties miss the top; make many hit it
        after = record(window, difficulty, solved, params)
        assert after.high >= window.high and after.low >= window.low  # never demotes
        assert after.high <= window.high + 1 and after.high <= params.max_level <= MAX_DIFFICULTY
        assert after.high - after.low + 1 <= params.max_width
        assert after.attempts < params.episodes_per_check
        if difficulty != window.high:
            assert after == window  # only d = high counts
        window = after


@settings(max_examples=100, deadline=None)
@given(episodes=st.lists(st.booleans(), max_size=400))
def test_with_default_params_the_width_stays_within_five(episodes):
    window = Window()
    for solved in episodes:
        window = record(window, window.high, solved)
        assert window.high - window.low + 1 <= 5 and window.high <= 12


def test_the_store_counts_each_episode_once_and_survives_reopening(tmp_path: Path):
    path = tmp_path / "curriculum.db"
    store = CurriculumStore(path)
    store.set_params(episodes_per_check=2)
    for seed in (1, 2, 3):
        store.assign("pd-v4", 0, seed)  # as the server does when it draws d = 0 from the window
    assert store.record("ep_a", "pd-v4", 0, True, seed=1).window == Window(0, 0, 1, 1)
    assert store.record("ep_a", "pd-v4", 0, True, seed=1) is None  # re-verified: not counted again
    assert store.state("pd-v4").window == Window(0, 0, 1, 1)
    after = store.record("ep_b", "pd-v4", 0, True, seed=2)
    assert (after.window, after.episodes, after.checks) == (Window(0, 1), 2, 1)
    store.record("ep_c", "pd-v4", 0, False, seed=3)  # below the top: seen, not counted
    last = store.state("pd-v4")
    store.close()
    with CurriculumStore(path) as reopened:
        assert reopened.params().episodes_per_check == 2
        assert reopened.state("pd-v4") == last
        assert reopened.record("ep_a", "pd-v4", 1, True, seed=1) is None  # still remembered as counted
        snapshot = reopened.snapshot(["pd-v4", "cart-v2"])
    assert (last.episodes, last.window.attempts) == (3, 0)
    assert [w["env_id"] for w in snapshot["windows"]] == ["pd-v4", "cart-v2"]
    assert snapshot["windows"][0] == {"env_id": "pd-v4", "low": 0, "high": 1, "attempts": 0, "solved": 0,
                                      "episodes": 3, "checks": 1}
    assert snapshot["windows"][1]["high"] == 0 and snapshot["params"]["threshold"] == 0.9


def test_concurrent_writers_lose_no_episode(tmp_path: Path):
    path = tmp_path / "curriculum.db"
    with CurriculumStore(path) as store:
        store.set_params(episodes_per_check=1000)
        for worker in range(4):
            for i in range(25):
                store.assign("pd-v4", 0, worker * 1000 + i)

    def writer(worker: int) -> None:
        with CurriculumStore(path) as store:  # its own connection, as another process would have
            for i in range(25):
                store.record(f"ep_{worker}_{i}", "pd-v4", 0, i % 2 == 0, seed=worker * 1000 + i)
                # a duplicate from a re-verification
                store.record(f"ep_{worker}_{i}", "pd-v4", 0, True, seed=worker * 1000 + i)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    with CurriculumStore(path) as store:
        state = store.state("pd-v4")
    assert (state.episodes, state.window.attempts, state.window.solved) == (100, 100, 52)


def _record_from_another_process(path: str, worker: int) -> None:
    with CurriculumStore(Path(path)) as store:
        for i in range(40):
            store.record(f"ep_{worker}_{i}", "cart-v2", 0, True, seed=worker * 1000 + i)
            # another writer's episode again
            store.record(f"ep_{(worker + 1) % 3}_{i}", "cart-v2", 0, True, seed=(worker + 1) % 3 * 1000 + i)


def test_writers_in_several_processes_count_each_episode_exactly_once(tmp_path: Path):
    """Sidecars of several workers (processes) feeding one curriculum file: 120 distinct
    episodes, each recorded twice by two processes, promote the window exactly once per check."""
    path = tmp_path / "curriculum.db"
    with CurriculumStore(path) as store:
        store.set_params(episodes_per_check=30)
        for worker in range(3):
            for i in range(40):
                store.assign("cart-v2", 0, worker * 1000 + i)
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_record_from_another_process, args=(str(path), w)) for w in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    with CurriculumStore(path) as store:
        state = store.state("cart-v2")
    # Only episodes at the top level count: the first 30 at d = 0 (all solved) lift the top to 1,
    # and the other 90, at d = 0 below the new top, are recorded but not counted.
    assert (state.episodes, state.checks, state.window.high, state.window.attempts) == (120, 1, 1, 0)


def reward(episode_id: str, verdict: str = "scored", solved: bool = True, difficulty: int = 0, *,
           chosen: bool = True, turns: int = 1, seed: int | None = None) -> Reward:
    seed = zlib.crc32(episode_id.encode()) if seed is None else seed
    return Reward(episode_id=episode_id, env_id="pd-v4", difficulty=difficulty, seed=seed, verdict=verdict,
                  is_correct=solved if verdict == "scored" else None, chosen_by_curriculum=chosen, turns=turns,
                  tool_calls=turns)


def assign(store: CurriculumStore, *episode_ids: str) -> None:
    """What the server records when its curriculum draws each of these episodes (seeded as `reward`)."""
    for episode_id in episode_ids:
        store.assign("pd-v4", 0, zlib.crc32(episode_id.encode()))


async def test_the_feed_records_scored_episodes_and_skips_incomplete_ones(tmp_path: Path):
    with CurriculumStore(tmp_path / "curriculum.db") as store:
        store.set_params(episodes_per_check=2)
        assign(store, "ep_broken", "ep_1", "ep_2")
        feed = CurriculumFeed(store)
        await feed(reward("ep_broken", verdict="incomplete"))
        assert store.state("pd-v4").episodes == 0
        await feed(reward("ep_1"))
        await feed(reward("ep_1"))
        await feed(reward("ep_2", solved=False))
        state = store.state("pd-v4")
    assert (state.episodes, state.checks, state.window) == (2, 1, Window(0, 0))  # 1/2 solved: no move


async def test_the_feed_skips_episodes_the_curriculum_did_not_choose_or_nobody_played(tmp_path: Path):
    with CurriculumStore(tmp_path / "curriculum.db") as store:
        assign(store, "ep_fixed", "ep_probe", "ep_abandoned")
        feed = CurriculumFeed(store)
        await feed(reward("ep_fixed", solved=False, chosen=False))  # an eval's or an IDE's episode
        await feed(reward("ep_probe", solved=False, turns=0))  # a probe, a reset never stepped
        assert store.state("pd-v4").episodes == 0
        await feed(reward("ep_abandoned", solved=False))  # chosen, played, then left: a failure
        assert store.state("pd-v4").episodes == 1
