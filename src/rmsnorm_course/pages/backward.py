"""The backward pass: the worked gradients, their check by central differences, the tape, the picture."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import Carried, Shape, Solution

from ..core.format import fmt, given
from ..core.rmsnorm import rms_norm, rms_norm_backward, rms_norm_forward
from ..studies import evidence, example
from ..studies.example import GAIN, INPUT
from ..studies.thresholds import ROUNDING
from ..views.figures import BLUE, GREEN, GREY, ORANGE, SMALLEST_TEXT, circle, for_phones, new_axes
from ..views.tables import markdown_table
from . import BATCH_SHAPE, COURSE, EPS, EXACT, PAIR, UPSTREAM, G, X, holds, shape_example, vector

if TYPE_CHECKING:
    from IPython.display import Markdown
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class GradientPicture:
    """The worked example's gradient with respect to x, and the facts the backward page checks."""

    x: np.ndarray
    normalized: np.ndarray  # x-hat at eps = 0, on the circle of radius sqrt(d)
    grad_x: np.ndarray  # at eps = 0, with the worked example's gain and upstream gradient
    dot_at_zero: float  # grad_x . x at eps = 0: rounding level
    dot_at_eps: float  # grad_x . x at the chapter's eps: small, not zero
    scale: float
    scaled_grad_x: np.ndarray  # the gradient at scale * x, eps = 0
    batch: tuple[int, ...]  # a batch shape, and ...
    saved_shape: tuple[int, ...]  # ... the shape of what the forward keeps for the backward at that shape


SCALE = 4.0  # the factor the scaled-gradient box asks about, and the page's picture and prose show


def gradient_picture(scale: float = SCALE, eps: float = EPS, batch: tuple[int, ...] = (2, 3, 4)) -> GradientPicture:
    """The worked example's gradient at eps = 0 and at ``eps``, and at ``scale`` times x."""
    x = np.array(INPUT)
    grad_x, _ = rms_norm_backward(x, GAIN, 0.0, UPSTREAM)
    grad_at_eps, _ = rms_norm_backward(x, GAIN, eps, UPSTREAM)
    scaled, _ = rms_norm_backward(scale * x, GAIN, 0.0, UPSTREAM)
    return GradientPicture(
        x=x,
        normalized=rms_norm(x, eps=0.0),
        grad_x=grad_x,
        dot_at_zero=float(grad_x @ x),
        dot_at_eps=float(grad_at_eps @ x),
        scale=scale,
        scaled_grad_x=scaled,
        batch=batch,
        saved_shape=rms_norm_forward(np.ones(batch), eps=eps).inverse_rms.shape,
    )


def values() -> SimpleNamespace:
    p = evidence.primary()
    input_check, gain_check = evidence.gradient_checks(p)
    holds(input_check.passed and gain_check.passed, "every coordinate passes the central-difference check")
    _, *tape_gradients = evidence.primary(tape=True).differences(p)
    tape_difference = max(tape_gradients)
    holds(tape_difference <= ROUNDING, "the tape and the closed form agree to a rounding difference")
    picture = gradient_picture()
    holds(abs(picture.dot_at_zero) <= 10 * ROUNDING, "at eps = 0 the gradient has no component along x")
    holds(10 * ROUNDING < abs(picture.dot_at_eps) < 1e-6, "at eps > 0 the dot product is small but not zero")
    holds(
        np.allclose(picture.scale * picture.scaled_grad_x, picture.grad_x, rtol=1e-14, atol=0),
        "the gradient at scale * x is the gradient divided by scale",
    )
    return SimpleNamespace(
        checks=(input_check, gain_check),
        step=f"{example.GRADIENT_STEP:g}",
        tolerance=f"{example.GRADIENT_TOLERANCE:g}",
        upstream=given(p.upstream),
        grad_x=fmt(p.grad_x),
        grad_gain=fmt(p.grad_gain),
        x=given(p.x),
        g=given(p.gain),
        tape_difference=f"{tape_difference:.2g}",
        picture=picture,
        grad_zero=fmt(picture.grad_x),
        dot_zero=f"{picture.dot_at_zero:.1e}",
        dot_eps=f"{picture.dot_at_eps:.2e}",
        eps=f"{p.eps:g}",
        scale=f"{picture.scale:g}",
        scaled_grad=fmt(picture.scaled_grad_x),
        scaling_error=f"{np.max(np.abs(picture.scale * picture.scaled_grad_x - picture.grad_x)):.1e}",
        saved_shape=str(picture.saved_shape),
        saved_batch=str(picture.batch),
    )


GRADIENT_CASES = (  # fresh rows, gains and upstream gradients for the backward's boxes
    {"x": (1.0, 2.0), "g": (1.0, 1.0), "upstream": (1.0, 0.0)},
    {"x": (-2.0, 4.0), "g": (0.5, 2.0), "upstream": (1.0, 1.0)},
    {"x": (6.0, 8.0), "g": (1.0, -1.0), "upstream": (0.0, 2.0)},
    {"x": (0.5, 1.5), "g": (2.0, 0.5), "upstream": (-1.0, 3.0)},
    {"x": (5.0, -12.0), "g": (1.5, 0.5), "upstream": (2.0, 1.0)},
)


@COURSE.exercise(
    "grad-x",
    "The input's gradient",
    "x = {x}, g = {g}, eps = {eps}, upstream gradient grad_output = {upstream}. What is grad_x?",
    PAIR,
    "x enters twice: in the numerator and in the RMS. With u = grad_output * g, "
    "grad_x = r * (u - x-hat * mean(u * x-hat)).",
    given={"x": X, "g": G, "eps": EPS, "upstream": UPSTREAM},
    variants=GRADIENT_CASES,
)
def _grad_x(x, g, eps, upstream) -> Solution:
    p = evidence.primary(x, g, eps, upstream)
    r, x_hat, u = p.forward.inverse_rms, p.forward.normalized, p.upstream * p.gain
    constant_rms = r * u
    summed = r * (u - x_hat * np.sum(u * x_hat, axis=-1, keepdims=True))
    return _gradient(
        p.grad_x,
        f"grad_x = r * (u - x-hat * mean(u * x-hat)) with u = {fmt(u)}",
        evidence.gradient_checks(p)[0],
        (constant_rms, "That treats the RMS as a constant; x also moves the RMS, which adds a second term."),
        (summed, "That sums u * x-hat where the derivation averages it: the RMS's derivative carries a 1/d."),
    )


def _gradient(values: np.ndarray, derivation: str, check, *slips: tuple[np.ndarray, str]) -> Solution:
    """A gradient of the worked example: how it is derived, and how far a numerical check agrees with it."""
    return Solution(
        tuple(values.tolist()),
        f"{derivation}: {fmt(values)}.",
        slips=tuple((tuple(np.asarray(value).tolist()), note) for value, note in slips),
        detail=(
            f"Nudging each coordinate up and down by {check.step:g} changes the loss at these rates, "
            f"to within {max(c.error for c in check.checks):.1e}."
        ),
    )


@COURSE.exercise(
    "grad-gain",
    "The gain's gradient",
    "x = {x}, g = {g}, eps = {eps}, grad_output = {upstream}. What is grad_gain?",
    PAIR,
    "y = g * x-hat, so each gain coordinate's gradient is grad_output times the matching x-hat coordinate.",
    given={"x": X, "g": G, "eps": EPS, "upstream": UPSTREAM},
    variants=GRADIENT_CASES,
    carried=(Carried("normalized", lambda xhat: vector(np.asarray(UPSTREAM) * np.asarray(xhat))),),
    misconceptions=(
        (
            lambda x, g, eps, upstream: upstream,
            "That is grad_output itself; each gain coordinate's gradient also carries its x-hat coordinate.",
        ),
    ),
)
def _grad_gain(x, g, eps, upstream) -> Solution:
    p = evidence.primary(x, g, eps, upstream)
    with_gain = "That multiplies by the gain as well: y = g * x-hat, but the gain's gradient takes x-hat alone."
    # the same slip worked by hand, where eps is too small to write down: x-hat at eps = 0
    by_hand = p.upstream * p.gain * rms_norm(np.asarray(x, dtype=float), eps=0.0)
    derivation = f"grad_gain = grad_output * x-hat = {given(upstream)} * {fmt(p.forward.normalized)}"
    checked = evidence.gradient_checks(p)[1]
    return _gradient(p.grad_gain, derivation, checked, (p.upstream * p.forward.output, with_gain), (by_hand, with_gain))


@COURSE.exercise(
    "gain-gradient-shape",
    "The gain gradient's shape",
    f"An input of shape [B, T, d] = {list(BATCH_SHAPE)} goes through RMSNorm. What is the shape of the gain's "
    "gradient, grad_gain?",
    Shape(),
    "A gradient has the shape of the thing it is the gradient of; how many numbers does the gain hold?",
)
def _gain_gradient_shape() -> Solution:
    x, gain, upstream, _ = shape_example()
    grad_x, grad_gain = rms_norm_backward(x, gain, EPS, upstream)
    return Solution(
        grad_gain.shape,
        f"{grad_gain.shape}, the gain's own shape: every row's grad_output * x-hat is summed into it.",
        slips=(
            (x.shape, "That is the input's shape; a parameter's gradient has the parameter's shape."),
            (
                (int(np.prod(x.shape[:-1])), x.shape[-1]),
                "That keeps one share per row; every row uses the same gain, so the shares add up into one.",
            ),
        ),
        detail=f"It sums over all {int(np.prod(x.shape[:-1]))} rows; grad_x has the input's shape, {grad_x.shape}.",
    )


@COURSE.exercise(
    "grad-x-scaled",
    "The gradient of a scaled input",
    "With eps = 0, x = {x}, g = {g} and grad_output = {upstream}, multiply x by {scale}. grad_x of the scaled "
    "input is grad_x of x times what factor?",
    EXACT,
    "At eps = 0 the output does not change when x is scaled, but the chain rule still passes through 1 / RMS.",
    given={"x": X, "g": G, "upstream": UPSTREAM, "scale": SCALE},  # not the scale cards' ten: not their answer
    variants=({"scale": 2.0}, {"scale": 0.5}, {"scale": 3.0}, {"scale": 0.25}, {"scale": 8.0}),
)
def _grad_x_scaled(x, g, upstream, scale) -> Solution:
    grad_x, _ = rms_norm_backward(x, g, example.IDEAL_EPS, upstream)
    scaled, _ = rms_norm_backward(scale * np.asarray(x), g, example.IDEAL_EPS, upstream)
    factor = float(scaled[0] / grad_x[0])
    return Solution(
        factor,
        f"{factor:g} = 1/{scale:g}: the output is unchanged, so its sensitivity to each coordinate "
        f"{'shrinks as x grows' if scale > 1 else 'grows as x shrinks'}.",
        slips=(
            (scale, "That is the factor on x; the gradient moves the other way."),
            (1.0, "The output is scale invariant at eps = 0, but its gradient is not."),
        ),
        detail=f"grad_x goes from {fmt(grad_x)} to {fmt(scaled)}.",
    )


@for_phones
def gradient_figure(p: GradientPicture) -> Figure:
    """x-hat on its circle and the gradient with respect to x drawn from it: tangent, no radial part."""
    from matplotlib.patches import FancyArrowPatch

    fig, (ax,) = new_axes(5.2, 4.8)
    radius = float(np.linalg.norm(p.normalized))
    circle(ax, radius, "circle of radius sqrt(2)")
    direction = p.x / np.linalg.norm(p.x)
    ax.plot([0, 2.2 * direction[0]], [0, 2.2 * direction[1]], "--", color=GREY, label="direction of x")
    ax.plot(*p.normalized, "o", color=BLUE, markersize=8, label="x-hat (eps = 0)")
    # The two arrows coincide (that is the point): the first is drawn wide, the second narrow on top of it.
    arrows = (
        (p.grad_x, "-", ORANGE, 7, 26, "gradient wrt x at x"),
        (p.scale * p.scaled_grad_x, ":", GREEN, 2.5, 14, f"{p.scale:g} times the gradient at {p.scale:g}·x"),
    )
    for shaft, style, colour, width, head, label in arrows:
        ax.add_patch(
            FancyArrowPatch(
                tuple(p.normalized),
                tuple(p.normalized + 2 * shaft),
                arrowstyle="-|>",
                mutation_scale=head,
                linestyle=style,
                color=colour,
                linewidth=width,
                label=label,
            )
        )
    ax.set_xlim(-0.5, 2.2)
    ax.set_ylim(-0.5, 2.2)
    ax.legend(fontsize=SMALLEST_TEXT, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2)
    ax.set_title("the gradient is tangent to the circle (drawn at twice its length)", fontsize=SMALLEST_TEXT)
    return fig


def gradient_checks_table(input_check, gain_check) -> Markdown:
    """Each coordinate of both gradients: the closed form against central differences."""
    return markdown_table(
        ["coordinate", "closed form", "central difference", "difference", "verdict"],
        [
            [
                f"{name}[{c.index[0]}]",
                f"{c.analytic:.6f}",
                f"{c.numeric:.6f}",
                f"{c.error:.1e}",
                "pass" if c.passed else "FAIL",
            ]
            for name, report in (("grad_x", input_check), ("grad_gain", gain_check))
            for c in report.checks
        ],
    )
