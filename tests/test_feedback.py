"""check(): instant feedback that accepts what a person types and never gives the answer away."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course import check
from rmsnorm_course.exercises.errors import UnknownExercise
from rmsnorm_course.exercises.feedback import Outcome, reference
from rmsnorm_course.exercises.kinds import Choice
from rmsnorm_course.exercises.registry import EXERCISES


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("mean-square", 12.5),
        ("mean-square", np.float64(12.5)),
        ("reciprocal-rms", 0.282843),
        ("normalized", [0.848528, 1.131370]),
        ("normalized", (0.848528, 1.131370)),
        ("normalized", np.array([0.848528, 1.131370])),
        ("output-shape", (2, 5, 3)),
        ("output-shape", [2, 5, 3]),
        ("output-shape", np.zeros((2, 5, 3)).shape),
        ("gain-gradient-shape", (3,)),
        ("gain-gradient-shape", 3),
        ("zero-row-positive-eps", "a"),
        ("zero-row-positive-eps", "A"),
        ("zero-row-positive-eps", "a row of zeros"),
        ("zero-row-positive-eps", "A Row of Zeros."),
        ("zero-row-zero-eps", "C"),
        ("zero-row-zero-eps", "(C)"),
        ("reciprocal-rms", "\uff10.\uff12\uff18\uff12\uff18\uff14\uff13"),  # fullwidth
        ("mean-square", "\u0661\u0662.\u0665"),  # Arabic-Indic digits
        ("mean-square", "\ufeff12.5"),  # a byte-order mark
        ("output-shape", "(\u0662, \u0665, \u0663)"),
        ("zero-row-zero-eps", "\x1c C \x85"),  # controls Python counts as space
        ("grad-gain", [0.848528, -2.262741]),
        # typed inside the answers file's quotes
        ("reciprocal-rms", "0.282843"),
        ("reciprocal-rms", " 0.282843 "),
        ("mean-square", "12.5"),
        ("mean-square", "12.50"),
        ("normalized", "[0.848528, 1.131370]"),
        ("normalized", "(0.848528, 1.131370)"),
        ("normalized", ["0.848528", "1.131370"]),
        ("output-shape", "(2, 5, 3)"),
        ("output-shape", "[2, 5, 3]"),
        ("gain-gradient-shape", "3"),
        ("gain-gradient-shape", "(3,)"),
        ("zero-row-zero-eps", "'C'"),
        ("zero-row-zero-eps", "'an error that names the row'"),
        ("zero-row-zero-eps", "An error that names the row."),
    ],
)
def test_right_answers_in_every_form_a_person_types(exercise_id, answer):
    verdict = check(exercise_id, answer)
    assert verdict.outcome is Outcome.CORRECT and verdict.correct


def test_ints_are_read_as_floats():
    """[0, 0] is a readable vector: it is judged wrong, not refused."""
    assert check("tiny-normalized", [0, 0]).outcome is Outcome.WRONG
    assert check("mean-square", 25).outcome is Outcome.WRONG


def test_a_wrong_answer_gets_the_hint_and_not_the_expected_value():
    verdict = check("reciprocal-rms", 0.4)
    assert verdict.outcome is Outcome.WRONG and not verdict.correct
    assert "Hint: Add eps to the mean square" in verdict.message
    for leak in ("0.282843", "0.28284", "0.2828"):
        assert leak not in str(verdict) and leak not in verdict._repr_html_()


def test_a_quoted_wrong_answer_is_judged_wrong_with_its_slip():
    verdict = check("mean-square", "25")
    assert verdict.outcome is Outcome.WRONG and "sum of the squares" in verdict.message
    assert verdict.answer == "25"


def test_a_known_slip_is_named():
    assert "sum of the squares" in check("mean-square", 25).message
    assert "RMS itself" in check("reciprocal-rms", 3.535535).message
    assert "RMS itself" in check("reciprocal-rms", "3.54").message  # a slip is named at the decimals given
    assert "before the gain" in check("output", [0.848528, 1.131370]).message
    assert "eps does not scale" in check("tiny-scaled", [0.094281, 0.125708]).message
    # 3 / sqrt(12.5) and 4 / sqrt(12.5) to six decimals: the eps-free x-hat
    assert "x-hat at eps = 0" in check("normalized", "[0.848528, 1.131371]").message


@pytest.mark.parametrize(
    ("exercise_id", "answer", "found"),
    [
        ("mean-square", "twelve", "text that is not a number"),
        ("mean-square", "12.5 or so", "text that is not a number"),
        ("mean-square", "[12.5]", "a list of 1 value"),
        ("normalized", "0.8, 1.1", "text that is not a list of numbers"),
        ("normalized", [[0.8, 1.1]], "a list of 1 value"),
        ("normalized", [0.8, 1.1, 0.0], "a list of 3 values"),
        ("output-shape", "B, T, d", "text that is not a whole number of 0 or more"),
        ("output-shape", [2.5, 5, 3], "a list whose entry 1 is not a whole number of 0 or more"),
        ("eps-near-zero", 2, "a whole number; write the option's letter"),
        ("eps-near-zero", "E", "text that names no option"),
        ("grad-x", {"x": 1}, "a table"),
    ],
)
def test_nonsense_is_refused_with_a_clear_message(exercise_id, answer, found):
    verdict = check(exercise_id, answer)
    assert verdict.outcome is Outcome.UNREADABLE and not verdict.correct
    assert verdict.message == f"expected {EXERCISES[exercise_id].kind.describe()}; got {found}."
    first = str(verdict).splitlines()[0]
    assert first == f"{exercise_id}: ✗ Cannot read this answer: {verdict.message}"
    assert first == f"{exercise_id}: {verdict.sentence}"


def test_an_answer_at_fewer_decimals_is_right_so_far_and_says_how_many_to_give():
    for exercise_id, answer in (
        ("reciprocal-rms", "0.2828"),
        ("plateau-value", "1"),
        ("tiny-normalized", "[0.0943, 0.1257]"),
    ):
        verdict = check(exercise_id, answer)
        assert verdict.outcome is Outcome.CLOSE and not verdict.correct, exercise_id
        assert "give six decimals" in verdict.message and "Hint" not in verdict.message
    assert check("plateau-value", "1.000000").outcome is Outcome.WRONG  # 1 is not the point: 0.999999 is


@pytest.mark.parametrize("blank", [..., None, "", "   "])
def test_no_answer_shows_the_question(blank):
    verdict = check("mean-square", blank) if blank is not ... else check("mean-square")
    assert verdict.outcome is Outcome.NOT_ANSWERED
    assert "What is its mean square" in verdict.message and "a number" in verdict.message


def test_an_unanswered_choice_lists_its_options():
    verdict = check("zero-row-zero-eps")
    assert verdict.options == ("A) a row of zeros", "B) a row of NaN", "C) an error that names the row")
    assert "  B) a row of NaN" in str(verdict)


def test_an_unknown_exercise_is_an_error_that_suggests_the_nearest():
    with pytest.raises(UnknownExercise, match="did you mean 'grad-gain'"):
        check("grad-gains", [1.0, 2.0])


def test_plain_text_leads_with_a_mark_and_a_word():
    right, wrong, blank = check("mean-square", 12.5), check("mean-square", 13), check("mean-square")
    assert str(right).startswith("mean-square: ✓ Correct, you said 12.5: mean(x**2) = ")
    assert str(wrong).startswith("mean-square: ✗ Not yet, you said 13: Hint: ")
    assert str(blank).startswith("mean-square: ? Your turn: x = [3, 4]. What is its mean square")
    assert repr(right) == str(right)


def test_html_says_the_verdict_in_words_and_escapes_the_text():
    right = check("mean-square", 12.5)._repr_html_()
    assert 'role="status"' in right and "<strong>The mean square</strong>" in right
    assert "✓ Correct, you said 12.5: mean(x**2)" in right
    assert "(3^2 + 4^2) / 2 = 12.5" in right
    refused = check("mean-square", "<b>twelve</b>")._repr_html_()
    assert "✗ Cannot read this answer: expected a number" in refused
    assert "twelve" not in refused  # what cannot be read is never shown back, as text or as markup


def test_the_caller_s_array_is_left_alone():
    answer = np.array([0.848528, 1.131370])
    kept = answer.copy()
    check("normalized", answer)
    np.testing.assert_array_equal(answer, kept)


def test_reference_shows_the_answer_and_explanation():
    verdict = reference("grad-x")
    assert verdict.correct and verdict.answer == "[0.407293, -0.30547]"
    assert "central differences agree on 2 of 2" in verdict.message


@pytest.mark.parametrize("exercise", [e for e in EXERCISES.values() if isinstance(e.kind, Choice)], ids=lambda e: e.id)
def test_every_wrong_option_gets_its_own_note(exercise):
    solution = exercise.solve()
    noted = dict(solution.pitfalls)
    assert set(noted) == set(range(len(exercise.kind.options))) - {solution.answer}
    for index, note in noted.items():
        verdict = check(exercise.id, exercise.kind.letters[index])
        assert verdict.outcome is Outcome.WRONG and verdict.slips == (note,)
        assert verdict.message.startswith(note)
