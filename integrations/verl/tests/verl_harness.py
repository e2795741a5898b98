"""verl's rollout worker on CPU, with the scripted model in place of the inference engine.

`AgentLoopWorker` is verl's own class; only its constructor is bypassed (it builds the model
config from a checkpoint and starts tracing for a GPU run); the attributes it would set are set
here, and then verl's `generate_sequences` runs unchanged: each row's agent loop (looked up by
the row's agent_name in the registry that `agent_loop_config_path` fills), the tools from the
tool config through verl's loader, the hermes parser, the padding into the batch.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import numpy as np
from omegaconf import OmegaConf
from verl.experimental.agent_loop.agent_loop import AgentLoopWorker, _agent_loop_registry
from verl.protocol import DataProto
from verl.tools.tool_registry import load_all_tools
from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn
from verl.utils.rollout_trace import RolloutTraceConfig

import verishop_verl

AGENT_LOOP_YAML = Path(verishop_verl.__file__).parent / "agent_loop.yaml"
LENGTH = 65536  # byte-level tokens: the 30 tool schemas alone are ~28k


def config(tool_config: Path) -> Any:
    return OmegaConf.create({
        "actor_rollout_ref": {"rollout": {
            "prompt_length": LENGTH, "response_length": LENGTH, "full_determinism": False,
            "temperature": 1.0, "top_p": 1.0, "top_k": -1, "calculate_log_probs": False,
            "multi_turn": {"max_user_turns": 40, "max_assistant_turns": 40, "max_parallel_calls": 1,
                           "max_tool_response_length": 20000, "tool_response_truncate_side": "middle",
                           "format": "hermes", "tool_config_path": str(tool_config), "function_tool_path": None},
            "agent": {"default_agent_loop": "tool_agent", "agent_loop_config_path": str(AGENT_LOOP_YAML)},
            "trace": {"backend": None, "token2text": False}}},
        "data": {"prompt_key": "prompt", "max_prompt_length": LENGTH, "filter_overlong_prompts": False,
                 "return_raw_chat": True},
        "distillation": {"enabled": False},
    })


def worker(cfg: Any, tokenizer: Any, model: Any) -> AgentLoopWorker:
    """An `AgentLoopWorker` with what its constructor sets for a text model with no reward loop."""
    w = object.__new__(AgentLoopWorker)
    w.config, w.llm_client, w.teacher_client, w.reward_loop_worker_handles = cfg, model, None, None
    w.rollout_config = cfg.actor_rollout_ref.rollout
    w.dataset_cls, w.tokenizer, w.processor, w.hf_model_type = RLHFDataset, tokenizer, None, None
    w.mm_processor_kwargs, w.distillation_enabled = {}, False
    with contextlib.redirect_stdout(io.StringIO()):  # BaseTool prints every schema
        w.tools = load_all_tools(tool_config_path=cfg.actor_rollout_ref.rollout.multi_turn.tool_config_path,
                                 function_tool_path=None)
    for entry in OmegaConf.load(cfg.actor_rollout_ref.rollout.agent.agent_loop_config_path):
        _agent_loop_registry[entry.name] = entry
    RolloutTraceConfig.init("verishop", "test", None, False, None)
    return w


def batch(parquet: Path, tokenizer: Any, cfg: Any) -> DataProto:
    """The rows as verl's dataset reads them, collated as its dataloader does."""
    dataset = RLHFDataset(data_files=[str(parquet)], tokenizer=tokenizer, config=cfg.data)
    items = [dataset[i] for i in range(len(dataset))]
    data = DataProto.from_single_dict(collate_fn(items))
    assert isinstance(data.non_tensor_batch["agent_name"], np.ndarray)
    return data
