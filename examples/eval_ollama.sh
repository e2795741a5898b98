#!/usr/bin/env bash
# Evaluate a local model on verishop through any OpenAI-compatible endpoint.
#
#   Ollama:  ollama serve & ollama pull qwen3:4b
#            examples/eval_ollama.sh qwen3:4b
#   vLLM:    vllm serve Qwen/Qwen3-4B --enable-auto-tool-choice --tool-call-parser hermes --port 8001 &
#            BASE_URL=http://127.0.0.1:8001/v1 examples/eval_ollama.sh Qwen/Qwen3-4B
#
# Plays ENVS at DIFFICULTY (EPISODES per environment) through a real `verishop serve --transport
# http`, scores them with the verifier, prints the table and writes the conversations with their
# rewards to OUT (JSONL, ready for fine-tuning).
set -euo pipefail

MODEL="${1:?usage: $0 MODEL (e.g. qwen3:4b)}"
BASE_URL="${BASE_URL:-http://127.0.0.1:11434/v1}"   # Ollama's OpenAI-compatible API
API_KEY="${API_KEY:-}"                               # Ollama and vLLM ignore it unless configured
ENVS="${ENVS:-pd,cart,status,policy}"
DIFFICULTY="${DIFFICULTY:-0-4}"
EPISODES="${EPISODES:-10}"
CONCURRENCY="${CONCURRENCY:-2}"
RUNS="${RUNS:-runs}"
OUT="${OUT:-$RUNS/eval-$(echo "$MODEL" | tr '/:' '__').jsonl}"
VERISHOP="${VERISHOP:-verishop}"

summary=$("$VERISHOP" eval --agent openai --base-url "$BASE_URL" --model "$MODEL" ${API_KEY:+--api-key "$API_KEY"} \
    --env "$ENVS" --difficulty "$DIFFICULTY" --episodes "$EPISODES" --concurrency "$CONCURRENCY" \
    --transport http --runs-dir "$RUNS" --json)
run_dir=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["run_dir"])' "$summary")
python3 - "$summary" <<'EOF'
import json, sys
summary = json.loads(sys.argv[1])
print(f"{'env':10} {'d':>4} {'episodes':>8} {'solved':>7} {'total':>7}")
for row in summary["rows"]:
    total = "—" if row["total"] is None else f"{row['total']:+.3f}"
    print(f"{row['env_id']:10} {row['difficulty']!s:>4} {row['episodes']:>8} {row['solved_share']:>7.0%} {total:>7}")
EOF
"$VERISHOP" export "$run_dir" --format openai --out "$OUT"
echo "episodes in $run_dir; conversations and rewards in $OUT"
