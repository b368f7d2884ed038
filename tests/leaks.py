"""Every way an exercise's expected answer could be written, to prove that a text does not give it away."""

from __future__ import annotations

import html
import re

import numpy as np

from predict_check.exercises import Exercise
from predict_check.kinds import Choice, Shape
from solved import solved

SPECS = (".6f", ".5f", ".4f", ".3g", ".4g", ".5g", ".6g", "g")  # six decimals, and three significant figures or more


def expected_renderings(exercise: Exercise, whole: bool = False) -> list[str]:
    """The written forms of the reference: each number at several precisions, and a vector or shape whole.

    A coordinate whose forms are all shorter than four characters (0, 1, 0.5) is too common
    in any text to count on its own; the vector as a whole still does. With ``whole`` a
    vector's forms are only the whole vector's (a coordinate may rightly appear elsewhere).
    """
    kind, answer = exercise.kind, solved(exercise).answer
    if isinstance(kind, Choice):
        return [answer, f"{kind.letters[kind.index(answer)]})"]
    if isinstance(kind, Shape):
        return [str(tuple(answer)), str(list(answer))]
    values = np.atleast_1d(answer)
    forms = [] if whole and len(values) > 1 else [f"{v:{spec}}" for v in values for spec in SPECS]
    if len(values) > 1:
        forms += ["[" + ", ".join(f"{v:{spec}}" for v in values) + "]" for spec in SPECS]
    return [form for form in dict.fromkeys(forms) if len(form) >= 4]


# --- the class's feedback pages hold back by value, whatever its length -----------------------------
#
# An answer is stated by any form equal to it (8, 8.0, 0) or by a form of three significant
# figures or more that rounds from it, with either sign; a vector by its coordinates' forms
# of three significant figures or more, or whole; a shape as a tuple or a list; a choice by
# its words or its letter and a bracket. A form counts only as a whole number in the text:
# the 8 in 0.848528 states nothing.


def _forms(value: float, exact: bool) -> set[str]:
    """Every way of writing ``value`` at zero to six decimals that states it (``exact``: equal forms too)."""
    forms = set()
    for decimals in range(7):
        form = f"{abs(value):.{decimals}f}"
        digits = form.replace(".", "").lstrip("0")
        if len(digits) >= 3 or (exact and float(form) == abs(value)):
            forms.add(form)
    return forms


def _distinct(form: str, value: float) -> bool:
    """Whether a coordinate written so states its value: three significant figures or more, or the value itself."""
    return len(form.replace("-", "").replace(".", "").lstrip("0")) >= 3 or float(form) == value


def _as_number(form: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)")


def states(text: str, exercise: Exercise) -> str | None:
    """The form in which ``text`` states the exercise's expected answer, or None."""
    kind, answer = exercise.kind, solved(exercise).answer
    if isinstance(kind, Choice):
        letter = kind.letters[kind.index(answer)]
        words = re.search(rf"(?<![A-Za-z]){re.escape(answer)}(?![A-Za-z])", text)
        return answer if words else f"{letter})" if f"{letter})" in text else None
    if isinstance(kind, Shape):
        shape = tuple(int(size) for size in answer)
        return next((form for form in (str(shape), str(list(shape))) if form in text), None)
    values = [float(value) for value in np.atleast_1d(answer)]
    forms = set().union(*(_forms(value, exact=len(values) == 1) for value in values))
    for decimals in range(7) if len(values) > 1 else ():
        written = [f"{value:.{decimals}f}" for value in values]
        if all(_distinct(form, value) for form, value in zip(written, values)):  # [0, 0] states no small vector
            forms.add("[" + ", ".join(written) + "]")
    return next((form for form in sorted(forms) if _as_number(form).search(text)), None)


def _text_of(line: str) -> str:
    return re.sub(r"<[^>]+>", "", line).strip()


def _said_to_every_student(course) -> list[str]:
    """What any page may say whoever reads it: each question and title, and what a verdict says to a wrong answer."""
    texts = []
    for exercise in course:
        solution = solved(exercise)
        texts += [
            exercise.prompt,
            exercise.title,
            exercise.hint,
            exercise.nonfinite,
            *(note for _, note in solution.slips),
        ]
    return sorted({" ".join(text.split()) for text in texts if text}, key=len, reverse=True)


def unstated(page: str, file, not_right: list[str]) -> list[tuple[str, str]]:
    """The not-right exercises a feedback page states the answer of (by value), with the form, in what the page says
    besides the student's own answers and score, the sections' numbers, the questions and titles, and what a
    verdict says to an answer that is not right (a hint, a slip's note, why it cannot be read)."""
    course = file.course
    page = page.split("<body>")[-1]  # what a reader sees of an HTML page
    mine = ("Your answer:", "Score:")
    kept = (line.split(", you wrote ")[0] for line in page.splitlines() if not _text_of(line).startswith(mine))
    said = re.sub(r"(`+) .*? \1|<code>.*?</code>", " ", "\n".join(kept))  # code spans hold the student's text
    said = re.sub(r"(^|>|^#+ |^- )\s*\d+\\?\. ", r"\1", said, flags=re.M)  # nor the sections' numbers
    said = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"\\(.)", r"\1", said))).split())
    to_own = [v.message for v in file.verdicts if v.outcome.value != "correct"] + file.problems()
    for text in _said_to_every_student(course) + [" ".join(text.split()) for text in to_own]:
        said = said.replace(text, "")
    found = [(exercise_id, states(said, course.exercises[exercise_id])) for exercise_id in not_right]
    return [(exercise_id, form) for exercise_id, form in found if form is not None]
