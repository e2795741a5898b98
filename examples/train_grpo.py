"""Train a shopping assistant with GRPO (TRL) on verishop episodes.

Needs a GPU for any real model. On one machine the episodes are played in this process (no
server, no sidecar):

    pip install -e '.[train]'             # trl, datasets (and torch, through trl)
    python examples/train_grpo.py --model Qwen/Qwen3-0.6B --collection C1 --episodes 512 --runs-dir runs

Or on a shop server and its verifier sidecar (many machines):

    verishop serve --transport http --no-default-episode --port 8000 --runs-dir runs &
    verishop verifier serve --runs-dir runs --port 8100 &
    python examples/train_grpo.py --server http://127.0.0.1:8000 --verifier http://127.0.0.1:8100 ...

Each dataset row names one episode: its seed, and its environment or collection; leaving the
difficulty out lets the curriculum pick it (pass --difficulty to fix one). TRL creates one
`VerishopShopEnv` per rollout slot, calls `reset(**row)` (which opens the episode and returns
the system prompt and the customer's opening message), exposes the shop's tools as the model's
functions, and after each rollout `verishop_reward` closes the episode and returns the
verifier's total reward in [-1, 1]. The multi-turn conversation (every tool call and result)
counts against `max_completion_length`: keep it generous.

Not run in CI: it imports TRL and torch inside `main()` only, so `python -c "import
examples.train_grpo"` works without them.
"""

from __future__ import annotations

import argparse


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", default=None,
                   help="a `verishop serve --transport http` to play on (default: in this process)")
    p.add_argument("--verifier", default=None,
                   help="with --server: its `verishop verifier serve` (default: score in this process)")
    p.add_argument("--catalog", default=None, help="in process: the catalog file (default: the default catalog)")
    p.add_argument("--runs-dir", default=None, help="in process: write each episode's run folder here")
    p.add_argument("--model", default="Qwen/Qwen3-0.6B")
    p.add_argument("--collection", default="C1", help="C1, C2, C4 or C8 (ignored when --env is given)")
    p.add_argument("--env", default=None, help="one environment, e.g. pd")
    p.add_argument("--difficulty", type=int, default=None, help="fixed difficulty (default: the curriculum's)")
    p.add_argument("--episodes", type=int, default=512, help="dataset rows (episodes per epoch)")
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--num-generations", type=int, default=8, help="rollouts per prompt (the GRPO group)")
    p.add_argument("--max-completion-length", type=int, default=4096)
    p.add_argument("--learning-rate", type=float, default=1e-6)
    p.add_argument("--output-dir", default="runs/grpo-verishop")
    return p.parse_args(argv)


def episode_rows(args: argparse.Namespace) -> list[dict]:
    """One row per episode; the `prompt` column is the user turn TRL starts from."""
    rows = []
    for i in range(args.episodes):
        row: dict = {"prompt": [{"role": "user", "content": "A customer is waiting. Help them."}],
                     "seed": args.first_seed + i}
        row.update({"env": args.env} if args.env else {"collection": args.collection})
        if args.difficulty is not None:
            row["difficulty"] = args.difficulty
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    from datasets import (
        Dataset,  # heavy imports stay here: the module imports without them
    )
    from trl import GRPOConfig, GRPOTrainer

    from verishop.agents.trl import make_environment_factory, verishop_reward

    if args.server:
        shop_env = make_environment_factory(args.server, verifier_url=args.verifier or None)
    else:
        shop_env = make_environment_factory(catalog=args.catalog, runs_dir=args.runs_dir)
    trainer = GRPOTrainer(
        model=args.model,
        train_dataset=Dataset.from_list(episode_rows(args)),
        reward_funcs=verishop_reward,
        environment_factory=shop_env,
        args=GRPOConfig(
            output_dir=args.output_dir,
            num_generations=args.num_generations,
            max_completion_length=args.max_completion_length,
            learning_rate=args.learning_rate,
            chat_template_kwargs={"enable_thinking": False},
            log_completions=True,
        ),
    )
    trainer.train()
    trainer.save_model(args.output_dir)


if __name__ == "__main__":
    main()
