"""Cost: RMSNorm against a copy and the formulas, by size, and on this machine's roofline.

Every sentence here that reads a timing says only what every round agrees on.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import Number, Solution

from ..core.format import binary_size
from ..perf import kernel
from ..perf import timings as cost
from ..perf.roofline import MATMUL_SIZE, PASSES, Roofline, roofline
from ..perf.timings import BACKWARD, FORWARD, SizeSweep
from ..views.figures import BLUE, GREY, ORANGE, SMALLEST_TEXT, STYLES, for_phones, new_axes, roofline_axes
from . import COURSE, holds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CLOSE_TO_ROOF = 0.7  # a kernel that reaches this share of what memory allows is limited by memory


def compared(spread: cost.Spread, name: str, other: str) -> str:
    """A sentence that claims only what every round showed."""
    span = f"{spread.low:.2f} to {spread.high:.2f} times as long, round by round"
    if spread.clear == "longer":
        return f"{name} took longer than {other} in every round ({span})"
    if spread.clear == "shorter":
        return f"{name} took less time than {other} in every round ({span})"
    return f"{name} and {other} were within the run-to-run spread ({span})"


def spread_text(spread: cost.Spread) -> str:
    """A ratio as the table shows it: the median over the rounds, then the lowest and highest round."""
    return f"{spread.median:.1f} ({spread.low:.1f} to {spread.high:.1f})"


def held_in_cache(batch: int, cache: int | None) -> str:
    """Whether the copy's working set, x and the array it writes, fits in the cache the machine reports."""
    if cache is None:
        return "the least size the build times, as no cache size is known"
    together = f"x and the array written together ({binary_size(2 * batch)})"
    if 2 * batch > cache:
        return f"{together} are larger than that cache, so the timings include trips to main memory"
    return (
        f"{together} fit within that cache as reported, so the copy's timings are of data a cache can hold; "
        "the formula's temporaries may not"
    )


def margin(speedup: float, size: str) -> str:
    """The narrowest margin in words that read rightly whichever of the two was faster."""
    if speedup >= 1:
        return f"at {size}, where the formula took {speedup:.2f} times as long as the kernel"
    return f"at {size}, where the kernel took {1 / speedup:.2f} times as long as the formula"


def values() -> SimpleNamespace:
    shape = cost.cost_shape()
    cache = cost.last_level_cache()
    batch = int(np.prod(shape)) * np.dtype(np.float32).itemsize
    measured = cost.cost_timings(shape, np.float32)
    spreads = {d: t.ratios(cost.COPY) for d, t in measured.items()}  # one ratio per contender, round by round
    ratios = {d: {n: spread.median for n, spread in by_name.items()} for d, by_name in spreads.items()}
    fwd, bwd = spreads[cost.FORWARD], spreads[cost.BACKWARD]
    holds(ratios[cost.FORWARD][cost.COPY] == 1.0, "the copy is the unit")
    timed = [spread for by_name in spreads.values() for name, spread in by_name.items() if name != cost.COPY]
    holds(all(np.isfinite(t.low) and t.low > 0 for t in timed), "every time is a real time")
    moves = [t.high / t.low for t in timed]
    sweep = cost.size_sweep()
    slower = [binary_size(n) for n in sweep.slower_than_formula(cost.PACKAGE)]
    speedups = sweep.speedup(cost.PACKAGE)
    roof = roofline()
    return SimpleNamespace(
        cost_batch=shape[0],
        cost_tokens=shape[1],
        cost_width=shape[2],
        cost_size=binary_size(batch),
        cache=f"a {binary_size(cache)}" if cache else "no",
        beyond=held_in_cache(batch, cache),
        bytes_per_element=2 * np.dtype(np.float32).itemsize,
        paper_low=f"{cost.PAPER_SPEEDUP[0]:.0%}",
        paper_high=f"{cost.PAPER_SPEEDUP[1]:.0%}",
        flops=cost.FORWARD_FLOPS_PER_ELEMENT,
        intensity=f"{cost.arithmetic_intensity(np.float32):.1f}",
        ratios=ratios,
        f_out=spread_text(fwd[cost.INTO_OUT]),
        f_pkg=spread_text(fwd[cost.PACKAGE]),
        f_rms=spread_text(fwd[cost.FORMULA]),
        f_layer=spread_text(fwd[cost.LAYER_FORMULA]),
        b_pkg=spread_text(bwd["rms_norm_backward"]),
        b_rms=spread_text(bwd[cost.FORMULA]),
        b_layer=spread_text(bwd[cost.LAYER_FORMULA]),
        moves_least=f"{min(moves):.2f}",
        moves_most=f"{max(moves):.2f}",
        rounds=len(measured[cost.FORWARD].samples[cost.COPY]),
        forward_words=compared(
            measured[cost.FORWARD].ratio(cost.LAYER_FORMULA, cost.FORMULA),
            "forward, the LayerNorm formula",
            "the RMSNorm formula",
        ),
        backward_words=compared(
            measured[cost.BACKWARD].ratio(cost.LAYER_FORMULA, cost.FORMULA),
            "backward, the LayerNorm formula",
            "the RMSNorm formula",
        ),
        sweep=sweep,
        sweep_width=cost.SWEEP_WIDTH,
        sweep_smallest=binary_size(cost.SWEEP_BYTES[0]),
        sweep_largest=binary_size(cost.SWEEP_BYTES[-1]),
        sweep_slower=f"slower than the formula at {', '.join(slower)}" if slower else "never slower than the formula",
        sweep_speedup=format(speedups[-1], ".2f"),
        sweep_margin=margin(float(speedups.min()), binary_size(sweep.nbytes[np.argmin(speedups)])),
        sweep_out_speedup=format(sweep.speedup(cost.INTO_OUT)[-1], ".2f"),
        sweep_package_small=format(1e6 * sweep.seconds[cost.PACKAGE][0], ".1f"),
        sweep_formula_small=format(1e6 * sweep.seconds[cost.FORMULA][0], ".1f"),
        few_rows=kernel.FEW_ROWS,
        roof=roof,
        roof_matmul=MATMUL_SIZE,
        roof_bandwidth=f"{roof.bandwidth / 1e9:.0f}",
        roof_peak=f"{roof.peak / 1e9:.0f}",
        roof_ridge=f"{roof.ridge:.1f}",
        roof_ceiling=f"{roof.attainable(roof.intensity) / 1e9:.1f}",
        roof_achieved=f"{roof.achieved / 1e9:.1f}",
        roof_fraction=f"{roof.fraction_of_roof:.0%}",
        roof_peak_share=f"{roof.achieved / roof.peak:.1%}",
        roof_below_ridge=f"{roof.ridge / roof.intensity:.0f}",
        passes=PASSES,
        roof_reading=(
            "close to what memory allows: here memory is what limits it"
            if roof.fraction_of_roof >= CLOSE_TO_ROOF
            else "well short of what memory allows, so on this machine something else limits it first"
        ),
    )


MIB = 2**20
SIZES = {"float32": 4, "bfloat16": 2, "float16": 2, "float64": 8}


@COURSE.exercise(
    "forward-bytes",
    "The least a forward pass moves",
    "A {dtype} batch of shape {shape} goes through RMSNorm. At the least, how many MiB must the forward pass move "
    "through memory?",
    Number(decimals=0, units=("MiB", "mib", "mb"), stated=False),  # whole MiB: the gain's few KiB round away
    "It must read every element of x and write every element of y; count the bytes a number takes.",
    given={"dtype": "float32", "shape": [4, 2048, 4096]},  # a model-sized batch of activations, [B, T, d]
    variants=(
        {"dtype": "bfloat16"},
        {"shape": [2, 1024, 4096]},
        {"dtype": "float64", "shape": [1, 4096, 8192]},
        {"dtype": "float16", "shape": [8, 512, 2048]},
        {"dtype": "float32", "shape": [16, 128, 512]},
    ),
)
def _forward_bytes(dtype, shape) -> Solution:
    itemsize = SIZES[dtype]
    nbytes = int(np.prod(shape)) * itemsize
    moved = 2 * nbytes / MIB  # one read of x, one write of y
    other = 8 if itemsize != 8 else 4  # a slip in the number's size
    return Solution(
        moved,
        f"{moved:g} MiB: one read of x and one write of y, {nbytes / MIB:g} MiB each.",
        slips=(
            (nbytes / MIB, "That reads x but never writes y; the output has to reach memory too."),
            (2 * nbytes / MIB * (other / itemsize), f"That counts {other} bytes a number; {dtype} takes {itemsize}."),
            (2 * nbytes / 10**6, "That is in millions of bytes; a MiB is 2**20 bytes, 1,048,576."),
        ),
        detail="A copy of x into an existing array moves exactly as much: the least any normalization can do.",
    )


@for_phones
def cost_ratios_figure(ratios) -> Figure:
    """Horizontal bars: each implementation's time as a multiple of one copy of x, forward and backward."""
    fig, axes = new_axes(9.0, 3.2, columns=2)
    for ax, direction in zip(axes, (FORWARD, BACKWARD)):
        names = list(ratios[direction])
        values = [ratios[direction][n] for n in names]
        bars = ax.barh(names, values, color=[GREY if "copy" in n else BLUE for n in names])
        for bar, name in zip(bars, names):
            bar.set_hatch("//" if "copy" in name else "")
        ax.axvline(1.0, color=GREY, linewidth=0.8, linestyle="--")
        ax.invert_yaxis()
        ax.set_xlabel("time as a multiple of one copy of x")
        ax.set_title(direction)
    axes[0].set_ylabel("implementation")
    return fig


@for_phones
def size_sweep_figure(sweep: SizeSweep) -> Figure:
    """Forward nanoseconds per element against input size: where the kernel wins and where it loses."""
    fig, (ax,) = new_axes(7.2, 3.6)
    megabytes = sweep.nbytes / 2**20
    for name, (style, colour, marker) in zip(sweep.seconds, STYLES):
        ax.plot(megabytes, sweep.nanoseconds_per_element(name), style, marker=marker, color=colour, label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(megabytes, [binary_size(n) for n in sweep.nbytes])
    # slanted, so the labels of sizes an octave apart (16 MiB, 32 MiB) do not run into each other
    ax.tick_params(axis="x", labelrotation=45)
    for label in ax.get_xticklabels():
        label.set(horizontalalignment="right", rotation_mode="anchor")
    ax.set_xlabel("size of x (float32)")
    ax.set_ylabel("forward time per element (ns)")
    ax.grid(True, which="major", alpha=0.3)
    fig.legend(fontsize=SMALLEST_TEXT, loc="outside lower center", ncols=2, frameon=False)  # clear of every line
    return fig


@for_phones
def roofline_figure(r: Roofline) -> Figure:
    """The measured roof, min(peak, bandwidth x intensity), with RMSNorm's forward placed at its intensity."""
    fig, (ax,) = new_axes(7.2, 4.0)
    intensities = np.geomspace(1 / 16, 256, 200)
    giga = 1e9
    ax.plot(
        intensities,
        r.attainable(intensities) / giga,
        "-",
        color=BLUE,
        linewidth=2,
        label=f"roof: {r.bandwidth / giga:.0f} GB/s x intensity, up to {r.peak / giga:.0f} GFLOP/s",
    )
    ax.axvline(r.ridge, color=GREY, linestyle=":", linewidth=1, label=f"ridge: {r.ridge:.1f} flops per byte")
    ax.axvline(
        r.intensity, color=ORANGE, linestyle="--", linewidth=1, label=f"RMSNorm float32: {r.intensity:g} flops per byte"
    )
    ax.plot(
        [r.intensity],
        [r.achieved / giga],
        "s",
        color=ORANGE,
        markersize=9,
        label=f"rms_norm measured: {r.achieved / giga:.1f} GFLOP/s",
    )
    roofline_axes(ax, "GFLOP/s (log scale)")
    return fig
