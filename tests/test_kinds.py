"""Reading answers the way people type them, and refusing the rest with a clear message."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from rmsnorm_course import RMSNormError
from rmsnorm_course.exercises.errors import AnswerKindError, GradingError
from rmsnorm_course.exercises.kinds import Choice, Number, Shape, Vector, read_typed

OPTIONS = ("a row of zeros", "a row of NaN", "rejected with an error")


def refused(kind, raw, *fragments):
    with pytest.raises(AnswerKindError) as caught:
        kind.read(raw)
    assert isinstance(caught.value, GradingError) and not isinstance(caught.value, RMSNormError)
    assert caught.value.boundary == "answer-kind"
    for fragment in fragments:
        assert fragment in str(caught.value)


@pytest.mark.parametrize("raw", [12, 12.0, np.float64(12.0), np.int32(12), np.array(12.0)])
def test_number_reads_ints_floats_and_numpy_scalars(raw):
    value = Number().read(raw)
    assert value == 12.0 and type(value) is float


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("12.5", 12.5),  # typed inside the template's quotes
        ("12", 12.0),
        (" 12.5 ", 12.5),
        ("+12.5", 12.5),
        ("1.25e1", 12.5),
        ("\u221212.5", -12.5),  # a unicode minus
        ("'12.5'", 12.5),  # quotes inside the quotes
        ('"12.5"', 12.5),
    ],
)
def test_number_reads_text_that_is_a_number(raw, value):
    got = Number().read(raw)
    assert got == value and type(got) is float


def test_number_refuses_text_lists_and_truth_values():
    refused(Number(), "twelve", "expected a number", "the text 'twelve'")
    refused(Number(), "12.5 or so", "expected a number", "the text '12.5 or so'")
    refused(Number(), "1/8", "the text '1/8'")
    refused(Number(), "inf", "the text 'inf'")
    refused(Number(), "[12.5]", "expected a number", "the text '[12.5]'")
    refused(Number(), [12.5], "expected a number", "a list of 1 value")
    refused(Number(), True, "the truth value True")


def test_number_agrees_within_the_tolerance_only():
    assert Number().agrees(0.282843, 0.28284260, 1e-5)
    assert not Number().agrees(0.2828, 0.28284260, 1e-5)
    assert not Number().agrees(float("nan"), 0.5, 1e-5)


@pytest.mark.parametrize("raw", [[3, 4], (3.0, 4.0), np.array([3.0, 4.0]), np.array([3, 4], dtype=np.int8)])
def test_vector_reads_lists_tuples_and_arrays(raw):
    assert Vector(2).read(raw) == (3.0, 4.0)


def test_vector_refuses_the_wrong_length_shape_or_entries():
    refused(Vector(2), [1.0, 2.0, 3.0], "a list of 2 numbers", "got 3 values")
    refused(Vector(2), np.ones((2, 2)), "an array of shape (2, 2)")
    refused(Vector(2), [[1.0, 2.0]], "got 1 value")
    refused(Vector(2), [1.0, "two"], "entry 1 is the text 'two'")
    refused(Vector(2), [1.0, "[2]"], "entry 1 is the text '[2]'")
    refused(Vector(2), [True, 1.0], "entry 0 is the truth value True")
    refused(Vector(2), "0.8, 1.1", "the text '0.8, 1.1'")
    refused(Vector(2), 0.8, "a list of 2 numbers")
    refused(Vector(2), "[0.8, 1.1", "the text '[0.8, 1.1'")
    refused(Vector(2), "[0.8, 1.1, 0]", "got 3 values")


@pytest.mark.parametrize(
    "raw",
    [
        "[3, 4]",  # typed inside the template's quotes
        "(3, 4)",
        " [3.0, 4.0,] ",
        "[3, \u22124]",  # a unicode minus, read as -4 and judged as such
        "'[3, 4]'",
        ["3", "4"],  # every entry in quotes
        [3, " 4.0 "],
    ],
)
def test_vector_reads_text_that_is_a_list_of_numbers(raw):
    expected = (3.0, -4.0) if "\u2212" in str(raw) else (3.0, 4.0)
    assert Vector(2).read(raw) == expected


def test_vector_agrees_coordinate_by_coordinate():
    assert Vector(2).agrees((0.848528, 1.131370), (0.84852780, 1.13137040), 1e-5)
    assert not Vector(2).agrees((0.848528, 1.2), (0.84852780, 1.13137040), 1e-5)


@pytest.mark.parametrize("raw", [(2, 5, 3), [2, 5, 3], np.array([2, 5, 3]), np.zeros((2, 5, 3)).shape])
def test_shape_reads_tuples_lists_and_numpy_shapes(raw):
    assert Shape().read(raw) == (2, 5, 3)


@pytest.mark.parametrize("raw", ["(2, 5, 3)", "[2, 5, 3]", " (2,5,3) ", "'(2, 5, 3)'", ["2", "5", "3"], ("2", 5, "3")])
def test_shape_reads_text_that_is_a_list_of_whole_numbers(raw):
    assert Shape().read(raw) == (2, 5, 3)


def test_a_bare_whole_number_is_a_one_axis_shape():
    assert Shape().read(3) == (3,)
    assert Shape().read(np.int64(3)) == (3,)
    assert Shape().read("3") == (3,)
    assert Shape().read("(3,)") == (3,)


def test_shape_refuses_fractions_negatives_and_text():
    refused(Shape(), [2.0, 5, 3], "whole numbers", "entry 0 is 2.0")
    refused(Shape(), [2, -5, 3], "entry 1 is -5")
    refused(Shape(), "(B, T, d)", "entry 0 is the text 'B'")
    refused(Shape(), "two by five", "the text 'two by five'")
    refused(Shape(), "[2.5, 3]", "entry 0 is 2.5")
    refused(Shape(), True, "the truth value True")


@pytest.mark.parametrize(
    "raw",
    [
        "b",
        "B",
        " (b) ",
        "B)",
        "B )",
        "a row of NaN",
        "A Row  of NaN.",
        "B) a row of NaN",
        "'B'",  # quotes inside the quotes
        '"B"',
        "'a row of NaN'",
    ],
)
def test_choice_reads_a_letter_or_the_option_text(raw):
    assert Choice(OPTIONS).read(raw) == 1


def test_choice_refuses_numbers_unknown_letters_and_other_text():
    refused(Choice(OPTIONS), 1, "a letter from A to C", "in quotes")
    refused(Choice(OPTIONS), "D", "the text 'D'")
    refused(Choice(OPTIONS), "maybe", "the words of an option")
    refused(Choice(OPTIONS), "A) a row of NaN", "the text 'A) a row of NaN'")
    refused(Choice(OPTIONS), "'D'", "the text \"'D'\"")
    refused(Choice(OPTIONS), "2", "the text '2'")


def test_long_text_is_quoted_in_part_with_its_length():
    refused(Number(), "x" * 10_000, f"the text '{'x' * 60}'... (10000 characters)")
    refused(Choice(OPTIONS), "B" * 61, f"the text '{'B' * 60}'... (61 characters)")
    with pytest.raises(AnswerKindError) as caught:
        Number().read("y" * 60)
    assert str(caught.value).endswith(f"the text '{'y' * 60}'")


def test_dates_and_times_are_named_as_such():
    loaded = tomllib.loads("a = 1979-05-27\nb = 07:32:00\nc = 1979-05-27T07:32:00Z\n")
    refused(Number(), loaded["a"], "got the date 1979-05-27")
    refused(Vector(2), loaded["b"], "got the time 07:32:00")
    refused(Shape(), loaded["c"], "got the date and time 1979-05-27T07:32:00+00:00")


@pytest.mark.parametrize(
    ("kind", "value", "typed"),
    [
        (Number(), 0.28284260, 0.282843),
        (Vector(2), (0.4072928, -0.3054696), [0.407293, -0.30547]),
        (Shape(), (2, 5, 3), [2, 5, 3]),
        (Choice(OPTIONS), 2, "C"),
    ],
)
def test_toml_writes_what_a_person_would_type(kind, value, typed):
    assert tomllib.loads(f"answer = {kind.toml(value)}")["answer"] == typed


def test_show_prints_six_decimals_and_option_letters():
    assert Vector(2).show((0.84852780, 1.1313704)) == "[0.848528, 1.131370]"
    assert Choice(OPTIONS).show(2) == "C) rejected with an error"
    assert Shape().show((3,)) == "(3,)"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", 12),
        (" -0.5 ", -0.5),
        ("1e-5", 1e-05),
        ("\u22120.5", -0.5),  # a unicode minus
        ("[0.5, -1.25]", [0.5, -1.25]),
        ("(2, 5, 3)", [2, 5, 3]),
        ("(4,)", [4]),
        ("[]", []),
        ('"B"', "B"),
        ("'B'", "B"),
        ("B) the words", "B) the words"),
        ('"0.5"', "0.5"),
        ("[a, 2]", ["a", 2]),
        ("", None),
        ("   ", None),
        ("9" * 5000, float("inf")),  # more digits than Python makes into an int
    ],
)
def test_typed_text_is_read_as_the_value_check_takes(text, value):
    got = read_typed(text)
    assert got == value and type(got) is type(value)
