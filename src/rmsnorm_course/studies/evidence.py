"""The checked evidence: every number the chapter and the report show, computed in one place.

The worked example is x = [3, 4], g = [1.5, 0.5], eps = 1e-5. Everything else
(scale cards, history table, gradients, boundaries) is built around it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core import errors
from ..core.baselines import batch_norm_train, layer_norm
from ..core.gradcheck import GradientCheckReport, gradient_check
from ..core.layer import RMSNorm
from ..core.parameters import NamedParameter, ParameterGroups, adamw_parameter_groups
from ..core.rmsnorm import RMSNormForward, rms_norm, rms_norm_backward, rms_norm_forward
from ..core.tape import TapeRMSNormForward, Tensor, tape_rms_norm, tape_rms_norm_gradients
from .example import (
    ANCHOR,
    BATCH,
    COMPANION,
    EPS,
    GAIN,
    GAIN_NAME,
    GRADIENT_STEP,
    GRADIENT_TOLERANCE,
    IDEAL_EPS,
    INPUT,
    SCALE_FACTOR,
    TINY_INPUT,
    UPSTREAM,
    ZERO_ROW,
)
from .thresholds import BARELY_MOVES, ROUNDING, VISIBLY_MOVES


@dataclass(frozen=True)
class Primary:
    """The worked example's forward stages and its reverse pass for one upstream gradient.

    ``tape`` is the graph of the tape where reverse mode computed them, None where the closed form did.
    """

    x: np.ndarray
    gain: np.ndarray
    eps: float
    forward: RMSNormForward
    upstream: np.ndarray
    grad_x: np.ndarray
    grad_gain: np.ndarray
    tape: TapeRMSNormForward | None = None

    def bits(self) -> list[bytes]:
        """Every stage and both gradients as bytes, which a replay must give again."""
        f = self.forward
        arrays = (f.mean_square, f.inverse_rms, f.normalized, f.output, self.grad_x, self.grad_gain)
        return [a.tobytes() for a in arrays]

    def norm(self, x, gain, eps: float) -> np.ndarray:
        """The output that this reverse pass differentiates, for any x and gain."""
        return tape_rms_norm(x, gain, eps).output.value if self.tape else rms_norm(x, gain, eps)

    def differences(self, other: Primary) -> tuple[float, ...]:
        """max |difference| from ``other``'s output, grad_x and grad_gain."""
        mine = (self.forward.output, self.grad_x, self.grad_gain)
        theirs = (other.forward.output, other.grad_x, other.grad_gain)
        return tuple(float(np.max(np.abs(a - b))) for a, b in zip(mine, theirs))

    @property
    def plateau(self) -> tuple[float, float]:
        """mean(x-hat**2), and ms / (ms + eps), which it equals."""
        ms = float(self.forward.mean_square[0])
        return float(np.mean(np.square(self.forward.normalized))), ms / (ms + self.eps)


def primary(x=INPUT, gain=GAIN, eps=EPS, upstream=UPSTREAM, tape: bool = False) -> Primary:
    if tape:
        graph = tape_rms_norm(x, gain, eps)
        stages = (graph.mean_square, graph.inverse_rms, graph.normalized, graph.output)
        forward = RMSNormForward(*(stage.value for stage in stages))
        grad_x, grad_gain = tape_rms_norm_gradients(x, gain, eps, upstream)
    else:
        graph, forward = None, rms_norm_forward(x, gain, eps)
        grad_x, grad_gain = rms_norm_backward(x, gain, eps, upstream)
    return Primary(
        x=np.array(x, dtype=np.float64),
        gain=np.array(gain, dtype=np.float64),
        eps=eps,
        forward=forward,
        upstream=np.array(upstream, dtype=np.float64),
        grad_x=grad_x,
        grad_gain=grad_gain,
        tape=graph,
    )


def normalized_mean_square(x, eps: float = EPS) -> np.ndarray:
    """mean(x-hat**2) of each row, which is ms / (ms + eps): just under one above eps, falling below it."""
    return np.mean(np.square(rms_norm_forward(x, None, eps).normalized), axis=-1)


@dataclass(frozen=True)
class ScaleCard:
    """x-hat of x and of a*x (before the gain): equal in the eps = 0 ideal, not always otherwise."""

    label: str
    x: np.ndarray
    eps: float
    factor: float
    original: np.ndarray
    scaled: np.ndarray

    @property
    def max_difference(self) -> float:
        return float(np.max(np.abs(self.scaled - self.original)))


def scale_card(label: str, x=INPUT, eps: float = EPS, factor: float = SCALE_FACTOR) -> ScaleCard:
    x = np.array(x, dtype=np.float64)
    return ScaleCard(
        label=label,
        x=x,
        eps=eps,
        factor=factor,
        original=rms_norm_forward(x, None, eps).normalized,
        scaled=rms_norm_forward(factor * x, None, eps).normalized,
    )


def scale_cards() -> tuple[ScaleCard, ScaleCard, ScaleCard]:
    """The seed fixture's three scale cards: the eps = 0 ideal, an ordinary input, an eps-dominated one."""
    return (
        scale_card("ideal", INPUT, IDEAL_EPS),
        scale_card("production", INPUT, EPS),
        scale_card("near-zero", TINY_INPUT, EPS),
    )


@dataclass(frozen=True)
class History:
    """Anchor [1, 3] normalized three ways, with two different batch companions."""

    batch_with_companion: np.ndarray
    batch_with_itself: np.ndarray
    layer_norm_with_companion: np.ndarray
    layer_norm_with_itself: np.ndarray
    rms_norm_with_companion: np.ndarray
    rms_norm_with_itself: np.ndarray

    @property
    def rms_mean(self) -> float:
        return float(np.mean(self.rms_norm_with_companion))


def history() -> History:
    pairs = {"companion": np.array([ANCHOR, COMPANION]), "itself": np.array([ANCHOR, ANCHOR])}
    # Row 0 of each normalized pair is the anchor's output.
    return History(
        batch_with_companion=batch_norm_train(pairs["companion"], EPS)[0],
        batch_with_itself=batch_norm_train(pairs["itself"], EPS)[0],
        layer_norm_with_companion=layer_norm(pairs["companion"], EPS)[0],
        layer_norm_with_itself=layer_norm(pairs["itself"], EPS)[0],
        rms_norm_with_companion=rms_norm(pairs["companion"], None, IDEAL_EPS)[0],
        rms_norm_with_itself=rms_norm(pairs["itself"], None, IDEAL_EPS)[0],
    )


def gradient_checks(
    p: Primary, step: float = GRADIENT_STEP, tolerance: float = GRADIENT_TOLERANCE
) -> tuple[GradientCheckReport, GradientCheckReport]:
    """Central differences of sum(upstream * y) on every input and every gain coordinate, against ``p``'s gradients."""

    def loss(x, gain) -> float:
        return float(np.sum(p.upstream * p.norm(x, gain, p.eps)))

    return (
        gradient_check(lambda x: loss(x, p.gain), p.x, p.grad_x, step, tolerance),
        gradient_check(lambda gain: loss(p.x, gain), p.gain, p.grad_gain, step, tolerance),
    )


@dataclass(frozen=True)
class Witnessed:
    """One way of computing the worked example, held to central differences and to a replay of itself."""

    run: Primary
    input_check: GradientCheckReport
    gain_check: GradientCheckReport
    replay_bitwise: bool


def witnessed(tape: bool = False) -> Witnessed:
    run, replay = primary(tape=tape), primary(tape=tape)
    return Witnessed(run, *gradient_checks(run), run.bits() == replay.bits())


@dataclass(frozen=True)
class BoundaryCase:
    """A request RMSNorm must refuse, and the error whose ``boundary`` names the rule it breaks."""

    request: str
    expected: type[errors.RMSNormError]
    attempt: Callable[[], object]

    @property
    def boundary(self) -> str:
        return self.expected.boundary

    def run(self) -> Rejection:
        try:
            self.attempt()
        except errors.RMSNormError as error:
            return Rejection(self, type(error), str(error))
        return Rejection(self, None, "accepted")


@dataclass(frozen=True)
class Rejection:
    case: BoundaryCase
    raised: type[errors.RMSNormError] | None
    message: str

    @property
    def as_expected(self) -> bool:
        return self.raised is self.case.expected

    @property
    def from_tooling(self) -> bool:
        """Refused by the tape, the optimizer's grouping or the gradient checker, not by a call of rms_norm."""
        return issubclass(self.case.expected, TOOLING_ERRORS)


# The boundaries of the teaching tools around RMSNorm, as opposed to requests a user of
# rms_norm, rms_norm_backward or the layer makes.
TOOLING_ERRORS = (
    errors.ParameterNameError,
    errors.GradientCheckError,
    errors.BroadcastShapeError,
    errors.UpstreamGradientRequired,
    errors.UpstreamShapeError,
    errors.LogDomainError,
    errors.SquareOverflow,
)


def _groups(*names: str, no_decay=None) -> ParameterGroups:
    return adamw_parameter_groups([NamedParameter(name, [1.0]) for name in names], no_decay)


BOUNDARY_CASES: tuple[BoundaryCase, ...] = (
    BoundaryCase("a scalar input 3.0", errors.InputRankZero, lambda: rms_norm(3.0)),
    BoundaryCase(
        "a width-3 input with a width-2 gain",
        errors.WidthMismatch,
        lambda: rms_norm([1.0, 2.0, 3.0], GAIN),
    ),
    BoundaryCase(
        "eps = 0 with an all-zero row 1",
        errors.ZeroEnergyRow,
        lambda: rms_norm([INPUT, ZERO_ROW], GAIN, 0.0),
    ),
    BoundaryCase("eps = -1e-5", errors.InvalidEpsilon, lambda: rms_norm(INPUT, GAIN, -EPS)),
    BoundaryCase("eps = NaN", errors.InvalidEpsilon, lambda: rms_norm(INPUT, GAIN, float("nan"))),
    BoundaryCase("eps = infinity", errors.InvalidEpsilon, lambda: rms_norm(INPUT, GAIN, float("inf"))),
    BoundaryCase("eps = 10**400", errors.InvalidEpsilon, lambda: rms_norm(INPUT, GAIN, 10**400)),
    BoundaryCase(
        "eps = 1e-46 with a float32 input",
        errors.InvalidEpsilon,
        lambda: rms_norm(np.array(INPUT, np.float32), GAIN, 1e-46),
    ),
    BoundaryCase(
        "a masked input",
        errors.MaskedArrayError,
        lambda: rms_norm(np.ma.masked_array(INPUT, mask=[False, True]), GAIN),
    ),
    BoundaryCase(
        "a float64 gain of 1e39 for a float32 input",
        errors.NonFiniteValue,
        lambda: rms_norm(np.array(INPUT, np.float32), (1.5, 1e39)),
    ),
    BoundaryCase("an input of shape (2, 0)", errors.EmptyFeatureWidth, lambda: rms_norm(np.zeros((2, 0)))),
    BoundaryCase("a layer of width 0", errors.EmptyFeatureWidth, lambda: RMSNorm(0)),
    BoundaryCase("a layer of width 10**400", errors.FeatureWidthTooLarge, lambda: RMSNorm(10**400)),
    BoundaryCase("a gain of shape (1, 2)", errors.GainShapeError, lambda: rms_norm(INPUT, [GAIN])),
    BoundaryCase(
        "NaN in row 1 of the input",
        errors.NonFiniteValue,
        lambda: rms_norm([INPUT, (float("nan"), 1.0)], GAIN),
    ),
    BoundaryCase(
        "an infinite gain coordinate",
        errors.NonFiniteValue,
        lambda: rms_norm(INPUT, (1.5, float("inf"))),
    ),
    BoundaryCase("a complex input", errors.UnsupportedDtype, lambda: rms_norm(np.array(INPUT) + 1j)),
    BoundaryCase("an input of strings", errors.UnsupportedDtype, lambda: rms_norm(["3", "4"])),
    BoundaryCase(
        "an upstream gradient of shape (3,) for input shape (2,)",
        errors.GradientShapeError,
        lambda: rms_norm_backward(INPUT, GAIN, EPS, (1.0, -2.0, 0.0)),
    ),
    BoundaryCase(
        "out of shape (2, 2) for input shape (2,)",
        errors.OutputShapeError,
        lambda: rms_norm(INPUT, GAIN, EPS, out=np.empty((2, 2))),
    ),
    BoundaryCase(
        "out that is the input itself",
        errors.OutputOverlapError,
        lambda: rms_norm(x := np.array(INPUT), GAIN, EPS, out=x),
    ),
    BoundaryCase(
        "the same parameter name twice",
        errors.ParameterNameError,
        lambda: _groups(GAIN_NAME, GAIN_NAME),
    ),
    BoundaryCase(
        "a no-decay name that is not a parameter",
        errors.ParameterNameError,
        lambda: _groups(GAIN_NAME, no_decay=["decoder.block.0.ffn_norm.gain"]),
    ),
    BoundaryCase(
        "a tape sum of shapes (2, 3) and (2,)",
        errors.BroadcastShapeError,
        lambda: Tensor(np.ones((2, 3))) + Tensor(np.ones(2)),
    ),
    BoundaryCase(
        "backward() on a width-2 tape output with no upstream gradient",
        errors.UpstreamGradientRequired,
        lambda: tape_rms_norm(INPUT, GAIN, EPS).output.backward(),
    ),
    BoundaryCase(
        "backward() on a width-2 tape output with an upstream gradient of shape (3,)",
        errors.UpstreamShapeError,
        lambda: tape_rms_norm(INPUT, GAIN, EPS).output.backward((1.0, -2.0, 0.0)),
    ),
    BoundaryCase("log of [1, 0] on the tape", errors.LogDomainError, lambda: Tensor([1.0, 0.0]).log()),
    BoundaryCase(
        "row 1 = [1e200, 1e200] on the tape",
        errors.SquareOverflow,
        lambda: tape_rms_norm([INPUT, (1e200, 1e200)], GAIN, EPS),
    ),
    BoundaryCase(
        "eps = 0 and row 1 = [1e-200, 1e-200] on the tape",
        errors.ZeroEnergyRow,
        lambda: tape_rms_norm([INPUT, (1e-200, 1e-200)], GAIN, 0.0),
    ),
)


@dataclass(frozen=True)
class Evidence:
    """Everything the report prints, and the checks that decide its exit status."""

    closed_form: Witnessed
    tape: Witnessed
    scale_cards: tuple[ScaleCard, ...]
    zero_output: np.ndarray
    batch_output: np.ndarray
    empty_batch_output: np.ndarray
    history: History
    groups: ParameterGroups
    rejections: tuple[Rejection, ...]

    @property
    def primary(self) -> Primary:
        return self.closed_form.run

    def checks(self) -> list[tuple[str, bool]]:
        """Named pass/fail verdicts; the report exits non-zero if any fails."""
        ideal, production, near_zero = self.scale_cards
        x_hat_mean_square, ratio = self.primary.plateau
        output, grad_x, grad_gain = self.tape.run.differences(self.primary)
        return [
            *_witnessed_checks(self.closed_form, ""),
            ("mean(x-hat^2) equals ms / (ms + eps)", abs(x_hat_mean_square - ratio) <= ROUNDING),
            ("eps = 0 ideal is scale invariant", ideal.max_difference <= ROUNDING),
            ("ordinary input barely moves with eps > 0", production.max_difference < BARELY_MOVES),
            ("eps-dominated input moves visibly", near_zero.max_difference > VISIBLY_MOVES),
            ("all-zero row maps to finite zeros", bool(np.all(self.zero_output == 0))),
            (
                "rows are independent",
                np.array_equal(self.batch_output[0], self.primary.forward.output)
                and np.array_equal(self.batch_output[1], rms_norm(BATCH[1], GAIN, EPS)),
            ),
            ("zero-sized batch keeps its shape", self.empty_batch_output.shape == (0, len(INPUT))),
            ("gain is in the no-decay group", self.groups.no_decay == (GAIN_NAME,) and not self.groups.decay),
            *((f"rejects {r.case.request} ({r.case.boundary})", r.as_expected) for r in self.rejections),
            (f"tape forward equals the reference within {ROUNDING:.2g}", output <= ROUNDING),
            (f"tape gradients equal the closed form within {ROUNDING:.2g}", max(grad_x, grad_gain) <= ROUNDING),
            *_witnessed_checks(self.tape, "tape "),
        ]

    @property
    def passed(self) -> bool:
        return all(ok for _, ok in self.checks())


def _witnessed_checks(w: Witnessed, name: str) -> list[tuple[str, bool]]:
    return [
        (f"{name}gradient check on the input", w.input_check.passed),
        (f"{name}gradient check on the gain", w.gain_check.passed),
        (f"{name}bitwise replay", w.replay_bitwise),
    ]


def collect() -> Evidence:
    """Run the worked example and every boundary; nothing here is typed in by hand."""
    layer = RMSNorm(len(INPUT), EPS, GAIN_NAME)
    return Evidence(
        closed_form=witnessed(),
        tape=witnessed(tape=True),
        scale_cards=scale_cards(),
        zero_output=rms_norm(ZERO_ROW, GAIN, EPS),
        batch_output=rms_norm(BATCH, GAIN, EPS),
        empty_batch_output=rms_norm(np.zeros((0, len(INPUT))), GAIN, EPS),
        history=history(),
        groups=adamw_parameter_groups(layer.parameters()),
        rejections=tuple(case.run() for case in BOUNDARY_CASES),
    )
