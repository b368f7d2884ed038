"""What the chapter measures inside SmolLM2-135M: each claim about RMSNorm, on the real model's own rows.

* Depth: the residual stream's RMS grows block by block, while every norm hands its
  branch rows of about the size of its gain.
* Outliers: one channel can hold most of a row's mean square, which an RMS estimated
  from part of the row (pRMSNorm) either misses or counts many times over.
* Precision: the formula written in float16 squares values past float16's largest
  number; computed in float32 inside (the package's policy) it does not; bfloat16 keeps
  the range and loses digits.
* eps: the model's 1e-5 against 0, 1e-3, 0.1 and 1, and where the top prediction moves; then
  eps raised at one place at a time (block 1's attention norm, its feed-forward norm, every
  other norm), to find which norms' rows are small enough for eps to matter.
* LayerNorm in place of every RMSNorm, at inference: how far the predictions move.
* Folding: each gain merged into the projections after it gives the same logits to rounding.
* The gains themselves, norm by norm.

Every value is measured on the last position of each of ``PROMPTS``. Reading the model
takes seconds, so the measurements and the command's predictions are cached (``cached``),
never trusted over the weights, the versions or the sources that computed them.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.errors import RMSNormError
from ..core.rmsnorm import rms_norm
from ..studies import cache
from ..studies.block import fold_gain
from ..studies.formulas import layer_norm_formula, rms_norm_formula
from ..studies.partial import SHARE, partial_error, values_read
from ..studies.precision import to_bfloat16
from . import llama, smollm2

PROMPTS = (
    "The capital of France is",
    "The chemical symbol for gold is",
    "def add(a, b):\n    return",
    "The opposite of hot is",
)
TOP = 5  # the predictions the command shows
MAX_TOKENS = 1024  # a text's attention scores, heads x tokens x tokens, then take 38 MB
EPSILONS = (0.0, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0)  # beside the model's own, which comes first
PLACES = ("block 1 attention", "block 1 feed-forward", "every norm but block 1's")  # eps raised at one of these
PLACE_EPSILONS = (1e-2, 3e-2)  # where eps raised at every norm starts to change a top token
FLOAT16_LARGEST = float(np.finfo(np.float16).max)  # 65504
OUTLIER_NORM = "block 30 attention"  # where the page looks at one channel: the outlier is largest there
# What the page's boxes give as their inputs, measured on the first prompt's last position and written as a
# question writes them (tests/test_real_model.py measures each again): the stream's RMS after the embedding;
# the row block 30's attention norm reads, its width, RMS, largest channel and value; the largest mean, as a
# share of its row's RMS, of any row a norm reads.
ASKED = {"embedded": 0.108, "width": 576, "rms": 27.75, "channel": 17, "value": 551.7, "largest_mean": 0.1}
PRECISIONS = ("float16, as written", "float16, float32 inside", "bfloat16, as written")


# --- one forward pass, as the command reports it -------------------------------------------


@dataclass(frozen=True)
class Prediction:
    """The next token after ``text``: its tokens, the top predictions and the stream's RMS block by block."""

    weights: np.ndarray  # the path of the file read (a 0-d string array)
    token_ids: np.ndarray
    tokens: np.ndarray
    top: np.ndarray  # (TOP,) token ids, best first
    top_tokens: np.ndarray
    top_probabilities: np.ndarray
    residual_rms: np.ndarray  # last position: after the embedding, then each block (the last: the final norm's input)

    def as_json(self) -> dict:
        return {
            "weights": str(self.weights),
            "token_ids": self.token_ids.tolist(),
            "tokens": self.tokens.tolist(),
            "top": [[int(token), float(p)] for token, p in zip(self.top, self.top_probabilities)],
            "top_tokens": self.top_tokens.tolist(),
            "residual_rms": self.residual_rms.tolist(),
        }


def probabilities(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, in float64 so that small probabilities and their logarithms keep their digits."""
    return llama.softmax(logits.astype(np.float64))


def rms(x: np.ndarray) -> np.ndarray:
    """Each row's root mean square, in float64."""
    return np.sqrt(np.mean(np.square(x.astype(np.float64)), axis=-1))


def checked_text(text: str) -> str:
    """``text``, where it is Unicode; a lone surrogate (bytes a shell passed on that no encoding decoded) is refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RMSNormError("the text holds bytes that are not UTF-8; expected text") from None
    return text


def prediction_of(model: smollm2.Model, text: str, top: int = TOP) -> Prediction:
    """The model's next token after ``text``; an empty text, an overlong one or one that is not Unicode is refused."""
    token_ids = model.encode(checked_text(text))
    if not 0 < len(token_ids) <= MAX_TOKENS:
        raise RMSNormError(f"the text is {len(token_ids)} tokens long; expected 1 to {MAX_TOKENS} tokens")
    trace = llama.forward(model.weights, model.config, token_ids)
    p = probabilities(trace.logits[-1])
    best = np.argsort(-p, kind="stable")[:top]
    return Prediction(
        weights=np.array(str(model.path)),
        token_ids=np.array(token_ids, dtype=np.int64),
        tokens=np.array([model.token(token) for token in token_ids]),
        top=best,
        top_tokens=np.array([model.token(token) for token in best]),
        top_probabilities=p[best],
        residual_rms=rms(trace.stream[:, -1]),
    )


def predict(text: str) -> Prediction:
    """``prediction_of`` the installed model, cached per text (see ``cached``): the text is checked first."""
    text, weights = checked_text(text), smollm2.checked(smollm2.weights_path())
    return cached("prediction", text, weights, lambda: prediction_of(smollm2.load(), text), Prediction)


# --- the measurements ------------------------------------------------------------------------


@dataclass(frozen=True)
class Measurements:
    """Every value the chapter's page on the real model reads. P prompts, N = 2 * blocks + 1 norms, E epsilons."""

    prompts: np.ndarray  # (P,)
    predicted: np.ndarray  # (P,) each prompt's top next token, as text
    # the file
    shape: np.ndarray  # (8,) the file's Config, in its fields' order (``shape_of``)
    formats: np.ndarray  # (F,) the formats the file stores tensors in: F32, Q8_0, Q4_1
    format_counts: np.ndarray  # (F,) how many tensors in each
    norm_names: np.ndarray  # (N,) "block 1 attention", "block 1 feed-forward", ..., "final"
    # depth
    residual_rms: np.ndarray  # (P, blocks + 1) after the embedding, then after each block
    first_position_rms: np.ndarray  # (P, blocks + 1) the same at the first position, for contrast
    input_rms: np.ndarray  # (P, N) the RMS of what each norm read
    output_rms: np.ndarray  # (P, N) the RMS of what it handed its branch
    gain_rms: np.ndarray  # (N,) sqrt(mean(g**2)): the output's RMS if x-hat were spread evenly
    # the gains
    gain_mean: np.ndarray  # (N,)
    gain_low: np.ndarray  # (N,) the 10th percentile
    gain_high: np.ndarray  # (N,) the 90th
    # outliers and pRMSNorm
    outlier_channel: np.ndarray  # (P, N) the channel of largest magnitude in what each norm read
    outlier_value: np.ndarray  # (P, N) its value
    outlier_share: np.ndarray  # (P, N) its square over the row's sum of squares
    partial_share: np.ndarray  # () p, the share of a row pRMSNorm reads
    partial_values: np.ndarray  # () how many values that is
    partial_error: np.ndarray  # (P, N) |RMS of the first p / RMS - 1|
    # precision
    precisions: np.ndarray  # (3,) PRECISIONS
    precision_error: np.ndarray  # (3, P, N) worst |y - exact| over the row's largest |exact|
    largest_square: np.ndarray  # (P, N) the largest square of the row rounded to float16
    float16_overflows: np.ndarray  # (P, N) how many of those squares exceed FLOAT16_LARGEST
    # eps
    epsilons: np.ndarray  # (E,) the model's own first
    eps_top: np.ndarray  # (E, P) top token id at each eps
    eps_top_tokens: np.ndarray  # (E, P) as text
    eps_kept_probability: np.ndarray  # (E, P) the probability of the model's own top token
    eps_kl: np.ndarray  # (E, P) KL(model's eps || this eps) of the next-token distributions, in nats
    places: np.ndarray  # (3,) PLACES
    place_epsilons: np.ndarray  # (S,) PLACE_EPSILONS
    place_kl: np.ndarray  # (3, S, P) the KL with eps raised at that place only, every other norm at the model's
    place_changed: np.ndarray  # (3, S, P) whether the top token changed
    # LayerNorm in place of RMSNorm
    layer_norm_top_tokens: np.ndarray  # (P,)
    layer_norm_kl: np.ndarray  # (P,) KL(RMSNorm || LayerNorm), last position, in nats
    layer_norm_agreement: np.ndarray  # (P,) the share of positions whose top token is the same
    mean_over_rms: np.ndarray  # (P, N) |mean(x)| / RMS(x): all LayerNorm removes that RMSNorm keeps
    # gains folded into the projections
    fold_max_difference: np.ndarray  # (P,) largest |logit difference| over every position and token
    fold_largest_logit: np.ndarray  # (P,) largest |logit|, the scale that difference is rounding of
    fold_same_top: np.ndarray  # (P,) every position's top token the same


def shape_of(m: Measurements) -> llama.Config:
    """The model's shape, as the measurements keep it."""
    values = dict(zip((field.name for field in dataclasses.fields(llama.Config)), m.shape.tolist()))
    return llama.Config(
        **{name: value if name in ("rope_base", "eps") else int(value) for name, value in values.items()}
    )


def norm_names(blocks: int) -> list[str]:
    pairs = [f"block {n} {part}" for n in range(1, blocks + 1) for part in ("attention", "feed-forward")]
    return [*pairs, "final"]


def gain_statistics(weights: llama.Weights) -> dict[str, np.ndarray]:
    gains = np.stack(llama.norm_gains(weights)).astype(np.float64)
    return {
        "gain_rms": rms(gains),
        "gain_mean": gains.mean(axis=-1),
        "gain_low": np.percentile(gains, 10, axis=-1),
        "gain_high": np.percentile(gains, 90, axis=-1),
    }


def outliers(rows: np.ndarray) -> dict[str, np.ndarray]:
    """Each row's largest channel, its value and its share of the row's sum of squares."""
    rows = rows.astype(np.float64)
    channel = np.argmax(np.abs(rows), axis=-1)
    value = np.take_along_axis(rows, channel[..., None], axis=-1)[..., 0]
    return {"outlier_channel": channel, "outlier_value": value, "outlier_share": value**2 / np.sum(rows**2, axis=-1)}


def bfloat16_formula(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    """The formula with every value and every step rounded to bfloat16 (sums accumulate in float32, as kernels do)."""
    x, gain = to_bfloat16(x), to_bfloat16(gain)
    mean_square = to_bfloat16(np.mean(to_bfloat16(x * x), axis=-1, keepdims=True))
    inverse = to_bfloat16(1 / np.sqrt(mean_square + np.float32(eps)))
    return to_bfloat16(to_bfloat16(x * inverse) * gain)


def precision(rows: np.ndarray, gain: np.ndarray, eps: float) -> dict[str, np.ndarray]:
    """The norm of float32 ``rows`` in three formats, each against the exact result (float64 on the float32 rows).

    numpy sums float16 values in float32 (its documented policy), so the formula as written
    overflows here only where a square does; an accumulator kept in float16 would overflow
    sooner, once the sum of squares (width times the mean square) passes 65504.
    """
    exact = rms_norm_formula(rows.astype(np.float64), gain.astype(np.float64), eps)
    half, half_gain = rows.astype(np.float16), gain.astype(np.float16)
    with np.errstate(over="ignore", invalid="ignore"):
        results = (rms_norm_formula(half, half_gain, eps), rms_norm(half, half_gain, eps))
        results += (bfloat16_formula(rows, gain, eps),)
        squares = np.square(np.abs(half).max(axis=-1).astype(np.float64))
    scale = np.abs(exact).max(axis=-1)
    errors = [np.abs(np.nan_to_num(y.astype(np.float64), nan=np.inf) - exact).max(axis=-1) / scale for y in results]
    overflows = np.sum(np.square(half.astype(np.float64)) > FLOAT16_LARGEST, axis=-1)
    return {"precision_error": np.stack(errors), "largest_square": squares, "float16_overflows": overflows}


def kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """KL(p || q) over the last axis, in nats; 0 log 0 counts as 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)
    return terms.sum(axis=-1)


def layer_norm(eps: float) -> llama.Norm:
    """LayerNorm with the RMSNorm's gain and no bias (the model has none to give it)."""
    return lambda x, gain: layer_norm_formula(x, gain, np.zeros_like(gain), eps)


def folded(weights: llama.Weights) -> llama.Weights:
    """Every gain merged into the projections that read its norm's output (``fold_gain``); the norms keep none.

    The merged matrices are stored in float32, as an inference engine would keep them.
    """

    def fold(gain: np.ndarray, w: np.ndarray) -> np.ndarray:  # w is (out, in): (g * x) @ w.T = x @ (w * g).T
        return np.ascontiguousarray(fold_gain(gain, w.T).T, dtype=llama.DTYPE)

    blocks = tuple(
        dataclasses.replace(
            block,
            attention_norm=None,
            wq=fold(block.attention_norm, block.wq),
            wk=fold(block.attention_norm, block.wk),
            wv=fold(block.attention_norm, block.wv),
            ffn_norm=None,
            w1=fold(block.ffn_norm, block.w1),
            w3=fold(block.ffn_norm, block.w3),
        )
        for block in weights.blocks
    )
    return llama.Weights(weights.embedding, blocks, None, fold(weights.norm, weights.output))


def eps_sweep(model: smollm2.Model, token_ids: list[list[int]], reference: np.ndarray) -> dict[str, np.ndarray]:
    """The last position's next-token distribution at each eps, against the model's own (``reference``, (P, vocab))."""
    epsilons = (model.config.eps, *EPSILONS)
    found: dict[str, list] = {"eps_top": [], "eps_kept_probability": [], "eps_kl": []}
    own_top = reference.argmax(axis=-1)
    for eps in epsilons:
        p = np.stack([probabilities(run(model, ids, functools.partial(rms_norm, eps=eps))[-1]) for ids in token_ids])
        found["eps_top"].append(p.argmax(axis=-1))
        found["eps_kept_probability"].append(p[np.arange(len(p)), own_top])
        found["eps_kl"].append(kl(reference, p))
    tokens = [[model.token(token) for token in row] for row in found["eps_top"]]
    found = {name: np.array(values) for name, values in found.items()}
    return {"epsilons": np.array(epsilons), "eps_top_tokens": np.array(tokens), **found}


def eps_at(eps: float, own: float, chosen: list[np.ndarray]) -> llama.Norm:
    """RMSNorm at ``eps`` for the gains in ``chosen`` (the very arrays), at the model's ``own`` eps for the others."""
    ids = {id(gain) for gain in chosen}
    return lambda x, gain: rms_norm(x, gain, eps if id(gain) in ids else own)


def eps_by_place(model: smollm2.Model, token_ids: list[list[int]], reference: np.ndarray) -> dict[str, np.ndarray]:
    """eps raised at one place only (``PLACES``): the KL from the model's own distribution, and the top changed."""
    gains = llama.norm_gains(model.weights)
    found: dict[str, list] = {"place_kl": [], "place_changed": []}
    for chosen in ([gains[0]], [gains[1]], gains[2:]):
        p = np.array(
            [
                [probabilities(run(model, ids, eps_at(eps, model.config.eps, chosen))[-1]) for ids in token_ids]
                for eps in PLACE_EPSILONS
            ]
        )  # (S, P, vocab)
        found["place_kl"].append(kl(reference, p))
        found["place_changed"].append(p.argmax(axis=-1) != reference.argmax(axis=-1))
    arrays = {name: np.array(values) for name, values in found.items()}
    return {"places": np.array(PLACES), "place_epsilons": np.array(PLACE_EPSILONS), **arrays}


def run(
    model: smollm2.Model, token_ids: list[int], norm: llama.Norm | None = None, weights: llama.Weights | None = None
) -> np.ndarray:
    """The logits at every position, with another norm or other weights."""
    return llama.forward(model.weights if weights is None else weights, model.config, token_ids, norm).logits


def layer_norm_swap(model: smollm2.Model, token_ids: list[list[int]], traces: list[llama.Trace]) -> dict:
    """LayerNorm in place of every RMSNorm, the weights unchanged: the next token, its KL and the top-1 agreement."""
    found: dict[str, list] = {"layer_norm_top_tokens": [], "layer_norm_kl": [], "layer_norm_agreement": []}
    for ids, trace in zip(token_ids, traces):
        swapped = run(model, ids, layer_norm(model.config.eps))
        found["layer_norm_top_tokens"].append(model.token(swapped[-1].argmax()))
        found["layer_norm_kl"].append(kl(probabilities(trace.logits[-1]), probabilities(swapped[-1])))
        found["layer_norm_agreement"].append(np.mean(swapped.argmax(axis=-1) == trace.logits.argmax(axis=-1)))
    return {name: np.array(values) for name, values in found.items()}


def folding(model: smollm2.Model, token_ids: list[list[int]], traces: list[llama.Trace]) -> dict:
    """The gains folded into the projections: how far every logit moves, against the largest logit."""
    merged = folded(model.weights)
    found: dict[str, list] = {"fold_max_difference": [], "fold_largest_logit": [], "fold_same_top": []}
    for ids, trace in zip(token_ids, traces):
        logits = run(model, ids, weights=merged)
        found["fold_max_difference"].append(np.abs(logits.astype(np.float64) - trace.logits).max())
        found["fold_largest_logit"].append(np.abs(trace.logits).max())
        found["fold_same_top"].append(np.array_equal(logits.argmax(axis=-1), trace.logits.argmax(axis=-1)))
    return {name: np.array(values) for name, values in found.items()}


def measure(model: smollm2.Model, prompts: tuple[str, ...] = PROMPTS) -> Measurements:
    """Every measurement, from one forward pass per prompt and per variant (about 50 passes)."""
    token_ids = [model.encode(prompt) for prompt in prompts]
    traces = [llama.forward(model.weights, model.config, ids) for ids in token_ids]
    rows = np.stack([trace.norm_inputs()[:, -1] for trace in traces])  # (P, N, width): what each norm read, last
    gains = llama.norm_gains(model.weights)
    normalized = np.stack([rms_norm(rows[:, n], gain, model.config.eps) for n, gain in enumerate(gains)], axis=1)
    precisions = [precision(rows[:, n], gain, model.config.eps) for n, gain in enumerate(gains)]
    reference = np.stack([probabilities(trace.logits[-1]) for trace in traces])
    mean = np.abs(rows.astype(np.float64).mean(axis=-1))
    return Measurements(
        prompts=np.array(prompts),
        shape=np.array([float(getattr(model.config, field.name)) for field in dataclasses.fields(model.config)]),
        formats=np.array(list(model.formats)),
        format_counts=np.array(list(model.formats.values())),
        predicted=np.array([model.token(p.argmax()) for p in reference]),
        norm_names=np.array(norm_names(model.config.blocks)),
        residual_rms=np.stack([rms(trace.stream[:, -1]) for trace in traces]),
        first_position_rms=np.stack([rms(trace.stream[:, 0]) for trace in traces]),
        input_rms=rms(rows),
        output_rms=rms(normalized),
        **gain_statistics(model.weights),
        **outliers(rows),
        partial_share=np.array(SHARE),
        partial_values=np.array(values_read(SHARE, model.config.width)),
        partial_error=partial_error(rows.reshape(-1, rows.shape[-1]).astype(np.float64), SHARE).reshape(rows.shape[:2]),
        precisions=np.array(PRECISIONS),
        **{key: np.stack([found[key] for found in precisions], axis=-1) for key in precisions[0]},
        **eps_sweep(model, token_ids, reference),
        **eps_by_place(model, token_ids, reference),
        **layer_norm_swap(model, token_ids, traces),
        mean_over_rms=mean / rms(rows),
        **folding(model, token_ids, traces),
    )


def measurements(prompts: tuple[str, ...] = PROMPTS) -> Measurements:
    """``measure`` the installed model, cached (see ``cached``)."""
    weights = smollm2.checked(smollm2.weights_path())
    return cached("measurements", "\n".join(prompts), weights, lambda: measure(smollm2.load(), prompts), Measurements)


# --- caching what was measured ---------------------------------------------------------------


def cached(kind: str, question: str, weights: str, compute: Callable[[], object], record: type):
    """``compute()``, or the value cached for the same question, weights (their sha256), versions and sources."""
    versions = [f"{name} {importlib.metadata.version(name)}" for name in ("gguf", "tokenizers")]
    return cache.record(f"smollm2-{kind}", [question, weights, *versions], compute, record)
