"""Does the centre matter in training? The three networks' start, their curves, and what they do and do not show."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.rmsnorm import rms_norm, rms_norm_backward
from ..studies import cache
from ..studies.example import EPS
from ..studies.formulas import layer_norm_formula, layer_norm_formula_backward
from ..studies.threads import one_blas_thread
from ..views.figures import SMALLEST_TEXT, STYLES, for_phones, new_axes
from . import COURSE, holds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NONE, LAYER_NORM, RMS_NORM = "no normalization", "LayerNorm", "RMSNorm"
VARIANTS = (NONE, LAYER_NORM, RMS_NORM)


@dataclass(frozen=True)
class Setup:
    """The experiment's sizes and schedule: all three variants train in about two seconds on one core.

    128 examples are enough for every claim the page makes to hold with a wide margin.
    """

    depth: int = 16
    width: int = 32
    hidden: int = 64
    inputs: int = 16
    outputs: int = 4
    examples: int = 128
    noise: float = 0.1  # the targets' noise: no model can go below noise**2, so none chases rounding
    steps: int = 100
    learning_rate: float = 3e-3
    eps: float = EPS
    seed: int = 0


@dataclass(frozen=True)
class Run:
    """One variant's training: the loss at every step, the stream's RMS after each block, the trained weights."""

    variant: str
    losses: np.ndarray  # (steps + 1,): before the first update, then after each
    stream_rms_before: np.ndarray  # (depth + 1,): RMS of h_0 .. h_depth at initialisation
    stream_rms_after: np.ndarray  # the same after training
    held_out_loss: float  # after training, on examples it never saw
    weights: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)  # trained, by name

    @property
    def final_loss(self) -> float:
        return float(self.losses[-1])


# --- the normalizations, each a forward that returns its backward -------------------------


def _identity(h: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float):
    return h, lambda grad: (grad, np.zeros_like(gain), np.zeros_like(bias))


def _rms_norm(h: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float):
    def backward(grad: np.ndarray):
        grad_h, grad_gain = rms_norm_backward(h, gain, eps, grad)
        return grad_h, grad_gain, np.zeros_like(bias)

    return rms_norm(h, gain, eps), backward


def _layer_norm(h: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float):
    return layer_norm_formula(h, gain, bias, eps), lambda grad: layer_norm_formula_backward(h, gain, eps, grad)


NORMS: dict[str, Callable] = {NONE: _identity, LAYER_NORM: _layer_norm, RMS_NORM: _rms_norm}


# --- data, weights, one step --------------------------------------------------------------


def task(setup: Setup, held_out: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and noisy targets of a seeded teacher: a random two-layer tanh network.

    ``held_out`` draws fresh inputs and noise for the same teacher: examples never trained on.
    """
    rng = np.random.default_rng(setup.seed)
    teacher_in = rng.standard_normal((setup.inputs, 2 * setup.inputs)) / np.sqrt(setup.inputs)
    teacher_out = rng.standard_normal((2 * setup.inputs, setup.outputs)) / np.sqrt(2 * setup.inputs)
    if held_out:
        rng = np.random.default_rng(setup.seed + 2)
    x = rng.standard_normal((setup.examples, setup.inputs))
    clean = np.tanh(2 * x @ teacher_in) @ teacher_out
    return x, clean + setup.noise * rng.standard_normal(clean.shape)


def initial_weights(setup: Setup) -> dict[str, np.ndarray]:
    """The usual fan-in scaling for every matrix; gains 1, biases 0. The same for every variant."""
    rng = np.random.default_rng(setup.seed + 1)
    weights = {"in": rng.standard_normal((setup.inputs, setup.width)) / np.sqrt(setup.inputs)}
    for block in range(setup.depth):
        weights[f"{block}.up"] = rng.standard_normal((setup.width, setup.hidden)) * np.sqrt(2 / setup.width)
        weights[f"{block}.down"] = rng.standard_normal((setup.hidden, setup.width)) / np.sqrt(setup.hidden)
    for norm in [*map(str, range(setup.depth)), "final"]:
        weights[f"{norm}.gain"], weights[f"{norm}.bias"] = np.ones(setup.width), np.zeros(setup.width)
    weights["out"] = rng.standard_normal((setup.width, setup.outputs)) / np.sqrt(setup.width)
    return weights


def loss_and_gradients(
    weights: dict[str, np.ndarray], x: np.ndarray, targets: np.ndarray, variant: str, setup: Setup
) -> tuple[float, dict[str, np.ndarray], np.ndarray]:
    """Mean squared error, its gradient for every weight, and the stream's RMS after each block."""
    norm = NORMS[variant]
    grads: dict[str, np.ndarray] = {}
    h = x @ weights["in"]
    stream_rms, backwards = [_rms(h)], []
    for block in range(setup.depth):
        normed, norm_backward = norm(h, weights[f"{block}.gain"], weights[f"{block}.bias"], setup.eps)
        hidden = np.maximum(normed @ weights[f"{block}.up"], 0.0)
        h = h + hidden @ weights[f"{block}.down"]
        backwards.append((block, normed, hidden, norm_backward))
        stream_rms.append(_rms(h))
    normed, final_backward = norm(h, weights["final.gain"], weights["final.bias"], setup.eps)
    error = normed @ weights["out"] - targets
    loss = float(np.mean(np.square(error)))

    grad_y = 2 * error / error.size
    grads["out"] = normed.T @ grad_y
    grad_h, grads["final.gain"], grads["final.bias"] = final_backward(grad_y @ weights["out"].T)
    for block, normed, hidden, norm_backward in reversed(backwards):
        grads[f"{block}.down"] = hidden.T @ grad_h
        grad_hidden = (grad_h @ weights[f"{block}.down"].T) * (hidden > 0)
        grads[f"{block}.up"] = normed.T @ grad_hidden
        grad_normed, grads[f"{block}.gain"], grads[f"{block}.bias"] = norm_backward(
            grad_hidden @ weights[f"{block}.up"].T
        )
        grad_h = grad_h + grad_normed
    grads["in"] = x.T @ grad_h
    return loss, grads, np.array(stream_rms)


def _flat(weights: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The weights as views into one flat vector, and that vector."""
    flat = np.concatenate([value.ravel() for value in weights.values()])
    views, start = {}, 0
    for name, value in weights.items():
        views[name] = flat[start : start + value.size].reshape(value.shape)
        start += value.size
    return views, flat


def _rms(h: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(h))))


@one_blas_thread  # the matrices are 256 x 32 x 64: more threads only wait on each other
def train(variant: str, setup: Setup = Setup()) -> Run:
    """Full-batch Adam from the shared initial weights; the loss before each update and after the last.

    Every weight is a view into one flat vector, so each Adam step is a few numpy
    operations on that vector rather than a few per weight: the same arithmetic on
    every element.
    """
    x, targets = task(setup)
    weights, flat = _flat(initial_weights(setup))
    first, second = np.zeros_like(flat), np.zeros_like(flat)
    beta1, beta2, tiny = 0.9, 0.999, 1e-8
    losses, streams = [], []
    for step in range(1, setup.steps + 1):
        loss, grads, stream = loss_and_gradients(weights, x, targets, variant, setup)
        losses.append(loss)
        streams.append(stream)
        grad = np.concatenate([grads[name].ravel() for name in weights])
        first = beta1 * first + (1 - beta1) * grad
        second = beta2 * second + (1 - beta2) * grad**2
        corrected = first / (1 - beta1**step)
        flat -= setup.learning_rate * corrected / (np.sqrt(second / (1 - beta2**step)) + tiny)
    loss, _, stream = loss_and_gradients(weights, x, targets, variant, setup)
    losses.append(loss)
    streams.append(stream)
    held_out_loss, _, _ = loss_and_gradients(weights, *task(setup, held_out=True), variant, setup)
    trained = {name: value.copy() for name, value in weights.items()}
    return Run(variant, np.array(losses), streams[0], streams[-1], held_out_loss, trained)


@functools.cache  # the page and its prediction box ask for the same seeded runs
def experiment(setup: Setup = Setup()) -> dict[str, Run]:
    """All three variants on the same data from the same initial weights.

    The runs are seeded, so two processes draw them alike; where the chapter caches what
    it computes (``cache``), they are trained once between the processes that ask.
    """

    def trained() -> dict[str, np.ndarray]:
        runs = [train(variant, setup) for variant in VARIANTS]
        fields = {f"{run.variant}/{name}": np.asarray(getattr(run, name)) for run in runs for name in _FIELDS}
        weights = {f"{run.variant}/{_WEIGHT}{name}": value for run in runs for name, value in run.weights.items()}
        return {**fields, **weights}

    stored = cache.arrays("training", [repr(setup)], trained)
    return {variant: _unpacked(variant, stored) for variant in VARIANTS}


_FIELDS = ("losses", "stream_rms_before", "stream_rms_after", "held_out_loss")
_WEIGHT = "weight/"  # a cached trained weight's name: "<variant>/weight/<name>"


def _unpacked(variant: str, stored) -> Run:
    fields = {name: stored[f"{variant}/{name}"] for name in _FIELDS}
    prefix = f"{variant}/{_WEIGHT}"
    weights = {key.removeprefix(prefix): value for key, value in stored.items() if key.startswith(prefix)}
    return Run(variant, **{**fields, "held_out_loss": float(fields["held_out_loss"])}, weights=weights)


CLOSE_SHARE = 0.2  # "within a fifth of each other": the held-out losses of the two norms, relative to the lower


def apart(a: float, b: float) -> float:
    """How far apart two losses are, relative to the lower: 0.05 is 5%."""
    return abs(a - b) / min(a, b)


def values() -> SimpleNamespace:
    setup = Setup()
    runs = experiment(setup)
    none, layer, rms = (runs[v] for v in VARIANTS)
    held_out = task(setup, held_out=True)
    held_zero = float(np.mean(np.square(held_out[1])))
    ratio = np.maximum(layer.losses / rms.losses, rms.losses / layer.losses)
    widest = int(np.argmax(ratio))
    held_gap = apart(layer.held_out_loss, rms.held_out_loss)
    train_gap = apart(layer.final_loss, rms.final_loss)
    norms = (layer, rms)
    held_lower = min(norms, key=lambda run: run.held_out_loss)
    holds(none.stream_rms_before[-1] > 10 * rms.stream_rms_before[-1], "without normalization, depth compounds")
    holds(none.losses[0] > 100 * max(layer.losses[0], rms.losses[0]), "the unnormalized network starts far above")
    holds(none.final_loss > 10 * max(layer.final_loss, rms.final_loss), "the unnormalized network stays far above")
    holds(none.held_out_loss > held_zero > max(layer.held_out_loss, rms.held_out_loss), "held-out losses' order")
    holds(held_gap <= CLOSE_SHARE, "on held-out examples the two norms end within a fifth of each other")
    holds(none.held_out_loss > 10 * max(layer.held_out_loss, rms.held_out_loss), "small beside what a norm bought")
    holds(train_gap > held_gap, "on the training set the two end further apart than on new examples")
    holds(max(layer.final_loss, rms.final_loss) < min(layer.held_out_loss, rms.held_out_loss) / 5, "memorizing")
    higher_at_widest, lower_at_widest = sorted(norms, key=lambda run: -run.losses[widest])
    return SimpleNamespace(
        runs=runs,
        train_depth=setup.depth,
        train_width=setup.width,
        train_examples=setup.examples,
        train_steps=setup.steps,
        train_noise_floor=f"{setup.noise**2:g}",
        growth_none=f"{none.stream_rms_before[-1] / none.stream_rms_before[0]:.0f}",
        growth_rms=f"{rms.stream_rms_before[-1] / rms.stream_rms_before[0]:.1f}",
        growth_layer=f"{layer.stream_rms_before[-1] / layer.stream_rms_before[0]:.1f}",
        start_none=f"{none.losses[0]:,.0f}",
        start_layer=f"{layer.losses[0]:.3g}",
        start_rms=f"{rms.losses[0]:.3g}",
        start_gap=f"{apart(layer.losses[0], rms.losses[0]):.0%}",
        final_none=f"{none.final_loss:.3g}",
        final_layer=f"{layer.final_loss:.2g}",
        final_rms=f"{rms.final_loss:.2g}",
        train_gap=f"{train_gap:.0%}",
        held_none=f"{none.held_out_loss:.3g}",
        held_layer=f"{layer.held_out_loss:.3g}",
        held_rms=f"{rms.held_out_loss:.3g}",
        held_zero=f"{held_zero:.3f}",
        held_gap=f"{held_gap:.0%}",
        held_lower=held_lower.variant,
        close=f"{CLOSE_SHARE:.0%}",
        widest_gap=f"{ratio[widest] - 1:.1%}",
        widest_step=widest,
        higher_at_widest=higher_at_widest.variant,
        lower_at_widest=lower_at_widest.variant,
    )


TRAINING = {  # which network ends lowest on held-out examples
    "none": "no normalization, ahead of both norms",
    "layer": "LayerNorm, by more than a fifth",
    "rms": "RMSNorm, by more than a fifth",
    "close": "the two norms, within a fifth",
}


@COURSE.exercise(
    "training-outcome",
    "Which network generalizes best",
    "Each of the three networks is now trained for {steps} Adam steps from the start above. Which ends with the "
    "lowest loss on examples it never saw? A hunch is asked for: reason from the start.",
    Choice.of(
        {
            TRAINING["none"]: "Without a norm the stream grows with depth and the first steps are spent taming it.",
            TRAINING["layer"]: "Subtracting the mean is the one thing LayerNorm adds; does this task need it?",
            TRAINING["rms"]: "RMSNorm does less than LayerNorm, not more; what could it gain here?",
            TRAINING["close"]: RIGHT,
        }
    ),
    "Which gaps at the start were large, and which small? Training starts from there, with the same steps for all.",
    given={"steps": Setup().steps},
)
def _training_outcome(steps) -> Solution:
    runs = experiment(Setup(steps=steps))  # the same cached runs as the training page
    none, layer, rms = (runs[variant].held_out_loss for variant in VARIANTS)
    gap = apart(layer, rms)
    if none < min(layer, rms):
        key = "none"
    elif gap <= CLOSE_SHARE:
        key = "close"
    else:
        key = "layer" if layer < rms else "rms"
    lower = LAYER_NORM if layer < rms else RMS_NORM
    return Solution(
        TRAINING[key],
        f"Held-out losses: {none:.3g} without a norm, {layer:.3g} with LayerNorm, {rms:.3g} with RMSNorm.",
        detail=f"The two norms end {gap:.0%} apart, and {lower}'s is the lower, on this one seed.",
    )


@for_phones
def training_figure(runs: dict[str, Run]) -> Figure:
    """Loss per step, and the residual stream's RMS after each block before and after training."""
    from matplotlib.ticker import MaxNLocator

    fig, (losses, stream) = new_axes(8.6, 4.0, columns=2)
    for run, (style, colour, marker) in zip(runs.values(), STYLES):
        steps = np.arange(run.losses.size)
        losses.plot(steps, run.losses, style, color=colour, marker=marker, markevery=50, label=run.variant)
        blocks = np.arange(run.stream_rms_before.size)
        for rms, when, look in (
            (run.stream_rms_before, "at the start", {"markerfacecolor": "white"}),
            (run.stream_rms_after, "after training", {"alpha": 0.6}),
        ):
            stream.plot(blocks, rms, style, color=colour, marker=marker, label=f"{run.variant}, {when}", **look)
    losses.set_yscale("log")
    losses.set_xlabel("training step")
    losses.set_ylabel("mean squared error (log scale)")
    losses.legend(fontsize=SMALLEST_TEXT)
    stream.set_yscale("log")
    stream.set_xlabel("block (0: after the input projection)")
    stream.xaxis.set_major_locator(MaxNLocator(integer=True))  # blocks are whole
    stream.set_ylabel("RMS of the residual stream")
    stream.legend(fontsize=SMALLEST_TEXT, loc="upper left")
    for ax in (losses, stream):
        ax.grid(True, alpha=0.3)
    return fig
