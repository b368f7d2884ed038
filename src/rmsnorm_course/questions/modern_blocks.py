"""The boxes of modern-blocks.md: RMSNorm in today's models: where the norms sit."""

from __future__ import annotations

from predict_check import RIGHT, Choice, Solution

from ..studies import modern
from .course import COURSE

GROWTH = {  # the slope of log RMS against log depth each option names
    0.0: "it stays near one at every depth",
    0.5: "it grows as the square root of the depth",
    1.0: "it grows in proportion to the depth",
    None: "it grows exponentially, by the gain each block",
}


@COURSE.exercise(
    "sandwich-growth",
    "The stream under sandwich norms",
    f"In a sandwich block, h + norm(F(norm(h))), each branch's output is normalized to RMS one before it is "
    f"added. Over {modern.DEPTH} blocks whose branches amplify {modern.BRANCH_GAIN:g}-fold, in independent "
    "directions, how does the residual stream's RMS grow?",
    Choice.of(
        {
            GROWTH[0.0]: "That is post-norm, where the stream itself is normalized; here only the branch is.",
            GROWTH[0.5]: RIGHT,
            GROWTH[1.0]: "Additions of independent directions add in their squares, not in their lengths.",
            GROWTH[None]: "The branch's own gain is undone by the norm after it, before anything is added.",
        }
    ),
    "Add vectors of RMS one in independent directions: what happens to the mean square of the sum?",
)
def _sandwich_growth() -> Solution:
    depth = modern.stream_through_depth()
    exponent = depth.growth_exponent("sandwich")
    nearest = min((0.0, 0.5, 1.0), key=lambda slope: abs(exponent - slope)) if exponent < 1.5 else None
    sandwich = depth.stream_rms["sandwich"]
    return Solution(
        GROWTH[nearest],
        f"As the square root: the stream's RMS goes {sandwich[0]:.2f}, {sandwich[4]:.2f}, {sandwich[-1]:.2f} after "
        f"0, 4 and {modern.DEPTH} blocks.",
        detail=f"A log-log slope of {exponent:.2f}, near the square root's 0.5: each block adds a mean square of one.",
    )
