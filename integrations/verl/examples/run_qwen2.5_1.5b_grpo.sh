#!/usr/bin/env bash
# GRPO on verishop with verl 0.9.1 (needs a GPU: 1 x 24 GB fits Qwen2.5-1.5B-Instruct here; for
# 0.5B halve nothing but the model). The shop runs inside verl's rollout workers (LocalShop): no
# server to start. DAPO: set algorithm.adv_estimator=grpo with clip_ratio_high=0.28, or use verl's
# dapo recipe with the same data, rollout and reward lines.
#
#   python3 -m venv .venv-verl && .venv-verl/bin/pip install 'verl[vllm]==0.9.1' -e . -e integrations/verl
#   .venv-verl/bin/python -m verishop_verl.dataset --env pd --difficulty 0 --seeds 0:2048 --out data/verishop/train.parquet
#   .venv-verl/bin/python -m verishop_verl.dataset --env pd --difficulty 0 --seeds 1000000:1000128 --split test \
#       --out data/verishop/test.parquet --tool-config data/verishop/tools.yaml
#   bash integrations/verl/examples/run_qwen2.5_1.5b_grpo.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${DATA:-data/verishop}
AGENT_LOOP=$(python3 -c 'import verishop_verl, pathlib; print(pathlib.Path(verishop_verl.__file__).parent / "agent_loop.yaml")')

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files=$DATA/train.parquet \
    data.val_files=$DATA/test.parquet \
    data.return_raw_chat=True \
    data.train_batch_size=64 \
    data.max_prompt_length=8192 \
    data.max_response_length=4096 \
    data.filter_overlong_prompts=False \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-1.5B-Instruct \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.actor.ppo_mini_batch_size=16 \
    actor_rollout_ref.actor.use_kl_loss=False \
    actor_rollout_ref.actor.clip_ratio_high=0.28 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.mode=async \
    actor_rollout_ref.rollout.n=8 \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.5 \
    actor_rollout_ref.rollout.multi_turn.enable=True \
    actor_rollout_ref.rollout.multi_turn.format=hermes \
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=16 \
    actor_rollout_ref.rollout.multi_turn.max_tool_response_length=4096 \
    actor_rollout_ref.rollout.multi_turn.tool_config_path=$DATA/tools.yaml \
    actor_rollout_ref.rollout.agent.agent_loop_config_path=$AGENT_LOOP \
    actor_rollout_ref.rollout.agent.default_agent_loop=verishop_agent \
    reward.custom_reward_function.path=$HERE/../verishop_verl/reward.py \
    reward.custom_reward_function.name=compute_score \
    trainer.n_gpus_per_node=1 \
    trainer.nnodes=1 \
    trainer.total_epochs=1 \
    trainer.logger=console \
    trainer.project_name=verishop \
    trainer.experiment_name=qwen2.5-1.5b-grpo-pd-d0 \
    "$@"
