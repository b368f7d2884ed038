"""The exercise registry: every prediction of the chapter, solved by the package, never typed in."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from leaks import expected_renderings
from predict_check.errors import GradingError, UnknownExercise
from predict_check.kinds import Choice, Number, Place, Shape, Vector
from rmsnorm_course import RMSNormError
from rmsnorm_course.pages import COURSE, boundaries, formula, in_the_model
from rmsnorm_course.studies import evidence

# The values the seed chapter the course was made from prints, typed here from it (not from the package).
SEED_VALUES = {
    "mean-square": 12.5,
    "reciprocal-rms": 0.282843,
    "normalized": (0.848528, 1.131370),
    "output": (1.272792, 0.565685),
    "scaled-ideal": 0.0,  # the ideal card's difference: x-hat of 10x is x-hat of x, [0.848528, 1.131371]
    "tiny-normalized": (0.094281, 0.125708),
    "tiny-scaled": (0.632456, 0.843274),
    "grad-x": (0.407293, -0.305470),
    "grad-gain": (0.848528, -2.262741),
    "output-shape": (2, 5, 3),  # the prompt's [B, T, d]
    "gain-gradient-shape": (3,),
}
# The seed chapter's "Check the predictions", as words of the right option (the tiny row, for eps).
SEED_CHOICES = {
    "eps-near-zero": "[0.0003, 0.0004]",
    "zero-row-positive-eps": "a row of zeros",
    "centering-and-batch": "mean not zero; the same whatever the other row",
    "pre-norm-placement": "h = h + F(RMSNorm(h))",
}
# Two of the seed's questions became a step beyond them, and the seed's answer moved to the verdict's detail:
# it asked what the package does with the all-zero row at eps = 0 (an error), the box what the formula gives
# (NaN, from 0 / 0); it asked who decides a gain's decay (the optimizer), the box what the decay leaves of it.
SEED_IN_DETAIL = {"zero-row-zero-eps": "refused it", "no-decay-policy": "optimizer's groups decide"}


def test_every_kind_of_answer_is_asked():
    assert {type(e.kind) for e in COURSE.exercises.values()} == {Number, Vector, Shape, Choice, Place}


def test_every_prediction_of_the_seed_chapter_has_an_exercise():
    assert set(SEED_VALUES) | set(SEED_CHOICES) | set(SEED_IN_DETAIL) <= set(COURSE.exercises)


@pytest.mark.parametrize("exercise", COURSE.exercises.values(), ids=list(COURSE.exercises))
def test_each_exercise_is_complete(exercise):
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", exercise.id)
    assert exercise.prompt.endswith(("?", ".")) and exercise.hint and exercise.solve().explanation
    assert exercise.title and exercise.title != exercise.id and not exercise.title.endswith(".")


@pytest.mark.parametrize("exercise", COURSE.exercises.values(), ids=list(COURSE.exercises))
def test_an_inexact_number_is_asked_to_the_decimals_it_is_judged_at(exercise):
    """A question whose reference has more decimals than it is judged at says how many to give."""
    kind = exercise.kind
    if not isinstance(kind, (Number, Vector)):
        return
    answer = np.atleast_1d(exercise.solve().answer)
    exact = np.all(np.round(answer, kind.decimals) == answer)
    asked = f"Give {['no', 'one', 'two', 'three', 'four', 'five', 'six'][kind.decimals]} decimals."
    assert exact or (kind.instruction() == asked and exercise.prompt.endswith(asked))


@pytest.mark.parametrize(("exercise_id", "printed"), SEED_VALUES.items())
def test_reference_answers_match_the_seed_chapter(exercise_id, printed):
    answer = COURSE.exercises[exercise_id].solve().answer
    if isinstance(printed, tuple) and all(isinstance(v, int) for v in printed):
        assert tuple(answer) == printed
    else:
        np.testing.assert_allclose(answer, printed, atol=5e-7)


@pytest.mark.parametrize(("exercise_id", "words"), SEED_CHOICES.items())
def test_choices_pick_the_seed_chapter_s_answer(exercise_id, words):
    exercise = COURSE.exercises[exercise_id]
    assert words in exercise.solve().answer


@pytest.mark.parametrize(("exercise_id", "words"), SEED_IN_DETAIL.items())
def test_the_seed_chapter_s_answer_is_in_the_verdict_s_detail(exercise_id, words):
    assert words in COURSE.exercises[exercise_id].solve().detail


@pytest.mark.parametrize(
    "exercise", [e for e in COURSE.exercises.values() if isinstance(e.kind, Choice)], ids=lambda e: e.id
)
def test_a_choice_s_solver_picks_the_option_its_author_marked_right(exercise):
    assert exercise.solve().answer == exercise.kind.marked


def test_no_more_than_a_quarter_of_the_choices_give_themselves_away_by_length():
    """The right option is as long as the longest of the others, or longer, in at most a quarter of the choices."""
    choices = [e for e in COURSE.exercises.values() if isinstance(e.kind, Choice)]
    longest = [
        e.id
        for e in choices
        if len(e.solve().answer) >= max(len(option) for option in e.kind.options if option != e.solve().answer)
    ]
    assert len(choices) >= 12 and len(longest) <= len(choices) / 4, longest


@pytest.mark.parametrize(
    "exercise", [e for e in COURSE.exercises.values() if isinstance(e.kind, Choice)], ids=lambda e: e.id
)
def test_a_choice_s_options_are_alike_in_length(exercise):
    """No option is more than three times as long as another: none stands out as the careful one."""
    lengths = [len(option) for option in exercise.kind.options]
    assert max(lengths) <= 3 * min(lengths) or max(lengths) <= 30, lengths


def test_the_zero_row_choices_come_from_running_rmsnorm(monkeypatch):
    """If RMSNorm returned NaN for an all-zero row, the reference answer would follow it."""
    monkeypatch.setattr(boundaries, "rms_norm", lambda x, g, eps: np.full(2, np.nan))
    assert COURSE.exercises["zero-row-positive-eps"].solve().answer == "a row of NaNs"


def test_the_zero_row_at_zero_eps_follows_the_formula_as_floating_point_computes_it(monkeypatch):
    """If the formula gave zeros for 0 / 0 the reference answer would follow it; its detail still quotes the refusal."""
    monkeypatch.setattr(boundaries.formulas, "rms_norm_formula", lambda x, g, eps: np.zeros(2))
    solution = COURSE.exercises["zero-row-zero-eps"].solve()
    assert solution.answer == "a row of zeros" and "refused it" in solution.detail


def test_the_centering_choice_comes_from_the_history_evidence(monkeypatch):
    real = formula.evidence.history()
    centered = formula.evidence.History(**{**real.__dict__, "rms_norm_with_companion": np.array([-1.0, 1.0])})
    monkeypatch.setattr(formula.evidence, "history", lambda: centered)
    exercise = COURSE.exercises["centering-and-batch"]
    assert exercise.solve().answer == "mean zero; changes if the other row changes"


def test_the_placement_choice_comes_from_the_package_s_block(monkeypatch):
    """A block that normalized the residual stream after the addition would make option A right."""

    class PostNormBlock(in_the_model.PreNormBlock):
        def trace(self, x):
            real = super().trace(x)
            return dataclasses.replace(real, h=self.attention_norm(real.x + self.mixing(real.x)))

    monkeypatch.setattr(in_the_model, "PreNormBlock", PostNormBlock)
    exercise = COURSE.exercises["pre-norm-placement"]
    assert exercise.solve().answer == "h = RMSNorm(h + F(h))"


@pytest.mark.parametrize(
    ("exercise_id", "evidence"),
    [
        ("eps-near-zero", ["4.5e-07", "1.25e-07"]),
        ("zero-row-positive-eps", ["returned [0.000000, 0.000000]"]),
        ("zero-row-zero-eps", ["refused it", "row 0 is all zeros"]),
        ("centering-and-batch", ["[5, 7]", "[1, 3]"]),
        ("no-decay-policy", ["each norm's gain among them, is left undecayed"]),
        ("pre-norm-placement", ["[0.999999, 0.999998]"]),
        ("grad-x", ["[0.407293, -0.305470]", "by 1e-06"]),
        ("mean-square", ["(3^2 + 4^2) / 2 = 12.5"]),
    ],
)
def test_explanations_quote_the_computed_evidence(exercise_id, evidence):
    solution = COURSE.exercises[exercise_id].solve()
    for fragment in evidence:
        assert fragment in f"{solution.explanation} {solution.detail}"


@pytest.mark.parametrize("exercise", COURSE.exercises.values(), ids=list(COURSE.exercises))
def test_hints_and_slip_notes_never_state_the_answer(exercise):
    texts = [exercise.hint, *(note for _, note in exercise.solve().slips)]
    for text in texts:
        for rendering in expected_renderings(exercise):
            assert rendering not in text


@pytest.mark.parametrize("exercise", COURSE.exercises.values(), ids=list(COURSE.exercises))
def test_a_slip_is_never_the_right_answer(exercise):
    solution = exercise.solve()
    kind = exercise.kind
    for value, _ in solution.slips:
        written = kind.toml(value).strip('"')  # the slip as a person would type it
        assert kind.compare(kind.read(written), solution.answer).value != "correct"


def test_solving_twice_gives_the_same_answer():
    for exercise in COURSE.exercises.values():
        assert exercise.solve() == exercise.solve()


def test_an_unknown_id_names_the_nearest_exercises():
    with pytest.raises(UnknownExercise, match="did you mean 'mean-square'") as caught:
        COURSE.get("mean-sqare")
    assert isinstance(caught.value, GradingError) and not isinstance(caught.value, RMSNormError)
    assert caught.value.boundary == "unknown-exercise"
    with pytest.raises(UnknownExercise, match="expected one of mean-square, reciprocal-rms"):
        COURSE.get(42)


@pytest.mark.parametrize("exercise", [e for e in COURSE.exercises.values() if e.variants], ids=lambda e: e.id)
def test_the_variants_vary_the_answer(exercise):
    """Practice that always has one answer teaches the answer, not the idea."""
    answers = {repr(np.round(np.atleast_1d(exercise.variant(i).solve().answer).astype(float), 6).tolist())
               for i in range(len(exercise.variants))}  # fmt: skip
    assert len(answers) > 1, answers


def test_a_negative_coordinate_is_squared_in_parentheses():
    """-2^2 reads as -4; the verdict writes (-2)^2."""
    variant = next(v for i, v in enumerate(COURSE.exercises["mean-square"].variants) if min(v["x"]) < 0)
    exercise = COURSE.exercises["mean-square"]
    solution = exercise.variant(exercise.variants.index(variant)).solve()
    assert "(-2)^2" in solution.explanation and " -2^2" not in solution.explanation


def test_the_output_s_detail_says_whether_the_gain_turns_the_vector():
    exercise = COURSE.exercises["output"]
    for number, inputs in enumerate(exercise.variants):
        detail = exercise.variant(number).solve().detail
        assert ("no longer points the way x does" in detail) == (len(set(inputs["g"])) > 1), inputs


def test_the_scaled_gradient_s_verdict_says_which_way_the_sensitivity_moves():
    exercise = COURSE.exercises["grad-x-scaled"]
    for number, inputs in enumerate(exercise.variants):
        words = exercise.variant(number).solve().explanation
        assert ("shrinks as x grows" in words) == (inputs["scale"] > 1), inputs
        assert ("grows as x shrinks" in words) == (inputs["scale"] < 1), inputs


def test_a_gradient_s_verdict_quotes_the_check_s_largest_difference_as_its_table_does():
    solution = COURSE.exercises["grad-x"].solve()
    input_check, _ = evidence.gradient_checks(evidence.primary())
    assert f"to within {max(c.error for c in input_check.checks):.1e}." in solution.detail
