"""The customer's voice over a real model (issue 35; `make test-llm-voice`, docs/customer-voice.md).

Plays the same episodes three times through `verishop eval` (a real `verishop serve` over HTTP):
in the scripted voice, with `--customer-voice llm` against the endpoint given, and with
`--customer-voice replay:` of that run's recording. Prints how many replies the model's wording
reached the agent in and why the others stayed scripted, and checks what must hold whatever the
model: the oracle's reward of every episode equal in the three runs, and the replay's customer
texts equal to the recorded run's. Exit code 1 if either fails.

    python bench/customer_voice.py --base-url http://127.0.0.1:8765/v1 --model gemma-3-270m
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

VOLATILE = {"episode_id", "elapsed_ms", "duration_ms", "seal", "world_sha256", "scenario_sha256"}


def _eval(args: argparse.Namespace, runs: Path, *voice: str) -> Path:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-P", "-m", "verishop", "eval", "--agent", "oracle", "--env", args.env,
                           "--difficulty", args.difficulty, "--episodes", str(args.episodes), "--seed", str(args.seed),
                           "--transport", "http", "--concurrency", "2", "--runs-dir", str(runs), "--json", *voice],
                          capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"eval failed ({done.returncode}): {done.stderr[-2000:]}")
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    print(f"{' '.join(voice) or 'scripted':>60}: {time.monotonic() - started:6.1f} s  ({run_dir.name})")
    return run_dir


def _episodes(run_dir: Path) -> dict[tuple, tuple[dict, list[dict]]]:
    out = {}
    for folder in sorted(p for p in run_dir.iterdir() if (p / "reward.json").is_file()):
        reward = json.loads((folder / "reward.json").read_text())
        events = [json.loads(line) for line in (folder / "transcript.jsonl").read_text().splitlines()]
        replies = [{k: v for k, v in e.items() if k not in VOLATILE} for e in events
                   if e["event"] == "customer_message" and e.get("tag") != "open"]
        out[(reward["env_id"], reward["difficulty"], reward["seed"])] = (
            {k: v for k, v in reward.items() if k not in VOLATILE}, replies)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--env", default="pd,cart,return,status,exchange,change,compensation,journey")
    parser.add_argument("--difficulty", default="0-12")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout-s", type=float, default=30)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--runs-dir", type=Path, default=Path("runs/customer-voice"))
    args = parser.parse_args()

    scripted = _episodes(_eval(args, args.runs_dir))
    llm_dir = _eval(args, args.runs_dir, "--customer-voice", "llm", "--customer-voice-url", args.base_url,
                    "--customer-voice-model", args.model, "--customer-voice-timeout-s", str(args.timeout_s),
                    "--customer-voice-temperature", str(args.temperature))
    llm = _episodes(llm_dir)
    replay = _episodes(_eval(args, args.runs_dir, "--customer-voice", f"replay:{llm_dir / 'customer-voice.jsonl'}"))

    outcomes = Counter(r["voice"]["outcome"] if r["voice"]["outcome"] == "reworded" else r["voice"]["why"].split(":")[0]
                       for _, replies in llm.values() for r in replies)
    replies = sum(outcomes.values())
    print(f"\n{len(llm)} episodes, {replies} customer replies: {outcomes['reworded']} reworded by {args.model} "
          f"({outcomes['reworded'] / max(replies, 1):.0%}), {replies - outcomes['reworded']} scripted")
    for kind, count in outcomes.most_common():
        if kind != "reworded":
            print(f"  scripted, {kind}: {count}")
    reworded = [r for _, rs in llm.values() for r in rs if r["voice"]["outcome"] == "reworded"]
    changed = [r for r in reworded if r.get("said", r["scripted"]) != r["text"]]
    print(f"  of the reworded, {len(reworded) - len(changed)} said back word for word (noise aside), {len(changed)} changed")
    for r in changed[:6]:
        print(f"  {r['scripted']!r}\n    -> {r['text']!r}")

    same_reward = sum(llm[k][0] == scripted[k][0] == replay[k][0] for k in scripted)
    same_texts = sum(replay[k][1] == llm[k][1] for k in llm)
    solved = sum(bool(r["is_correct"]) for r, _ in llm.values())
    print(f"\nrewards equal in the three runs: {same_reward} of {len(scripted)} (oracle solved {solved} of {len(llm)} "
          f"with the model's wording)")
    print(f"replay's customer events equal to the recorded run's: {same_texts} of {len(llm)}")
    if same_reward != len(scripted) or same_texts != len(llm) or llm.keys() != scripted.keys():
        sys.exit(1)


if __name__ == "__main__":
    main()
