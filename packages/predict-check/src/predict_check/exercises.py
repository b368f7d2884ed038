"""A course's exercises: each question, its kind, its hint, and the solver that computes its answer.

No answer is typed in. A course declares each exercise with ``@course.exercise(...)``
above a solver that runs the course's own code when an answer is first checked, and
returns a ``Solution``: the reference answer, a one-sentence explanation that quotes
what it computed, the reasoning behind it, and the wrong answers a known slip produces.
For a choice the options are part of the question, and the author marks the one held
right (``kinds.RIGHT``).

A question may be asked about inputs (``given``), written into its prompt as a person
would write them, and asked again about fresh ones (``variants``) for practice. Beside
the question, a course may name the values its pages call misconceptions
(``misconceptions``): like a solver's slips, an answer that is one of them is told so,
and is never "right so far".
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata

from .errors import UnknownExercise
from .kinds import Choice, Kind, Reading
from .untrusted import quoted

GROUP = "predict_check.courses"  # the entry points under which a course's distribution registers its Course


@dataclass(frozen=True)
class Solution:
    """The reference answer, why it is right, and wrong answers worth a specific word.

    ``explanation`` is one short sentence; ``detail`` the reasoning or evidence behind
    it. ``slips`` pairs a computed wrong answer that a known slip produces with a note
    naming the slip; the note never states the right answer. ``picture`` is what a
    figure draws over a placed answer once it is judged (the curve, the point).
    """

    answer: object
    explanation: str
    slips: tuple[tuple[object, str], ...] = ()
    detail: str = ""
    picture: Mapping[str, object] | None = None


@dataclass(frozen=True)
class Carried:
    """An earlier exercise whose answer this one is computed from: ``follow`` is that computation.

    A wrong answer that equals ``follow`` of the student's own wrong earlier answer made
    its slip earlier; the class's summary and feedback name the earlier exercise.
    """

    upstream: str
    follow: Callable[[object], object]


@dataclass(frozen=True)
class Exercise:
    """One prediction: its title, what is asked, what kind of answer it takes, a hint, and how to solve it.

    ``nonfinite`` is said to an answer holding inf or nan where the reference is finite
    (the natural wrong prediction where a square overflows); ``carried`` names the
    earlier exercises this one's answer follows from; ``misconceptions`` pairs a function
    of the exercise's inputs (taken by name, as the solver takes them) that gives a value
    the course calls a misconception with the note that says why it is one. A variant (``variant(k)``) is the
    same exercise about fresh inputs; it never counts toward a score.
    """

    id: str
    title: str
    prompt: str
    kind: Kind
    hint: str
    course: Course = field(repr=False, compare=False)
    solver: Callable[..., Solution] = field(repr=False)
    template: str = field(default="", repr=False)
    given: Mapping[str, object] = field(default_factory=dict, repr=False)
    variants: tuple[Mapping[str, object], ...] = field(default=(), repr=False)
    nonfinite: str = field(default="", repr=False)
    carried: tuple[Carried, ...] = field(default=(), repr=False)
    misconceptions: tuple[tuple[Callable[..., object], str], ...] = field(default=(), repr=False)

    def solve(self) -> Solution:
        """Run the solver on this exercise's inputs; its slips as the judge should see them.

        A choice's wrong options join the slips, each with the words that say why it is
        wrong, and so do the misconceptions, about these inputs. A slip whose value the judge
        would call right is no slip, and is left out.
        """
        solution = self.solver(**self.given)
        slips = solution.slips + tuple((value(**self.given), note) for value, note in self.misconceptions)
        if isinstance(self.kind, Choice):
            self.kind.index(solution.answer)  # a solver answers with one of the options' words
            slips += self.kind.slips(solution.answer)
        distinct = tuple(
            (value, note) for value, note in slips if not self.kind.exactly(read(self.kind, value), solution.answer)
        )
        return replace(solution, slips=distinct)

    @property
    def registered(self) -> bool:
        """Whether this is the course's own question about its own inputs, not a variant of it."""
        own = self.course.exercises.get(self.id)
        return own is not None and repr(sorted(own.given.items())) == repr(sorted(self.given.items()))

    def variant(self, number: int) -> Exercise:
        """The same question about the ``number``-th set of fresh inputs (0 is the first)."""
        if not 0 <= number < len(self.variants):
            raise IndexError(f"{self.id} has {len(self.variants)} variants; there is no variant {number}")
        inputs = {**self.given, **self.variants[number]}
        return replace(self, prompt=asked(self.template, inputs, self.kind), given=inputs, variants=())


def read(kind: Kind, value: object) -> Reading:
    """A value as the judge reads it, written as a person would type it."""
    return kind.read(kind.toml(value).strip('"'))


def asked(template: str, inputs: Mapping[str, object], kind: Kind) -> str:
    """The question about these inputs, ending with what the kind asks about precision."""
    question = template.format(**{name: input_text(value) for name, value in inputs.items()}) if inputs else template
    return f"{question} {kind.instruction()}".strip()


def input_text(value: object) -> str:
    """An input as a question writes it: [3, 4], 1e-05, 1,000, float32."""
    if isinstance(value, tuple):
        return "[" + ", ".join(f"{v:g}" for v in value) + "]"
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


class Course:
    """A course's exercises, in the order it asks them, and what it keeps.

    ``name`` is the course's distribution (its version names the answer key);
    ``cache_variable`` the environment variable that names where computed answers
    are kept (``off`` keeps nothing); ``grade_file`` how a saved file says to grade it
    (``{file}`` is its name).
    """

    def __init__(
        self,
        name: str,
        title: str,
        cache_variable: str,
        grade_file: str = "python -m predict_check grade /path/to/{file}",
    ):
        self.name, self.title, self.cache_variable = name, title, cache_variable
        self.grade_file = grade_file
        self.exercises: dict[str, Exercise] = {}

    def __iter__(self) -> Iterator[Exercise]:
        return iter(self.exercises.values())

    def __len__(self) -> int:
        return len(self.exercises)

    @property
    def registered(self) -> bool:
        """Whether an installed distribution registers this course under its name, where the engine's commands look."""
        return any(entry.name == self.name for entry in metadata.entry_points(group=GROUP))

    @functools.cached_property
    def version(self) -> str:
        """The installed course's version, as the gradebook names it."""
        try:
            return metadata.version(self.name)
        except metadata.PackageNotFoundError:
            return "unknown"

    def exercise(
        self,
        exercise_id: str,
        title: str,
        prompt: str,
        kind: Kind,
        hint: str,
        given: Mapping[str, object] | None = None,
        variants: Sequence[Mapping[str, object]] = (),
        nonfinite: str = "",
        carried: Sequence[Carried] = (),
        misconceptions: Sequence[tuple[Callable[..., object], str]] = (),
    ) -> Callable[[Callable[..., Solution]], Callable[..., Solution]]:
        """Register the solver below as an exercise, with its question beside it.

        With ``given``, the prompt is a template whose ``{name}`` fields are the inputs,
        and the solver takes them by name.
        """

        def register(solver: Callable[..., Solution]) -> Callable[..., Solution]:
            if exercise_id in self.exercises:
                raise ValueError(f"exercise {exercise_id!r} is registered twice")
            inputs = dict(given or {})
            self.exercises[exercise_id] = Exercise(
                exercise_id,
                title,
                asked(prompt, inputs, kind),
                kind,
                hint,
                course=self,
                solver=solver,
                template=prompt,
                given=inputs,
                variants=tuple(variants),
                nonfinite=nonfinite,
                carried=tuple(carried),
                misconceptions=tuple(misconceptions),
            )
            return solver

        return register

    def get(self, exercise_id: object) -> Exercise:
        """The exercise with this id, or an error that suggests the nearest ids."""
        if isinstance(exercise_id, str) and exercise_id in self.exercises:
            return self.exercises[exercise_id]
        ids = list(self.exercises)
        near = difflib.get_close_matches(exercise_id, ids, n=3) if isinstance(exercise_id, str) else []
        expected = f"did you mean {' or '.join(map(repr, near))}?" if near else f"expected one of {', '.join(ids)}"
        named = quoted(exercise_id) if isinstance(exercise_id, str) else f"of type {type(exercise_id).__name__}"
        raise UnknownExercise(f"there is no exercise {named}; {expected}")
