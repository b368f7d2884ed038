"""The exercise registry: every prediction of the chapter, solved by the package, never typed in."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from leaks import expected_renderings

from rmsnorm_course import RMSNormError
from rmsnorm_course.exercises import registry
from rmsnorm_course.exercises.errors import GradingError, UnknownExercise
from rmsnorm_course.exercises.kinds import Choice, Number, Shape, Vector
from rmsnorm_course.exercises.registry import EXERCISES

# The Rust chapter's printed values, typed here from that chapter (not from the package).
RUST_CHAPTER_VALUES = {
    "mean-square": 12.5,
    "reciprocal-rms": 0.282843,
    "normalized": (0.848528, 1.131370),
    "output": (1.272792, 0.565685),
    "scaled-ideal": (0.848528, 1.131371),
    "tiny-normalized": (0.094281, 0.125708),
    "tiny-scaled": (0.632456, 0.843274),
    "grad-x": (0.407293, -0.305470),
    "grad-gain": (0.848528, -2.262741),
    "output-shape": (2, 5, 3),  # the prompt's [B, T, d]
    "gain-gradient-shape": (3,),
}
# The Rust chapter's "Check the predictions", as the words of the right option.
RUST_CHAPTER_CHOICES = {
    "eps-near-zero": "does not grow with the signal",
    "zero-row-positive-eps": "a row of zeros",
    "zero-row-zero-eps": "an error that names the row",
    "centering-and-batch": "neither",
    "no-decay-policy": "the optimizer decides",
    "pre-norm-placement": "h = h + F(RMSNorm(h))",
}


def test_there_are_at_least_fourteen_exercises_covering_every_kind():
    assert len(EXERCISES) >= 14
    assert {type(e.kind) for e in EXERCISES.values()} == {Number, Vector, Shape, Choice}


def test_every_prediction_of_the_rust_chapter_has_an_exercise():
    assert set(RUST_CHAPTER_VALUES) | set(RUST_CHAPTER_CHOICES) <= set(EXERCISES)


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_each_exercise_is_complete(exercise):
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", exercise.id)
    assert exercise.prompt.endswith(("?", ".")) and exercise.hint and exercise.solve().explanation
    assert exercise.title and exercise.title != exercise.id and not exercise.title.endswith(".")


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_an_inexact_number_is_asked_to_the_decimals_it_is_judged_at(exercise):
    """A question whose reference has more decimals than it is judged at says how many to give."""
    kind = exercise.kind
    if not isinstance(kind, (Number, Vector)):
        return
    answer = np.atleast_1d(exercise.solve().answer)
    exact = np.all(np.round(answer, kind.decimals) == answer)
    assert exact or "Six decimals" in exercise.prompt or "six decimals" in exercise.prompt


@pytest.mark.parametrize(("exercise_id", "printed"), RUST_CHAPTER_VALUES.items())
def test_reference_answers_match_the_rust_chapter(exercise_id, printed):
    answer = EXERCISES[exercise_id].solve().answer
    if isinstance(printed, tuple) and all(isinstance(v, int) for v in printed):
        assert tuple(answer) == printed
    else:
        np.testing.assert_allclose(answer, printed, atol=5e-7)


@pytest.mark.parametrize(("exercise_id", "words"), RUST_CHAPTER_CHOICES.items())
def test_choices_pick_the_rust_chapter_s_answer(exercise_id, words):
    exercise = EXERCISES[exercise_id]
    assert words in exercise.kind.options[exercise.solve().answer]


def test_the_zero_row_choices_come_from_running_rmsnorm(monkeypatch):
    """If RMSNorm returned NaN for an all-zero row, the reference answer would follow it."""
    monkeypatch.setattr(registry, "rms_norm", lambda x, g, eps: np.full(2, np.nan))
    for exercise_id in ("zero-row-positive-eps", "zero-row-zero-eps"):
        exercise = EXERCISES[exercise_id]
        assert exercise.kind.options[exercise.solve().answer] == "a row of NaN"


def test_the_centering_choice_comes_from_the_history_evidence(monkeypatch):
    real = registry.evidence.history()
    centered = registry.evidence.History(**{**real.__dict__, "rms_norm_with_companion": np.array([-1.0, 1.0])})
    monkeypatch.setattr(registry.evidence, "history", lambda: centered)
    exercise = EXERCISES["centering-and-batch"]
    assert exercise.kind.options[exercise.solve().answer].startswith("it subtracts the feature mean and uses")


def test_the_placement_choice_comes_from_the_package_s_block(monkeypatch):
    """A block that normalized the residual stream after the addition would make option A right."""

    class PostNormBlock(registry.PreNormBlock):
        def trace(self, x):
            real = super().trace(x)
            return dataclasses.replace(real, h=self.attention_norm(real.x + self.mixing(real.x)))

    monkeypatch.setattr(registry, "PreNormBlock", PostNormBlock)
    exercise = EXERCISES["pre-norm-placement"]
    assert exercise.kind.options[exercise.solve().answer].startswith("on the residual stream after the addition")


@pytest.mark.parametrize(
    ("exercise_id", "evidence"),
    [
        ("eps-near-zero", ["0.717566", "4.48e-07", "1.25e-07"]),
        ("zero-row-positive-eps", ["returned [0.000000, 0.000000]"]),
        ("zero-row-zero-eps", ["raised ZeroEnergyRow", "row 0 is all zeros"]),
        ("centering-and-batch", ["0.894427", "[0.447214, 1.341641]", "[-0.999999, -0.999999]"]),
        (
            "no-decay-policy",
            ["decoder.block.0.attention_norm.gain (shape (2,)) lands in the no-decay group", "[0.848528, -2.262741]"],
        ),
        ("pre-norm-placement", ["[0.999999, 0.999998]", "[12.500000, 5.000000]"]),
        ("grad-x", ["[0.407293, -0.305470]", "2 of 2"]),
        ("mean-square", ["(3^2 + 4^2) / 2 = 12.5"]),
    ],
)
def test_explanations_quote_the_computed_evidence(exercise_id, evidence):
    explanation = EXERCISES[exercise_id].solve().explanation
    for fragment in evidence:
        assert fragment in explanation


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_hints_and_pitfall_notes_never_state_the_answer(exercise):
    texts = [exercise.hint, *(note for _, note in exercise.solve().pitfalls)]
    for text in texts:
        for rendering in expected_renderings(exercise):
            assert rendering not in text


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_a_pitfall_is_never_the_right_answer(exercise):
    solution = exercise.solve()
    kind = exercise.kind
    for value, _ in solution.pitfalls:
        written = kind.toml(value).strip('"')  # the slip as a person would type it
        assert kind.compare(kind.read(written), solution.answer).value != "correct"


def test_solving_twice_gives_the_same_answer():
    for exercise in EXERCISES.values():
        assert exercise.solve() == exercise.solve()


def test_an_unknown_id_names_the_nearest_exercises():
    with pytest.raises(UnknownExercise, match="did you mean 'mean-square'") as caught:
        registry.get("mean-sqare")
    assert isinstance(caught.value, GradingError) and not isinstance(caught.value, RMSNormError)
    assert caught.value.boundary == "unknown-exercise"
    with pytest.raises(UnknownExercise, match="expected one of mean-square, reciprocal-rms"):
        registry.get(42)
