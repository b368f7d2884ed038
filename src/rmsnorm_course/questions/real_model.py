"""The boxes of real-model.md: RMSNorm inside a real model (SmolLM2-135M), each answered by measuring it."""

from __future__ import annotations

import numpy as np
from predict_check import RIGHT, Choice, Number, Solution

from ..core.format import fmt
from ..model import measurements as real_model
from .course import COURSE

STREAM = {  # the RMS of the row the final norm reads, by the decade it lies in (the options' lower ends)
    0.0: (
        "below 1",
        "Every block adds its two branches' outputs to the stream and nothing takes them away: sixty additions, "
        "each a row of its own size.",
    ),
    1.0: ("between 1 and 10", "The stream ends larger still: the figure below follows it block by block."),
    10.0: ("between 10 and 100", RIGHT),
    100.0: (
        "above 100",
        "The branches read a normalized row, so what each adds back does not grow with the stream.",
    ),
}


def _stream_option(rms: float) -> str:
    """The option whose decade holds the measured RMS of the final norm's row."""
    return STREAM[max(low for low in STREAM if rms >= low)][0]


@COURSE.exercise(
    "stream-growth",
    "The residual stream, thirty blocks on",
    "In SmolLM2-135M, the last token's row of the residual stream has RMS {embedded} after the embedding. Thirty "
    "pre-norm blocks (sixty branches) later, what is the RMS of the row the final norm reads?",
    Choice.of(dict(STREAM.values())),
    "Follow one block: what does its RMSNorm rescale, and what is added to the stream?",
    given={"embedded": real_model.ASKED["embedded"]},
)
def _stream_growth(embedded) -> Solution:
    m = real_model.measurements()
    start, end = float(m.residual_rms[0, 0]), float(m.residual_rms[0, -1])
    answer = _stream_option(end)
    return Solution(
        answer,
        f"It reads a row of RMS {end:.1f}, {end / start:.0f} times the embedding's: every block adds to the stream.",
        detail="Each RMSNorm hands its branch a row the size of its gain; the stream, never normalized, keeps every "
        "block's addition.",
    )


@COURSE.exercise(
    "outlier-share",
    "One channel's share of a row",
    "The row that block 30's attention norm reads has {width} values and RMS {rms}; its largest value, in channel "
    "{channel}, is {value}. What share of the row's sum of squares does that one value hold?",
    Number(decimals=3),  # the row is given to four figures
    "The sum of squares is the width times the mean square, and the mean square is the RMS squared.",
    given={key: real_model.ASKED[key] for key in ("width", "rms", "channel", "value")},
)
def _outlier_share(width, rms, channel, value) -> Solution:
    share = value**2 / (width * rms**2)
    return Solution(
        share,
        f"{value:g}² / ({width} * {rms:g}²) = {fmt(share)}: one of {width} values holds that much of the row.",
        slips=(
            (value / (width * rms), "That compares the value with the sum of RMS's, not its square with the squares."),
            (1 / width, "That is one value's share of a row whose values are all the same size."),
        ),
        detail="RMSNorm divides every value of the row by an RMS that this one channel mostly sets.",
    )


BFLOAT16 = {
    "within about one part in a million, as float32": (
        "bfloat16 keeps 8 significant bits, not float32's 24: each rounding can move a value by 2**-8 of itself."
    ),
    "within about one per cent": RIGHT,
    "within about thirty per cent": "8 significant bits round each value to 2**-9, about 0.2%, of itself at most.",
    "nothing is left: the squares overflow, as they do in float16": (
        "bfloat16 has float32's range: 551.7 squared is far below its largest value."
    ),
}


@COURSE.exercise(
    "bfloat16-rows",
    "The formula in bfloat16, on the model's rows",
    "bfloat16 has float32's range and 8 significant bits. Computed as written in bfloat16, each operation's "
    "result rounded to it (the mean's sum taken in float32 before its rounding), how far off is RMSNorm's "
    "output on the model's rows at worst, relative to each row's largest value?",
    Choice.of(BFLOAT16),
    "Count the significant bits, and ask whether any square can leave bfloat16's range.",
)
def _bfloat16_rows() -> Solution:
    m = real_model.measurements()
    worst = float(np.max(m.precision_error[list(m.precisions).index(real_model.PRECISIONS[2])]))
    options = list(BFLOAT16)
    answer = options[0] if worst < 1e-5 else options[1] if worst < 0.03 else options[2]
    return Solution(
        answer,
        f"At worst {worst:.2g} of the row's largest value: a few roundings of 8 bits each, and nothing overflows.",
        detail="Its range is float32's, so no square overflows; its digits are few, so every row is a little off.",
    )


EPSILONS = ("1e-4", "1e-3", "1e-2", "1e-1", "1")


@COURSE.exercise(
    "eps-threshold",
    "The eps that changes the prediction",
    "SmolLM2-135M was trained with eps = 1e-5. Raised to which of these, at the smallest, does eps change the top "
    "next token for one of the four prompts?",
    Choice.of(
        {
            "1e-4": "Every row the norms read has a mean square far above 1e-4.",
            "1e-3": "1e-3 is a tenth of the smallest mean square any norm reads: it moves the probabilities only.",
            "1e-2": RIGHT,
            "1e-1": "At 1e-1 eps is ten times the mean square of the rows the first norm reads: look lower.",
            "1": "Long before 1, eps outweighs the embedding's rows in the first norm.",
        }
    ),
    "Which rows does a norm read with the smallest mean square, and what is it? Compare eps with it.",
)
def _eps_threshold() -> Solution:
    m = real_model.measurements()
    changed = [eps for eps, tops in zip(m.epsilons[1:], m.eps_top[1:]) if eps > 0 and np.any(tops != m.eps_top[0])]
    first = min(changed)
    smallest = float(np.min(m.input_rms)) ** 2
    return Solution(
        min((option for option in EPSILONS if float(option) >= first), key=float),
        f"At eps = {first:g}, near the smallest mean square a norm reads ({smallest:.2g}: the embedding's rows), "
        "a top token changes.",
        detail="The first block's attention norm reads the embedding's small rows; only there can eps compete with "
        "the mean square.",
    )


@COURSE.exercise(
    "layer-norm-swap",
    "LayerNorm in place of RMSNorm",
    "Put LayerNorm in place of every RMSNorm of SmolLM2-135M, with the same gains and no bias, and no retraining. "
    "The rows the norms read have means of at most {largest} of their RMS. For how many of the four prompts does "
    "the top next token change?",
    Choice.of(
        {
            "none of the four": RIGHT,
            "one or two": "With means that small, subtracting them moves every x-hat by a few per cent at most.",
            "all four": "LayerNorm differs from RMSNorm only by the mean it subtracts, and these means are small.",
        }
    ),
    "LayerNorm subtracts the mean, then divides by the standard deviation. How much of the row is its mean here?",
    given={"largest": real_model.ASKED["largest_mean"]},
)
def _layer_norm_swap(largest) -> Solution:
    m = real_model.measurements()
    changed = int(np.sum(m.layer_norm_top_tokens != m.predicted))
    answer = "none of the four" if changed == 0 else "all four" if changed == len(m.predicted) else "one or two"
    return Solution(
        answer,
        f"{['None', 'One', 'Two', 'Three', 'All four'][changed]} of the four change: the means it subtracts are "
        f"small next to the RMS.",
        detail=f"The next-token distributions move by {fmt(float(m.layer_norm_kl.max()))} nats of KL at most; the "
        "mean is almost nothing RMSNorm needs to know.",
    )
