"""Verdicts: ``check("mean-square", 12.5)`` judges an answer, and ``words`` composes what it says.

Every verdict's words are composed here, from the exercise and the outcome, and
nowhere else: ``check()`` and the widget show them, the grader and the class's
feedback pages print them, and the page's boxes receive them as data
(``page_words``) and pick among them by the same rules. A verdict never speaks
through colour alone: it leads with a mark and a word (✓ Correct, ≈ Right so far,
✗ Not yet, ? Your turn, ✗ Cannot read this answer, and ± Too few digits for an answer
that agrees at the decimals it gives but is too coarse to judge: graded as not right,
it asks for more decimals and names any known slip it also reads as). A wrong answer
gets its hint and the note of any known slip it matches, never the expected value; a
right one gets the explanation.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from . import key, reading
from .errors import AnswerKindError, UnknownExercise
from .exercises import Course, Exercise
from .kinds import FOUND, MESSAGE, NEAR, PLACES, Choice, Outcome, Reading, shortened
from .slips import not_finite
from .untrusted import quoted

__all__ = ["COARSE_LOOK", "LOOKS", "Outcome", "Verdict", "check", "checker", "judge", "page_words", "reference"]

# mark, word, accent colour (the mark and the word carry the meaning; the colour only repeats it)
LOOKS = {
    Outcome.CORRECT: ("✓", "Correct", "#1a7f37"),
    Outcome.CLOSE: ("≈", "Right so far", "#0969da"),
    Outcome.WRONG: ("✗", "Not yet", "#b42318"),
    Outcome.NOT_ANSWERED: ("?", "Your turn", "#57606a"),
    Outcome.UNREADABLE: ("✗", "Cannot read this answer", "#9a6700"),
}
# An answer that agrees with the reference at the decimals it gives but is too coarse to judge: neither right nor
# wrong in what it says (it asks for more decimals), and it earns what a wrong answer earns.
COARSE_LOOK = ("±", "Too few digits", "#57606a")
# How every verdict reads, wherever it is shown: a head, the answer as read (when one was), then the words.
HEAD = "{mark} {word}"
SAID = ", you said {answer}"
SENTENCE = "{head}: {message}"
# A wrong number close to the reference is told where it is off, never handed a slip it did not make.
NEAR_MISS = f"Not quite: within {NEAR:.0%} of the answer, but off in the {{place}}."
CLOSE = "Every number you gave agrees to the decimals you wrote: now {give}"
# Too few figures to tell the answer from a known slip, both of which round to it: both are said, the slip by its note.
COARSE = (
    "At the decimals you wrote, this reads both as the answer and as a known slip: {slips} To tell them apart, {give}"
)
# A near miss whose every number agrees with the answer at the decimals it gives, but with too few figures.
FEW = "Every number you gave agrees with the answer at the decimals you wrote, but with too few digits to judge: {give}"
# What the fold under a verdict is called: the reasoning under a right answer, the hint under a named slip.
FOLDS = {Outcome.CORRECT: "Why", Outcome.WRONG: "Hint"}


@dataclass(frozen=True)
class Verdict:
    """What became of one answer: the outcome, its words, and the answer as it is shown back.

    ``message`` is one short sentence; ``detail``, folded under it where it is shown,
    holds the reasoning behind a right answer or the hint behind a named slip.
    ``slips`` holds the notes of the known slips a wrong answer matches (they are the
    message), so that a class's most common mistakes can be named.
    """

    exercise_id: str
    outcome: Outcome
    message: str
    answer: str | None = None
    options: tuple[str, ...] = ()
    slips: tuple[str, ...] = ()
    detail: str = ""
    title: str = ""
    coarse: bool = False  # agrees at the decimals given, too coarse to judge: shown with ``COARSE_LOOK``

    @property
    def look(self) -> tuple[str, str, str]:
        """The mark, the word and the accent colour this verdict is shown with."""
        return COARSE_LOOK if self.coarse else LOOKS[self.outcome]

    @property
    def correct(self) -> bool:
        return self.outcome is Outcome.CORRECT

    @property
    def mark(self) -> str:
        return self.look[0]

    @property
    def label(self) -> str:
        return self.look[1]

    @property
    def head(self) -> str:
        """The mark, the word and the answer as read: ``✗ Not yet, you said 25``."""
        said = SAID.format(answer=self.answer) if self.answer is not None else ""
        return HEAD.format(mark=self.mark, word=self.label) + said

    @property
    def sentence(self) -> str:
        """The verdict in one line, as the page, the grader and the feedback pages show it."""
        return SENTENCE.format(head=self.head, message=self.message)

    @property
    def unfolded(self) -> str:
        """The sentence with what is folded under it, for text that has no fold (the grader, feedback pages)."""
        return f"{self.sentence} {self.fold}: {self.detail}" if self.detail else self.sentence

    @property
    def fold(self) -> str:
        """What the fold under the verdict is called, where it has one."""
        return FOLDS.get(self.outcome, "More") if self.detail else ""

    def __str__(self) -> str:
        detail = [f"  {self.fold}: {self.detail}"] if self.detail else []
        return "\n".join([f"{self.exercise_id}: {self.sentence}", *(f"  {option}" for option in self.options), *detail])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        accent = self.look[2]
        options = "".join(f"<li>{html.escape(option)}</li>" for option in self.options)
        listed = f'<ul style="margin: 0.3em 0 0 0; list-style: none; padding-left: 0.5em;">{options}</ul>'
        return (
            f'<div class="predict-check-verdict predict-check-verdict-{self.outcome.name.lower().replace("_", "-")}" '
            f'role="status" style="border-left: 0.35em solid {accent}; padding: 0.5em 0.9em; margin: 0.4em 0; '
            'background: #f6f8fa; color: #1f2328; border-radius: 0.2em;">'
            f"<strong>{html.escape(self.title)}</strong>"
            f"<p style='margin: 0.3em 0 0 0;'>{html.escape(self.sentence)}</p>"
            + (listed if options else "")
            + (
                f"<details><summary>{self.fold}</summary><p>{html.escape(self.detail)}</p></details>"
                if self.detail
                else ""
            )
            + "</div>"
        )


# --- the words -------------------------------------------------------------------------------


def _give(exercise: Exercise) -> str:
    """What to give, as the question asks it: ``give six decimals.``"""
    give = exercise.kind.instruction() or "give every decimal"
    return give[0].lower() + give[1:]


def _coarse(exercise: Exercise, slips: str = "{slips}") -> str:
    """The words for an answer that reads as the answer and as the slips noted ``slips`` (the page fills them in)."""
    return COARSE.format(slips=slips, give=_give(exercise))


def _few(exercise: Exercise) -> str:
    return FEW.format(give=_give(exercise))


def _close(exercise: Exercise) -> str:
    return CLOSE.format(give=_give(exercise))


def _not_answered(exercise: Exercise) -> str:
    return f"{exercise.prompt} Answer with {exercise.kind.describe()}."


def _hint(exercise: Exercise) -> str:
    return f"Hint: {exercise.hint}"


def page_words(exercise: Exercise) -> dict[str, object]:
    """Every fixed text a verdict on this exercise can say, as the page receives it.

    ``wrong`` is the hint; ``near`` is said instead of it to a near miss, with its
    place from ``places``; ``unreadable`` is ``MESSAGE`` with what was found
    (``FOUND``) filled in; ``nonfinite`` is said to an answer holding inf or nan,
    where the exercise has words for it.
    """
    solution = key.solution(exercise)
    return {
        "head": HEAD,
        "said": SAID,
        "sentence": SENTENCE,
        "correct": solution.explanation,
        "detail": solution.detail,
        "close": _close(exercise),
        "coarse": _coarse(exercise),
        "few": _few(exercise),
        "wrong": _hint(exercise),
        "hint": exercise.hint,
        "near": NEAR_MISS,
        "places": list(PLACES),
        "folds": {outcome.name.lower(): word for outcome, word in FOLDS.items()},
        "not_answered": _not_answered(exercise),
        "unreadable": MESSAGE,
        "found": FOUND,
        "expected": exercise.kind.describe(),
        "nonfinite": exercise.nonfinite,
    }


def judge(exercise: Exercise, raw: object) -> Verdict:
    """Read ``raw`` as the exercise's kind of answer and compare it with the computed reference.

    The reference is computed only for an answer that can be read: a blank file is graded
    without running a single solver.
    """
    return replace(_judged(exercise, raw), title=exercise.title)


def _judged(exercise: Exercise, raw: object) -> Verdict:
    if is_unanswered(raw):
        return Verdict(exercise.id, Outcome.NOT_ANSWERED, _not_answered(exercise), None, _options(exercise))
    try:
        given: Reading = exercise.kind.read(raw)
    except AnswerKindError as error:
        return Verdict(exercise.id, Outcome.UNREADABLE, str(error), None, _options(exercise))
    kind, solution = exercise.kind, key.solution(exercise)
    shown = shortened(given.shown)
    outcome = kind.compare(given, solution.answer)
    if outcome is Outcome.CORRECT:
        return Verdict(exercise.id, outcome, solution.explanation, shown, detail=solution.detail)
    # a slip's own value, given in full, is that slip even where it rounds to the reference ("1" for 0.999999)
    exact = _notes(solution.slips, lambda value: kind.exactly(given, value))
    if exact:
        return Verdict(exercise.id, Outcome.WRONG, " ".join(exact), shown, slips=exact, detail=exercise.hint)
    slips = _notes(solution.slips, lambda value: kind.matches(given, value))
    if slips and kind.matches(given, solution.answer):  # [0.8485, 1.1314]: the answer and a slip, at 4 decimals
        return Verdict(exercise.id, Outcome.WRONG, _coarse(exercise, " ".join(slips)), shown, coarse=True)
    if outcome is Outcome.CLOSE:
        return Verdict(exercise.id, outcome, _close(exercise), shown)
    if slips:
        return Verdict(exercise.id, Outcome.WRONG, " ".join(slips), shown, slips=slips, detail=exercise.hint)
    return _wrong(exercise, given, solution.answer, shown)


def _notes(slips: Iterable[tuple[object, str]], matched: Callable[[object], bool]) -> tuple[str, ...]:
    """The notes of the slips ``matched`` holds, each once (two values of one slip, with and without eps, share it)."""
    return tuple(dict.fromkeys(note for value, note in slips if matched(value)))


def _wrong(exercise: Exercise, given: Reading, expected: object, shown: str) -> Verdict:
    """A wrong answer that is no known slip: inf or nan named, a near miss told where it is off, else the hint."""
    kind = exercise.kind
    if exercise.nonfinite and not_finite(given):
        note = exercise.nonfinite
        return Verdict(exercise.id, Outcome.WRONG, note, shown, slips=(note,), detail=exercise.hint)
    place = kind.off(given, expected)
    if place is not None and kind.matches(given, expected):  # [1.27, 0.57]: right at two decimals, too few figures
        return Verdict(exercise.id, Outcome.WRONG, _few(exercise), shown, coarse=True)
    if place is not None:
        return Verdict(exercise.id, Outcome.WRONG, NEAR_MISS.format(place=PLACES[place]), shown)
    return Verdict(exercise.id, Outcome.WRONG, _hint(exercise), shown)


def score(verdicts: Iterable[Verdict]) -> int:
    """How many of ``verdicts`` say right: a file's score, in the grader, the gradebook and the pytest run."""
    return sum(verdict.correct for verdict in verdicts)


def is_unanswered(raw: object) -> bool:
    """``...``, ``None`` and text that reads as nothing (``reading``'s rules) stand for "no answer yet"."""
    if isinstance(raw, str):
        return not reading.too_long(raw) and reading.typed(raw).blank
    return raw is None or raw is Ellipsis


def check(exercise: Exercise, answer: object = ..., variant: int | None = None) -> Verdict:
    """Check a prediction. ``check(exercise)`` alone shows the question.

    Answers are what a person would type, as text (``"0.5"``, ``"[0.6, 0.8]"``,
    ``"(2, 5, 3)"``, ``"B"``) or as Python values: a number, a list, tuple or array
    for a vector, a tuple or list for a shape. ``variant=k`` asks the exercise again
    about its k-th set of fresh inputs (from 1), for practice.
    """
    if variant is not None:
        exercise = exercise.variant(_variant_index(exercise, variant))
    return judge(exercise, answer)


def checker(course: Course) -> Callable[..., Verdict]:
    """The course's ``check(exercise_id, answer, variant=None)``; an unknown id raises ``UnknownExercise``."""

    def check_in_course(exercise_id: str, answer: object = ..., variant: int | None = None) -> Verdict:
        return check(course.get(exercise_id), answer, variant)

    check_in_course.__doc__ = check.__doc__.replace("check(exercise)", 'check("mean-square")')
    return check_in_course


def _variant_index(exercise: Exercise, variant: object) -> int:
    """A variant as a person counts them (1 is the first), checked before it is asked."""
    count = len(exercise.variants)
    if isinstance(variant, bool) or not isinstance(variant, int) or not 1 <= variant <= count:
        raise UnknownExercise(f"{exercise.id} has variants 1 to {count}; got {quoted(str(variant))}")
    return variant - 1


def reference(exercise: Exercise) -> Verdict:
    """The reference answer with its explanation, as a verdict (for the book's folded answers)."""
    solution = key.solution(exercise)
    shown = exercise.kind.show(solution.answer)
    said = solution.explanation
    return Verdict(exercise.id, Outcome.CORRECT, said, shown, detail=solution.detail, title=exercise.title)


def _options(exercise: Exercise) -> tuple[str, ...]:
    kind = exercise.kind
    return kind.listed() if isinstance(kind, Choice) else ()
