"""A LLaMA model small enough to check by hand: seeded weights, an eleven-token byte-level vocabulary.

Shaped like SmolLM2-135M where it matters (grouped-query heads, SwiGLU, tied output,
float32), two blocks 16 wide.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rmsnorm_course.model import llama, smollm2

CONFIG = llama.Config(blocks=2, width=16, hidden=24, heads=4, kv_heads=2, rope_base=10000.0, eps=1e-5, vocab=11)
# byte-level spellings: "Ġ" is a space; "<|end|>" is a control token, kept whole
TOKENS = ["<|end|>", "a", "b", "c", "Ġ", "ab", "Ġa", "Ġab", "1", "2", "12"]
MERGES = ["Ġ a", "a b", "Ġa b", "1 2"]
TYPES = [smollm2.CONTROL] + [1] * (len(TOKENS) - 1)


def weights(config: llama.Config = CONFIG, seed: int = 0) -> llama.Weights:
    rng = np.random.default_rng(seed)

    def matrix(rows: int, columns: int) -> np.ndarray:
        return (rng.standard_normal((rows, columns)) / np.sqrt(columns)).astype(np.float32)

    def gain() -> np.ndarray:
        return rng.uniform(0.2, 2.0, config.width).astype(np.float32)

    kv = config.kv_heads * config.head_width
    blocks = tuple(
        llama.Block(
            attention_norm=gain(),
            wq=matrix(config.width, config.width),
            wk=matrix(kv, config.width),
            wv=matrix(kv, config.width),
            wo=matrix(config.width, config.width),
            ffn_norm=gain(),
            w1=matrix(config.hidden, config.width),
            w2=matrix(config.width, config.hidden),
            w3=matrix(config.hidden, config.width),
        )
        for _ in range(config.blocks)
    )
    embedding = (rng.standard_normal((config.vocab, config.width)) * 0.5).astype(np.float32)
    return llama.Weights(embedding, blocks, gain(), embedding)


def model(seed: int = 0) -> smollm2.Model:
    tokenizer = smollm2.tokenizer_from(TOKENS, MERGES, TYPES)
    formats = {"F32": 2 * CONFIG.blocks + 1, "Q4_1": 7 * CONFIG.blocks, "Q8_0": 1}
    return smollm2.Model(Path("tiny.gguf"), CONFIG, tokenizer, weights(CONFIG, seed), formats)
