"""Tables for the book, as Markdown so they read the same in Jupyter and in the HTML page."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from IPython.display import Markdown

from ..core.format import difference, fmt, given
from ..studies.comparison import IMPLEMENTATIONS, Statistics
from ..studies.evidence import Evidence, History
from ..studies.example import ANCHOR, COMPANION, EPS
from ..studies.refusals import CONTRASTS, PYTORCH_VERSION


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]], footer: str = "") -> Markdown:
    """A GitHub-style Markdown table, with an optional paragraph under it; pipes inside cells are escaped."""

    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(map(cell, headers)) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    if footer:
        lines += ["", footer]
    return Markdown("\n".join(lines))


def history_table(h: History) -> Markdown:
    """The anchor's output from each norm, next to each companion, with the eps each ran at."""
    return markdown_table(
        [f"output for anchor {given(ANCHOR)}", *(f"batch companion {given(c)}" for c in (COMPANION, ANCHOR))],
        [
            [f"BatchNorm (training mode, eps = {EPS:g})", fmt(h.batch_with_companion), fmt(h.batch_with_itself)],
            [f"LayerNorm (eps = {EPS:g})", fmt(h.layer_norm_with_companion), fmt(h.layer_norm_with_itself)],
            ["RMSNorm (eps = 0)", fmt(h.rms_norm_with_companion), fmt(h.rms_norm_with_itself)],
        ],
    )


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


def placements_table(placements, sources) -> Markdown:
    """Where the norms sit in today's models: each arrangement with its formula, its bound and its sources."""
    return markdown_table(
        ["arrangement", "models", "formula", "what it bounds", "sources", "computed on the page"],
        [
            [
                p.name,
                p.models,
                f"`{p.formula}`",
                p.bounds,
                ", ".join(f"[{key}]({sources[key].url})" for key in p.sources),
                p.computed,
            ]
            for p in placements
        ],
    )


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


def scale_cards_table(cards) -> Markdown:
    """Each scale card: x-hat of x and of a*x, and how far apart they are."""
    return markdown_table(
        ["card", "x", "eps", "x-hat(x)", "x-hat(a·x)", "max difference"],
        [
            [c.label, given(c.x), f"{c.eps:g}", fmt(c.original), fmt(c.scaled), difference(c.max_difference)]
            for c in cards
        ],
    )


def statistics_table(statistics: dict[str, Statistics]) -> Markdown:
    return markdown_table(
        ["values", "mean", "standard deviation", "RMS"],
        [[name, f"{s.mean:.6f}", f"{s.std:.6f}", f"{s.rms:.6f}"] for name, s in statistics.items()],
    )


def implementations_table() -> Markdown:
    return markdown_table(
        ["implementation", "default eps", "where eps goes", "computed in"],
        [[i.name, i.eps, f"`{i.placement}`", i.precision] for i in IMPLEMENTATIONS],
        footer="Sources: " + "; ".join(f"{i.name}: {i.source}" for i in IMPLEMENTATIONS) + ".",
    )


def float_formats_table() -> Markdown:
    """float16, float32 and float64: the significant bits each keeps and the largest number each holds."""
    rows = []
    for dtype in (np.float16, np.float32, np.float64):
        info = np.finfo(dtype)
        bits = info.nmant + 1
        rows.append([np.dtype(dtype).name, bits, f"{float(info.max):.6g}", f"2**{bits}"])
    return markdown_table(["format", "significant bits", "largest finite value", "every whole number up to"], rows)


def refusals_table() -> Markdown:
    """Each contrast: what the formula, PyTorch and this package do with the request, and why."""
    return markdown_table(
        ["request", "the formula gives", f"PyTorch {PYTORCH_VERSION} `F.rms_norm`", "this package", "why"],
        [[c.request, c.formula(), c.pytorch, c.package(), c.why] for c in CONTRASTS],
        footer="The formula column is computed when the book is built, in float64, exactly as written; "
        f"the PyTorch column was recorded with PyTorch {PYTORCH_VERSION}, and the tests check it "
        "wherever PyTorch is installed.",
    )


def rejections_table(evidence: Evidence, tooling: bool = False) -> Markdown:
    """The refused requests of rms_norm and the layer, or (``tooling``) those of the tape, optimizer and checker."""
    return markdown_table(
        ["boundary", "request", "error", "message"],
        [
            [f"`{r.case.boundary}`", r.case.request, f"`{r.raised.__name__ if r.raised else 'accepted'}`", r.message]
            for r in evidence.rejections
            if r.from_tooling == tooling
        ],
    )
