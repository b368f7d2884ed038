"""check(): instant feedback that accepts what a person types and never gives the answer away."""

from __future__ import annotations

import re

import numpy as np
import pytest

from leaks import expected_renderings
from predict_check.errors import UnknownExercise
from predict_check.kinds import Choice
from predict_check.verdicts import NEAR_MISS, Outcome, reference
from rmsnorm_course import check
from rmsnorm_course.pages import COURSE


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
        ("zero-row-zero-eps", "B"),
        ("zero-row-zero-eps", "(B)"),
        ("reciprocal-rms", "\uff10.\uff12\uff18\uff12\uff18\uff14\uff13"),  # fullwidth
        ("mean-square", "\u0661\u0662.\u0665"),  # Arabic-Indic digits
        ("mean-square", "\ufeff12.5"),  # a byte-order mark
        ("output-shape", "(\u0662, \u0665, \u0663)"),
        ("zero-row-zero-eps", "\x1c B \x85"),  # controls Python counts as space
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
        ("zero-row-zero-eps", "'B'"),
        ("zero-row-zero-eps", "'a row of NaNs'"),
        ("zero-row-zero-eps", "A row of NaNs."),
        # the ways people write answers that are not plain decimals
        ("mean-square", "25/2"),
        ("normalized", "0.848528, 1.131370"),
        ("output-shape", "2x5x3"),
        ("output-shape", "2 \u00d7 5 \u00d7 3"),
        ("output-shape", "2, 5, 3"),
        ("fused-bytes", "8 bytes"),
        ("fused-bytes", "8B"),
        ("grad-x-scaled", "1/4"),
        # printed by numpy or PyTorch, pasted
        ("normalized", "[0.84852814 1.13137026]"),
        ("normalized", "[ 0.848528  1.13137 ]"),
        ("normalized", "array([0.848528, 1.131370])"),
        ("normalized", "array([0.84852814, 1.13137026], dtype=float32)"),
        ("mean-square", "np.float64(12.5)"),
        ("mean-square", "tensor(12.5000)"),
        ("normalized", "tensor([0.848528, 1.131370], dtype=torch.float64)"),
        ("output-shape", "torch.Size([2, 5, 3])"),
        # an angle in degrees, and a choice as people name it
        ("circle-image", "116.6\u00b0"),
        ("circle-image", "116.6 degrees"),
        ("zero-row-zero-eps", "Option B"),
        ("zero-row-zero-eps", "option (b)"),
        ("zero-row-positive-eps", "A - a row of zeros"),
        ("zero-row-positive-eps", "A \u2013 a row of zeros"),
        ("zero-row-positive-eps", "Option A: a row of zeros"),
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
    assert "leaves out the gain" in check("output", [0.848528, 1.131370]).message
    assert "eps does not scale" in check("tiny-scaled", [0.094281, 0.125708]).message
    # 3 / sqrt(12.5) and 4 / sqrt(12.5) to six decimals: the eps-free x-hat
    assert "x-hat at eps = 0" in check("normalized", "[0.848528, 1.131371]").message


@pytest.mark.parametrize(
    ("exercise_id", "answer", "found"),
    [
        ("mean-square", "twelve", "text that is not a number"),
        ("mean-square", "12.5 or so", "a number followed by other words; write the number alone"),
        ("mean-square", "12.5 bytes", "a number followed by other words; write the number alone"),
        ("reciprocal-rms", "0,28", "a number with a decimal comma; write a point for decimals, as in 0.5"),
        ("reciprocal-rms", "1/0", "a fraction with 0 below the line"),
        ("mean-square", "[12.5]", "a list of 1 value"),
        ("normalized", "0.8; 1.1", "text that is not a list of numbers"),
        ("normalized", [[0.8, 1.1]], "a list of 1 value"),
        ("normalized", [0.8, 1.1, 0.0], "a list of 3 values"),
        ("output-shape", "B, T, d", "a list whose entry 1 is not a whole number of 0 or more"),
        ("output-shape", [2.5, 5, 3], "a list whose entry 1 is not a whole number of 0 or more"),
        ("eps-near-zero", 2, "a whole number; write the option's letter"),
        ("eps-near-zero", "E", "text that names no option"),
        ("grad-x", {"x": 1}, "a table"),
    ],
)
def test_nonsense_is_refused_with_a_clear_message(exercise_id, answer, found):
    verdict = check(exercise_id, answer)
    assert verdict.outcome is Outcome.UNREADABLE and not verdict.correct
    assert verdict.message == f"expected {COURSE.exercises[exercise_id].kind.describe()}; got {found}."
    first = str(verdict).splitlines()[0]
    assert first == f"{exercise_id}: ✗ Cannot read this answer: {verdict.message}"
    assert first == f"{exercise_id}: {verdict.sentence}"


def test_an_answer_at_fewer_decimals_is_right_so_far_and_says_how_many_to_give():
    for exercise_id, answer in (("reciprocal-rms", "0.2828"), ("tiny-normalized", "[0.0943, 0.1257]")):
        verdict = check(exercise_id, answer)
        assert verdict.outcome is Outcome.CLOSE and not verdict.correct, exercise_id
        assert "give six decimals" in verdict.message and "Hint" not in verdict.message


@pytest.mark.parametrize(
    ("exercise_id", "answer", "named"),
    [
        ("normalized", "[1, 1]", "1 in size"),  # the misconception predict.md warns against
        ("huge-row", "[1, 1]", "1 in size"),
        ("grad-gain", "[1, -2]", "grad_output itself"),
        ("tiny-scaled", "[0.6, 0.8]", "unit vector"),
        ("reciprocal-rms", "0.3", None),  # one figure agrees with 0.282843: too few to be right so far
        ("anchor-mean", "1", None),  # and with 0.894427
        ("reciprocal-rms", "0.28", None),  # two are too few too
    ],
)
def test_an_answer_agreeing_to_fewer_than_three_figures_or_a_misconception_is_not_right_so_far(
    exercise_id, answer, named
):
    verdict = check(exercise_id, answer)
    assert verdict.outcome is Outcome.WRONG
    if named:
        assert named in verdict.message and verdict.slips == (verdict.message,)


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [("reciprocal-rms", "0.283"), ("output", "[1.27, 0.566]"), ("anchor-mean", "0.894")],
)
def test_three_significant_figures_all_right_are_right_so_far(exercise_id, answer):
    assert check(exercise_id, answer).outcome is Outcome.CLOSE


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("output", "[1.27279221, 0.56568513]"),  # eight decimals that round to the reference at the six asked
        ("reciprocal-rms", "0.28284260"),
        ("normalized", "[0.84852814 1.13137026]"),
    ],
)
def test_more_decimals_than_asked_are_judged_at_the_decimals_asked(exercise_id, answer):
    assert check(exercise_id, answer).outcome is Outcome.CORRECT


def test_more_decimals_that_round_elsewhere_are_still_wrong():
    assert check("output", "[1.2727926, 0.5656852]").outcome is Outcome.WRONG  # 1.272793 at six decimals


@pytest.mark.parametrize("answer", ["1", "1.0", "1.000000"])
def test_one_for_the_mean_square_of_x_hat_is_the_eps_free_slip_not_right_so_far(answer):
    """1 rounds the reference to no decimals, but it is exactly the eps = 0 ideal: the slip is named."""
    verdict = check("plateau-value", answer)
    assert verdict.outcome is Outcome.WRONG and verdict.slips and "eps = 0 ideal" in verdict.message


def test_a_slip_is_named_only_when_the_answer_is_that_slip():
    stretched = check("scaled-ideal", "10.182338")  # 9 x-hat: x-hat scaled by the factor
    assert "scales x-hat by the factor" in stretched.message
    unrelated = check("scaled-ideal", "0.5")
    assert unrelated.slips == () and "factor" not in unrelated.message
    exponential = check("one-plus-gain", "1.110364")  # 1 + 0.3 exp(-1): the exponential for (1 - rate)^steps
    assert "exp(-rate * steps)" in exponential.message and "shrinks w" not in exponential.message


@pytest.mark.parametrize(
    ("exercise_id", "answer", "place"),
    [
        ("reciprocal-rms", "0.282842", "sixth decimal"),
        ("reciprocal-rms", "0.2830", "fourth decimal"),
        ("tiny-scaled", "[0.632456, 0.843270]", "sixth decimal"),
        ("anchor-mean", "0.8944", None),  # right so far
        ("anchor-mean", "0.85", None),  # 5% off: not near, so the hint
    ],
)
def test_a_near_miss_is_told_where_it_is_off_and_given_no_slip_it_did_not_make(exercise_id, answer, place):
    verdict = check(exercise_id, answer)
    if place is None:
        assert "Not quite" not in verdict.message
        return
    assert verdict.outcome is Outcome.WRONG and verdict.slips == ()
    assert verdict.message == f"Not quite: within 1% of the answer, but off in the {place}."
    assert "Hint" not in str(verdict)


@pytest.mark.parametrize("blank", [..., None, "", "   "])
def test_no_answer_shows_the_question(blank):
    verdict = check("mean-square", blank) if blank is not ... else check("mean-square")
    assert verdict.outcome is Outcome.NOT_ANSWERED
    assert "What is its mean square" in verdict.message and "a number" in verdict.message


def test_an_unanswered_choice_lists_its_options():
    verdict = check("zero-row-zero-eps")
    assert verdict.options == (
        "A) a row of zeros",
        "B) a row of NaNs",
        "C) a row of plus infinities",
        "D) an error naming the row",
    )
    assert "  B) a row of NaNs" in str(verdict)


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
    verdict = reference(COURSE.get("grad-x"))
    assert verdict.correct and verdict.answer == "[0.407293, -0.305470]"  # as the explanation writes it
    assert "[0.407293, -0.305470]" in verdict.message and "Nudging each coordinate" in verdict.detail
    assert str(verdict).endswith(f"  Why: {verdict.detail}")


@pytest.mark.parametrize(
    "exercise", [e for e in COURSE.exercises.values() if isinstance(e.kind, Choice)], ids=lambda e: e.id
)
def test_every_wrong_option_gets_its_own_note(exercise):
    solution, kind = exercise.solve(), exercise.kind
    noted = dict(solution.slips)
    assert set(noted) == set(kind.options) - {solution.answer}
    for option, note in noted.items():
        verdict = check(exercise.id, kind.letters[kind.index(option)])
        assert verdict.outcome is Outcome.WRONG and verdict.slips == (note,)
        assert verdict.message == note and verdict.detail == exercise.hint


def _verdict_texts(exercise) -> list[str]:
    """Every sentence a verdict on this exercise can lead with, before its fold."""
    solution = exercise.solve()
    texts = [solution.explanation, check(exercise.id, "\u0000").message]
    texts += [note for _, note in solution.slips]
    texts += [f"Hint: {exercise.hint}"]
    if not isinstance(exercise.kind, Choice):
        texts.append(NEAR_MISS.format(place="sixth decimal"))
    return texts


@pytest.mark.parametrize("exercise", COURSE.exercises.values(), ids=list(COURSE.exercises))
def test_a_verdict_is_one_short_sentence_before_its_fold(exercise):
    """About thirty words at most, whatever the outcome; the reasoning waits in the fold."""
    for text in _verdict_texts(exercise):
        assert len(text.split()) <= 32, text


TAUGHT_NAMES = {"RMSNorm", "LayerNorm", "BatchNorm", "PyTorch", "NaN", "NaNs", "MiB"}


@pytest.mark.parametrize("exercise", COURSE.exercises.values(), ids=list(COURSE.exercises))
def test_a_verdict_speaks_the_chapter_s_words_not_the_package_s_class_names(exercise):
    solution = exercise.solve()
    for text in [solution.explanation, solution.detail, *(note for _, note in solution.slips), exercise.hint]:
        names = set(re.findall(r"\b[A-Z][a-z]+[A-Z]\w*", text)) - TAUGHT_NAMES
        assert not names, (exercise.id, names)


@pytest.mark.parametrize("exercise", COURSE.exercises.values(), ids=list(COURSE.exercises))
def test_nothing_a_verdict_says_gives_away_a_later_box(exercise):
    """An explanation, its fold, a slip's note and the hint state no later exercise's answer.

    A row of zeros is left out: it is too common an outcome (an all-zero row, a centred batch) to give away.
    """
    order = list(COURSE.exercises)
    solution = exercise.solve()
    said = " ".join([solution.explanation, solution.detail, exercise.hint, *(n for _, n in solution.slips)])
    for later in order[order.index(exercise.id) + 1 :]:
        for form in expected_renderings(COURSE.exercises[later], whole=True):
            kind, answer = COURSE.exercises[later].kind, COURSE.exercises[later].solve().answer
            if len(form) >= 4 and not isinstance(kind, Choice) and np.any(np.asarray(answer, dtype=float) != 0):
                assert not re.search(rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)", said), (later, form)


def test_an_answer_too_coarse_to_tell_from_a_slip_says_both_and_is_not_right():
    """[0.4, -0.3] rounds from grad-x's answer and from the slip that treats the RMS as a constant alike."""
    exercise = COURSE.exercises["grad-x"]
    (slip_value, note), *_ = exercise.solve().slips
    assert [round(v, 1) for v in slip_value] == [round(v, 1) for v in exercise.solve().answer]  # both round alike
    coarse = check("grad-x", "[0.4, -0.3]")
    assert coarse.outcome is Outcome.WRONG and coarse.slips == ()  # not counted as the slip: it may be right
    assert "reads both as the answer and as a known slip" in coarse.message and note in coarse.message
    assert note in check("grad-x", str([round(v, 6) for v in slip_value])).message  # given in full, it is the slip


@pytest.mark.parametrize("answer", ["[0.8485, 1.1314]", "[0.84853, 1.13137]", "[0.849, 1.13]", "[0.85, 1.13]"])
def test_an_answer_that_reads_as_a_named_slip_at_its_decimals_is_never_right_so_far(answer):
    """The slip "x-hat at eps = 0" and the answer agree to five decimals: an answer that gives fewer is either."""
    solution = COURSE.exercises["normalized"].solve()
    rounded = [round(v, 5) for v in solution.answer]
    (note,) = [note for value, note in solution.slips if [round(v, 5) for v in value] == rounded]
    verdict = check("normalized", answer)
    assert verdict.outcome is Outcome.WRONG  # graded as a slip is: the policy gives "right so far" nothing of it
    assert note in verdict.message and "give six decimals" in verdict.message
    assert (verdict.mark, verdict.label) == ("±", "Too few digits")  # neutral: neither ✗ nor ≈
    assert "Not yet" not in verdict.sentence and "wrong" not in verdict.sentence.lower()


def test_an_answer_right_at_its_decimals_with_too_few_figures_is_told_so_not_where_it_is_off():
    """output is [1.272792, 0.565685]: [1.27, 0.57] is right at two decimals, but 0.57 has two figures."""
    answer = COURSE.exercises["output"].solve().answer
    assert [round(v, 2) for v in answer] == [1.27, 0.57]
    verdict = check("output", "[1.27, 0.57]")
    assert verdict.outcome is Outcome.WRONG and verdict.mark == "±"
    assert "too few digits" in verdict.message and "give six decimals" in verdict.message
    assert "third decimal" not in verdict.message
    assert "third decimal" in check("output", "[1.27, 0.565]").message  # a near miss still told where it is off


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [("normalized", "0.848528 1.131370"), ("normalized", "  0.848528   1.131370 "), ("output-shape", "2 5 3")],
)
def test_numbers_apart_by_spaces_read_as_a_list(exercise_id, answer):
    assert check(exercise_id, answer).outcome is Outcome.CORRECT
    assert check("mean-square", "12 5").outcome is Outcome.UNREADABLE  # a number asked: spaces make no list


def test_a_slip_whose_note_two_values_share_is_named_once():
    """output's gain-first slip has a value with eps and one without: an answer both round to hears it once."""
    slips = COURSE.exercises["output"].solve().slips
    notes = [note for _, note in slips]
    shared = next(note for note in notes if notes.count(note) > 1)
    values = [value for value, note in slips if note == shared]
    assert {tuple(round(v, 2) for v in value) for value in values} == {(1.29, 0.57)}  # both round alike
    verdict = check("output", "[1.29, 0.57]")
    assert verdict.message == shared and verdict.slips == (shared,)
