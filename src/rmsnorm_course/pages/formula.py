"""The formula and its symbols: what RMSNorm leaves out, and the sphere every row lands on."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Axis, Choice, Number, Place, Shape, Solution

from ..core.baselines import layer_norm
from ..core.format import fmt, given
from ..core.rmsnorm import rms_norm
from ..studies import evidence, example
from ..studies.example import EPS, INPUT
from ..studies.thresholds import ROUNDING
from ..views.figures import BLUE, GREEN, GREY, ORANGE, SMALLEST_TEXT, circle, for_phones, new_axes
from . import BATCH_SHAPE, COURSE, EXACT, holds, shape_example, stages_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SHRINK_SCALES = np.geomspace(1e-5, 1.0, 11)  # the worked example times these, toward zero


@dataclass(frozen=True)
class Geometry:
    """Two-dimensional inputs and where each normalization sends them."""

    inputs: np.ndarray  # (n, 2): seeded vectors of many lengths, the worked example first
    rms_images: np.ndarray  # rms_norm at eps = 0
    layer_images: np.ndarray  # LayerNorm at eps = 0
    radius: float  # sqrt(d)
    eps: float
    shrink_scales: np.ndarray
    shrink_inputs: np.ndarray  # the worked example times each scale
    shrink_images: np.ndarray  # their rms_norm at eps

    @property
    def largest_radius_error(self) -> float:
        """max | |x-hat| - sqrt(d) | over the inputs, at eps = 0: rounding only."""
        return float(np.max(np.abs(np.linalg.norm(self.rms_images, axis=-1) - self.radius)))

    @property
    def largest_layer_sum(self) -> float:
        """max |sum of LayerNorm's output|: its component along all-ones, zero to rounding."""
        return float(np.max(np.abs(self.layer_images.sum(axis=-1))))


def geometry(count: int = 24, seed: int = 0, eps: float = EPS) -> Geometry:
    """Seeded 2-D inputs with lengths from 0.1 to 10, and the worked example shrunk toward zero."""
    rng = np.random.default_rng(seed)
    angles = rng.uniform(0, 2 * np.pi, count)
    lengths = 10 ** rng.uniform(-1, 1, count)
    inputs = np.vstack([INPUT, np.column_stack([np.cos(angles), np.sin(angles)]) * lengths[:, None]])
    shrink_inputs = np.outer(SHRINK_SCALES, INPUT)
    return Geometry(
        inputs=inputs,
        rms_images=rms_norm(inputs, eps=0.0),
        layer_images=layer_norm(inputs, eps=0.0),
        radius=float(np.sqrt(inputs.shape[-1])),
        eps=eps,
        shrink_scales=SHRINK_SCALES,
        shrink_inputs=shrink_inputs,
        shrink_images=rms_norm(shrink_inputs, eps=eps),
    )


SPIKE = (10.0, 0.0, 0.0, 0.0)  # one large coordinate: RMSNorm does not clip it to one


def values() -> SimpleNamespace:
    history = evidence.history()
    spike_hat = rms_norm(np.array(SPIKE), eps=0.0)
    g = geometry()
    holds(spike_hat[0] > 1, "one coordinate well above one")
    holds(history.rms_mean > 0.5, "whose mean is not zero")
    holds(g.largest_radius_error <= 4 * ROUNDING, "every RMSNorm image lies on the circle")
    holds(g.largest_layer_sum <= 100 * ROUNDING, "every LayerNorm image sums to zero")
    holds(np.linalg.norm(g.shrink_images[0]) < 0.1 * g.radius, "the image falls inside the circle")
    return SimpleNamespace(
        spike=given(SPIKE),
        spike_hat=fmt(spike_hat),
        anchor=given(example.ANCHOR),
        anchor_hat=fmt(history.rms_norm_with_companion),
        anchor_mean=fmt(history.rms_mean),
        geometry=g,
        geometry_count=len(g.inputs),
        radius=f"{g.radius:.6f}",
        radius_error=f"{g.largest_radius_error:.1e}",
        layer_sum=f"{g.largest_layer_sum:.1e}",
        example_image=fmt(g.rms_images[0]),
        geometry_eps=f"{g.eps:g}",
        shrink_small=f"{g.shrink_scales[0]:g}",
        shrink_small_length=f"{np.linalg.norm(g.shrink_images[0]):.4f}",
    )


@COURSE.exercise(
    "row-count",
    "How many mean squares",
    f"An input has shape [B, T, d] = {list(BATCH_SHAPE)}. How many mean squares does RMSNorm compute for it?",
    EXACT,
    "The formula is written for one feature vector: how many feature vectors does this input hold?",
)
def _row_count() -> Solution:
    x, *_ = shape_example()
    batch, positions, width = x.shape
    stages = stages_of(x)
    count = int(stages.mean_square.size)
    return Solution(
        float(count),
        f"One for each of the {batch} x {positions} rows of width {width}.",
        slips=(
            (float(width), "That is one per feature; RMSNorm computes one per row, across its features."),
            (float(x.size), "That is one per number; a mean square averages a whole row."),
            (float(batch), "That is one per sequence; each position's feature vector has its own."),
            (1.0, "That is one for the whole input; each row has its own."),
        ),
        detail="The formula is written for one row; taken along the last axis, numpy applies it to every row at once.",
    )


@COURSE.exercise(
    "output-shape",
    "The output's shape",
    f"An input has shape [B, T, d] = {list(BATCH_SHAPE)}, and the gain g has shape [{BATCH_SHAPE[-1]}]. What is the "
    "shape of RMSNorm's output, g * x-hat?",
    Shape(),
    "Each row gets one mean square, kept with its axis; dividing and multiplying then broadcast: an axis of "
    "length 1, or a missing leading one, is stretched to match the other.",
)
def _output_shape() -> Solution:
    x, gain, _, y = shape_example()
    statistics = stages_of(x).mean_square.shape
    return Solution(
        y.shape,
        f"An input of shape {x.shape} comes out with shape {y.shape}: every axis is kept.",
        slips=(
            (statistics, "That is the mean squares' shape; dividing x by them stretches their last axis back."),
            (x.shape[:-1], "That drops the feature axis; RMSNorm keeps every axis of its input."),
            (gain.shape, "That is the gain's shape; it is stretched over every row of x, not the other way round."),
            (x.shape[::-1], "Those are the right axes in the wrong order; RMSNorm keeps them as they come."),
        ),
        detail=f"The mean squares, of shape {statistics}, and the gain, one number per feature, broadcast against "
        f"x's {x.shape}: each row's one number divides all {x.shape[-1]} of its features.",
    )


CENTERING = {  # (its output's mean is zero, the other row changes it) -> the option that says so
    (True, True): "mean zero; changes if the other row changes",
    (True, False): "mean zero; the same whatever the other row",
    (False, True): "mean not zero; changes if the other row changes",
    (False, False): "mean not zero; the same whatever the other row",
}


@COURSE.exercise(
    "centering-and-batch",
    "Two rows in one batch",
    f"The rows {given(example.ANCHOR)} and {given(example.COMPANION)} go through RMSNorm as one batch. What is true "
    f"of the output for {given(example.ANCHOR)}: is its mean zero, and does it change if the other row is replaced?",
    Choice.of(
        {
            CENTERING[True, True]: "That is BatchNorm, which centers each feature with the whole batch's statistics.",
            CENTERING[True, False]: "That is LayerNorm, which subtracts each row's own mean before rescaling.",
            CENTERING[False, True]: "A statistic shared across the batch would let one row's output depend on another.",
            CENTERING[False, False]: RIGHT,
        }
    ),
    "Look at the formula: which numbers enter the mean square, and is anything subtracted from x?",
)
def _centering_and_batch() -> Solution:
    h = evidence.history()
    mixes = not np.array_equal(h.rms_norm_with_companion, h.rms_norm_with_itself)
    centers = abs(h.rms_mean) < 1e-12
    return Solution(
        CENTERING[centers, mixes],
        "Its mean is not zero, and no other row can change it: the one statistic is the row's own mean square.",
        detail=(
            f"Next to {given(example.COMPANION)} or next to a copy of itself, {given(example.ANCHOR)} comes out the "
            "same, and nothing is subtracted from it."
        ),
    )


@COURSE.exercise(
    "anchor-mean",
    "The mean of x-hat",
    "With eps = 0, what is the mean of x-hat for the row x = {x}?",
    Number(),
    "RMSNorm divides by the RMS and subtracts nothing: average the coordinates of x / RMS.",
    given={"x": example.ANCHOR},
    variants=({"x": (2.0, 2.0)}, {"x": (-1.0, 3.0)}, {"x": (3.0, 4.0)}, {"x": (1.0, 1.0, 4.0)}, {"x": (-2.0, -1.0)}),
)
def _anchor_mean(x) -> Solution:
    normalized = stages_of(x, eps=example.IDEAL_EPS).normalized
    return Solution(
        float(np.mean(normalized)),
        f"x-hat = {fmt(normalized)}, whose mean is {fmt(np.mean(normalized))}: nothing is subtracted.",
        slips=(
            (0.0, "That is LayerNorm's answer; it subtracts the mean, RMSNorm does not."),
            (float(np.mean(x)), "That is the mean of x itself; x-hat divides x by its RMS first."),
            (
                float(np.mean(np.asarray(x) / np.linalg.norm(x))),
                "That divides x by its Euclidean length; RMSNorm divides by the root of the mean square.",
            ),
        ),
        detail=f"x-hat is x divided by a positive number, so its mean has the sign of x's own mean, {np.mean(x):g}.",
    )


CIRCLE = Axis(0.0, 360.0, "angle", "where x-hat lands: degrees from the first axis")


def quadrant_slips(x, angle: float) -> list[float]:
    """The angles arctan(y / x) gives, as it is and from the sizes alone, that are neither x's angle nor -x's."""
    with np.errstate(divide="ignore"):
        slips = {float(np.degrees(np.arctan(x[1] / x[0]))) % 360.0, float(np.degrees(np.arctan(abs(x[1] / x[0]))))}
    return sorted(slip for slip in slips if min(_apart(slip, angle), _apart(slip, (angle + 180.0) % 360.0)) > 10.0)


def _apart(first: float, second: float) -> float:
    """How many degrees apart two angles are, the short way round."""
    return min(abs(first - second), 360.0 - abs(first - second))


@COURSE.exercise(
    "circle-image",
    "Where x-hat lands on the circle",
    "With eps = 0, RMSNorm sends x = {x} onto the circle of radius sqrt(2). At what angle does x-hat land, in "
    "degrees counter-clockwise from the first axis?",
    Place(CIRCLE, tolerance=5.0, relative=False),
    "Dividing by a positive number changes a vector's length, never the way it points.",
    given={"x": (-1.0, 2.0)},
    variants=({"x": (3.0, 1.0)}, {"x": (-2.0, -2.0)}, {"x": (1.0, -3.0)}, {"x": (0.5, 2.0)}, {"x": (-4.0, 1.0)}),
)
def _circle_image(x) -> Solution:
    image = stages_of(x, eps=example.IDEAL_EPS).normalized
    angle = float(np.degrees(np.arctan2(image[1], image[0])) % 360.0)
    centred = np.asarray(x) - np.mean(x)
    return Solution(
        angle,
        f"At {angle:.0f} degrees, x-hat = {fmt(image)}: the way x points, at length sqrt(2).",
        slips=(
            (
                float(np.degrees(np.arctan2(centred[1], centred[0])) % 360.0),
                "That is where LayerNorm sends it: it subtracts the mean first.",
            ),
            ((angle + 180.0) % 360.0, "That points against x; dividing by a positive RMS keeps its direction."),
            *(
                (slip, "That angle is in another quadrant: arctan(y / x) cannot tell x from -x. Look at the signs.")
                for slip in quadrant_slips(x, angle)
            ),
        ),
        detail=f"|x-hat| = {np.linalg.norm(image):.6f}: every nonzero x lands on the circle, in its own direction.",
        picture={"point": [float(v) for v in image], "input": [float(v) for v in x]},
    )


@for_phones
def geometry_figure(g: Geometry) -> Figure:
    """Left: inputs and their images on the circle of radius sqrt(2). Right: eps pulls small inputs inside."""
    fig, (maps, shrink) = new_axes(8.6, 5.4, columns=2)
    circle(maps, g.radius, f"radius sqrt(2) = {g.radius:.4f}")
    ones = np.array([-3.0, 3.0])
    maps.plot(ones, ones, ":", color=GREY, linewidth=1.0, label="all-ones direction")
    maps.plot(
        *g.inputs[1:].T, "o", color=GREY, markersize=4, markerfacecolor="none", label="inputs x (some off the plot)"
    )
    maps.plot(*g.rms_images.T, "o", color=BLUE, markersize=6, label="RMSNorm(x), eps = 0")
    maps.plot(
        *g.layer_images.T,
        "D",
        color=ORANGE,
        markersize=9,
        markerfacecolor="none",
        markeredgewidth=2,
        label="LayerNorm(x), eps = 0",
    )
    maps.plot(*g.rms_images[0], "*", color="black", markersize=14, label="worked example's image")
    maps.annotate("x = [3, 4]\n(off the plot)", xy=(1.9, 2.6), fontsize=SMALLEST_TEXT, ha="center")
    maps.annotate("", xy=g.rms_images[0], xytext=(2.4, 2.9), arrowprops={"arrowstyle": "-|>", "color": "black"})
    maps.set_xlim(-3, 3)
    maps.set_ylim(-3, 3)
    maps.legend(fontsize=SMALLEST_TEXT, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2)
    maps.set_title("every nonzero input lands on the circle", fontsize=10)

    circle(shrink, g.radius, "radius sqrt(2)")
    shrink.plot(*g.shrink_images.T, "s-", color=GREEN, markersize=5, label=f"RMSNorm(s·[3, 4]), eps = {g.eps:g}")
    for image, scale in list(zip(g.shrink_images, g.shrink_scales))[:7:2]:
        shrink.annotate(f"s = {scale:.0e}", image, textcoords="offset points", xytext=(8, -10), fontsize=SMALLEST_TEXT)
    shrink.annotate(
        f"s = {g.shrink_scales[-1]:g}",
        g.shrink_images[-1],
        textcoords="offset points",
        xytext=(-38, 4),
        fontsize=SMALLEST_TEXT,
    )
    shrink.set_xlim(-0.2, 1.6)
    shrink.set_ylim(-0.2, 1.6)
    shrink.legend(fontsize=SMALLEST_TEXT, loc="upper left")
    shrink.set_title("with eps, small inputs fall inside", fontsize=10)
    return fig
