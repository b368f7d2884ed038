"""The backward pass: the worked gradients, their check by central differences, the tape, the picture."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core.format import fmt, given
from ..core.tape import tape_rms_norm_gradients
from ..studies import evidence, example
from ..studies.geometry import gradient_picture
from ..studies.thresholds import ROUNDING
from . import holds


def values() -> SimpleNamespace:
    p = evidence.primary()
    input_check, gain_check = evidence.gradient_checks(p)
    holds(input_check.passed and gain_check.passed, "every coordinate passes the central-difference check")
    tape_x, tape_gain = tape_rms_norm_gradients(p.x, p.gain, p.eps, p.upstream)
    tape_difference = max(np.max(np.abs(tape_x - p.grad_x)), np.max(np.abs(tape_gain - p.grad_gain)))
    holds(tape_difference <= ROUNDING, "the tape and the closed form agree to a rounding difference")
    picture = gradient_picture()
    holds(abs(picture.dot_at_zero) <= 10 * ROUNDING, "at eps = 0 the gradient has no component along x")
    holds(10 * ROUNDING < abs(picture.dot_at_eps) < 1e-6, "at eps > 0 the dot product is small but not zero")
    holds(
        np.allclose(picture.scale * picture.scaled_grad_x, picture.grad_x, rtol=1e-14, atol=0),
        "the gradient at scale * x is the gradient divided by scale",
    )
    return SimpleNamespace(
        primary=p,
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
