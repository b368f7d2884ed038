"""The class's results as one figure: per exercise, the share of files in each outcome."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from predict_check import Outcome

from .gradebook import ExerciseTally

# Colour-blind safe (Okabe and Ito), and text no smaller than 9 points: the class's own look.
BLUE, ORANGE, GREEN, PURPLE, GREY = "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#555555"
TEXT = 9

# Each outcome of a graded answer: a fill and a hatch, so the bars read without colour too.
OUTCOME_STYLES = {
    Outcome.CORRECT: (GREEN, ""),
    Outcome.CLOSE: (BLUE, "\\\\"),
    Outcome.WRONG: (ORANGE, "//"),
    Outcome.NOT_ANSWERED: ("white", ".."),
    Outcome.UNREADABLE: (PURPLE, "xx"),
}


def class_results_figure(tallies: Sequence[ExerciseTally]) -> Figure:
    """Per exercise, the share of a class's students in each outcome (right, right so far, wrong, not answered,
    unreadable): where predictions fail."""
    files = max((t.files for t in tallies), default=0)
    fig = Figure(figsize=(8.0, 1.4 + 0.27 * len(tallies)), layout="constrained")
    ax = fig.add_subplot()
    rows = np.arange(len(tallies))
    left = np.zeros(len(tallies))
    for outcome, (colour, hatch) in OUTCOME_STYLES.items():
        shares = np.array([100 * t.share(outcome) for t in tallies])
        ax.barh(rows, shares, left=left, color=colour, hatch=hatch, edgecolor=GREY, linewidth=0.6, label=outcome.value)
        left += shares
    for row, t in zip(rows, tallies):
        ax.text(101, row, f"{t.right}/{t.files}", va="center", fontsize=TEXT)
    ax.set_yticks(rows, [t.exercise_id for t in tallies], fontsize=TEXT)
    ax.invert_yaxis()
    ax.set_xlim(0, 112)
    ax.set_xticks(np.arange(0, 101, 20))
    ax.set_xlabel(f"share of the {files} students (%); right of each bar: students right")
    ax.set_ylabel("exercise, in the chapter's order")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(OUTCOME_STYLES), fontsize=TEXT, frameon=False)
    return fig


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG bytes, with no timestamp or version in them: the same bytes for the same class."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return buffer.getvalue()
