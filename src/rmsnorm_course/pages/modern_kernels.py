"""RMSNorm in today's models, kernels and estimates: fused add + RMSNorm on the roofline, and the partial RMS."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Axis, Choice, Number, Place, Solution

from ..perf.roofline import Roofline, roofline
from ..studies import partial
from ..studies.partial import LLAMA_WIDTHS, SHARE, PartialRms
from ..views.figures import BLUE, SMALLEST_TEXT, STYLES, for_phones, new_axes, roofline_axes
from ..views.tables import markdown_table
from . import COURSE, holds

if TYPE_CHECKING:
    from IPython.display import Markdown
    from matplotlib.figure import Figure

BFLOAT16_BYTES = 2
FLOPS_PER_ELEMENT = 5  # the addition, then the norm's square, sum, scaling and gain


@dataclass(frozen=True)
class Kernel:
    """One way to run h' = h + f, y = RMSNorm(h'): the arrays each pass reads and writes, per element."""

    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]

    def bytes_per_element(self, itemsize: int = BFLOAT16_BYTES) -> int:
        return itemsize * (len(self.reads) + len(self.writes))

    def intensity(self, itemsize: int = BFLOAT16_BYTES) -> float:
        """Flops per byte moved."""
        return FLOPS_PER_ELEMENT / self.bytes_per_element(itemsize)


KERNELS = (
    # the addition writes h' to memory; the norm reads it back (a row at a time, held while it scales)
    Kernel("add, then RMSNorm", ("h", "f", "h' (again)"), ("h'", "y")),
    # one kernel: h and f come in, the new stream and the normalized row go out
    Kernel("fused add + RMSNorm", ("h", "f"), ("h'", "y")),
)


ROW_KINDS = {  # what a row holds, each as a language model's activations might
    "independent standard normal": "normal",
    "normal, shifted by 1.5 (the history page's rows)": "offset",
    "Student-t, 3 degrees of freedom (heavy tails)": "heavy",
    "normal, with one outlier channel of 60 past the first p": "outlier",
}
OFFSET, TAIL_DEGREES, OUTLIER = 1.5, 3, 60.0
READ = partial.values_read(SHARE, LLAMA_WIDTHS[0])  # the values the chapter's estimate reads of a row


def rows_of(kind: str, rows: int, width: int, rng: np.random.Generator) -> np.ndarray:
    """Seeded rows of one kind: independent normals, shifted ones, heavy-tailed ones, or one fixed outlier channel."""
    if kind == "heavy":
        return rng.standard_t(TAIL_DEGREES, (rows, width))
    x = rng.standard_normal((rows, width))
    if kind == "offset":
        return x + OFFSET
    if kind == "outlier":
        x[:, -1] = OUTLIER  # the same channel in every row, far past the share an estimate reads
    return x


@functools.cache
def partial_rms_by_kind(width: int = LLAMA_WIDTHS[0], share: float = SHARE, rows: int = partial.ROWS, seed: int = 0):
    """The median error of the partial RMS at one width and share, for each kind of row.

    The first kind, independent normals, draws first from the same seed as ``partial_rms``, whose
    first width is this one: the same rows, so the chapter shows one error for them, not two.
    """
    rng = np.random.default_rng(seed)
    return {
        name: float(np.median(partial.partial_error(rows_of(kind, rows, width, rng), share)))
        for name, kind in ROW_KINDS.items()
    }


def partial_rms_spread(count: int) -> float:
    """The standard deviation of the relative error of an RMS from ``count`` unit normals: sqrt(1 / (2 count))."""
    return float(np.sqrt(1 / (2 * count)))


def values() -> SimpleNamespace:
    unfused, fused = KERNELS
    roof = roofline()
    holds(fused.intensity() < roof.ridge, "both kernels sit on the sloped part of the roof")
    estimate = partial.partial_rms()
    holds(all(0.01 <= estimate.error(w) < 0.1 for w in LLAMA_WIDTHS), "a few per cent at LLaMA's widths")
    holds(all(np.all(np.diff(e) <= 0) for e in estimate.median_error.values()), "the error falls as the share grows")
    kinds = partial_rms_by_kind()
    gaussian = kinds[next(iter(kinds))]
    holds(max(kinds.values()) > 5 * gaussian, "heavy tails and outliers are far worse than independent normals")
    holds(gaussian == estimate.error(LLAMA_WIDTHS[0]), "the table's normal rows are the figure's")
    return SimpleNamespace(
        kernels=KERNELS,
        roof=roof,
        saving=f"{unfused.bytes_per_element() / fused.bytes_per_element():.2f}",
        share=f"{SHARE:.2%}",
        widths=", ".join(str(w) for w in LLAMA_WIDTHS),
        errors=", ".join(f"{estimate.error(w):.1%}" for w in LLAMA_WIDTHS),
        partial=estimate,
        kinds=kinds,
        read=READ,
        spread=f"{partial_rms_spread(READ):.1%}",
        first_width=LLAMA_WIDTHS[0],
    )


FORMATS = {"bfloat16": 2, "float32": 4, "float8": 1, "float64": 8}  # bytes a number


def _format_size(size: int) -> str:
    return f"{size} byte{'s' * (size != 1)}"


def _format(dtype: str) -> dict[str, str]:
    """A number format as a question names it: bfloat16, 2 bytes."""
    return {"dtype": dtype, "size": _format_size(FORMATS[dtype])}


@COURSE.exercise(
    "fused-bytes",
    "Bytes moved by a fused add + RMSNorm",
    "In {dtype} ({size} a number), one fused kernel computes the new stream h' = h + f and the normalized row "
    "y = RMSNorm(h') in one kernel. At the least, how many bytes per element must it move through memory?",
    Number(units=("bytes", "byte", "b"), stated=False),
    "Count every array the kernel must read, and every array that someone after it still reads, at the format's "
    "bytes each.",
    given=_format("bfloat16"),
    variants=tuple(_format(name) for name in ("float32", "float8", "float64")),
)
def _fused_bytes(dtype, size) -> Solution:
    itemsize = FORMATS[dtype]
    unfused, fused = KERNELS
    moved = fused.bytes_per_element(itemsize)
    other = itemsize // 2 or 2  # the format half as wide (float8: twice as wide), a slip in the number's size
    return Solution(
        float(moved),
        f"Two reads, h and f, and two writes, h' and y, of {size} each: {moved} bytes per element.",
        slips=(
            (float(unfused.bytes_per_element(itemsize)), "That counts h' read back by a second kernel."),
            (float(moved - itemsize), "The next block adds to h': the kernel must write the new stream as well as y."),
            (
                float(fused.bytes_per_element(other)),
                f"That counts {_format_size(other)} a number; {dtype} takes {size}.",
            ),
        ),
        detail=f"Run apart, the addition writes h' and the norm reads it back: {unfused.bytes_per_element(itemsize)} "
        "bytes.",
    )


INTENSITY = Axis(0.01, 100.0, "log", "arithmetic intensity: operations per byte (log scale)")
FUSED, APART = "one fused kernel", "two kernels, the addition and then the norm"
NORM_FLOPS = FLOPS_PER_ELEMENT - 1  # the norm's own: square, sum, scaling and gain, as the cost page counts them


@COURSE.exercise(
    "fused-intensity",
    "Add + RMSNorm on the roofline",
    "Add + RMSNorm does, per element, the addition and then the RMSNorm forward's operations as the cost page "
    "counted them (square, add into the sum, scale by 1/RMS, gain). Run as {how}, in {dtype}, where does it sit "
    "on a roofline's intensity axis?",
    Place(INTENSITY, tolerance=0.15),
    "Intensity is operations divided by bytes moved, per element: count both for this format.",
    given={"dtype": "float32", "how": FUSED},  # not bfloat16: the fused-bytes verdict and the table give its bytes
    variants=(  # not float8 fused either: its 1.25 is the saving the page states after the box
        {"dtype": "float64"},
        {"dtype": "float32", "how": APART},
        {"dtype": "float8", "how": APART},
        {"dtype": "float64", "how": APART},
    ),
)
def _fused_intensity(dtype, how) -> Solution:
    kernel = KERNELS[1 if how == FUSED else 0]
    itemsize = FORMATS[dtype]
    moved = kernel.bytes_per_element(itemsize)
    intensity = FLOPS_PER_ELEMENT / moved
    other = KERNELS[0 if how == FUSED else 1]
    return Solution(
        intensity,
        f"{FLOPS_PER_ELEMENT} operations over {moved} bytes: {intensity:.3g} per byte.",
        slips=(
            (FLOPS_PER_ELEMENT / itemsize, "That divides by one number's bytes; the kernel moves several arrays."),
            (NORM_FLOPS / moved, "That counts the norm's operations only; the addition is one more per element."),
            (
                FLOPS_PER_ELEMENT / kernel.bytes_per_element(BFLOAT16_BYTES),
                f"That divides by bfloat16's bytes; {dtype} takes {_format_size(itemsize)} a number.",
            ),
            (
                FLOPS_PER_ELEMENT / other.bytes_per_element(itemsize),
                f"That counts the arrays of {other.name}; this is {kernel.name}.",
            ),
        ),
        detail="Where that lies left of a machine's ridge, as on the roofline the cost page measured, memory sets "
        "the speed: fewer bytes per element mean a proportionally faster kernel.",
        picture={"marks": [[k.name, FLOPS_PER_ELEMENT / k.bytes_per_element(itemsize)] for k in KERNELS]},
    )


PARTIAL_ERRORS = {share: f"about {share:.2g}%" for share in (0.04, 0.4, 4, 40)}  # per cent -> the option


def nearest_option(error: float) -> str:
    """The option of ``partial-rms-error`` nearest a measured error, on a log scale."""
    return PARTIAL_ERRORS[min(PARTIAL_ERRORS, key=lambda percent: abs(np.log(100 * error / percent)))]


@COURSE.exercise(
    "partial-rms-error",
    "How far off a partial RMS is",
    f"pRMSNorm estimates a row's RMS from its first p of the coordinates. For a row of d = {LLAMA_WIDTHS[0]} "
    f"independent standard normal values and p = {SHARE:.2%}, about how far off is the estimate: what is the "
    "standard deviation of its relative error?",
    Choice.of(
        {
            PARTIAL_ERRORS[0.04]: "That would need millions of values read; the RMS of n values is off by about "
            "sqrt(1 / (2n)).",
            PARTIAL_ERRORS[0.4]: f"That is the law with all d = {LLAMA_WIDTHS[0]} values, or without its square "
            "root; n is the count the estimate reads.",
            PARTIAL_ERRORS[4]: RIGHT,
            PARTIAL_ERRORS[40]: "That is the error of an estimate from a handful of values, not from hundreds.",
        }
    ),
    "Count the values the estimate reads, n = p d, then use the law above: sqrt(1 / (2n)).",
)
def _partial_rms_error() -> Solution:
    # the width and share asked, alone: the study draws that width first, so the page's own run agrees
    error = partial.partial_rms(widths=LLAMA_WIDTHS[:1], shares=(SHARE,)).error(LLAMA_WIDTHS[0])
    return Solution(
        nearest_option(error),
        f"A few per cent: n = {READ} values, and over {partial.ROWS:,} seeded rows the median error is {error:.1%}.",
        detail=(
            f"The law's spread is sqrt(1 / (2n)) = {partial_rms_spread(READ):.1%} for n = {READ}; "
            "the median of a normal error's size is about two thirds of its spread."
        ),
    )


@for_phones
def fused_roofline_figure(r: Roofline, kernels: Sequence[Kernel]) -> Figure:
    """The measured roof, and where each way of running add + RMSNorm in bfloat16 meets it."""
    fig, (ax,) = new_axes(7.2, 4.0)
    intensities = np.geomspace(1 / 16, 256, 200)
    giga = 1e9
    ax.plot(intensities, r.attainable(intensities) / giga, "-", color=BLUE, linewidth=2, label="this machine's roof")
    for kernel, (_, colour, marker) in zip(kernels, STYLES[1:]):
        at = kernel.intensity()
        ax.plot(
            [at],
            [r.attainable(at) / giga],
            marker,
            color=colour,
            markersize=9,
            label=f"{kernel.name}: {kernel.bytes_per_element()} bytes, {at:.3g} flops per byte",
        )
    roofline_axes(ax, "GFLOP/s allowed (log scale)")
    return fig


@for_phones
def partial_rms_figure(p: PartialRms) -> Figure:
    """The median relative error of the RMS estimated from a share p of each row, for LLaMA's widths."""
    fig, (ax,) = new_axes(7.2, 3.8)
    for (width, errors), (style, colour, marker) in zip(p.median_error.items(), STYLES):
        shown = errors > 0
        ax.plot(100 * p.shares[shown], 100 * errors[shown], style, color=colour, marker=marker, label=f"d = {width}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("share of the row read, p (%, log scale)")
    ax.set_ylabel("median error of the RMS (%, log scale)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=SMALLEST_TEXT, loc="upper right")
    return fig


def kernels_table(kernels) -> Markdown:
    """Each way of running add + RMSNorm: what it reads and writes, its bytes and its intensity (bfloat16)."""
    return markdown_table(
        ["kernel", "reads", "writes", "bytes per element (bfloat16)", "flops per byte"],
        [
            [k.name, ", ".join(k.reads), ", ".join(k.writes), k.bytes_per_element(), f"{k.intensity():.3g}"]
            for k in kernels
        ],
    )


def partial_rms_table(errors: dict[str, float]) -> Markdown:
    """The median error of the partial RMS for each kind of row."""
    return markdown_table(["rows", "median error"], [[kind, f"{error:.1%}"] for kind, error in errors.items()])
