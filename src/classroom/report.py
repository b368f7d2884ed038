"""A graded class as an instructor reads it, and each student's feedback as the student reads it.

``python -m classroom grade FOLDER --out grades`` grades every answers file in one
process (``gradebook``), prints a summary per exercise (every outcome's count,
the commonest answers that were not right and the slip behind each), and writes
the gradebook (``grades.csv``, numbers for a spreadsheet or an LMS), the long gradebook
(``grades-long.csv``, one row per answer), the figure (``grades.png``) and a feedback
page per student (``feedback/``, as HTML, plain text and Markdown). A page gives the
score, what to revisit first, each verdict with its hint or reasoning, and never the
answer of an exercise the student has not got right, in any exercise's words.

A page's file name is a number and a slug of ASCII letters (``007-jose-garcia.html``):
nothing from a student's file name or text reaches a file name, a page's title in a
book's theme, or a script. The student's name is inside the page, escaped, and the
folder's index maps each page to its student and file.

The outputs are one unit (``publish``): all of them replace the last run's,
or none does. Nothing is written over a graded file, and a folder that is replaced
whole must be new, empty, or one the command wrote.
"""

from __future__ import annotations

import contextlib
import functools
import html
import os
import re
import stat
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

try:
    import fcntl
except ImportError:  # a system without file locks: outputs are still written whole
    fcntl = None

from predict_check.exercises import Course
from predict_check.kinds import shortened
from predict_check.sheets import SELF_RECORDED
from predict_check.untrusted import code_span, html_text, one_line, quoted, slug, visible
from predict_check.verdicts import LOOKS, Outcome

from .figure import class_results_figure, png_bytes
from .gradebook import (
    ExerciseTally,
    GradedFile,
    csv_text,
    long_csv_text,
    number,
    tally,
)
from .publish import PublishError, Unit, file_identity, publish
from .withheld import gives_away

FORMATS = ("html", "txt", "md")  # the feedback pages' forms: to send by email or an LMS, to read, to build a book
MARKER = "Feedback page written by rmsnorm-course grade"  # in every page: how the command knows its own folder
MARKERS = {"md": f"% {MARKER}\n", "html": f"<!DOCTYPE html>\n<!-- {MARKER} -->\n", "txt": f"{MARKER}\n"}
LEGACY_MARKER = "# Feedback on your predictions\n"  # the first line of an earlier version's pages
PAGE_NAME = re.compile(r"(?:index|[0-9]{3,}-[a-z0-9-]*)\.(?:md|html|txt)")
TITLE = "Feedback on your predictions"
GRADEBOOK, LONG, FIGURE, FEEDBACK = "grades.csv", "grades-long.csv", "grades.png", "feedback"
WIDTH = 76  # columns of a plain-text page
HELD_BACK = "The reasoning is held back here: it states the answer to an exercise you have still to get right."
WHY = {Outcome.CORRECT: "Why", Outcome.WRONG: "Hint", Outcome.CLOSE: "Next", Outcome.UNREADABLE: "To read it"}


class OutputError(ValueError):
    """An output path the grade command cannot use: it says which, and what was expected."""


@dataclass(frozen=True)
class Options:
    """What a teacher adds to the pages: a course title, a note to every student, and the forms to write."""

    title: str | None = None
    note: str | None = None
    formats: tuple[str, ...] = FORMATS
    names: bool = False  # the summary names who gave each answer


# --- the summary ---------------------------------------------------------------------------------


def summary(course: Course, graded: Sequence[GradedFile], tallies: Sequence[ExerciseTally], names: bool = False) -> str:
    """The class at a glance: the mean, who needs review, then per exercise every outcome and the commonest answers.

    Students are named only with ``names`` (a summary may be shown to a class).
    """
    maximum = graded[0].maximum if graded else float(len(course))
    mean = sum(file.total for file in graded) / len(graded) if graded else 0.0
    share = 100 * mean / maximum if maximum else 0.0
    lines = [
        f"graded {len(graded)} answer file{'s' * (len(graded) != 1)}: "
        f"mean score {number(mean, 1)} of {number(maximum)} ({number(share, 1)}%)"
    ]
    review = [file for file in graded if file.needs_review]
    if review:
        lines.append(f"{len(review)} need{'s' * (len(review) == 1)} review (the gradebook's problems column says why):")
        lines += [f"  {_who(file)}: {one_line(file.problems()[0])}" for file in review]
    if any(t.first_recorded for t in tallies):
        lines.append(f"first try*: {SELF_RECORDED}")
    for t in tallies:
        counts = ", ".join(
            f"{t.counts[outcome]} {outcome.value}"
            for outcome in (Outcome.CLOSE, Outcome.WRONG, Outcome.UNREADABLE)
            if t.counts[outcome]
        )
        first = f"; first try* right {t.first_right}/{t.first_recorded}" if t.first_recorded else ""
        shown = f" ({t.first_shown} shown first)" if t.first_shown else ""
        missing = f", {t.counts[Outcome.NOT_ANSWERED]} not answered" if t.counts[Outcome.NOT_ANSWERED] else ""
        lines.append(
            f"{t.exercise_id}: {t.right}/{t.attempted} right of those who answered{missing}"
            + (f"; {counts}" if counts else "")
            + first
            + shown
        )
        for group in t.groups:
            said = f"{group.count} student{'s' * (group.count != 1)}"
            note = group.note or ("no known slip gives this answer" if group.outcome is Outcome.WRONG else "")
            who = f" [{', '.join(group.students)}]" if names else ""
            lines.append(f"    {shortened(visible(group.shown))} ({said}){': ' + note if note else ''}{who}")
    return "\n".join(lines) + "\n"


def _who(file: GradedFile) -> str:
    student = file.student
    return visible(student.name) + (f" ({visible(student.id)})" if student.id else "")


# --- a student's page, built once and written three ways -----------------------------------------


@dataclass(frozen=True)
class Section:
    """One exercise on a page: package words, except ``typed`` and ``suggestion``, which are the student's."""

    number: int
    exercise_id: str
    title: str
    outcome: Outcome
    head: str
    typed: str | None
    message: str
    more: str = ""  # the hint or the reasoning
    suggestion: str | None = None
    carried: str | None = None
    first: str | None = None


@dataclass(frozen=True)
class Page:
    """A student's page: who, the score, what to revisit, and a section per exercise."""

    name: str
    student_id: str | None
    label: str
    score: str
    late: str | None
    problems: tuple[str, ...]
    notes: tuple[str, ...]
    unreadable: str | None
    sections: tuple[Section, ...] = ()
    options: Options = field(default_factory=Options)

    @property
    def revisit(self) -> list[Section]:
        return [section for section in self.sections if section.outcome is not Outcome.CORRECT]


def page(file: GradedFile, options: Options = Options()) -> Page:
    """What a student's page says, whatever its form; words that would give an answer away are held back."""
    score = (
        f"{number(file.total)} of {number(file.maximum)} points ({number(file.percentage, 1)}%); "
        f"{file.score} of {len(file.verdicts)} exercises right"
    )
    cost = f"Handed in late: the points are multiplied by {number(file.late_factor)}."
    late = cost if file.late and file.late_factor != 1 else None
    problems = tuple(file.problems())  # the file by its name as the class knows it, not by the teacher's folders
    if file.sheet.unreadable is not None:
        return Page(file.student.name, file.student.id, file.label, score, late, problems, (), problems[0], (), options)
    course = file.course
    not_right = [course.get(v.exercise_id) for v in file.verdicts if v.outcome is not Outcome.CORRECT]
    sections = []
    for number_, (verdict, first, carried) in enumerate(zip(file.verdicts, file.first_tries, file.carried), start=1):
        exercise = course.get(verdict.exercise_id)
        others = [other for other in not_right if other.id != verdict.exercise_id]
        mark, word, _ = LOOKS[verdict.outcome]
        message, more = verdict.message, verdict.detail
        if verdict.outcome is Outcome.NOT_ANSWERED:
            message = exercise.prompt
            more = f"Answer with {exercise.kind.describe()}."
        if gives_away(f"{message}\n{more}", others):
            message, more = HELD_BACK, ""
        bad = file.sheet.bad_line(verdict.exercise_id)
        sections.append(
            Section(
                number_,
                verdict.exercise_id,
                exercise.title,
                verdict.outcome,
                f"{mark} {word}",
                file.typed(number_ - 1) if verdict.outcome is not Outcome.UNREADABLE or bad else None,
                message,
                more,
                bad.suggestion if bad and verdict.outcome is Outcome.UNREADABLE else None,
                _carried(course, carried),
                _first(first),
            )
        )
    return Page(
        file.student.name, file.student.id, file.label, score, late, problems, file.sheet.notes, None,
        tuple(sections), options,
    )  # fmt: skip


def _carried(course: Course, upstream: str | None) -> str | None:
    if upstream is None:
        return None
    title = course.get(upstream).title
    return f"This follows from your answer to \u201c{title}\u201d: the step itself is right, so start there."


def _first(first) -> str | None:
    if first is None:
        return None
    if first.word == "shown":
        said = "you asked to see the answer before your first prediction"
    else:
        said = f"your first prediction was {first.verdict.head.split(',')[0]}"
    extra = "; this file gives no final answer here" if first.unanswered else ""
    return f"As your browser recorded it, {said}{extra} (your own record, not part of the score)."


# --- Markdown (a book of pages) --------------------------------------------------------------------

_MARKDOWN = re.compile(r"([\\`*_\[\]<>&|~{}$])")


def _md(text: str) -> str:
    """The package's own words shown as themselves in Markdown: every character Markdown or MyST acts on is escaped.

    Words from a student's file never come here; they go in code spans (``untrusted.code_span``).
    """
    return _MARKDOWN.sub(r"\\\1", text)


def feedback_markdown(file: GradedFile, options: Options = Options(), built: Page | None = None) -> str:
    """One student's page in MyST Markdown, for a book: student text only in code spans, never in a heading."""
    p = built or page(file, options)
    lines = [MARKERS["md"].rstrip("\n"), f"# {TITLE}", ""]
    if options.title:
        lines += [_md(one_line(options.title)), ""]
    lines += [f"Student: {code_span(p.name)}" + (f", id {code_span(p.student_id)}" if p.student_id else ""), ""]
    lines += [f"Answers file: {code_span(p.label)}", "", f"Score: {_md(p.score)}", ""]
    if p.late:
        lines += [_md(p.late), ""]
    if options.note:
        lines += [f"Note from your teacher: {code_span(options.note)}", ""]
    if p.unreadable is not None:
        return "\n".join([*lines, f"Nothing in this file could be read: {code_span(p.unreadable, composed=True)}", ""])
    lines += [f"- {code_span(problem, composed=True)}" for problem in p.problems] + ([""] if p.problems else [])
    lines += [f"- {_md(note)}" for note in p.notes] + ([""] if p.notes else [])
    if p.revisit:
        lines += ["## Revisit these", ""]
        lines += [f"- {s.number}. {_md(s.title)}: {_md(s.head)}" for s in p.revisit] + [""]
    if any(s.first for s in p.sections):
        lines += [_md(f"First tries: {SELF_RECORDED}."), ""]
    for s in p.sections:
        lines += [f"## {s.number}. {_md(s.title)}", "", f"{_md(s.head)} ({_md(s.exercise_id)})", ""]
        if s.typed is not None:
            lines += [f"Your answer: {code_span(s.typed)}", ""]
        lines += [_md(s.message), ""]
        if s.more and s.outcome is not Outcome.CORRECT:  # a right answer's reasoning is one sentence, above
            lines += [f"{WHY.get(s.outcome, 'More')}: {_md(s.more)}", ""]
        if s.suggestion:
            lines += [f"Write it as: {code_span(s.suggestion)}", ""]
        lines += [_md(text) + "\n" for text in (s.carried, s.first) if text]
    return "\n".join(lines)


# --- HTML (to send, or to open in a browser) ---------------------------------------------------------

STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:42em;margin:2em auto;padding:0 1em;color:#1f2328}"
    "h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}code{background:#f6f8fa;padding:0 .2em}"
    ".verdict{font-weight:bold}.meta{color:#57606a}.note{border-left:.3em solid #0969da;padding-left:.8em}"
)


def _h(text: str) -> str:
    """The package's own words in HTML."""
    return html.escape(text, quote=True)


def feedback_html(file: GradedFile, options: Options = Options(), built: Page | None = None) -> str:
    """One student's page as a self-contained HTML document: no script, nothing fetched, every text escaped."""
    p = built or page(file, options)
    title = _h(one_line(options.title)) if options.title else ""
    body = [f"<h1>{_h(TITLE)}</h1>"] + ([f'<p class="meta">{title}</p>'] if title else [])
    who = f"<strong>{html_text(p.name)}</strong>"
    who += f", id <code>{html_text(p.student_id)}</code>" if p.student_id else ""
    body += [f"<p>Student: {who}<br>Answers file: <code>{html_text(p.label)}</code></p>"]
    body += [f"<p>Score: {_h(p.score)}</p>"]
    if p.late:
        body.append(f"<p>{_h(p.late)}</p>")
    if options.note:
        paragraphs = "".join(f"<p>{html_text(part)}</p>" for part in options.note.split("\n\n") if part.strip())
        body.append(f'<div class="note"><p><strong>Note from your teacher</strong></p>{paragraphs}</div>')
    if p.unreadable is not None:
        body.append(f"<p>Nothing in this file could be read: {html_text(p.unreadable, composed=True)}</p>")
        return _document(options, body)
    if p.problems:
        body.append("<ul>" + "".join(f"<li>{html_text(x, composed=True)}</li>" for x in p.problems) + "</ul>")
    body += [f'<p class="meta">{_h(note)}</p>' for note in p.notes]
    if p.revisit:
        items = "".join(
            f'<li><a href="#{s.exercise_id}">{s.number}. {_h(s.title)}</a>: {_h(s.head)}</li>' for s in p.revisit
        )
        body.append(f"<h2>Revisit these</h2><ul>{items}</ul>")
    if any(s.first for s in p.sections):
        body.append(f'<p class="meta">First tries: {_h(SELF_RECORDED)}.</p>')
    for s in p.sections:
        body.append(f'<h2 id="{s.exercise_id}">{s.number}. {_h(s.title)}</h2>')
        body.append(f'<p><span class="verdict">{_h(s.head)}</span> <span class="meta">({_h(s.exercise_id)})</span></p>')
        if s.typed is not None:
            body.append(f"<p>Your answer: <code>{html_text(s.typed)}</code></p>")
        body.append(f"<p>{_h(s.message)}</p>")
        if s.more and s.outcome is not Outcome.CORRECT:
            body.append(f"<p>{_h(WHY.get(s.outcome, 'More'))}: {_h(s.more)}</p>")
        if s.suggestion:
            body.append(f"<p>Write it as: <code>{html_text(s.suggestion)}</code></p>")
        body += [f'<p class="meta">{_h(text)}</p>' for text in (s.carried, s.first) if text]
    return _document(options, body)


def _document(options: Options, body: list[str]) -> str:
    title = _h(TITLE + (f": {one_line(options.title)}" if options.title else ""))
    head = (
        '<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{STYLE}</style></head>"
    )
    return MARKERS["html"] + head + "<body><main>\n" + "\n".join(body) + "\n</main></body></html>\n"


# --- plain text (to paste into an LMS's comment box or an email) ---------------------------------------


def feedback_text(file: GradedFile, options: Options = Options(), built: Page | None = None) -> str:
    """One student's page as plain text: no markup, every student's text on one line with its controls visible."""
    p = built or page(file, options)
    out = [MARKERS["txt"].rstrip("\n"), "", TITLE, "=" * len(TITLE)]
    if options.title:
        out.append(one_line(options.title))
    out += ["", f"Student: {visible(p.name)}" + (f" (id {visible(p.student_id)})" if p.student_id else "")]
    out += [f"Answers file: {visible(p.label)}", f"Score: {p.score}"]
    if p.late:
        out += _wrap(p.late)
    if options.note:
        out += ["", "Note from your teacher:"]
        for part in options.note.split("\n\n"):
            out += _wrap(visible(part.strip()), "  ")
    if p.unreadable is not None:
        return "\n".join([*out, "", *_wrap(f"Nothing in this file could be read: {one_line(p.unreadable)}")]) + "\n"
    for problem in p.problems:
        out += _wrap(f"- {one_line(problem)}")
    for note in p.notes:
        out += _wrap(f"({note})")
    if p.revisit:
        out += ["", "Revisit these:"] + [f"  {s.number}. {s.title}: {s.head}" for s in p.revisit]
    if any(s.first for s in p.sections):
        out += ["", *_wrap(f"First tries: {SELF_RECORDED}.")]
    for s in p.sections:
        if s.outcome is Outcome.CORRECT:  # two lines: the verdict with the answer, and why
            out += ["", f"{s.number}. {s.title} ({s.exercise_id}): {s.head}, you wrote {visible(s.typed or '')}"]
            out += _wrap(s.message, "   ")
            continue
        out += ["", f"{s.number}. {s.title} ({s.exercise_id})", f"   {s.head}"]
        if s.typed is not None:
            out.append(f"   Your answer: {visible(s.typed)}")
        out += _wrap(s.message, "   ")
        if s.more:
            out += _wrap(f"{WHY.get(s.outcome, 'More')}: {s.more}", "   ")
        if s.suggestion:
            out.append(f"   Write it as: {visible(s.suggestion)}")
        for text in (s.carried, s.first):
            if text:
                out += _wrap(text, "   ")
    return "\n".join(out) + "\n"


def _wrap(text: str, indent: str = "") -> list[str]:
    return list(_wrapped(text, indent))


@functools.lru_cache(maxsize=4096)
def _wrapped(text: str, indent: str) -> tuple[str, ...]:
    """Wrapped once: a class's pages repeat the same explanations and hints."""
    lines = textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)
    return tuple(lines) or ("",)


RENDER = {"md": feedback_markdown, "html": feedback_html, "txt": feedback_text}


# --- the folder of pages, its names and its index ---------------------------------------------------------


def page_stems(graded: Sequence[GradedFile]) -> list[str]:
    """Each page's file name without its extension: a number and an ASCII slug, unique whatever the names."""
    width = max(3, len(str(len(graded))))
    return [f"{n:0{width}d}-{slug(file.student.name) or 'student'}" for n, file in enumerate(graded, start=1)]


def feedback_names(graded: Sequence[GradedFile], form: str = "md") -> list[str]:
    """Each file's page name in one form: ``001-alice.md``."""
    return [f"{stem}.{form}" for stem in page_stems(graded)]


def feedback_pages(graded: Sequence[GradedFile], options: Options = Options()) -> dict[str, bytes]:
    """Every page in every form asked, and an index per form that maps each page to its student and file."""
    stems = page_stems(graded)
    pages: dict[str, bytes] = {}
    built = [page(file, options) for file in graded]  # once per student, written in every form
    for form in options.formats:
        for stem, file, made in zip(stems, graded, built):
            pages[f"{stem}.{form}"] = RENDER[form](file, options, made).encode("utf-8")
        pages[f"index.{form}"] = _index(graded, stems, form, options).encode("utf-8")
    return pages


def _index(graded: Sequence[GradedFile], stems: Sequence[str], form: str, options: Options) -> str:
    rows = list(zip(stems, graded))
    if form == "md":
        lines = [MARKERS["md"].rstrip("\n"), "# Feedback pages", ""]
        for stem, file in rows:
            who = code_span(file.student.name) + (f", id {code_span(file.student.id)}" if file.student.id else "")
            lines.append(f"- [{stem}]({stem}.md): {who}, file {code_span(file.label)}")
        return "\n".join(lines) + "\n"
    if form == "html":
        cells = "".join(
            f'<tr><td><a href="{stem}.html">{stem}</a></td><td>{html_text(file.student.name)}</td>'
            f"<td>{html_text(file.student.id or '')}</td><td><code>{html_text(file.label)}</code></td></tr>"
            for stem, file in rows
        )
        table = f"<table><tr><th>page</th><th>student</th><th>id</th><th>file</th></tr>{cells}</table>"
        return _document(options, ["<h1>Feedback pages</h1>", table])
    lines = [MARKERS["txt"].rstrip("\n"), "", "Feedback pages: page, student, id, file"]
    for stem, file in rows:
        lines.append(f"{stem}  {visible(file.student.name)}  {visible(file.student.id or '-')}  {visible(file.label)}")
    return "\n".join(lines) + "\n"


# --- where the outputs go, refused as a whole before anything is written -----------------------------------


@dataclass(frozen=True)
class Plan:
    """The outputs of a run: each path as given (for messages) and absolute (to write)."""

    gradebook: Path | None  # as given; with ``out``, inside it
    feedback: Path | None
    out: Path | None = None

    @property
    def units(self) -> list[tuple[Path, str]]:
        """Each unit the run replaces whole (absolute path, name as given), in the order they are switched."""
        if self.out is not None:
            return [(_absolute(self.out), str(self.out))]
        units = []
        if self.gradebook is not None:
            for path in _gradebook_files(self.gradebook):
                units.append((_absolute(path), str(path)))
        if self.feedback is not None:
            units.append((_absolute(self.feedback), str(self.feedback)))
        return units


def _gradebook_files(gradebook: Path) -> list[Path]:
    """The gradebook, the long gradebook and the figure beside it: grades.csv, grades-long.csv, grades.png."""
    return [gradebook, gradebook.with_name(f"{gradebook.stem}-long.csv"), gradebook.with_suffix(".png")]


def _absolute(path: Path) -> Path:
    """The path from the root, ``..`` and ``.`` resolved in its words (a link in it stays a link)."""
    return Path(os.path.abspath(path))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def outputs(
    graded: Sequence[GradedFile],
    gradebook: Path | None,
    feedback: Path | None,
    out: Path | None = None,
    folders: Sequence[Path] = (),
) -> list[Path]:
    """Every path the command would write, refused as a whole if any of them may not be written; else the list.

    Refused: a gradebook that is not a ``.csv`` or is a folder; a feedback (or ``out``)
    folder that is not a folder, holds what the command did not write, holds a graded
    file, the current folder or a gradebook; any output inside a folder being graded; any
    output that is a graded file under another name or link.
    """
    plan = Plan(gradebook, feedback, out)
    written: list[Path] = []
    if out is not None:
        if gradebook is not None or feedback is not None:
            raise OutputError("--out writes the gradebook and the feedback together; expected --out alone")
        written = [out / GRADEBOOK, out / LONG, out / FIGURE, out / FEEDBACK]
    if gradebook is not None:
        if gradebook.suffix.lower() != ".csv":
            raise OutputError(
                f"the gradebook {visible(str(gradebook))} does not end in .csv; expected a path like grades.csv"
            )
        for path in _gradebook_files(gradebook):
            if _is_folder(path, follow=True):
                raise OutputError(f"{visible(str(path))} is a folder; expected a file path for the gradebook")
        written += _gradebook_files(gradebook)
    sources = {identity for file in graded if (identity := file_identity(file.path, follow=False)) is not None}
    whole = [path for path in (feedback, out) if path is not None]
    if feedback is not None:
        written += [feedback / name for name in feedback_names(graded)]
    for path in written + whole:
        if file_identity(path, follow=True) in sources or file_identity(path, follow=False) in sources:
            raise OutputError(
                f"writing {visible(str(path))} would replace a graded answers file; expected an output path of its own"
            )
    here = _absolute(Path.cwd())
    for folder in whole:
        where = _absolute(folder)
        for file in graded:
            if _inside(_absolute(file.path), where):
                raise OutputError(
                    f"the folder {visible(str(folder))} holds a graded answers file, {quoted(file.path.name)}; "
                    "expected a folder of its own for the outputs"
                )
        if _inside(here, where):
            raise OutputError(
                f"{visible(str(folder))} holds the current folder, and would be replaced whole; "
                "expected a folder of its own for the outputs"
            )
        if gradebook is not None and _inside(_absolute(gradebook), where):
            raise OutputError(
                f"the gradebook {visible(str(gradebook))} is inside the feedback folder {visible(str(folder))}, "
                "which is replaced whole; expected the gradebook outside it"
            )
        _check_folder(folder, sources, out is not None)
    for target, shown in plan.units:
        for graded_folder in folders:
            if _inside(target, _absolute(graded_folder)) or _inside(target, _absolute(graded_folder.resolve())):
                raise OutputError(
                    f"{visible(shown)} is inside the folder being graded, {visible(str(graded_folder))}; "
                    "expected outputs outside it"
                )
    targets = [target for target, _ in plan.units]
    if len(set(targets)) != len(targets):
        raise OutputError("two outputs name the same path; expected a gradebook and a feedback folder apart")
    return written


def _check_folder(folder: Path, sources: set[tuple[int, int]], whole_run: bool) -> None:
    """A folder replaced whole: refuse one that holds anything the command did not write there.

    A new or empty folder is fine, and so is one an earlier run wrote (its pages and
    index; for ``--out``, its gradebook files and feedback folder) and nothing else.
    """
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            raise OutputError(f"{visible(str(folder))} is not a folder; expected a folder for the outputs")
        entries = sorted(folder.iterdir())
    except FileNotFoundError:
        return
    except OSError as error:
        raise OutputError(f"cannot look into {visible(str(folder))}: {error.strerror}") from None
    for entry in entries:
        if file_identity(entry, follow=False) in sources:
            raise OutputError(
                f"the feedback folder {visible(str(folder))} holds a graded answers file, {quoted(entry.name)}; "
                "expected a folder of its own for the feedback pages"
            )
    if whole_run:
        foreign = [entry.name for entry in entries if not _is_run_output(entry, sources)]
    else:
        foreign = [entry.name for entry in entries if not _is_feedback_page(entry)]
    if foreign:
        raise OutputError(
            f"the folder {visible(str(folder))} holds what the grade command did not write, such as "
            f"{quoted(foreign[0])}, and would be replaced whole; expected a new or empty folder, "
            "or one an earlier grade command wrote"
        )


def _is_run_output(entry: Path, sources: set[tuple[int, int]]) -> bool:
    if entry.name == FEEDBACK:
        try:
            _check_folder(entry, sources, whole_run=False)
        except OutputError:
            return False
        return stat.S_ISDIR(entry.lstat().st_mode)
    return entry.name in (GRADEBOOK, LONG, FIGURE) and stat.S_ISREG(entry.lstat().st_mode)


def _is_feedback_page(entry: Path) -> bool:
    """A regular file named as the command names pages, that begins as they do (or as an earlier version's)."""
    if not stat.S_ISREG(entry.lstat().st_mode):
        return False
    with entry.open("rb") as handle:
        start = handle.read(256)
    if PAGE_NAME.fullmatch(entry.name):
        return start.startswith(MARKERS[entry.suffix[1:]].encode())
    return entry.suffix == ".md" and start.startswith(LEGACY_MARKER.encode())


def _is_folder(path: Path, follow: bool) -> bool:
    try:
        return stat.S_ISDIR((path.stat() if follow else path.lstat()).st_mode)
    except (OSError, RuntimeError):
        return False


# --- writing: one unit, or nothing ------------------------------------------------------------------------------


def write(
    course: Course,
    graded: Sequence[GradedFile],
    gradebook: Path | None,
    feedback: Path | None = None,
    out: Path | None = None,
    options: Options = Options(),
    folders: Sequence[Path] = (),
) -> list[Path]:
    """Write the gradebook files, the figure and the feedback pages as one unit; return what was written.

    Everything is refused before anything is written (``outputs``); then every output is
    staged beside its place and all are switched in (``exercises.publish``). While one
    run writes, another run writing to the same places waits for it.
    """
    written = outputs(graded, gradebook, feedback, out, folders)
    plan = Plan(gradebook, feedback, out)
    units = plan.units
    if not units:
        return written
    created = _make_parents([target.parent for target, _ in units], [shown for _, shown in units])
    try:
        with contextlib.ExitStack() as held:
            for folder in sorted({target.parent for target, _ in units}):
                held.enter_context(_exclusive(folder))
            outputs(graded, gradebook, feedback, out, folders)  # again, now that no other run can change them
            publish(_contents(course, graded, plan, options))
    except BaseException:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return written


def _contents(course: Course, graded: Sequence[GradedFile], plan: Plan, options: Options) -> list[Unit]:
    stems = page_stems(graded)
    pages = [f"{stem}.html" if "html" in options.formats else f"{stem}.{options.formats[0]}" for stem in stems]
    gradebook = csv_text(course, graded, pages).encode("utf-8")
    long = long_csv_text(graded).encode("utf-8")
    figure = png_bytes(class_results_figure(tally(course, graded)))
    if plan.out is not None:
        folder = {GRADEBOOK: gradebook, LONG: long, FIGURE: figure}
        folder |= {f"{FEEDBACK}/{name}": data for name, data in feedback_pages(graded, options).items()}
        return [Unit(_absolute(plan.out), folder, str(plan.out))]
    units = []
    if plan.gradebook is not None:
        for path, data in zip(_gradebook_files(plan.gradebook), (gradebook, long, figure)):
            units.append(Unit(_absolute(path), data, str(path)))
    if plan.feedback is not None:
        units.append(Unit(_absolute(plan.feedback), feedback_pages(graded, options), str(plan.feedback)))
    return units


def _make_parents(parents: Sequence[Path], shown: Sequence[str]) -> list[Path]:
    """The outputs' folders, made where missing; the ones made, to remove if the run writes nothing."""
    created: list[Path] = []
    for parent, name in zip(parents, shown):
        missing = [folder for folder in [parent, *parent.parents] if not os.path.lexists(folder)]
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            for folder in created:
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise PublishError(error.errno, f"cannot write {visible(name)}: {error.strerror}") from None
        created += reversed(missing)
    return created


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
