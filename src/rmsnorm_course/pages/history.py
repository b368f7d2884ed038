"""From BatchNorm and LayerNorm to RMSNorm in language models: where the statistics come from, on rows and batches."""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.format import fmt, given
from ..studies import evidence, example
from ..studies.comparison import (
    ACTIVATION_OFFSET,
    ACTIVATION_SEED,
    ACTIVATION_SHAPE,
    ActivationComparison,
    Statistics,
    activation_comparison,
    identities,
)
from ..studies.evidence import History
from ..studies.example import ANCHOR, COMPANION
from ..studies.thresholds import ROUNDING
from ..views.figures import STYLES, for_phones, legend, new_axes
from ..views.tables import markdown_table
from . import COURSE, EPS, holds

if TYPE_CHECKING:
    from IPython.display import Markdown
    from matplotlib.figure import Figure

SIDE_BY_SIDE_EPS = 1e-6


class SmallRMSNorm:
    """One statistic per row: the mean square."""

    def __init__(self, width: int, eps: float = SIDE_BY_SIDE_EPS):
        self.eps, self.gain = eps, np.ones(width)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        mean_square = np.mean(x**2, axis=-1, keepdims=True)
        return self.gain * x / np.sqrt(mean_square + self.eps)


class SmallLayerNorm:
    """Two statistics per row: the mean, subtracted, and the
    variance."""

    def __init__(self, width: int, eps: float = SIDE_BY_SIDE_EPS):
        self.eps, self.gain = eps, np.ones(width)
        self.bias = np.zeros(width)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        centred = x - np.mean(x, axis=-1, keepdims=True)
        variance = np.mean(centred**2, axis=-1, keepdims=True)
        normalized = centred / np.sqrt(variance + self.eps)
        return self.gain * normalized + self.bias


def code_lines(method) -> int:
    """The lines of a method's body that do the work: no signature, docstring or blank line."""
    body = inspect.getsource(method).splitlines()[1:]
    return sum(1 for line in body if line.strip() and not line.strip().startswith(('"""', "#")))


def statistics(offset: float = 0.0, seed: int = 0) -> dict[str, Statistics]:
    """Mean, standard deviation and RMS of seeded activations, and of both classes' outputs."""
    x = np.random.default_rng(seed).standard_normal(ACTIVATION_SHAPE) + offset
    width = ACTIVATION_SHAPE[-1]
    return ActivationComparison(x, SmallRMSNorm(width)(x), SmallLayerNorm(width)(x)).statistics()


def values() -> SimpleNamespace:
    activations = activation_comparison()
    tie = identities(activations)
    holds(tie.layer_norm_as_rms_norm_of_centered <= 100 * ROUNDING, "LayerNorm(x) = RMSNorm(x - mean)")
    holds(tie.mean_square_split <= 100 * ROUNDING, "the mean square splits into mean squared plus variance")
    h = evidence.history()
    holds(not np.allclose(h.batch_with_companion, h.batch_with_itself), "BatchNorm's output changes")
    holds(np.array_equal(h.layer_norm_with_companion, h.layer_norm_with_itself), "LayerNorm ignores the companion")
    holds(np.array_equal(h.rms_norm_with_companion, h.rms_norm_with_itself), "RMSNorm ignores the companion")
    stats = activations.statistics()
    holds(abs(stats["RMSNorm"].rms - 1) < 1e-5, "both outputs have RMS one")
    holds(abs(stats["LayerNorm"].mean) < 1e-12, "LayerNorm's mean is zero to rounding")
    zero_mean = statistics()
    rms_lines = code_lines(SmallRMSNorm.__call__)
    layer_lines = code_lines(SmallLayerNorm.__call__)
    holds(rms_lines < layer_lines, "RMSNorm's code is shorter")
    holds(abs(zero_mean["RMSNorm"].rms - 1) < 1e-5 and abs(zero_mean["LayerNorm"].mean) < 1e-12, "zero-mean rows")
    return SimpleNamespace(
        rms_lines=f"{rms_lines} line{'s' * (rms_lines != 1)}",
        layer_lines=layer_lines,
        side_eps=f"{SIDE_BY_SIDE_EPS:g}",
        side_shape=str(ACTIVATION_SHAPE),
        zero_mean=zero_mean,
        zero_rms_mean=f"{zero_mean['RMSNorm'].mean:.6f}",
        zero_rms_std=f"{zero_mean['RMSNorm'].std:.6f}",
        zero_ln_std=f"{zero_mean['LayerNorm'].std:.6f}",
        anchor=given(example.ANCHOR),
        companion=given(example.COMPANION),
        eps=f"{example.EPS:g}",
        activations=activations,
        identity_rows=f"{int(np.prod(activations.inputs.shape[:-1])):,}",
        identity_layer=f"{tie.layer_norm_as_rms_norm_of_centered:.1e}",
        identity_split=f"{tie.mean_square_split:.1e}",
        history=h,
        bn_a=fmt(h.batch_with_companion),
        bn_b=fmt(h.batch_with_itself),
        ln=fmt(h.layer_norm_with_companion),
        rms=fmt(h.rms_norm_with_companion),
        rms_mean=fmt(h.rms_mean),
        stats=stats,
        shape=str(ACTIVATION_SHAPE),
        offset=f"{ACTIVATION_OFFSET:g}",
        seed=str(ACTIVATION_SEED),
        rms_out_mean=f"{stats['RMSNorm'].mean:.3f}",
        rms_out_rms=f"{stats['RMSNorm'].rms:.6f}",
        ln_out_mean=f"{stats['LayerNorm'].mean:.1e}",
        ln_out_std=f"{stats['LayerNorm'].std:.6f}",
    )


COMPANION_OPTIONS = {  # what BatchNorm could give the anchor next to a copy of itself -> the option that says so
    "centred": "[-1, 1]: centred on its own mean",
    "zeros": "[0, 0]: zero in both features",
    "unchanged": "[1, 3]: the row left as it is",
    "nan": "NaN: the batch variance is 0",
}


def _batch_norm_option(h: evidence.History) -> str:
    """The option that says what BatchNorm gave the anchor next to a copy of itself."""
    output = h.batch_with_itself
    for key, same in (
        ("nan", np.all(np.isnan(output))),
        ("zeros", np.all(output == 0)),
        ("centred", np.allclose(output, h.layer_norm_with_itself, atol=1e-5)),
        ("unchanged", np.allclose(output, example.ANCHOR, atol=1e-5)),
    ):
        if same:
            return COMPANION_OPTIONS[key]
    raise AssertionError(f"BatchNorm gave {fmt(output)}, which no option says")


@COURSE.exercise(
    "companion-changes",
    "BatchNorm next to a copy",
    f"At eps = {EPS:g}, BatchNorm (in training) normalizes a batch of two rows: {given(example.ANCHOR)} and a "
    "copy of it. What does it give for the first row?",
    Choice.of(
        {
            COMPANION_OPTIONS["centred"]: (
                "That centres the row on its own mean, as LayerNorm does; BatchNorm centres each feature on its mean "
                "over the batch."
            ),
            COMPANION_OPTIONS["zeros"]: RIGHT,
            COMPANION_OPTIONS["unchanged"]: (
                "BatchNorm centres and scales every feature, whatever the batch; what is each feature's mean here?"
            ),
            COMPANION_OPTIONS["nan"]: (
                "The variance is 0, but BatchNorm adds eps to it before the square root: look at the numerator."
            ),
        }
    ),
    "BatchNorm subtracts from each feature its mean over the examples of the batch: what is that mean here?",
)
def _companion_changes() -> Solution:
    h = evidence.history()
    return Solution(
        _batch_norm_option(h),
        "[0, 0]: with two equal rows, each feature's mean over the batch is the row's own value, so nothing is "
        "left after centring: the numerator is 0 in both features.",
        detail=(
            f"Next to {given(example.COMPANION)} BatchNorm gives {fmt(h.batch_with_companion)} instead: the companion "
            f"changes it. LayerNorm gives {fmt(h.layer_norm_with_companion)} and RMSNorm (eps = 0) "
            f"{fmt(h.rms_norm_with_companion)} next to either."
        ),
    )


@for_phones
def activation_histograms(comparison: ActivationComparison, bins: int = 120) -> Figure:
    """Input, RMSNorm output and LayerNorm output of the same activations, overlapping."""
    fig, (ax,) = new_axes(6.8, 3.6)
    edges = np.linspace(-5, 7, bins + 1)
    series = (("input", comparison.inputs), ("RMSNorm", comparison.rms_normed), ("LayerNorm", comparison.layer_normed))
    for (label, values), (style, colour, _) in zip(series, STYLES):
        outline = {"histtype": "step", "linestyle": style, "color": colour, "linewidth": 1.6}
        ax.hist(values.ravel(), bins=edges, density=True, label=f"{label} (mean {np.mean(values):.2f})", **outline)
    ax.set_xlabel("activation value")
    ax.set_ylabel("density")
    legend(ax)
    ax.grid(True, alpha=0.3)
    return fig


AXES = (
    ("BatchNorm", "columns", "mean and variance per feature,\nover the batch"),
    ("LayerNorm", "rows", "mean and variance per example,\nover its features"),
    ("RMSNorm", "rows", "mean square per example,\nover its features"),
)


@for_phones
def axes_figure(batch: int = 4, features: int = 6) -> Figure:
    """Which cells of a [batch, feature] grid share one statistic, for each normalization."""
    from matplotlib.patches import Rectangle

    fig, axes = new_axes(9.0, 2.9, columns=3)
    for ax, (name, groups, statistic), (style, colour, _) in zip(axes, AXES, STYLES):
        for row in range(batch):
            for column in range(features):
                ax.add_patch(Rectangle((column, row), 1, 1, facecolor="#F2F2F2", edgecolor="white", linewidth=1))
        count = features if groups == "columns" else batch
        for k in range(count):
            corner, size = ((k, 0), (1, batch)) if groups == "columns" else ((0, k), (features, 1))
            ax.add_patch(
                Rectangle(
                    corner,
                    *size,
                    fill=False,
                    edgecolor=colour,
                    linewidth=2.2,
                    linestyle=style,
                    hatch="//" if k % 2 else "",
                    label="one statistic" if k == 0 else None,
                )
            )
        ax.set_xlim(-0.1, features + 0.1)
        ax.set_ylim(batch + 0.1, -0.1)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel("feature →")
        ax.set_ylabel("example in the batch →")
        ax.set_title(f"{name}\n{statistic}", fontsize=9)
    return fig


def history_table(h: History) -> Markdown:
    """The anchor's output from each norm, next to each companion, with the eps each ran at."""
    return markdown_table(
        [f"output for anchor {given(ANCHOR)}", *(f"batch companion {given(c)}" for c in (COMPANION, ANCHOR))],
        [
            [f"BatchNorm (training mode, eps = {EPS:g})", fmt(h.batch_with_companion), fmt(h.batch_with_itself)],
            [f"LayerNorm (eps = {EPS:g})", fmt(h.layer_norm_with_companion), fmt(h.layer_norm_with_itself)],
            ["RMSNorm (eps = 0)", fmt(h.rms_norm_with_companion), fmt(h.rms_norm_with_itself)],
        ],
    )


def statistics_table(statistics: dict[str, Statistics]) -> Markdown:
    return markdown_table(
        ["values", "mean", "standard deviation", "RMS"],
        [[name, f"{s.mean:.6f}", f"{s.std:.6f}", f"{s.rms:.6f}"] for name, s in statistics.items()],
    )
