"""RMSNorm inside a real model: SmolLM2-135M's own rows, each claim of the chapter measured on them."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Choice, Number, Solution

from ..core.format import exponent, fmt
from ..model import measurements as real_model
from ..studies import partial
from ..views.figures import GREY, SMALLEST_TEXT, STYLES, for_phones, legend, new_axes, on_phone
from ..views.tables import markdown_table
from . import COURSE, holds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LAST = 12  # norms: on the four prompts, from block 25's feed-forward norm on, channel 17 is the largest of every row


def _span(values: np.ndarray, spec: str, between: str = " to ") -> str:
    """The smallest and the largest of ``values``, as prose says a range measured over the prompts."""
    low, high = (format(float(value), spec) for value in (np.min(values), np.max(values)))
    return low if low == high else f"{low}{between}{high}"


def _code(text: str) -> str:
    """``text`` as a Markdown code span, so a token shows as typed (straight quotes, its spaces) and never as markup."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)  # longer than any run of backticks inside
    return f"{fence} {text} {fence}" if text.startswith("`") or text.endswith("`") else f"{fence}{text}{fence}"


def _norm(m: real_model.Measurements, name: str) -> int:
    return list(m.norm_names).index(name)


def _asked_as_measured(m: real_model.Measurements) -> None:
    """The boxes' given inputs are the measurements, to the digits the questions write."""
    row = _norm(m, real_model.OUTLIER_NORM)
    asked = real_model.ASKED
    holds(round(float(m.residual_rms[0, 0]), 3) == asked["embedded"], "the embedding's RMS the box gives")
    holds(round(float(m.input_rms[0, row]), 2) == asked["rms"], "the RMS of block 30's row the box gives")
    holds(int(m.outlier_channel[0, row]) == asked["channel"], "the channel the box names")
    holds(round(abs(float(m.outlier_value[0, row])), 1) == asked["value"], "the value the box gives")
    holds(np.ceil(float(m.mean_over_rms.max()) * 10) / 10 == asked["largest_mean"], "the largest mean the box gives")


def values() -> SimpleNamespace:
    m = real_model.measurements()
    _asked_as_measured(m)
    row = _norm(m, real_model.OUTLIER_NORM)
    growth = m.residual_rms[:, -1] / m.residual_rms[:, 0]
    holds(growth.min() > 100, "the stream grows more than a hundredfold")
    holds(np.all(m.output_rms[:, :-1] < 1), "every block's norm hands its branch a row of RMS below one")
    holds(np.all(m.outlier_channel[:, -LAST:] == 17), "channel 17 is the largest in the last twelve norms")
    holds(m.fold_same_top.all(), "folding keeps every position's top token")
    attention, ffn, rest = m.place_kl
    holds(np.all(ffn[0] > attention[0]), "at eps 0.01 block 1's feed-forward norm alone moves the KL more")
    smallest = np.all(m.input_rms[:, :2].max(axis=1) < m.input_rms[:, 2:].min(axis=1))
    holds(smallest, "block 1's norms read the smallest rows")
    holds(np.all(np.argmin(m.output_rms, axis=1) == 0), "block 1's attention norm hands on the smallest rows")
    holds(np.all(m.layer_norm_top_tokens == m.predicted), "LayerNorm keeps the four top tokens")
    half, inside, brain = (list(m.precisions).index(name) for name in real_model.PRECISIONS)
    overflowing = m.float16_overflows > 0
    holds(np.all(m.precision_error[half][overflowing] == 1), "the float16 formula loses every overflowing row")
    width = int(m.partial_values) * 16
    formats = dict(zip(m.formats.tolist(), m.format_counts.tolist()))
    config = real_model.shape_of(m)
    return SimpleNamespace(
        m=m,
        blocks=config.blocks,
        width=config.width,
        heads=config.heads,
        kv_heads=config.kv_heads,
        hidden=config.hidden,
        rope_base=f"{config.rope_base:g}",
        vocab=f"{config.vocab:,}",
        model_eps=f"{config.eps:.9g}",
        formats=", ".join(f"{count} in {kind}" for kind, count in formats.items()),
        gains=formats.get("F32", 0),
        prompt=str(m.prompts[0]),
        embedded=f"{m.residual_rms[0, 0]:.3f}",
        growth_low=f"{growth.min():.0f}",
        growth_high=f"{growth.max():.0f}",
        branch_low=f"{m.output_rms[:, :-1].min():.2f}",
        branch_high=f"{m.output_rms[:, :-1].max():.2f}",
        final_out=f"{m.output_rms[:, -1].min():.1f} to {m.output_rms[:, -1].max():.1f}",
        first_gain_mean=f"{m.gain_mean[0]:.4f}",
        first_gain_rms=f"{m.gain_rms[0]:.3f}",
        first_out=_span(m.output_rms[:, 0], ".3f"),
        gain_ratio=_span(m.output_rms / m.gain_rms, ".2f"),
        later_gain_low=f"{m.gain_mean[1:-1].min():.2f}",
        later_gain_high=f"{m.gain_mean[1:-1].max():.2f}",
        final_gain_mean=f"{m.gain_mean[-1]:.2f}",
        sink=_span(m.first_position_rms.max(axis=1), ".0f"),
        outlier_shares=", ".join(f"{share:.2f}" for share in m.outlier_share[:, row]),
        outlier_values=", ".join(f"{abs(value):.1f}" for value in m.outlier_value[:, row]),
        share_final=f"{m.outlier_share[:, -1].min():.2f} to {m.outlier_share[:, -1].max():.2f}",
        partial_values=int(m.partial_values),
        partial_share=f"{float(m.partial_share):.2%}",
        partial_median=f"{np.median(m.partial_error):.2f}",
        partial_outlier=f"{m.partial_error[:, -LAST:].min():.1f} to {m.partial_error[:, -LAST:].max():.1f}",
        partial_synthetic=f"{partial.partial_rms(widths=(width,)).error(width):.2f}",
        overflowing_rows=int(overflowing.sum()),
        rows=overflowing.size,
        largest_square=f"{m.largest_square.max():,.0f}",
        float16_inside=f"{m.precision_error[inside].max():.1g}",
        bfloat16_worst=f"{m.precision_error[brain].max():.2g}",
        bfloat16_median=f"{np.median(m.precision_error[brain]):.2g}",
        eps_first=f"{_first_changing_eps(m):g}",
        ms_ratio=f"{_later_over_block_1(m):.0f}",
        ms_attention=_span(m.input_rms[:, 0] ** 2, ".4f"),
        ms_ffn=_span(m.input_rms[:, 1] ** 2, ".3f"),
        ms_later=f"{m.input_rms[:, 2:].min() ** 2:.1f}",
        kl_attention=_span(attention[0], ".3f"),
        kl_ffn=_span(ffn[0], ".2f"),
        kl_rest=exponent(rest.max(), 1),
        place_eps=_span(m.place_epsilons, "g", " or "),
        place_eps_low=f"{m.place_epsilons[0]:g}",  # where place_kl[:, 0] is measured
        place_eps_high=f"{m.place_epsilons.max():g}",
        eps_kl_small=f"{m.eps_kl[m.epsilons == 1e-3].max():.3f}",
        eps_paris=f"{m.eps_kept_probability[0, 0]:.4f} to {m.eps_kept_probability[m.epsilons == 1e-3][0, 0]:.4f}",
        ln_kl=f"{m.layer_norm_kl.min():.3f} to {m.layer_norm_kl.max():.3f}",
        ln_agreement=", ".join(f"{share:.0%}" for share in m.layer_norm_agreement),
        mean_median=f"{np.median(m.mean_over_rms):.3f}",
        fold_difference=f"{m.fold_max_difference.max():.1g}",
        fold_relative=f"{(m.fold_max_difference / m.fold_largest_logit).max():.1g}",
        fold_logit=f"{m.fold_largest_logit.min():.0f} to {m.fold_largest_logit.max():.0f}",
        eps_nominal=exponent(config.eps),
        eps_small=f"{real_model.EPSILONS[2]:g}",
        prompt_count=len(m.prompts),
        norms=len(m.norm_names),
        outlier_norm=real_model.OUTLIER_NORM,
        outlier_from=str(m.norm_names[-LAST]),
        outlier_channel=int(m.outlier_channel[0, -1]),
        float16_largest=f"{real_model.FLOAT16_LARGEST:.0f}",
    )


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


@COURSE.exercise(
    "stream-growth",
    "The residual stream, thirty blocks on",
    "In SmolLM2-135M, the last token's row of the residual stream has RMS {embedded} after the embedding. Thirty "
    "pre-norm blocks (sixty branches) later, what is the RMS of the row the final norm reads? A hunch is asked for: "
    "reason from what a pre-norm block adds to the stream.",
    Choice.of(dict(STREAM.values())),
    "Follow one block: what does its RMSNorm rescale, and what is added to the stream?",
    given={"embedded": real_model.ASKED["embedded"]},
)
def _stream_growth(embedded) -> Solution:
    m = real_model.measurements()
    start, end = float(m.residual_rms[0, 0]), float(m.residual_rms[0, -1])
    return Solution(
        STREAM[max(low for low in STREAM if end >= low)][0],  # the option whose decade holds the measured RMS
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
            (value**2 / (width * rms), "That squares the value but not the RMS: the sum of squares is width * RMS²."),
            (
                value / (width**0.5 * rms),
                "That is the value over the row's length, the square root of the share: compare squares with squares.",
            ),
        ),
        detail="RMSNorm divides every value of the row by an RMS that this one channel mostly sets.",
    )


BFLOAT16 = {
    "within about one part in a million, as float32": (
        "bfloat16 keeps 8 significant bits, not float32's 24: each rounding can move a value by 2**-8 of itself."
    ),
    "within about one per cent": RIGHT,
    "within about thirty per cent": "8 significant bits round each value by at most 2**-8, about 0.4%, of itself.",
    "nothing is left: the squares overflow, as they do in float16": (
        "bfloat16 has float32's range: no square of these rows comes anywhere near its largest number."
    ),
}


@COURSE.exercise(
    "bfloat16-rows",
    "The formula in bfloat16, on the model's rows",
    "bfloat16 has float32's range and 8 significant bits. Computed as written in bfloat16, each operation's "
    "result rounded to it (the mean's sum taken in float32 before its rounding), how far off is RMSNorm's output "
    "at worst, relative to its largest value, over the last token's rows every norm reads on the four prompts?",
    Choice.of(BFLOAT16),
    "Count the significant bits, and ask whether any square can leave bfloat16's range.",
)
def _bfloat16_rows() -> Solution:
    m = real_model.measurements()
    errors = m.precision_error[list(m.precisions).index(real_model.PRECISIONS[2])]  # (P, N): one row each
    worst = float(errors.max())
    options = list(BFLOAT16)
    answer = options[0] if worst < 1e-5 else options[1] if worst < 0.03 else options[2]
    return Solution(
        answer,
        f"At worst {worst:.2g} of the output's largest value, over all {errors.size} rows: a few roundings of 8 bits "
        "each, and nothing overflows.",
        detail="Its range is float32's, so no square overflows; its digits are few, so every row is a little off.",
    )


EPSILONS = ("1e-4", "1e-3", "1e-2", "1e-1", "1")


def _first_changing_eps(m: real_model.Measurements) -> float:
    """The smallest eps, above the model's own, at which some prompt's top token changes."""
    tops = zip(m.epsilons[1:], m.eps_top[1:])
    return min(eps for eps, top in tops if eps > 0 and np.any(top != m.eps_top[0]))


def _later_over_block_1(m: real_model.Measurements) -> float:
    """How many times the smallest mean square a later norm reads is the largest that block 1's two norms read."""
    return float(m.input_rms[:, 2:].min() / m.input_rms[:, :2].max()) ** 2


def _changed_at(m: real_model.Measurements, eps: float) -> np.ndarray:
    """The prompts whose top next token at ``eps`` is not the model's own."""
    return m.prompts[m.eps_top[list(m.epsilons).index(eps)] != m.eps_top[0]]


@COURSE.exercise(
    "eps-threshold",
    "The eps that changes the prediction",
    "SmolLM2-135M was trained with eps = 1e-5. Raised to which of these, at the smallest, does eps change the top "
    "next token for one of the four prompts? A hunch is asked for: compare eps with the rows the norms read.",
    Choice.of(
        {
            "1e-4": "Every row the norms read has a mean square far above 1e-4.",
            "1e-3": "1e-3 is a tenth of the smallest mean square any norm reads: it moves the probabilities only.",
            "1e-2": RIGHT,
            "1e-1": "At 1e-1 eps is nearly ten times the mean square of the rows the first norm reads: look lower.",
            "1": "Long before 1, eps outweighs the embedding's rows in the first norm.",
        }
    ),
    "Which rows does a norm read with the smallest mean square, and what is it? Compare eps with it.",
)
def _eps_threshold() -> Solution:
    m = real_model.measurements()
    answer = next(option for option in EPSILONS if len(_changed_at(m, float(option))))  # as the cell after it runs
    below = EPSILONS[: EPSILONS.index(answer)]
    changed = ", ".join(repr(str(prompt)) for prompt in _changed_at(m, float(answer)))
    unchanged = f", and at {' and '.join(below)} none does" if below else ""
    smallest = float(np.min(m.input_rms)) ** 2
    return Solution(
        answer,
        f"At eps = {float(answer):g} the top token after {changed} changes{unchanged}: the smallest mean square "
        f"a norm reads is {smallest:.2g}.",
        detail="Block 1's two norms read the smallest rows, the embedding and the stream after block 1's attention; "
        f"every later norm reads rows at least {_later_over_block_1(m):.0f} times larger in mean square.",
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


def eps_table(m: real_model.Measurements) -> object:
    """The top next token of each prompt at each eps, every token as a code span (straight quotes, as typed)."""
    headers = ["eps", *(f"after {_code(repr(str(prompt)))}" for prompt in m.prompts)]
    tops = zip(m.epsilons, m.eps_top_tokens)
    rows = [[f"{eps:g}", *(_code(repr(str(token))) for token in tokens)] for eps, tokens in tops]
    attention, ffn, _ = m.place_changed[:, -1].sum(axis=-1)
    footer = (
        f"The model's own eps first. At eps = {m.place_epsilons[-1]:g} at one norm alone, block 1's feed-forward norm "
        f"changes the top token on {ffn} of the {len(m.prompts)} prompts, its attention norm on {attention}."
    )
    return markdown_table(headers, rows, footer=footer)


@for_phones
def real_stream_figure(m: real_model.Measurements) -> Figure:
    """SmolLM2-135M's residual stream: its RMS after each block, and the RMS of what each norm hands its branch."""
    fig, (stream, handed) = new_axes(9.0, 3.6, columns=2)
    blocks = np.arange(m.residual_rms.shape[1])
    for prompt, rms, (style, colour, marker) in zip(m.prompts, m.residual_rms, STYLES):
        label = str(prompt) if "\n" not in prompt else str(prompt).split("\n")[0] + " ..."
        stream.plot(blocks, rms, style, color=colour, marker=marker, markersize=3, label=repr(label))
    stream.set_yscale("log")
    stream.set_xlabel("block (0: after the embedding)")
    stream.set_ylabel("RMS of the stream, last token (log)")
    norms = np.arange(1, m.output_rms.shape[1] + 1)
    for rms, (style, colour, marker) in zip(m.output_rms, STYLES):
        handed.plot(norms, rms, style, color=colour, marker=marker, markersize=3)
    handed.plot(norms, m.gain_rms, "-", color=GREY, linewidth=4, alpha=0.3, label="RMS of the norm's gain")
    handed.set_yscale("log")
    handed.set_xlabel("norm, in the order they run (61: the final norm)")
    handed.set_ylabel("RMS of what the norm hands on (log)")
    fig.legend(fontsize=SMALLEST_TEXT, loc="outside lower center", ncols=1 if on_phone() else 3, frameon=False)
    return fig


@for_phones
def real_gains_figure(m: real_model.Measurements) -> Figure:
    """SmolLM2-135M's 61 RMSNorm gains, norm by norm: their mean and the middle 80% of their 576 values."""
    fig, (ax,) = new_axes(7.2, 3.4)
    norms = np.arange(1, len(m.gain_mean) + 1)
    attention = norms % 2 == 1
    attention[-1] = False  # the last is the final norm
    for chosen, label, (_, colour, marker) in (
        (attention, "attention norms", STYLES[0]),
        (~attention, "feed-forward norms and the final norm", STYLES[1]),
    ):
        ax.errorbar(
            norms[chosen],
            m.gain_mean[chosen],
            yerr=[m.gain_mean[chosen] - m.gain_low[chosen], m.gain_high[chosen] - m.gain_mean[chosen]],
            fmt=marker,
            color=colour,
            markersize=4,
            capsize=2,
            label=label,
        )
    ax.axhline(1.0, color=GREY, linestyle=":", linewidth=1)
    ax.set_xlabel("norm, in the order they run (61: the final norm)")
    ax.set_ylabel("gain: mean, and 10th to 90th percentile")
    legend(ax, loc="upper left")
    return fig
