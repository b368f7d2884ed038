"""A graded class as an instructor reads it, and each student's feedback as the student reads it.

``python -m rmsnorm_course grade FOLDER --gradebook grades.csv`` grades every answers
file in one process (``exercises.gradebook``), prints a summary per exercise (how many
got it right, the most common wrong answer and the slip behind it), and writes the
CSV with a figure beside it (``grades.png``). With ``--feedback DIR`` each student
gets a Markdown page: every verdict and hint, the reasoning behind a right answer,
and never the reference answer of a wrong one. Nothing is written over a graded file, and
the feedback folder, replaced whole, must be new, empty, or one the command wrote.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

try:
    import fcntl
except ImportError:  # a system without file locks: outputs are still written whole
    fcntl = None

from ..exercises import registry
from ..exercises.gradebook import ExerciseTally, GradedFile, csv_text, tally
from ..exercises.untrusted import code_span, quoted, visible
from . import figures

NAME_CHARACTERS = 100  # of a feedback page's name taken from the file's name
FEEDBACK_TITLE = (
    "# Feedback on your predictions"  # the first line of every page the command writes: how it knows its own folder
)


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
        lines += [f"  {visible(problem)}" for file in troubled for problem in file.problems()[:1]]
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


_MARKDOWN = re.compile(r"([\\`*_\[\]<>&#|~{}$:])")


def _md(text: str) -> str:
    """The package's own words shown as themselves in Markdown: every character Markdown or MyST acts on is escaped.

    Words from a student's file never come here; they go in code spans (``untrusted.code_span``).
    """
    return _MARKDOWN.sub(r"\\\1", text)


def feedback_markdown(file: GradedFile) -> str:
    """One student's page: the score, then each exercise's verdict and words (a hint, never a wrong one's answer).

    The file's name and its problems are shown in code spans, where Markdown, MyST's roles,
    directives and substitutions, dollar math, links and HTML are all just text; never in
    a heading, which a book's theme may also copy into places that read it as HTML.
    """
    lines = [FEEDBACK_TITLE, "", f"Answers file: {code_span(file.path.name)}", ""]
    lines += [f"Score: {file.score}/{len(file.verdicts)}", ""]

    def named(message: str) -> str:  # the file by its name, as its student knows it, not by the teacher's folders
        return message.replace(file.sheet.name, visible(file.path.name))

    if file.sheet.unreadable is not None:
        return "\n".join([*lines, f"Nothing in this file was graded: {code_span(named(file.sheet.unreadable))}", ""])
    problems = [named(problem) for problem in file.problems()]
    lines += [f"- {code_span(problem)}" for problem in problems] + ([""] if problems else [])
    for number, (verdict, first) in enumerate(zip(file.verdicts, file.first_tries), start=1):
        lines += [f"## {number}. {_md(file.sheet.where(verdict.exercise_id))}", "", _md(verdict.unfolded), ""]
        if first is not None:
            lines += [f"Your first prediction: {_md(first.head)}", ""]
    return "\n".join(lines)


def feedback_names(graded: Sequence[GradedFile]) -> list[str]:
    """A Markdown file name per graded file, from its name made visible and short; repeats get -2, -3, ..."""
    names: list[str] = []
    taken: set[str] = set()
    for file in graded:
        stem = visible(file.path.stem).replace("/", "_")[:NAME_CHARACTERS].lstrip(".") or "answers"
        name, n = "", 1
        while not name or name in taken:
            name = f"{stem}.md" if n == 1 else f"{stem}-{n}.md"
            n += 1
        names.append(name)
        taken.add(name)
    return names


def outputs(graded: Sequence[GradedFile], gradebook: Path | None, feedback: Path | None) -> list[Path]:
    """Every path the command would write, refused as a whole if one of them is a graded file or not a .csv.

    A graded file is recognised by what it is, not by its name: a hard link or a symbolic
    link to one is the same file, and is refused too.
    """
    written: list[Path] = []
    if gradebook is not None:
        if gradebook.suffix.lower() != ".csv":
            raise OutputError(
                f"the gradebook {visible(str(gradebook))} does not end in .csv; expected a path like grades.csv"
            )
        written += [gradebook, gradebook.with_suffix(".png")]
    if feedback is not None:
        written += [feedback / name for name in feedback_names(graded)]
    sources = {identity for file in graded if (identity := _identity(file.path, follow=False)) is not None}
    for path in written:
        if _identity(path, follow=True) in sources or _identity(path, follow=False) in sources:
            raise OutputError(
                f"writing {visible(str(path))} would replace a graded answers file; expected an output path of its own"
            )
    if feedback is not None:
        _check_feedback_folder(feedback, sources)
    return written


def _check_feedback_folder(folder: Path, sources: set[tuple[int, int]]) -> None:
    """The feedback folder is replaced whole: refuse one that holds anything the command did not write there.

    A new or empty folder is fine, and so is one an earlier run wrote (feedback pages and
    nothing else); a folder of answers files, or of anything else, is not.
    """
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            raise OutputError(f"{visible(str(folder))} is not a folder; expected a folder for the feedback pages")
        entries = sorted(folder.iterdir())
    except FileNotFoundError:
        return
    for entry in entries:
        if _identity(entry, follow=False) in sources:
            raise OutputError(
                f"the feedback folder {visible(str(folder))} holds a graded answers file, {quoted(entry.name)}; "
                "expected a folder of its own for the feedback pages"
            )
    foreign = [entry.name for entry in entries if not _is_feedback_page(entry)]
    if foreign:
        raise OutputError(
            f"the feedback folder {visible(str(folder))} holds what the grade command did not write, such as "
            f"{quoted(foreign[0])}, and would be replaced whole; expected a new or empty folder, "
            "or one an earlier grade command wrote"
        )


def _is_feedback_page(entry: Path) -> bool:
    """A regular ``.md`` file that begins as the command's pages do."""
    if entry.suffix != ".md" or not stat.S_ISREG(entry.lstat().st_mode):
        return False
    with entry.open("rb") as page:
        return page.read(len(FEEDBACK_TITLE) + 1) == FEEDBACK_TITLE.encode() + b"\n"


def _identity(path: Path, follow: bool) -> tuple[int, int] | None:
    try:
        status = path.stat() if follow else path.lstat()
    except (OSError, RuntimeError):  # absent, unreachable, or a loop of links
        return None
    return status.st_dev, status.st_ino


def write(graded: Sequence[GradedFile], gradebook: Path | None, feedback: Path | None = None) -> list[Path]:
    """Write the gradebook (CSV, and the figure as PNG beside it) and the feedback pages; return what was written.

    Each output is written whole: to a new file (or folder) beside it, then moved into
    place in one step. While one run writes, another run writing to the same places waits,
    so two runs at once leave the outputs of one of them, never a mixture.
    """
    written = outputs(graded, gradebook, feedback)
    folders = sorted({path.parent for path in (gradebook, feedback) if path is not None})
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as held:
        for folder in folders:
            held.enter_context(_exclusive(folder))
        if gradebook is not None:
            _replace(gradebook, csv_text(graded).encode("utf-8"))
            _replace(gradebook.with_suffix(".png"), figures.png_bytes(figures.class_results_figure(tally(graded))))
        if feedback is not None:
            pages = {name: feedback_markdown(file) for file, name in zip(graded, feedback_names(graded))}
            _replace_folder(feedback, pages)
    return written


@contextlib.contextmanager
def _exclusive(folder: Path):
    """Hold the folder's lock: one grade command writes into it at a time (where the system offers locks)."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file beside ``path``, then move it over ``path`` in one step."""
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as new:
        new.write(data)
    os.replace(new.name, path)


def _replace_folder(folder: Path, pages: dict[str, str]) -> None:
    """A new folder of pages beside ``folder``, moved into its place whole.

    The old one (which ``outputs`` has checked holds only pages the command wrote) is then removed.
    """
    new = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
    for name, text in pages.items():
        (new / name).write_text(text, encoding="utf-8")
    old = None
    if folder.exists():
        old = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.old."))
        os.replace(folder, old / folder.name)
    os.replace(new, folder)
    if old is not None:
        shutil.rmtree(old)
