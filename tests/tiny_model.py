"""A tiny, randomly initialised chat model built in code (no download): a byte-level BPE
tokenizer trained on a few sentences, with TRL's Qwen3 chat template (so TRL knows how to parse
its tool calls), and a one-layer Qwen3 model sized to it. It writes nonsense, which is all a
test of the training loop needs."""

from __future__ import annotations

from typing import Any

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>",
                  "</tool_response>", "<think>", "</think>"]
CORPUS = ["You are the shopping assistant of Verishop, an online store.", "The customer says: hello, I need a charger.",
          '{"name": "search_catalog", "arguments": {"query": "usb-c charger"}}', "system user assistant tool"]


def tiny_tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen3_chat_template

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(CORPUS * 4, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   chat_template=qwen3_chat_template)


def tiny_model(vocab_size: int) -> Any:
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    config = Qwen3Config(vocab_size=vocab_size, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=8, max_position_embeddings=8192,
                         tie_word_embeddings=True)
    return Qwen3ForCausalLM(config)
