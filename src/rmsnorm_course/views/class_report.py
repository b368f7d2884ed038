"""A graded class as an instructor reads it, and each student's feedback as the student reads it.

``python -m rmsnorm_course grade FOLDER --gradebook grades.csv`` grades every answers
file in one process (``exercises.gradebook``), prints a summary per exercise (how many
got it right, the most common wrong answer and the slip behind it), and writes the
CSV with a figure beside it (``grades.png``). With ``--feedback DIR`` each student
gets a Markdown page: every verdict and hint, the reasoning behind a right answer,
and never the reference answer of a wrong one. Nothing is written over a graded file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..exercises import registry
from ..exercises.gradebook import ExerciseTally, GradedFile, csv_text, tally
from . import figures


class OutputError(ValueError):
    """An output path the grade command cannot use: it says which, and what was expected."""


def summary(graded: Sequence[GradedFile], tallies: Sequence[ExerciseTally]) -> str:
    """The class at a glance: files and mean score, files with problems, then one line per exercise."""
    total = len(registry.EXERCISES)
    mean = sum(file.score for file in graded) / len(graded) if graded else 0.0
    lines = [f"graded {len(graded)} answer file{'s' * (len(graded) != 1)}: mean score {mean:.1f}/{total}"]
    troubled = [file for file in graded if file.problems()]
    if troubled:
        lines.append(f"{len(troubled)} with problems (the CSV's last column says which):")
        lines += [f"  {problem}" for file in troubled for problem in file.problems()[:1]]
    width = max(len(exercise_id) for exercise_id in registry.EXERCISES)
    lines.append(f"{'exercise':<{width}}  {'right':>9}  {'first try':>9}  most common wrong answer: the slip behind it")
    for t in tallies:
        right = f"{t.right}/{t.files}"
        first = f"{t.first_right}/{t.first_recorded}" if t.first_recorded else "-"
        if t.common_wrong is None:
            wrong = "none"
        else:
            files = f"{t.common_count} file{'s' * (t.common_count != 1)}"
            wrong = f"{t.common_wrong} ({files}): {t.note or 'no known slip gives this answer'}"
        lines.append(f"{t.exercise_id:<{width}}  {right:>9}  {first:>9}  {wrong}")
    return "\n".join(lines) + "\n"


_MARKDOWN = re.compile(r"([\\`*_\[\]<>&#|~])")


def _md(text: str) -> str:
    """Text shown as itself in Markdown: every character Markdown or HTML would act on is escaped."""
    return _MARKDOWN.sub(r"\\\1", text)


def _code(text: str) -> str:
    """Text as inline code, fenced by more backticks than it holds in a row."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if "`" in text else f"`{text}`"


def feedback_markdown(file: GradedFile) -> str:
    """One student's page: the score, then each exercise's verdict and words (a hint, never a wrong one's answer)."""
    lines = [f"# Feedback on {_md(file.path.name)}", "", f"Score: {file.score}/{len(file.verdicts)}", ""]
    if file.sheet.unreadable is not None:
        return "\n".join([*lines, f"Nothing in this file was graded: {_md(file.sheet.unreadable)}", ""])
    lines += [f"- {_md(problem)}" for problem in file.problems()] + ([""] if file.problems() else [])
    for number, (verdict, first) in enumerate(zip(file.verdicts, file.first_tries), start=1):
        lines += [f"## {number}. {_md(file.sheet.where(verdict.exercise_id))}", "", _md(verdict.sentence), ""]
        if first is not None:
            lines += [f"Your first prediction: {_md(first.head)}", ""]
    return "\n".join(lines)


def feedback_names(graded: Sequence[GradedFile]) -> list[str]:
    """A Markdown file name per graded file, from its name; files of the same name get -2, -3, ..."""
    names: list[str] = []
    taken: set[str] = set()
    for file in graded:
        stem, name, n = file.path.stem or "answers", "", 1
        while not name or name in taken:
            name = f"{stem}.md" if n == 1 else f"{stem}-{n}.md"
            n += 1
        names.append(name)
        taken.add(name)
    return names


def outputs(graded: Sequence[GradedFile], gradebook: Path | None, feedback: Path | None) -> list[Path]:
    """Every path the command would write, refused as a whole if one of them is a graded file or not a .csv."""
    written: list[Path] = []
    if gradebook is not None:
        if gradebook.suffix.lower() != ".csv":
            raise OutputError(f"the gradebook {gradebook} does not end in .csv; expected a path like grades.csv")
        written += [gradebook, gradebook.with_suffix(".png")]
    if feedback is not None:
        written += [feedback / name for name in feedback_names(graded)]
    sources = {file.path.resolve() for file in graded}
    for path in written:
        if path.resolve() in sources:
            raise OutputError(f"writing {path} would replace a graded answers file; expected an output path of its own")
    return written


def write(graded: Sequence[GradedFile], gradebook: Path | None, feedback: Path | None = None) -> list[Path]:
    """Write the gradebook (CSV, and the figure as PNG beside it) and the feedback pages; return what was written."""
    written = outputs(graded, gradebook, feedback)
    if gradebook is not None:
        gradebook.parent.mkdir(parents=True, exist_ok=True)
        gradebook.write_text(csv_text(graded), encoding="utf-8")
        gradebook.with_suffix(".png").write_bytes(figures.png_bytes(figures.class_results_figure(tally(graded))))
    if feedback is not None:
        feedback.mkdir(parents=True, exist_ok=True)
        for file, name in zip(graded, feedback_names(graded)):
            (feedback / name).write_text(feedback_markdown(file), encoding="utf-8")
    return written
