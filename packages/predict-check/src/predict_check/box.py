"""A prediction box: the question, a place to type, and a verdict, with or without a kernel.

``Box(exercise)`` displays as a live widget in Jupyter, whose verdicts come from
``verdicts.judge``, and in a built page as a kernel-free form. The form carries its
exercise as data (the kind, the reference, the known slips, and every text a verdict
can say, from ``verdicts.page_words``). ``static/prediction-judge.js`` reads what the
reader types by the rules of ``reading`` and picks the verdict by the rules of
``verdicts.judge``; ``static/prediction-store.js`` keeps the answers in the browser and
writes the download; ``static/prediction.js`` wires the boxes and the page that waits.
What every box shares (those rules, the course's exercise ids and each verdict's look)
is ``DATA_SCRIPT``. The scripts are served once per page by the book's build. Without
them (or without JavaScript) a box still shows the question and, folded away, the
reference answer.

On a chapter page a box also holds back what follows it until it is answered right or
the reader opens its answer (``gate``); the review page's boxes do not. In JupyterLab the
engine's extension (``lab/extension.js``) holds back the cells after each box's cell: the
widget tells it, by its classes (``LAB_OPEN``), when the box lets the page go on, and carries
the note it shows while cells wait (``LAB_HOLD``) and a picture box's figure (``LAB_FIGURE``).

The widget keeps each exercise's first and last prediction, and when the last was typed, in
one store per kernel and course (``kernel_answers``), shows the answer on request, and saves the
same answers file as the page's "Download my answers" (``sheet_writer.typed_answers_file``), next to the
notebook, merged with what other kernels saved there (``sheet_writer.save_typed``); it says
how to grade the file with the kernel's own Python, and, when a save fails, why, keeping
every prediction.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from . import key, reading
from .errors import AnswersFileError
from .exercises import Course, Exercise
from .kinds import NO_FIGURE, Choice, Place, judging
from .sheet_reader import FIRST_TRIES, ID, NAME, SHOWN_FIRST, TYPED_AT, VARIANTS
from .sheet_writer import (
    FILE_NAME,
    MOMENT,
    Predictions,
    clear_typed,
    comments,
    grade_command,
    moment,
    read_typed,
    save_typed,
    well_formed,
)
from .untrusted import visible
from .verdicts import COARSE_LOOK, LOOKS, Outcome, Verdict, judge, page_words, reference

PAGE_CONTRACT = "prediction"  # class of every box; data-exercise holds its exercise id
STATIC: Traversable = files("predict_check") / "static"
JUDGE_SCRIPT: Traversable = STATIC / "prediction-judge.js"  # what an answer is, and its verdict
STORE_SCRIPT: Traversable = STATIC / "prediction-store.js"  # what stays in the browser, and the answers file
SCRIPT: Traversable = STATIC / "prediction.js"  # wires every box on a page, and the page that waits
PICTURE_SCRIPT: Traversable = STATIC / "prediction-picture.js"  # placed answers
STYLE: Traversable = STATIC / "box.css"  # how a box looks: light, dark and printed
DATA_SCRIPT = "prediction-data.js"  # what every box on every page shares, served once
SCRIPTS = (JUDGE_SCRIPT, STORE_SCRIPT, PICTURE_SCRIPT, SCRIPT)  # in the order a page loads them, after the data
DATA_GLOBAL = "window.predictCheckData"
# The words of "Try another", the same question about fresh inputs.
VARIANT_WORDS = {
    "another": "Try another",
    "question": "Variant {number}: {question}",
    "answer": "Your answer to this variant",
    "check": "Check this variant",
    "count": "Variant {number} of {of}. {right} of {of} variants right; variants are practice and never count "
    "toward your score.",
}
# Said inside the box that holds the rest of the page back, naming what waits below it.
HOLD = "To go on, answer above or show the answer. Waiting below: {what}."
HELD = {
    "rest": "the rest of this section",
    "section": "the section \u201c{title}\u201d",
    "figure": "a figure",
    "figures": "{count} figures",
    "box": "one more box",
    "boxes": "{count} more boxes",
    "and": " and ",
}
SHOW_ANSWER = "Show the answer (and go on without a prediction)"
# The page's tally, and the widget's: of the exercises with an answer, how many are right now, and how many
# were right at the first try (a first try made after the answer was shown is not one).
COUNT = "{checked} of {of} checked, {right} right now, {first} right on the first try"
# On the review page, each fold's title says where its exercise stands, without opening it.
STANDING = {
    "untried": "not tried",
    "tried": "{mark} {word}",
    "first right": "right on the first try",
    "first not right": "not right on the first try",
    "shown first": "answer shown before a first try",
    "joined": " ({parts})",  # after the title; the parts are joined by ", "
}
# What the JupyterLab extension (lab/extension.js) reads of a widget, and shows: its classes, and the note
# it shows while the cells after the box wait.
LAB_BOX = "predict-check-box"
LAB_OPEN = "predict-check-open"  # right once, or its answer shown: what follows may show
LAB_HOLD = "predict-check-hold"
LAB_FIGURE = "predict-check-figure"  # where a picture box's figure is drawn, its data on it
LAB_WAITING = HOLD.format(what="the rest of this page")
FIRST_TRY = "Your first try, kept for the grader: {head}"
SAVE = "Save my answers"
CLEAR = "Clear my answers"  # as the page's, after a confirmation; first predictions stay recorded
CONFIRM = (
    "Forget every answer you have given in this chapter, in this kernel and in {file} next to this notebook? "
    "Your first predictions stay recorded as they were."
)
CONFIRMED, KEPT_THEM = "Yes, forget them", "No, keep them"
CLEARED = "Cleared: no answer is kept now, in this kernel or in {path}. Your first predictions stay recorded."
NOT_CLEARED = "Cleared in this kernel; {path} was left as it is: {why}."
SAVED = "Saved {count} of {of} predictions to {path}."
GRADE = " Grade it in a terminal with:  {command}"
NOT_SAVED = (
    "Not saved: {why}. Your predictions are still kept in this kernel: press Save my answers again once that is put "
    "right."
)
CANNOT = "cannot write {path}: {reason}"
GONE = "the folder {folder}, where this notebook was, no longer exists (was it moved or deleted?)"
KEPT_NOTE = (
    "Your predictions are kept in this notebook's kernel until you press Save my answers under a box: it "
    "writes them to answers.toml next to this notebook, keeping those you saved there from other pages."
)


def shared_data(course: Course) -> dict[str, object]:
    """The reading rules, every exercise id in the grader's order, and each outcome's look."""
    return {
        "rules": reading.rules(),
        "judging": judging(),
        "chapter": list(course.exercises),
        "store": f"{course.name}/answers",  # where the browser keeps this course's answers
        "hold": HOLD,
        "held": HELD,
        "variants": VARIANT_WORDS,
        "count": COUNT,
        "standing": STANDING,
        "file": {
            **comments(course),
            "file_name": FILE_NAME,
            "name": NAME,
            "id": ID,
            "first_tries": FIRST_TRIES,
            "shown_first": SHOWN_FIRST,
            "typed_at": TYPED_AT,
            "moment": MOMENT.pattern,
            "variants_table": VARIANTS,
        },
        "looks": {
            name: {"mark": mark, "word": word, "colour": colour}
            for name, (mark, word, colour) in [
                *((o.name.lower(), look) for o, look in LOOKS.items()),
                ("coarse", COARSE_LOOK),
            ]
        },
    }


def data_script(course: Course) -> str:
    """The contents of ``DATA_SCRIPT``."""
    return f"{DATA_GLOBAL} = {json.dumps(shared_data(course), ensure_ascii=True)};\n"


def exercise_data(exercise: Exercise) -> dict[str, object]:
    """Everything the page needs to judge an answer as ``check`` would, computed now: its variants' too."""
    variants = [_judged(exercise.variant(number)) for number in range(len(exercise.variants))]
    return {"id": exercise.id, **_judged(exercise), "variants": variants}


def _judged(exercise: Exercise) -> dict[str, object]:
    """One question's kind, reference, slips, words and, for a placed answer, the truth to draw."""
    kind, solution = exercise.kind, key.solution(exercise)
    return {
        "question": exercise.prompt,
        "kind": kind.data(),
        "answer": kind.plain(solution.answer),
        "slips": [[kind.plain(value), note] for value, note in solution.slips],
        "words": page_words(exercise),
        "picture": dict(solution.picture) if solution.picture else None,
    }


# The box's HTML, as macros, every value escaped as it goes in: a course's ids, titles, prompts and options are text.
TEMPLATE = (
    "{% macro question(exercise) %}"
    "<strong>Predict: {{ exercise.title }}.</strong> {{ exercise.prompt }}{% endmacro %}"
    "{% macro answer(shown) %}<p><code>{{ shown.answer or '' }}</code>: {{ shown.message }}"
    "{% if shown.detail %} {{ shown.detail }}{% endif %}</p>{% endmacro %}"
    "{% macro options(listed) %}<ul style='list-style: none; padding-left: 0.5em;'>"
    "{% for option in listed %}<li>{{ option }}</li>{% endfor %}</ul>{% endmacro %}"
    "{% macro paragraph(text) %}<p style='margin: 0.3em 0;'>{{ text }}</p>{% endmacro %}"
    "{% macro figure(data) %}"
    '<div class="{{ LAB_FIGURE }}" data-picture="{{ data }}">{{ NO_FIGURE }}</div>{% endmacro %}'
    "{% macro box(exercise, gate, options, figure, shown, data) %}"
    '{% set field = "prediction-" ~ exercise.id %}{% set asked = field ~ "-question" %}'
    # a review page lists its questions by title, each folded around its box (the page says where each stands)
    '{% if not gate %}<details class="prediction-review"><summary>{{ exercise.title }}'
    '<span class="prediction-standing"></span></summary>{% endif %}'
    '<div class="{{ PAGE_CONTRACT }}" data-exercise="{{ exercise.id }}" data-gate="{{ gate|lower }}">'
    '<p class="prediction-question" id="{{ asked }}">{{ question(exercise) }}</p>'
    '{% if options %}<ul class="prediction-options" role="radiogroup" aria-labelledby="{{ asked }}">'
    "{% for letter, option in options %}"
    '<li role="radio" aria-checked="false" data-letter="{{ letter }}">{{ option }}</li>'
    "{% endfor %}</ul>{% endif %}"
    '{% if figure %}<div class="prediction-figure"></div>{% endif %}'
    # method "dialog" outside a dialog submits nowhere: without the script, Check never reloads the page
    '<form class="prediction-form" method="dialog">'
    '<label for="{{ field }}" id="{{ field }}-hint">Type {{ exercise.kind.describe() }}</label>'
    '<input id="{{ field }}" class="prediction-input" type="text" autocomplete="off" spellcheck="false" '
    'aria-labelledby="{{ asked }}" aria-describedby="{{ field }}-hint">'
    '<button type="submit" aria-label="Check: {{ exercise.title }}">Check</button></form>'
    '<noscript><p class="prediction-noscript">Checking a prediction needs JavaScript, which is off in this '
    "browser: predict, then open the answer below.</p></noscript>"
    '<p role="status" aria-live="polite" class="prediction-verdict"></p>'
    '<div class="prediction-more"></div>'
    '<p class="prediction-hold" hidden></p>'
    '<details class="prediction-answer"><summary>{{ SHOW_ANSWER }}</summary>{{ answer(shown) }}</details>'
    # JSON whose every < is written \u003c, so nothing in it can end the script: it goes in as it is
    '<script type="application/json" class="prediction-data">{{ data|safe }}</script></div>'
    "{% if not gate %}</details>{% endif %}{% endmacro %}"
)
NAMES = {"PAGE_CONTRACT": PAGE_CONTRACT, "SHOW_ANSWER": SHOW_ANSWER, "LAB_FIGURE": LAB_FIGURE, "NO_FIGURE": NO_FIGURE}


@functools.cache
def _html():
    """The template's macros, compiled when a box is first drawn: judging an answers file draws none."""
    import jinja2

    return jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string(TEMPLATE, NAMES).module


def question_html(exercise: Exercise) -> str:
    """The question as the box shows it, in the page and in the widget alike."""
    return str(_html().question(exercise))


def answer_html(exercise: Exercise) -> str:
    """The reference answer with its explanation, as a box shows it when the reader asks."""
    return str(_html().answer(reference(exercise)))


def options_html(exercise: Exercise) -> str:
    """A choice's options as the widget lists them, each with its letter; nothing for other kinds."""
    return str(_html().options(exercise.kind.listed())) if isinstance(exercise.kind, Choice) else ""


def prediction_html(exercise: Exercise, gate: bool = True) -> str:
    """The kernel-free box: question, labelled input, verdict area, folded answer, data.

    A choice's options are a radio group (a typed letter or words still answer). Without ``gate`` (a review page) the
    box is folded under its title.
    """
    kind = exercise.kind
    options = list(zip(kind.letters, kind.listed())) if isinstance(kind, Choice) else []
    data = json.dumps(exercise_data(exercise), ensure_ascii=True).replace("<", "\\u003c")
    return str(_html().box(exercise, gate, options, isinstance(kind, Place), reference(exercise), data))


@dataclass(frozen=True)
class Kept:
    """One exercise's predictions in a kernel: the first and its outcome, the last and its outcome, and when the
    last was typed (a ``sheet_writer.MOMENT``)."""

    first: str
    first_outcome: Outcome
    last: str
    outcome: Outcome
    at: str


KEPT_OUTCOMES = (Outcome.CORRECT, Outcome.CLOSE, Outcome.WRONG)  # a prediction the grader could read


class KernelAnswers:
    """Every box's predictions in one kernel, as the page keeps them in one browser: first and last, answers shown.

    A kernel starts from the file the boxes saved next to its notebook, where there is one
    (as a save would merge it), so its tally counts the predictions saved from every page.
    """

    def __init__(self, course: Course) -> None:
        self.course = course
        self.folder = Path.cwd()  # the kernel's, next to the notebook, where Save writes: kept to name it once gone
        self.kept: dict[str, Kept] = {}
        self.shown: set[str] = set()
        self.shown_first: set[str] = set()  # answers shown before any prediction: recorded, as the page records them
        self.right_once: set[str] = set()  # as on the page, a box once right lets what follows it show
        self.firsts: dict[str, tuple[str, Outcome]] = {}  # the first tries of answers cleared: they stay recorded
        self.boxes: list[Callable[[], None]] = []  # what empties each box drawn, once the answers are cleared
        self._status = None  # the tally and the last save's outcome: one pair of widgets, shown under every box
        with contextlib.suppress(AnswersFileError, OSError):  # no file, or one the boxes did not write: none to count
            self.adopt(read_typed(course, self.folder / FILE_NAME))

    def adopt(self, saved: Predictions) -> None:
        """Take in a saved file's predictions, each judged as typed; those the grader cannot read stay out."""
        for exercise_id, last in saved.last.items():
            exercise = self.course.exercises[exercise_id]
            first = saved.first.get(exercise_id, last)
            outcomes = judge(exercise, first).outcome, judge(exercise, last).outcome
            if all(outcome in KEPT_OUTCOMES for outcome in outcomes):
                at = saved.typed_at.get(exercise_id, "")  # none: older than any answer typed with a moment
                self.kept[exercise_id] = Kept(first, outcomes[0], last, outcomes[1], at)
        self.shown_first |= saved.shown

    def status(self):
        """The widgets every box shows under its Save button: this kernel's tally, and what the last save did."""
        import ipywidgets as w

        if self._status is None:
            self._status = (w.HTML(_paragraph(self.count())), w.HTML())
        return self._status

    def record(self, exercise_id: str, typed: str, verdict: Verdict, at: str | None = None) -> None:
        """Keep a prediction the grader could read, typed ``at`` (now); an unreadable or blank one is no prediction."""
        if verdict.outcome not in KEPT_OUTCOMES:
            return
        earlier = self.kept.get(exercise_id)
        first, first_outcome = (earlier.first, earlier.first_outcome) if earlier else (typed, verdict.outcome)
        first, first_outcome = self.firsts.get(exercise_id, (first, first_outcome))
        self.kept[exercise_id] = Kept(first, first_outcome, typed, verdict.outcome, at or moment())
        if verdict.outcome is Outcome.CORRECT:
            self.right_once.add(exercise_id)

    def opened(self, exercise_id: str) -> bool:
        """Whether the box lets what follows it show: answered right once (a kept try right too), or answer shown."""
        kept = self.kept.get(exercise_id)
        right = kept is not None and Outcome.CORRECT in (kept.first_outcome, kept.outcome)
        return right or exercise_id in self.right_once or exercise_id in self.shown

    def count(self) -> str:
        """The page's tally of this kernel's predictions: answered, right now, and right at the first try."""
        right = sum(kept.outcome is Outcome.CORRECT for kept in self.kept.values())
        first = sum(
            kept.first_outcome is Outcome.CORRECT and exercise_id not in self.shown_first
            for exercise_id, kept in self.kept.items()
        )
        return COUNT.format(checked=len(self.kept), of=len(self.course), right=right, first=first)

    def typed(self) -> Predictions:
        return Predictions(
            first={
                **{exercise_id: first for exercise_id, (first, _) in self.firsts.items()},
                **{exercise_id: kept.first for exercise_id, kept in self.kept.items()},
            },
            last={exercise_id: kept.last for exercise_id, kept in self.kept.items()},
            shown=frozenset(self.shown_first),
            typed_at={exercise_id: kept.at for exercise_id, kept in self.kept.items()},
        )

    def clear(self, folder: Path | None = None) -> str:
        """Forget every answer, here and in the file the boxes saved in ``folder`` (the kernel's), as the page's
        "Clear my answers" does in its browser: first tries stay recorded, and each box drawn is emptied."""
        self.firsts.update({exercise_id: (kept.first, kept.first_outcome) for exercise_id, kept in self.kept.items()})
        typed = self.typed()
        self.kept.clear()
        self.shown.clear()
        self.right_once.clear()
        for empty in self.boxes:
            empty()
        path = (folder or self.working_folder()) / FILE_NAME
        try:
            if os.path.lexists(path):  # none saved yet: nothing there to forget
                clear_typed(self.course, path, typed)
        except (AnswersFileError, OSError) as error:
            why = visible(str(error) if isinstance(error, AnswersFileError) else error.strerror or str(error))
            return NOT_CLEARED.format(path=visible(str(path)), why=why)
        return CLEARED.format(path=visible(str(path)))

    def working_folder(self) -> Path:
        """The kernel's folder now; where it was deleted (or moved), the folder it was last."""
        with contextlib.suppress(FileNotFoundError):
            self.folder = Path.cwd()
        return self.folder

    def save(self, folder: Path | None = None) -> str:
        """Save the answers file in ``folder`` (by default the kernel's); what the box says, and how to grade it."""
        path = (folder or self.working_folder()) / FILE_NAME
        try:
            written = save_typed(self.course, path, self.typed())
        except AnswersFileError as error:
            return NOT_SAVED.format(why=visible(str(error)))
        except OSError as error:
            why = CANNOT if path.parent.is_dir() else GONE
            reason = error.strerror or str(error)
            return NOT_SAVED.format(why=visible(why.format(path=path, folder=path.parent, reason=reason)))
        self.adopt(written)  # what other kernels saved there too: the tally counts the file
        command = grade_command(self.course, path)
        said = SAVED.format(count=len(written.answered(self.course)), of=len(self.course), path=visible(str(path)))
        return said + (GRADE.format(command=visible(command)) if command else "")


@functools.cache
def kernel_answers(course: Course) -> KernelAnswers:
    """The course's store in this kernel, shared by every box the kernel draws."""
    return KernelAnswers(course)


ENTER_SETTLES = 0.25  # seconds: long enough for the value sent with Enter to arrive after Enter's own message


def on_enter(field, action: Callable[[], None]) -> None:
    """Run ``action`` when the reader presses Enter in ``field``, once its value is in; never on leaving the field.

    The field sends its value on Enter and on leaving it alike, so the value alone cannot
    say which. Enter also sends a message of its own, just before the value (when the text
    changed since it was last sent): the value that follows it is judged, and, where none
    follows, the value as it is, a moment later.
    """
    entered = [False]

    def judge_now() -> None:
        if entered[0]:
            entered[0] = False
            action()

    def pressed(_, content, buffers) -> None:
        if isinstance(content, dict) and content.get("event") == "submit":
            entered[0] = True
            _soon(judge_now)

    field.on_msg(pressed)
    field.observe(lambda _: judge_now(), names="value")


def _soon(action: Callable[[], None]) -> None:
    """``action`` after ``ENTER_SETTLES`` in the kernel's event loop; at once where no loop runs."""
    import asyncio  # only a widget in a kernel waits: judging a file loads no event loop

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        action()
        return
    loop.call_later(ENTER_SETTLES, action)


def _paragraph(text: str) -> str:
    return str(_html().paragraph(text)) if text else ""


def _clearing(kept: KernelAnswers, said):
    """The widget's "Clear my answers" and the confirmation it asks first, as the page's asks; what was done is
    ``said``, where a save is."""
    import ipywidgets as w

    clear = w.Button(description=CLEAR, layout=w.Layout(width="fit-content"))
    forget = w.Button(description=CONFIRMED, button_style="danger", layout=w.Layout(width="fit-content"))
    keep = w.Button(description=KEPT_THEM, layout=w.Layout(width="fit-content"))
    question = w.HTML(_paragraph(CONFIRM.format(file=FILE_NAME)))
    asked = w.VBox([question, w.HBox([forget, keep])], layout=w.Layout(display="none"))

    def shown(show: bool) -> None:
        asked.layout.display = "flex" if show else "none"

    def cleared(_=None) -> None:
        shown(False)
        said.value = _paragraph(kept.clear())

    clear.on_click(lambda _: shown(asked.layout.display == "none"))
    forget.on_click(cleared)
    keep.on_click(lambda _: shown(False))
    return clear, asked


def _emptied(box, typed, shown, refresh: Callable[[], None]) -> None:
    """A box drawn before its answers were cleared, as it was before any answer: what follows it waits again."""
    typed.value, shown.value = "", ""
    box.remove_class(LAB_OPEN)
    refresh()


class Box:
    """One exercise's prediction box: a widget in Jupyter, a kernel-free form in the HTML book.

    ``gate=False`` for a page whose boxes are a review: nothing after them is held back.
    """

    def __init__(self, exercise: Exercise, gate: bool = True):
        self.exercise = exercise
        self.gate = gate

    def verdict(self, typed: str) -> Verdict:
        """The verdict for what a reader typed, by ``check``'s rules."""
        return judge(self.exercise, typed)

    def widget(self, kept: KernelAnswers | None = None):
        """The live box: the question, a verdict, the first try kept, the answer on request, and Save."""
        import ipywidgets as w

        kept = kept or kernel_answers(self.exercise.course)
        exercise_id = self.exercise.id
        question = w.HTML(question_html(self.exercise) + options_html(self.exercise))
        typed = w.Text(placeholder=self.exercise.kind.describe(), description="Your answer", continuous_update=False)
        button = w.Button(description="Check", tooltip=f"Check: {self.exercise.title}")
        shown = w.HTML()
        first = w.HTML()
        show = w.Button(description=SHOW_ANSWER, layout=w.Layout(width="fit-content"))
        answer = w.HTML()
        save = w.Button(description=SAVE, tooltip=KEPT_NOTE, layout=w.Layout(width="fit-content"))
        count, saved = kept.status()
        clear, asked = _clearing(kept, saved)
        figure = [w.HTML(self.figure_html())] if isinstance(self.exercise.kind, Place) else []
        waiting = [w.HTML(_paragraph(LAB_WAITING), layout=w.Layout(display="none"))] if self.gate else []
        for note in waiting:  # shown by the extension only while it holds cells back
            note.add_class(LAB_HOLD)
        box = w.VBox(
            [question, *figure, w.HBox([typed, button]), shown, first, show, answer, *waiting,
             w.HBox([save, clear, count]), asked, saved]
        )  # fmt: skip
        box.add_class(LAB_BOX)

        def refresh() -> None:
            earlier = kept.kept.get(exercise_id)
            again = earlier is not None and earlier.first != earlier.last
            first.value = _paragraph(FIRST_TRY.format(head=self.verdict(earlier.first).head)) if again else ""
            answer.value = answer_html(self.exercise) if exercise_id in kept.shown else ""
            count.value = _paragraph(kept.count())
            if kept.opened(exercise_id):
                box.add_class(LAB_OPEN)

        def judge(_=None) -> None:
            raw = well_formed(typed.value)
            verdict = self.verdict(raw)
            shown.value = verdict._repr_html_()
            kept.record(exercise_id, raw, verdict)
            refresh()

        def reveal(_=None) -> None:
            if exercise_id not in kept.kept:
                kept.shown_first.add(exercise_id)
            kept.shown.add(exercise_id)
            refresh()

        def write(_=None) -> None:
            saved.value = _paragraph(kept.save())
            refresh()

        earlier = kept.kept.get(exercise_id)
        if earlier is not None:  # drawn again (the cell ran again): the box shows what it kept
            typed.value = earlier.last
            shown.value = self.verdict(earlier.last)._repr_html_()
        refresh()
        button.on_click(judge)  # the field's value came with leaving it, before the click
        on_enter(typed, judge)
        show.on_click(reveal)
        save.on_click(write)
        kept.boxes.append(functools.partial(_emptied, box, typed, shown, refresh))
        return box

    def figure_html(self) -> str:
        """Where the extension draws a picture box's figure, from the data it carries; words for where it is not."""
        judged = _judged(self.exercise)
        return str(_html().figure(json.dumps({name: judged[name] for name in ("kind", "answer", "picture")})))

    def _repr_mimebundle_(self, **kwargs) -> dict:
        bundle = self.widget()._repr_mimebundle_(**kwargs)
        bundle["text/html"] = prediction_html(self.exercise, self.gate)
        bundle["text/plain"] = f"Predict: {self.exercise.title}. {self.exercise.prompt}"
        return bundle
