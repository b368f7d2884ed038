"""Predict, then test the epsilon boundary: the worked example and the three scale cards."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from predict_check import RIGHT, Carried, Choice, Number, Solution

from ..core.format import difference, fmt, given
from ..core.rmsnorm import rms_norm
from ..studies import evidence, example
from ..studies.thresholds import BARELY_MOVES, ROUNDING, VISIBLY_MOVES
from . import (
    COURSE,
    EACH_ONE,
    EPS,
    EXACT,
    FACTOR,
    GAINS,
    PAIR,
    PAIRS,
    TINY,
    UNIT,
    G,
    X,
    each_one,
    holds,
    root,
    stages_of,
    unit,
    vector,
)

LIFTING_FACTOR = 100.0  # the factor that does bring the tiny vector to the plateau; ten does not

X_TEXT, TINY_TEXT = given(X), given(TINY)


def values() -> SimpleNamespace:
    ideal, production, near_zero = evidence.scale_cards()
    holds(ideal.max_difference <= ROUNDING, "with eps = 0 the two vectors agree to rounding")
    holds(production.max_difference < BARELY_MOVES, "with eps > 0 they differ too little to matter")
    holds(near_zero.max_difference > VISIBLY_MOVES, "for the tiny vector x-hat moves visibly")
    tiny = np.asarray(example.TINY_INPUT)
    tenfold, lifted = example.SCALE_FACTOR * tiny, LIFTING_FACTOR * tiny
    tenfold_ms = float(np.mean(np.square(tenfold)))
    tenfold_plateau, lifted_plateau = evidence.normalized_mean_square(tenfold), evidence.normalized_mean_square(lifted)
    holds(tenfold_ms < 2 * EPS and tenfold_plateau < 0.6, "ten times the tiny vector is not lifted out of the regime")
    holds(lifted_plateau > 0.99, "a hundred times the tiny vector reaches the plateau")
    return SimpleNamespace(
        x=given(example.INPUT),
        g=given(example.GAIN),
        eps=f"{EPS:g}",
        a=f"{example.SCALE_FACTOR:g}",
        tiny=given(example.TINY_INPUT),
        tiny_ms=f"{float(np.mean(np.square(tiny))):.3g}",
        ideal_diff=difference(ideal.max_difference),
        production_diff=difference(production.max_difference),
        near_zero_diff=difference(near_zero.max_difference),
        tenfold_ms=f"{tenfold_ms:.3g}",
        tenfold_times_eps=f"{tenfold_ms / EPS:.3g}",
        tenfold_plateau=fmt(tenfold_plateau),
        lift=f"{LIFTING_FACTOR:g}",
        lifted_plateau=fmt(lifted_plateau),
    )


@COURSE.exercise(
    "mean-square",
    "The mean square",
    "x = {x}. What is its mean square, mean(x**2)?",
    EXACT,
    "Square each coordinate, add the squares, divide by the number of coordinates d.",
    given={"x": X},
    variants=({"x": (1.0, 2.0)}, {"x": (-2.0, 4.0)}, {"x": (2.0, -1.0, 2.0)}, {"x": (0.5, 1.5)}, {"x": (6.0, 8.0)}),
)
def _mean_square(x) -> Solution:
    squares = " + ".join(f"({v:g})^2" if v < 0 else f"{v:g}^2" for v in x)  # (-2)^2, not -2^2 = -4
    mean_square = float(stages_of(x).mean_square[0])
    return Solution(
        mean_square,
        f"mean(x**2) = ({squares}) / {len(x)} = {mean_square:g}: the average of the squares.",
        slips=(
            (float(np.sum(np.square(x))), "That is the sum of the squares; the mean divides it by d."),
            (float(np.mean(x)) ** 2, "That squares the mean; the mean square averages the squares."),
        ),
        detail="The mean divides by d, so a wider row of the same values has the same mean square.",
    )


@COURSE.exercise(
    "reciprocal-rms",
    "The reciprocal RMS",
    "x = {x}, eps = {eps}. What is the reciprocal RMS, 1 / sqrt(mean(x**2) + eps)?",
    Number(),
    "Add eps to the mean square, take the square root, then take 1 over it.",
    given={"x": X, "eps": EPS},
    variants=tuple({"x": x} for x in PAIRS),
    carried=(Carried("mean-square", lambda ms: 1.0 / root(ms) if root(ms) else math.inf),),
)
def _reciprocal_rms(x, eps) -> Solution:
    forward = stages_of(x, eps=eps)
    mean_square = float(forward.mean_square[0])
    return Solution(
        float(forward.inverse_rms[0]),
        f"1 / sqrt({mean_square:g} + {eps:g}) = {fmt(forward.inverse_rms[0])}.",
        slips=(
            (float(np.sqrt(mean_square + eps)), "That is the RMS itself; the question asks for 1 / RMS."),
            (1.0 / (mean_square + eps), "That leaves out the square root: it is 1 / (mean square + eps)."),
        ),
        detail="Every coordinate of x is multiplied by this one shared factor.",
    )


@COURSE.exercise(
    "normalized",
    "x-hat of the worked example",
    "x = {x}, eps = {eps}. What is the RMS-rescaled vector x-hat = x / sqrt(mean(x**2) + eps), before any gain?",
    PAIR,
    "Multiply each coordinate of x by the reciprocal RMS; both coordinates share the same factor.",
    given={"x": X, "eps": EPS},
    variants=tuple({"x": x} for x in PAIRS),
    carried=(
        Carried("reciprocal-rms", lambda r: vector(np.asarray(X) * float(r))),
        Carried("mean-square", lambda ms: vector(np.asarray(X) / root(ms)) if root(ms) else (math.inf, math.inf)),
    ),
    misconceptions=((lambda x, eps: each_one(x), EACH_ONE),),
)
def _normalized(x, eps) -> Solution:
    forward = stages_of(x, eps=eps)
    unit_length = np.asarray(x) / np.linalg.norm(x)
    without_eps = stages_of(x, eps=example.IDEAL_EPS).normalized
    return Solution(
        tuple(forward.normalized.tolist()),
        f"x-hat = x * {fmt(forward.inverse_rms[0])} = {fmt(forward.normalized)}: one shared factor, so x-hat "
        "points the way x does.",
        slips=(
            (
                tuple(unit_length.tolist()),
                "That divides x by its Euclidean length; RMSNorm divides by the root of the mean square.",
            ),
            (
                tuple(without_eps.tolist()),
                f"That is x-hat at eps = 0; the question's eps = {eps:g} moves the sixth decimal.",
            ),
            (
                vector(np.asarray(x) / float(forward.mean_square[0] + eps)),
                "That leaves out the square root: it divides x by mean square + eps, not by its root.",
            ),
        ),
        detail=f"The coordinates keep their ratio, {x[0]:g} to {x[1]:g}; neither is forced to magnitude one.",
    )


GAIN_FIRST = "That applies the gain before normalizing; RMSNorm normalizes x first, then multiplies by g."


@COURSE.exercise(
    "output",
    "The output, after the gain",
    "x = {x}, eps = {eps}, and the gain is g = {g}. What is the output y = g * x-hat?",
    PAIR,
    "Multiply x-hat by g coordinate by coordinate: first by first, second by second.",
    given={"x": X, "eps": EPS, "g": G},
    variants=tuple({"x": x, "g": g} for x, g in zip(PAIRS, GAINS, strict=True)),
    carried=(Carried("normalized", lambda xhat: vector(np.asarray(G) * np.asarray(xhat))),),
)
def _output(x, eps, g) -> Solution:
    forward = stages_of(x, g, eps)
    return Solution(
        tuple(forward.output.tolist()),
        f"y = {given(g)} * {fmt(forward.normalized)} = {fmt(forward.output)}, coordinate by coordinate.",
        slips=(
            (tuple(forward.normalized.tolist()), "That leaves out the gain: the output multiplies by g."),
            *(
                (vector(stages_of(np.multiply(g, x), eps=at).normalized), GAIN_FIRST)
                for at in (eps, example.IDEAL_EPS)  # with the question's eps, or with none
            ),
        ),
        detail=(
            "The gain rescales each feature on its own, so the output no longer points the way x does."
            if len(set(g)) > 1
            else "A gain that is the same for every feature only stretches x-hat: here the output still points the "
            "way x does."
        ),
    )


@COURSE.exercise(
    "scaled-ideal",
    "Scaling x, with eps = 0",
    "With eps = 0, multiply x = {x} by {factor}. By how much does x-hat move: what is the largest difference, "
    "coordinate by coordinate, between x-hat of the scaled input and x-hat of x?",
    EXACT,
    "Write x-hat of a*x with eps = 0 and see what happens to a in the numerator and in the RMS.",
    given={"x": X, "factor": FACTOR},
    variants=(  # positive factors cancel; a negative one keeps its sign, and x-hat flips
        {"x": (1.0, 2.0), "factor": 100.0},
        {"x": (1.0, 7.0), "factor": -3.0},
        {"x": (6.0, 8.0), "factor": 0.01},
        {"x": (5.0, -5.0), "factor": -0.1},
        {"x": (0.5, 1.5), "factor": 1000.0},
    ),
)
def _scaled_ideal(x, factor) -> Solution:
    card = evidence.scale_card("ideal", x, example.IDEAL_EPS, factor)
    moved = round(card.max_difference, EXACT.decimals)  # what is left of a positive factor is rounding
    slips = [
        (
            float(np.max(np.abs((factor - 1) * card.original))),
            "That scales x-hat by the factor; with eps = 0 the factor's size cancels.",
        ),
        (
            float(np.max(np.abs((factor - 1) * np.asarray(x)))),
            "That is how far x itself moves; x-hat divides the factor out again.",
        ),
    ]
    at_zero = f"at eps = 0 x-hat of {factor:g}x is {fmt(card.scaled)}, and x-hat of x is {fmt(card.original)}"
    if factor > 0:
        rounding = f", to rounding ({difference(card.max_difference)})" if card.max_difference else ""
        return Solution(
            moved,
            f"Not at all{rounding}: with eps = 0 the factor {factor:g} cancels.",
            slips=tuple(slips),
            detail=f"{factor:g} multiplies the numerator and, through the RMS, the denominator: {at_zero}.",
        )
    slips.append((0.0, "The RMS cancels the factor's size, but not its sign."))
    return Solution(
        moved,
        f"{moved:g}: the RMS cancels the size of {factor:g}, not its sign, so x-hat flips to minus x-hat and moves "
        "by twice the size of its largest coordinate.",
        slips=tuple(slips),
        detail=f"The RMS is never negative: {at_zero}.",
    )


EPS_NEAR_ZERO_OPTIONS = {
    f"the x-hat of x = {X_TEXT}": (
        "float64 adds 1e-05 to 12.5 with digits to spare; look at how large eps is next to each mean square."
    ),
    f"the x-hat of x = {TINY_TEXT}": RIGHT,
    "both alike: eps is one number": (
        "eps is the same, but the mean squares it is added to are not: compare eps with each one."
    ),
    "neither: dividing cancels eps as well": ("Scaling x scales its mean square but not eps, so eps does not cancel."),
}


@COURSE.exercise(
    "eps-near-zero",
    "Which row eps changes",
    f"Before you compute it: eps = {EPS:g} sits under the root, sqrt(mean(x**2) + eps). Which x-hat does it "
    f"change more, that of x = {X_TEXT} or that of x = {TINY_TEXT}?",
    Choice.of(EPS_NEAR_ZERO_OPTIONS),
    "Compare eps with each vector's mean square: which one does adding eps change?",
)
def _eps_near_zero() -> Solution:
    tiny = rms_norm(TINY, None, EPS) - rms_norm(TINY, None, example.IDEAL_EPS)
    ordinary = rms_norm(X, None, EPS) - rms_norm(X, None, example.IDEAL_EPS)
    ms_tiny = float(np.mean(np.square(TINY)))
    if np.max(np.abs(tiny)) <= np.max(np.abs(ordinary)):
        raise AssertionError("eps changes the ordinary row at least as much as the tiny one")
    return Solution(
        f"the x-hat of x = {TINY_TEXT}",
        f"The tiny row: its mean square, {ms_tiny:.3g}, is smaller than eps, so eps sets most of its denominator.",
        detail=(
            f"eps is a fixed amount: beside a mean square of {float(np.mean(np.square(X))):g} it moves x-hat by at "
            f"most {np.max(np.abs(ordinary)):.1e}; beside {ms_tiny:.3g} it sets the denominator."
        ),
    )


TINY_PAIRS = ((0.0001, 0.0002), (0.001, 0.002), (0.0006, 0.0008), (-0.0005, 0.0012), (0.002, 0.0015))


@COURSE.exercise(
    "tiny-normalized",
    "x-hat of a tiny vector",
    "Now x = {x} and eps = {eps}. What is x-hat, before the gain?",
    PAIR,
    "Add eps to the mean square of this x before you take the square root.",
    given={"x": TINY, "eps": EPS},
    variants=tuple({"x": x} for x in TINY_PAIRS),
    misconceptions=((lambda x, eps: unit(x), UNIT),),
)
def _tiny_normalized(x, eps) -> Solution:
    forward = stages_of(x, eps=eps)
    ms = float(forward.mean_square[0])
    ideal = stages_of(x, eps=example.IDEAL_EPS).normalized
    ordinary = stages_of(np.asarray(x) * np.sqrt(float(stages_of(X).mean_square[0]) / ms), eps=eps).normalized
    return Solution(
        tuple(forward.normalized.tolist()),
        f"x-hat = x / sqrt({ms:.3g} + {eps:g}) = {fmt(forward.normalized)}: "
        "the direction of x, but shorter than at eps = 0.",
        slips=(
            (tuple(ideal.tolist()), "That is the eps = 0 ideal; here eps is not small next to the mean square."),
            (
                vector(ordinary),
                f"That is x-hat of a row as large as {X_TEXT}, as if scale never mattered; it stops mattering only "
                "once the mean square dwarfs eps, and this one is below eps.",
            ),
            (vector(np.asarray(x) / (ms + eps)), "That leaves out the square root: it divides x by ms + eps."),
            (
                vector(np.asarray(x) / np.sqrt(np.sum(np.square(x)) + eps)),
                "That adds the squares without dividing by d; the mean square is their average.",
            ),
        ),
        detail="The smaller the mean square is next to eps, the more of the denominator eps sets.",
    )


@COURSE.exercise(
    "tiny-scaled",
    "The tiny vector, scaled",
    "Keep eps = {eps} and multiply x = {x} by {factor}. What is x-hat of the scaled input?",
    PAIR,
    "Scaling x by a multiplies the mean square by a squared; eps stays where it is.",
    given={"x": TINY, "eps": EPS, "factor": FACTOR},
    variants=tuple({"x": x, "factor": factor} for x, factor in zip(TINY_PAIRS, (10.0, 5.0, 2.0, 10.0, 0.1))),
    misconceptions=((lambda x, eps, factor: unit(x), UNIT),),
)
def _tiny_scaled(x, eps, factor) -> Solution:
    card = evidence.scale_card("near-zero", x, eps, factor)
    return Solution(
        tuple(card.scaled.tolist()),
        f"x-hat of {factor:g}x is {fmt(card.scaled)}, against {fmt(card.original)} for x: near zero, scale is "
        "not cancelled.",
        slips=(
            (tuple(card.original.tolist()), "That is x-hat of the unscaled input; eps does not scale with x."),
            (
                vector(factor * card.original),
                f"That multiplies x-hat by {factor:g}, as if it grew with x; the mean square under the root grows "
                "too, by the factor squared.",
            ),
            (
                tuple(rms_norm(factor * np.asarray(x), None, example.IDEAL_EPS).tolist()),
                "That is the eps = 0 ideal; here eps still matters.",
            ),
        ),
        detail=(
            f"Scaling by {factor:g} multiplies the mean square by {factor**2:g} but leaves eps at {eps:g}, "
            f"so x-hat moves by up to {card.max_difference:.6f}."
        ),
    )
