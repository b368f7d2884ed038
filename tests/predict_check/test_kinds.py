"""Each kind of answer: what it reads, what it shows back, how it compares, and the words for the rest."""

from __future__ import annotations

import datetime
import math
import tomllib

import numpy as np
import pytest

from predict_check.errors import AnswerKindError, GradingError
from predict_check.kinds import MOST_ENTRIES, Axis, Choice, Number, Outcome, Place, Shape, Vector, figures
from rmsnorm_course import RMSNormError

OPTIONS = ("a row of zeros", "a row of NaN", "rejected with an error")


def refused(kind, raw, found):
    """The kind refuses ``raw`` and says what it expected and what it found."""
    with pytest.raises(AnswerKindError) as caught:
        kind.read(raw)
    assert isinstance(caught.value, GradingError) and not isinstance(caught.value, RMSNormError)
    assert caught.value.boundary == "answer-kind"
    assert str(caught.value) == f"expected {kind.describe()}; got {found}."


@pytest.mark.parametrize("raw", [12, 12.0, np.float64(12.0), np.int32(12), np.array(12.0), "12", "+12", "12."])
def test_number_reads_values_and_text_alike(raw):
    assert Number().read(raw).value == 12.0


@pytest.mark.parametrize(
    ("raw", "shown", "decimals"),
    [
        ("0.2828", "0.2828", 4),
        ("2.828e-1", "2.828e-1", 4),
        (" 12.5 ", "12.5", 1),
        ("1e-5", "1e-5", 5),
        (0.25, "0.25", 2),
    ],
)
def test_number_shows_what_was_given_and_counts_its_decimals(raw, shown, decimals):
    reading = Number().read(raw)
    assert (reading.shown, reading.decimals) == (shown, (decimals,))


def test_number_refuses_text_lists_and_values_of_other_kinds_in_words():
    refused(Number(), "twelve", "text that is not a number")
    refused(Number(), "1,8", "a number with a decimal comma; write a point for decimals, as in 0.5")
    refused(Number(), "1/0", "a fraction with 0 below the line")
    refused(Number(), "8 bytes", "a number followed by other words; write the number alone")
    refused(Number(), "information", "text that is not a number")
    refused(Number(), "[12.5]", "a list of 1 value")
    refused(Number(), [12.5, 1], "a list of 2 values")
    refused(Number(), True, "a truth value")
    refused(Number(), {"a": 1}, "a table")
    refused(Number(), datetime.date(1979, 5, 27), "a date")
    refused(Number(), np.timedelta64(3), "a span of time")
    refused(Number(), "x" * 600, "an answer of 600 characters; the grader reads at most 500 in one answer")


def test_inf_and_nan_are_answers_that_are_judged_and_match_only_themselves():
    assert Number().read("-Infinity").value == -math.inf and math.isnan(Number().read(float("nan")).value)
    assert Number().compare(Number().read("inf"), 0.5) is Outcome.WRONG
    assert Number().exactly(Number().read("inf"), math.inf) and not Number().exactly(Number().read("-inf"), math.inf)
    assert Vector(2).matches(Vector(2).read("[nan, NaN]"), (math.nan, math.nan))
    assert Number().off(Number().read("inf"), 0.5) is None


def test_a_percentage_is_a_hundredth_stating_two_decimals_more():
    given = Number().read("4%")
    assert (given.value, given.shown, given.decimals) == (0.04, "4%", (2,))
    assert Number().compare(Number().read("28.2843%"), 0.282843) is Outcome.CORRECT


def test_a_list_far_longer_than_any_typed_answer_is_refused_before_it_is_converted():
    refused(Vector(2), np.zeros(10**7), "a list of 10000000 values")
    refused(Shape(), [1] * 60_000, "a list of 60000 values")
    assert Shape().read([1] * MOST_ENTRIES).value == ("1",) * MOST_ENTRIES


def test_a_hostile_object_is_named_by_its_type_and_never_asked_anything():
    class Hostile:
        def __float__(self):
            raise RuntimeError("asked for a float")

        def __repr__(self):
            raise RuntimeError("asked for a repr")

    refused(Number(), Hostile(), "a value of type Hostile")
    refused(Choice(OPTIONS), Hostile(), "a value of type Hostile")


def test_whole_numbers_of_any_size_are_read_or_named_never_converted_with_a_crash():
    assert Number().read(10**400).value == float("inf")  # wrong, not a crash
    refused(Number(), 10**5000, "a whole number too long to read")
    assert Shape().read(10**400).value == ("1" + "0" * 400,)
    assert Shape().read("9" * 400).value == ("9" * 400,)
    refused(Choice(OPTIONS), 10**5000, "a whole number too long to read")


@pytest.mark.parametrize(
    ("given", "expected", "outcome"),
    [
        ("0.282843", 0.28284260, Outcome.CORRECT),
        ("0.2828426", 0.28284260, Outcome.CORRECT),
        ("0.282842", 0.28284260, Outcome.WRONG),  # six decimals, the sixth wrong
        ("0.2828", 0.28284260, Outcome.CLOSE),  # right to the four decimals given
        ("0.283", 0.28284260, Outcome.CLOSE),  # three significant figures, all right
        ("2.83e-1", 0.28284260, Outcome.CLOSE),
        ("28.3%", 0.28284260, Outcome.CLOSE),
        ("0.28", 0.28284260, Outcome.WRONG),  # two figures agree, but two are too few to be "so far"
        ("0.3", 0.28284260, Outcome.WRONG),
        ("0.29", 0.28284260, Outcome.WRONG),
        ("0", 0.28284260, Outcome.WRONG),  # agreeing to no decimal is not "so far"
        ("1", 0.999999, Outcome.WRONG),  # one figure
        ("1.00", 0.999999, Outcome.CLOSE),  # three figures: 0.999999 is 1.00 to three
        ("1.000000", 0.999999, Outcome.WRONG),
        ("0.0283", 0.028284260, Outcome.CLOSE),  # the figures start at the first that is not zero
        ("0.028", 0.028284260, Outcome.WRONG),
        ("12.5", 12.5004, Outcome.CLOSE),
        ("13", 12.5004, Outcome.WRONG),
        ("1.27279221", 1.2727916970, Outcome.CORRECT),  # more decimals than asked: judged at the six asked
        ("-1.27279221", -1.2727916970, Outcome.CORRECT),
        ("1.2727926", 1.2727916970, Outcome.WRONG),  # which rounds to 1.272793
        ("12", 12.5, Outcome.WRONG),  # half a unit away is not rounding
        ("12.5", 12.5, Outcome.CORRECT),
        ("1e400", 12.5, Outcome.WRONG),
    ],
)
def test_numbers_are_judged_at_the_decimals_asked(given, expected, outcome):
    assert Number().compare(Number().read(given), expected) is outcome


def test_a_question_may_ask_for_fewer_decimals():
    assert Number(decimals=2).compare(Number(decimals=2).read("0.28"), 0.28284260) is Outcome.CORRECT


@pytest.mark.parametrize("raw", [[3, 4], (3.0, 4.0), np.array([3.0, 4.0]), np.array([3, 4], dtype=np.int8)])
def test_vector_reads_lists_tuples_and_arrays(raw):
    assert Vector(2).read(raw).value == (3.0, 4.0)


@pytest.mark.parametrize(
    "raw", ["[3, 4]", "(3, 4)", " [3.0, 4.0,] ", "'[3, 4]'", ["3", "4"], [3, " 4.0 "], "3, 4", "3.0,4.0,"]
)
def test_vector_reads_text_that_is_a_list_of_numbers(raw):
    assert Vector(2).read(raw).value == (3.0, 4.0)


def test_vector_refuses_the_wrong_length_or_entries():
    refused(Vector(2), [1.0, 2.0, 3.0], "a list of 3 values")
    refused(Vector(2), "[0.8, 1.1, 0]", "a list of 3 values")
    refused(Vector(2), np.ones((2, 2)), "an array of shape (2, 2)")
    refused(Vector(2), [[1.0, 2.0]], "a list of 1 value")
    refused(Vector(2), [1.0, "two"], "a list whose entry 2 is not a number")
    refused(Vector(2), [True, 1.0], "a list whose entry 1 is not a number")
    refused(Vector(2), "0.8; 1.1", "text that is not a list of numbers")
    refused(Vector(2), "[0.8, 1.1", "a list that is not closed; add ] at its end")
    refused(Vector(2), "(0.8, 1.1", "a list that is not closed; add ) at its end")
    refused(Shape(), "[2, 5, 3", "a list that is not closed; add ] at its end")
    refused(Vector(2), 0.8, "a single number")


@pytest.mark.parametrize("raw", ["[1,272792, 0,565685]", "[1,272792; 0,565685]", "1,272792 0,565685", "(1,27, 0.57)"])
def test_a_list_with_decimal_commas_is_told_to_write_points(raw):
    found = "numbers with decimal commas; write points for decimals, commas between numbers: [0.5, 1.25]"
    refused(Vector(2), raw, found)
    refused(Vector(2), "[1,2,3]", "a list of 3 values")  # whole numbers apart by commas: no decimal comma to tell


def test_a_choice_answered_by_a_number_reads_it_as_the_option_it_names():
    """An answers file's unquoted 255 is the number 255: it names the option whose words it is, as "255" would."""
    kind = Choice(("128", "255", "256"))
    assert kind.read(255) == kind.read("255") == kind.read("B")
    refused(kind, 2, "a whole number; write the option's letter")  # a position is no option's words


def test_vector_is_right_so_far_when_every_coordinate_agrees_to_its_decimals():
    reference = (0.8485281374, 1.1313708499)  # [3, 4] at eps = 0
    assert Vector(2).compare(Vector(2).read("[0.848528, 1.131371]"), reference) is Outcome.CORRECT
    assert Vector(2).compare(Vector(2).read("[0.848528, 1.13137]"), reference) is Outcome.CLOSE
    assert Vector(2).compare(Vector(2).read("[0.849, 1.13]"), reference) is Outcome.CLOSE
    assert Vector(2).compare(Vector(2).read("[0.848528, 1.131370]"), reference) is Outcome.WRONG
    assert Vector(2).compare(Vector(2).read("[0.85, 1.1]"), reference) is Outcome.WRONG  # two figures are too few
    assert Vector(2).compare(Vector(2).read("[1, 1]"), reference) is Outcome.WRONG


def test_a_coordinate_right_to_the_decimals_asked_needs_no_more_figures():
    reference = (0.0, 0.2828426)
    assert Vector(2).compare(Vector(2).read("[0, 0.2828]"), reference) is Outcome.CLOSE
    assert Vector(2).compare(Vector(2).read("[0.1, 0.2828]"), reference) is Outcome.WRONG


@pytest.mark.parametrize(
    ("value", "decimals", "count"),
    [(0.283, 3, 3), (1.0, 2, 3), (1.0, 0, 1), (0.0283, 4, 3), (12.5, 1, 3), (1e-5, 5, 1), (1234.0, 0, 4), (0.0, 3, 0)],
)
def test_significant_figures_count_from_the_first_figure_that_is_not_zero(value, decimals, count):
    assert figures(value, decimals) == count


@pytest.mark.parametrize(
    "raw", [(2, 5, 3), [2, 5, 3], np.array([2, 5, 3]), "(2, 5, 3)", " [2,5,3] ", "'(2, 5, 3)'", ("2", 5, "+3")]
)
def test_shape_reads_tuples_lists_and_text(raw):
    reading = Shape().read(raw)
    assert reading.value == ("2", "5", "3") and reading.shown == "(2, 5, 3)"
    assert Shape().compare(reading, (2, 5, 3)) is Outcome.CORRECT


@pytest.mark.parametrize(
    ("raw", "value", "shown", "decimals"),
    [
        ("1/4", 0.25, "1/4", 6),  # a fraction is exact: judged at every decimal asked
        (" 25 / 2 ", 12.5, "25/2", 6),
        ("-1/8", -0.125, "-1/8", 6),
        ("1e-5/2", 5e-6, "1e-5/2", 6),
    ],
)
def test_number_reads_a_fraction_as_its_value(raw, value, shown, decimals):
    reading = Number().read(raw)
    assert (reading.value, reading.shown, reading.decimals) == (value, shown, (decimals,))


def test_number_reads_the_unit_the_question_asks_in_and_no_other():
    bytes_ = Number(units=("bytes", "byte", "b"))
    assert bytes_.read("8 bytes").value == 8.0 and bytes_.read("8 bytes").shown == "8 bytes"
    assert bytes_.read("8B").value == 8.0 and bytes_.read("1 Byte").value == 1.0
    assert bytes_.describe() == "a number of bytes, like 3"
    refused(bytes_, "8 MiB", "a number followed by other words; write the number alone")


def test_a_shape_may_be_written_with_times_signs_or_without_brackets():
    for raw in ("2x5x3", "2 X 5 X 3", "2\u00d75\u00d73", "2, 5, 3"):
        assert Shape().read(raw).value == ("2", "5", "3"), raw
    refused(Shape(), "2x5x", "text that is not a whole number of 0 or more")


def test_a_bare_whole_number_is_a_one_axis_shape():
    for raw in (3, np.int64(3), "3", "(3,)", "003"):
        reading = Shape().read(raw)
        assert reading.value == ("3",) and reading.shown == "(3,)"


def test_shape_refuses_fractions_negatives_and_text():
    refused(Shape(), [2.0, 5, 3], "a list whose entry 1 is not a whole number of 0 or more")
    refused(Shape(), [2, -5, 3], "a list whose entry 2 is not a whole number of 0 or more")
    refused(Shape(), "(B, T, d)", "a list whose entry 1 is not a whole number of 0 or more")
    refused(Shape(), "two by five", "text that is not a whole number of 0 or more")
    refused(Shape(), True, "a truth value")


@pytest.mark.parametrize(
    "raw", ["b", "B", " (b) ", "B)", "B )", "B.", "a row of NaN", "A Row  of NaN.", "B) a row of NaN", "'B'", '"(B)"']
)
def test_choice_reads_a_letter_or_the_option_words(raw):
    reading = Choice(OPTIONS).read(raw)
    assert reading.value == 1 and reading.shown == "B"


def test_choice_refuses_numbers_unknown_letters_and_other_text():
    refused(Choice(OPTIONS), 1, "a whole number; write the option's letter")
    refused(Choice(OPTIONS), "D", "text that names no option")
    refused(Choice(OPTIONS), "A) a row of NaN", "text that names no option")
    refused(Choice(OPTIONS), "2", "text that names no option")
    assert Choice(OPTIONS).describe() == "a letter from A to C, or the words of an option"


def test_a_long_answer_is_shown_back_in_part_with_its_length():
    from predict_check.kinds import shortened

    assert shortened("9" * 60) == "9" * 60
    assert shortened("9" * 61) == "9" * 60 + "… (61 characters)"


@pytest.mark.parametrize(
    ("kind", "value", "typed"),
    [
        (Number(), 0.28284260, 0.282843),
        (Vector(2), (0.4072928, -0.3054696), [0.407293, -0.30547]),
        (Shape(), (2, 5, 3), [2, 5, 3]),
        (Choice(OPTIONS), OPTIONS[2], "C"),
    ],
)
def test_toml_writes_what_a_person_would_type(kind, value, typed):
    assert tomllib.loads(f"answer = {kind.toml(value)}")["answer"] == typed


def test_references_are_shown_at_the_precision_asked():
    assert Vector(2).show((0.84852780, 1.1313704)) == "[0.848528, 1.131370]"  # the entries line up
    assert Vector(2).show((0.5, -1.25)) == "[0.50, -1.25]"
    assert Vector(2).show((3.0, 4.0)) == "[3, 4]" and Vector(2).show((-1e-9, 0.5)) == "[0.0, 0.5]"
    assert Number().show(12.5) == "12.5" and Number().show(-1e-9) == "0"
    assert Choice(OPTIONS).show(OPTIONS[2]) == "C) rejected with an error"
    assert Shape().show((3,)) == "(3,)"


@pytest.mark.parametrize(
    ("kind", "accepted", "refused"),
    [
        (Number(), [12.5, 3, np.float32(0.5), math.inf], ["12.5", True, [12.5], (12.5,), None]),
        (Vector(2), [(0.5, -1.0), (1, 2)], [[0.5, -1.0], (0.5,), (0.5, "1"), (0.5, True), 0.5]),
        (Shape(), [(2, 5, 3), (3,), ()], [[2, 5, 3], (2, -5), ((2,), 5), (2.0,), (True,), "(2, 5)"]),
        (Choice(("yes", "no")), ["yes", "no"], ["A", "maybe", 0, ("yes",)]),
    ],
)
def test_a_kind_accepts_as_reference_only_the_values_a_solver_returns(kind, accepted, refused):
    assert [value for value in accepted if not kind.accepts(value)] == []
    assert [value for value in refused if kind.accepts(value)] == []


def test_a_place_s_share_of_zero_holds_zero_alone():
    """A slip at zero has no share to give as room: only zero reads as it, and nothing divides by it."""
    place = Place(Axis(1e-6, 1.0, "log", "RMS"), tolerance=0.15)
    assert place.distance(0.0, 0.0) == 0.0
    assert place.distance(1e-9, 0.0) == math.inf
    assert place.distance(0.0, 2.0) == 1.0
