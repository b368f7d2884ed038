"""The forward pass against an independent implementation: Hugging Face transformers reading the same GGUF file.

transformers has its own GGUF reader, its own dequantization (in torch), its own tokenizer
built from the file, and its own LLaMA (rotating halves of each head, after reordering the
query and key rows the file stores). On four prompts the two agree on the tokens, the top
prediction, the top five probabilities within 2e-3 and the residual stream's RMS after
every block within 1e-3 relative; and the weights each reads are the same, bit for bit.

Its hidden states are the stream after the embedding and after blocks 1 to 29, then the
final norm's output; the stream after block 30 (the final norm's input) is taken from the
norm's own input. Run by ``make test-e2e``, which installs requirements-e2e.txt first.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from rmsnorm_course.model import measurements as real_model
from rmsnorm_course.model import smollm2

pytestmark = pytest.mark.end_to_end


@pytest.fixture(scope="module")
def transformers_model():
    os.environ["HF_HUB_OFFLINE"] = "1"  # the file is on disk; nothing is fetched
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = smollm2.weights_path()
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    return torch, tokenizer, model.eval()


def reference(transformers_model, text: str) -> dict:
    torch, tokenizer, model = transformers_model
    token_ids = tokenizer(text).input_ids
    seen = {}
    hook = model.model.norm.register_forward_hook(lambda _, inputs, output: seen.update(stream=inputs[0]))
    try:
        with torch.no_grad():
            out = model(torch.tensor([token_ids]), output_hidden_states=True)
    finally:
        hook.remove()
    last = [h[0, -1].double() for h in out.hidden_states[:-1]] + [seen["stream"][0, -1].double()]
    p = torch.softmax(out.logits[0, -1].double(), dim=-1)
    top = torch.topk(p, real_model.TOP)
    return {
        "token_ids": token_ids,
        "tokens": [tokenizer.decode([token]) for token in token_ids],
        "top": top.indices.tolist(),
        "top_probabilities": top.values.numpy(),
        "p": p.numpy(),
        "residual_rms": np.array([float(h.pow(2).mean().sqrt()) for h in last]),
    }


@pytest.mark.parametrize("text", real_model.PROMPTS)
def test_the_forward_pass_agrees_with_transformers(transformers_model, text):
    ours = real_model.prediction_of(smollm2.load(), text)
    theirs = reference(transformers_model, text)
    assert ours.token_ids.tolist() == theirs["token_ids"]
    assert ours.tokens.tolist() == theirs["tokens"]
    assert ours.top[0] == theirs["top"][0]
    np.testing.assert_allclose(ours.top_probabilities, theirs["p"][ours.top], atol=2e-3)
    np.testing.assert_allclose(ours.top_probabilities, theirs["top_probabilities"], atol=2e-3)
    assert len(ours.residual_rms) == len(theirs["residual_rms"]) == 31
    np.testing.assert_allclose(ours.residual_rms, theirs["residual_rms"], rtol=1e-3)


def test_both_read_the_same_weights_bit_for_bit(transformers_model):
    """Every tensor transformers holds equals the file's own reader's, its query and key rows put back as stored."""
    _, _, model = transformers_model
    ours = smollm2.load()
    config = ours.config
    theirs = {name: tensor.numpy() for name, tensor in model.state_dict().items()}

    def stored(w, heads):  # transformers' reordering (i, i + d/2) undone: pairs (2i, 2i + 1) again
        return w.reshape(heads, 2, -1, w.shape[-1]).swapaxes(1, 2).reshape(w.shape)

    np.testing.assert_array_equal(theirs["model.embed_tokens.weight"], ours.weights.embedding)
    np.testing.assert_array_equal(theirs["model.norm.weight"], ours.weights.norm)
    for n, block in enumerate(ours.weights.blocks):
        layer = f"model.layers.{n}."
        pairs = {
            "input_layernorm.weight": block.attention_norm,
            "self_attn.v_proj.weight": block.wv,
            "self_attn.o_proj.weight": block.wo,
            "post_attention_layernorm.weight": block.ffn_norm,
            "mlp.gate_proj.weight": block.w1,
            "mlp.down_proj.weight": block.w2,
            "mlp.up_proj.weight": block.w3,
        }
        for name, mine in pairs.items():
            np.testing.assert_array_equal(theirs[layer + name], mine, err_msg=layer + name)
        np.testing.assert_array_equal(stored(theirs[layer + "self_attn.q_proj.weight"], config.heads), block.wq)
        np.testing.assert_array_equal(stored(theirs[layer + "self_attn.k_proj.weight"], config.kv_heads), block.wk)
