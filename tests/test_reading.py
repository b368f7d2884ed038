"""The one set of rules that turns typed text into an answer: characters, shape, tokens."""

from __future__ import annotations

import json

import pytest

from rmsnorm_course.exercises import reading


def test_the_character_table_is_unicode_data_as_this_python_knows_it():
    """characters.json is what character_table() computes; regenerate it when Python's Unicode changes."""
    stored = json.loads(reading.TABLE.read_text(encoding="utf-8"))
    assert reading.unpacked(stored) == {ord(char): plain for char, plain in reading.character_table().items()}


@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("\uff11\uff12.\uff15", "12.5"),  # fullwidth digits and point
        ("\u0661\u0662.\u0665", "12.5"),  # Arabic-Indic digits (a point of its own kind stays)
        ("\u0967\u0968", "12"),  # Devanagari digits
        ("\ufeff12.5", "12.5"),  # a byte-order mark is dropped
        ("1\u200b2", "12"),  # so is a zero-width space
        ("\u200e-1", "-1"),  # and a direction mark
        ("\u22121", "-1"),  # the minus sign
        ("\x1c12\x85", " 12 "),  # what Python counts as space is a space
        ("\u00a012\u3000", " 12 "),
        ("\ufb01ve", "five"),  # a ligature is its letters
        ("\u017f", "s"),  # the long s
        ("\U0001d7ce", "0"),  # a mathematical digit
    ],
)
def test_characters_become_what_they_stand_for(typed, plain):
    assert reading.plain(typed) == plain


@pytest.mark.parametrize("kept", ["\u0301", "\x00", "\x1b", "\u00e9", "\u2044", "\U0001f600"])
def test_other_characters_stay_and_so_make_no_number(kept):
    assert reading.plain(kept) == kept
    assert not reading.is_number(reading.typed("1" + kept).text)


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        (" 12.5 ", ("12.5", None)),
        ("'12.5'", ("12.5", None)),
        ('" [1, 2] "', ("[1, 2]", ("1", "2"))),
        ("(4,)", ("(4,)", ("4",))),
        ("[]", ("[]", ())),
        ("[ 1 , 2 , ]", ("[ 1 , 2 , ]", ("1", "2"))),
        ("[1, 2", ("[1, 2", None)),
        ("", ("", None)),
        ('""', ("", None)),
    ],
)
def test_an_answer_is_trimmed_unquoted_once_and_split_when_bracketed(text, shape):
    typed = reading.typed(text)
    assert (typed.text, typed.entries) == shape


@pytest.mark.parametrize("token", ["12", "-0.5", "+.5", "5.", "1e-5", "1E+05", "007"])
def test_numbers_are_ascii_decimal_literals(token):
    assert reading.is_number(token)


@pytest.mark.parametrize("token", ["inf", "-Infinity", "+NaN", "nan"])
def test_infinity_and_not_a_number_are_numbers_in_any_case(token):
    assert reading.is_number(token) and reading.decimals(token) == 0


NOT_NUMBERS = ["information", "nano", "infinite", "1_000", "0x10", "1/8", "1,5", "--1", "e5", ".", "1e", "\u0661"]


@pytest.mark.parametrize("token", NOT_NUMBERS)
def test_anything_else_is_not_a_number(token):
    assert not reading.is_number(token)


@pytest.mark.parametrize(
    ("token", "count"),
    [
        ("12", 0),
        ("12.50", 2),
        ("1.5e-3", 4),
        ("1.5e3", 0),
        ("1e-999999999", 999_999),
        ("0.7e+0000000", 1),  # leading zeros of an exponent are no size
        ("1.25e-0002", 4),
    ],
)
def test_decimals_count_the_places_a_number_states(token, count):
    assert reading.decimals(token) == count


def test_option_words_compare_without_case_runs_of_spaces_or_a_final_full_stop():
    assert reading.plain_words("  A Row  of NaN. ") == "a row of nan"
    assert reading.plain_words("\u00c9T\u00c9") == "\u00c9t\u00c9"  # only A to Z change case


def test_the_page_receives_the_same_rules():
    rules = reading.rules()
    assert reading.unpacked(rules["characters"]) == reading.unpacked(json.loads(reading.TABLE.read_text()))
    assert (rules["number"], rules["longest"], rules["letter"]) == (reading.NUMBER, reading.LONGEST, reading.LETTER)
