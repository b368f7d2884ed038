"""A student's feedback page, built once and written three ways: HTML to send, text to paste, Markdown for a book.

A page gives the score in points and in exercises, what to revisit first, then each
assigned exercise: the verdict, the answer as the student typed it (one that could not
be read too), the hint for a wrong answer and the reasoning for a right one, unless that
reasoning states the answer to an exercise the student has not got right (``withheld``).
An unanswered exercise keeps its question.

A student's text is shown as text in every form: in HTML through Jinja2's autoescaping
(``visible`` first, for control characters), in Markdown only inside code spans and
never in a heading (so MyST's roles, directives, substitutions, math and HTML stay plain
text when the pages are built into a book), and in plain text with its controls visible.
A page's file name is a number and an ASCII slug (``007-jose-garcia.html``); the folder's
index maps each page to its student and file.
"""

from __future__ import annotations

import functools
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import jinja2

from predict_check import FirstTry, Outcome, code_span, one_line, slug, visible

from .gradebook import REVISIT_FIRST, GradedFile, number
from .withheld import gives_away

FORMATS = ("html", "txt", "md")  # the feedback pages' forms: to send by email or an LMS, to read, to build a book
TITLE = "Feedback on your predictions"
WIDTH = 76  # columns of a plain-text page
ABOUT_FILE = "About your answers file"  # the heading over what could not be read, apart from the teacher's note
PROVISIONAL = (
    "This grade is provisional, held for review: your file is looked at before the grade is final, and it may change."
)
YOUR_RECORD = (
    "your first tries are your own record, kept where you typed them (your browser, or the file you saved from "
    "JupyterLab); the grader checks nothing about them, and they are not part of your score"
)
NOTHING_HANDED_IN = "not graded: no answers file was handed in"
HELD_BACK = "The reasoning is held back here: it states the answer to an exercise you have still to get right."
WHY = {Outcome.CORRECT: "Why", Outcome.WRONG: "Hint", Outcome.CLOSE: "Next", Outcome.UNREADABLE: "To read it"}
TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("classroom"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
TEMPLATES.filters.update(shown=visible, line=one_line)


@dataclass(frozen=True)
class Options:
    """What a teacher adds to the pages: a course title, a note to every student, and the forms to write."""

    title: str | None = None
    note: str | None = None
    formats: tuple[str, ...] = FORMATS

    @property
    def paragraphs(self) -> list[list[str]]:
        """The note's paragraphs, each a list of its lines: a note keeps its lines in every form."""
        blocks = re.split(r"\n\s*\n", (self.note or "").replace("\r\n", "\n").strip())
        return [[line.strip() for line in block.splitlines() if line.strip()] for block in blocks if block.strip()]


@dataclass(frozen=True)
class Section:
    """One exercise on a page: package words, except ``typed``, ``suggestion`` and ``regraded``, which are not."""

    number: int
    exercise_id: str
    title: str
    outcome: Outcome
    head: str
    typed: str | None
    message: str
    more: str = ""  # the hint or the reasoning
    suggestion: str | None = None
    notes: tuple[str, ...] = ()  # where a wrong answer follows from, and the first try
    regraded: str | None = None  # the teacher's reason, where they set the exercise by hand

    @property
    def why(self) -> str:
        return WHY.get(self.outcome, "More")


@dataclass(frozen=True)
class Page:
    """A student's page: who, the score, what to revisit, and a section per assigned exercise."""

    name: str
    student_id: str | None
    label: str
    score: str
    late: str | None
    problems: tuple[str, ...]
    notes: tuple[str, ...]
    unreadable: str | None
    sections: tuple[Section, ...] = ()
    others: tuple[str, ...] = ()
    first_tries: bool = False
    held: str | None = None  # the grade is provisional: the row needs review

    @property
    def revisit(self) -> list[Section]:
        """The first few exercises not right, in the chapter's order: where to start, not a second list of all."""
        return [section for section in self.sections if section.outcome is not Outcome.CORRECT][:REVISIT_FIRST]

    @property
    def about_file(self) -> bool:
        return bool(self.problems or self.notes)


def page(file: GradedFile) -> Page:
    """What a student's page says, whatever its form; reasoning that would give an answer away is held back."""
    score = (
        f"{number(file.total)} of {number(file.maximum)} points ({number(file.percentage, 1)}%); "
        f"{file.score} of {len(file.verdicts)} exercises right"
        if file.graded
        else f"{NOTHING_HANDED_IN} (what you handed in is no answers file)"
    )
    problems = tuple(file.problems())  # the file by its name as the class knows it, not by the teacher's folders
    who = (file.student.name, file.student.id, file.label, score, late_said(file), problems)
    held = PROVISIONAL if file.graded and file.needs_review else None
    if file.sheet.unreadable is not None:
        return Page(*who, (), problems[0], others=file.others, held=held)
    not_right = [exercise for exercise in file.course if exercise.id not in file.right]
    sections = tuple(_section(file, position, not_right) for position in range(len(file.verdicts)))
    firsts = any(first is not None for first in file.first_tries)
    notes = (*file.sheet.notes, *_shifted(file), *filter(None, [whole_said(file)]))
    return Page(*who, notes, None, sections, file.others, firsts, held)


def late_said(file: GradedFile) -> str | None:
    """A late file's lateness and what it cost, in points, said to the student (a page and Moodle's comment)."""
    if not file.late or not file.graded or file.whole:
        return None
    if file.late_factor == 1:
        return "You handed in late: no points are taken off for it."
    before = sum(file.points)
    return (f"You handed in late: your points are multiplied by {number(file.late_factor)}, so "
            f"{number(before)} become {number(before * file.late_factor)}, {number(before * (1 - file.late_factor))} "
            "taken off for lateness.")  # fmt: skip


def _shifted(file: GradedFile) -> tuple[str, ...]:
    """The shift the review queue finds, said to the student: the exercises and the line to check, by their titles.

    Never which answer fits where: that would tell the student answers they have not got right.
    """
    titles = [f"\u201c{file.course.get(i).title}\u201d" for i in file.shifted if i in file.course.exercises]
    if not titles:
        return ()
    listed = ", ".join(titles[:-1]) + f" and {titles[-1]}" if len(titles) > 1 else titles[0]
    look = " Your teacher will look at it." if file.needs_review else ""
    return (f"Your answers to {listed} look shifted by a line: check your file from the line of {titles[0]} "
            f"({file.shifted[0]} = ...) on, for a line missing or doubled.{look}",)  # fmt: skip


def whole_said(file: GradedFile) -> str | None:
    """A row whose points were set by hand, and why, said to the student (a page and Moodle's comment)."""
    return f"Your score was set by your teacher: {visible(file.whole[1])}" if file.whole else None


def _section(file: GradedFile, position: int, not_right: list) -> Section:
    verdict = file.verdicts[position]
    exercise = file.course.get(verdict.exercise_id)
    message, more = verdict.message, verdict.detail
    if verdict.outcome is Outcome.NOT_ANSWERED:  # the question stays: it gives nothing away
        message, more = exercise.prompt, f"Answer with {exercise.kind.describe()}."
    others = [other for other in not_right if other.id != exercise.id]
    if verdict.outcome is Outcome.CORRECT and gives_away(f"{message}\n{more}", others):
        message, more = HELD_BACK, ""
    bad = file.sheet.bad_line(exercise.id)
    suggestion = bad.suggestion if bad and verdict.outcome is Outcome.UNREADABLE else None
    notes = tuple(text for text in (_carried(file, file.carried[position]), _first(file, position)) if text)
    typed, head = file.typed(position), f"{verdict.mark} {verdict.label}"
    return Section(position + 1, exercise.id, exercise.title, verdict.outcome, head, typed, message, more,
                   suggestion, notes, file.regraded.get(exercise.id))  # fmt: skip


def _carried(file: GradedFile, upstream: str | None) -> str | None:
    if upstream is None:
        return None
    title = file.named(upstream, f"\u201c{file.course.get(upstream).title}\u201d")
    return f"This follows from your answer to {title}: the step itself is right, so start there."


def _first(file: GradedFile, position: int) -> str | None:
    first: FirstTry | None = file.first_tries[position]
    if first is None:
        return None
    if first.shown or first.verdict is None:
        said = "you asked to see the answer before your first prediction"
    else:
        said = f"your first prediction was {first.verdict.head.split(',')[0]}"
    extra = "; this file gives no final answer here, so it is not counted" if first.unanswered else ""
    return f"As you recorded it where you typed it, {said}{extra} (your own record, not part of your score)."


# --- HTML (to send, or to open in a browser): Jinja2 escapes every value ------------------------


def feedback_html(file: GradedFile, options: Options = Options(), built: Page | None = None) -> str:
    """One student's page as a self-contained HTML document: no script, nothing fetched, every text escaped."""
    return TEMPLATES.get_template("page.html").render(
        p=built or page(file),
        options=options,
        note=options.paragraphs,
        heading=TITLE,
        self_recorded=YOUR_RECORD,
        about_file=ABOUT_FILE,
    )


# --- Markdown (a book of pages) ------------------------------------------------------------------

_MARKDOWN = re.compile(r"([\\`*_\[\]<>&|~{}$])")


def _md(text: str) -> str:
    """The package's own words shown as themselves in Markdown: every character Markdown or MyST acts on is escaped.

    Words from a student's file never come here; they go in code spans (``untrusted.code_span``).
    """
    return _MARKDOWN.sub(r"\\\1", text)


def feedback_markdown(file: GradedFile, options: Options = Options(), built: Page | None = None) -> str:
    """One student's page in MyST Markdown, for a book: student text only in code spans, never in a heading."""
    p = built or page(file)
    lines = [f"# {TITLE}", ""] + ([_md(one_line(options.title)), ""] if options.title else [])
    lines += [f"Student: {code_span(p.name)}" + (f", id {code_span(p.student_id)}" if p.student_id else ""), ""]
    lines += [f"Answers file: {code_span(p.label)}", ""]
    lines += [f"Also handed in, not counted: {code_span(other)}\n" for other in p.others]
    lines += [f"Score: {_md(p.score)}", ""] + ([_md(p.late), ""] if p.late else [])
    lines += [_md(p.held), ""] if p.held else []
    if options.note:
        lines += ["Note from your teacher:", ""]
        lines += ["\\\n".join(code_span(line) for line in paragraph) + "\n" for paragraph in options.paragraphs]
    if p.unreadable is not None:
        return "\n".join([*lines, f"Nothing in this file could be read: {code_span(p.unreadable, composed=True)}", ""])
    lines += [f"## {ABOUT_FILE}", ""] if p.about_file else []
    lines += [f"- {code_span(problem, composed=True)}" for problem in p.problems] + ([""] if p.problems else [])
    lines += [f"- {_md(note)}" for note in p.notes] + ([""] if p.notes else [])
    if p.revisit:
        lines += ["## Revisit first", ""]
        lines += [f"- {s.number}. {_md(s.title)}: {_md(s.head)}" for s in p.revisit] + [""]
    if p.first_tries:
        lines += [_md(f"First tries: {YOUR_RECORD}."), ""]
    for s in p.sections:
        lines += _markdown_section(s)
    return "\n".join(lines)


def _markdown_section(s: Section) -> list[str]:
    lines = [f"## {s.number}. {_md(s.title)}", "", f"{_md(s.head)} ({_md(s.exercise_id)})", ""]
    if s.typed is not None:
        lines += [f"Your answer: {code_span(s.typed)}", ""]
    lines += [_md(s.message), ""]
    if s.more and s.outcome is not Outcome.CORRECT:  # a right answer's reasoning is one sentence, above
        lines += [f"{s.why}: {_md(s.more)}", ""]
    if s.suggestion:
        lines += [f"Write it as: {code_span(s.suggestion)}", ""]
    if s.regraded:
        lines += [f"Set by your teacher: {code_span(s.regraded)}", ""]
    return lines + [_md(text) + "\n" for text in s.notes]


# --- plain text (to paste into an LMS's comment box or an email) ---------------------------------


def feedback_text(file: GradedFile, options: Options = Options(), built: Page | None = None) -> str:
    """One student's page as plain text: no markup, every student's text on one line with its controls visible."""
    p = built or page(file)
    out = [TITLE, "=" * len(TITLE)] + ([one_line(options.title)] if options.title else [])
    out += ["", f"Student: {visible(p.name)}" + (f" (id {visible(p.student_id)})" if p.student_id else "")]
    out += [f"Answers file: {visible(p.label)}"] + [f"Also handed in, not counted: {visible(o)}" for o in p.others]
    out += [f"Score: {p.score}"] + (_wrap(p.late) if p.late else []) + (_wrap(p.held) if p.held else [])
    if options.note:
        out += ["", "Note from your teacher:"]
        for number, paragraph in enumerate(options.paragraphs):
            out += [""] * (number > 0) + [wrapped for line in paragraph for wrapped in _wrap(visible(line), "  ")]
    if p.unreadable is not None:
        return "\n".join([*out, "", *_wrap(f"Nothing in this file could be read: {one_line(p.unreadable)}")]) + "\n"
    out += ["", f"{ABOUT_FILE}:"] if p.about_file else []
    out += [line for problem in p.problems for line in _wrap(f"- {one_line(problem)}", "  ", "  ")]
    out += [line for note in p.notes for line in _wrap(f"- {note}", "  ", "  ")]
    if p.revisit:
        out += ["", "Revisit first:"] + [f"  {s.number}. {s.title}: {s.head}" for s in p.revisit]
    if p.first_tries:
        out += ["", *_wrap(f"First tries: {YOUR_RECORD}.")]
    for s in p.sections:
        out += _text_section(s)
    return "\n".join(out) + "\n"


def _text_section(s: Section) -> list[str]:
    if s.outcome is Outcome.CORRECT and not s.regraded:  # two lines: the verdict with the answer, and why
        head = f"{s.number}. {s.title} ({s.exercise_id}): {s.head}, you wrote {visible(s.typed or '')}"
        return ["", head, *_wrap(s.message, "   "), *(line for text in s.notes for line in _wrap(text, "   "))]
    out = ["", f"{s.number}. {s.title} ({s.exercise_id})", f"   {s.head}"]
    if s.typed is not None:
        out.append(f"   Your answer: {visible(s.typed)}")
    out += _wrap(s.message, "   ") + (_wrap(f"{s.why}: {s.more}", "   ") if s.more else [])
    if s.suggestion:
        out.append(f"   Write it as: {visible(s.suggestion)}")
    if s.regraded:
        out += _wrap(f"Set by your teacher: {visible(s.regraded)}", "   ")
    return out + [line for text in s.notes for line in _wrap(text, "   ")]


def _wrap(text: str, indent: str = "", hanging: str = "") -> list[str]:
    return list(_wrapped(text, indent, indent + hanging))


@functools.lru_cache(maxsize=4096)
def _wrapped(text: str, indent: str, subsequent: str) -> tuple[str, ...]:
    """Wrapped once: a class's pages repeat the same explanations and hints."""
    lines = textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=subsequent, break_on_hyphens=False)
    return tuple(lines) or ("",)


RENDER = {"md": feedback_markdown, "html": feedback_html, "txt": feedback_text}


# --- the folder of pages, its names and its index ----------------------------------------------


def page_stems(graded: Sequence[GradedFile]) -> list[str]:
    """Each page's file name without its extension: a number and an ASCII slug, unique whatever the names."""
    width = max(3, len(str(len(graded))))
    return [f"{n:0{width}d}-{slug(file.student.name) or 'student'}" for n, file in enumerate(graded, start=1)]


def feedback_pages(graded: Sequence[GradedFile], options: Options = Options()) -> dict[str, bytes]:
    """Every page in every form asked, and an index per form that maps each page to its student and file."""
    stems = page_stems(graded)
    pages: dict[str, bytes] = {}
    built = [page(file) for file in graded]  # once per student, written in every form
    for form in options.formats:
        for stem, file, made in zip(stems, graded, built):
            pages[f"{stem}.{form}"] = RENDER[form](file, options, made).encode("utf-8")
        pages[f"index.{form}"] = _index(graded, stems, form, options).encode("utf-8")
    return pages


def _index(graded: Sequence[GradedFile], stems: Sequence[str], form: str, options: Options) -> str:
    rows = list(zip(stems, graded))
    if form == "html":
        return TEMPLATES.get_template("index.html").render(rows=rows, options=options, heading="Feedback pages")
    if form == "md":
        lines = ["# Feedback pages", ""]
        for stem, file in rows:
            who = code_span(file.student.name) + (f", id {code_span(file.student.id)}" if file.student.id else "")
            lines.append(f"- [{stem}]({stem}.md): {who}, file {code_span(file.label)}")
        return "\n".join(lines) + "\n"
    lines = ["Feedback pages: page, student, id, file"]
    for stem, file in rows:
        lines.append(f"{stem}  {visible(file.student.name)}  {visible(file.student.id or '-')}  {visible(file.label)}")
    return "\n".join(lines) + "\n"
