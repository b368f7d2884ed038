"""The one set of rules that turns typed text into an answer: characters, shape, tokens."""

from __future__ import annotations

import functools
import json
import unicodedata

import pytest

from predict_check import reading

STORED = json.loads(reading.TABLE.read_text(encoding="utf-8"))


@functools.cache
def rebuilt() -> dict[int, str]:
    """The table as this Python's Unicode data makes it (about a second: every code point is visited)."""
    return {ord(char): plain for char, plain in reading.character_table().items()}


@pytest.mark.skipif(
    unicodedata.unidata_version != STORED["unicode"],
    reason=f"characters.json holds Unicode {STORED['unicode']}; this Python has {unicodedata.unidata_version}",
)
def test_the_character_table_is_the_unicode_data_it_was_made_from():
    """On a Python with the table's Unicode version, rebuilding the table gives the file."""
    assert reading.unpacked(STORED) == rebuilt()
    assert reading.TABLE.read_text(encoding="utf-8") == reading.table_text()


def test_every_character_the_table_maps_this_python_maps_the_same_way():
    """On any Python: a newer Unicode may add characters the table leaves as they are, but changes none it maps.

    From Unicode 14 to 15.1 (Python 3.11 to 3.13) the only differences are 27 newly
    assigned characters: two scripts' digits and seven Egyptian format controls.
    """
    stored = reading.unpacked(STORED)
    assert {code: rebuilt().get(code) for code in stored} == stored
    assert all(unicodedata.category(chr(code)) in ("Nd", "Cf", "Zs") for code in rebuilt().keys() - stored.keys())
    assert len(stored) > 1000  # the table is no empty shell: every script's digits are in it


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
        ("[0.84852814 1.13137026]", ("[0.84852814 1.13137026]", ("0.84852814", "1.13137026"))),  # as numpy prints
        ("[ 0.5  -1.25 ]", ("[ 0.5  -1.25 ]", ("0.5", "-1.25"))),
        ("[ ]", ("[ ]", ())),
        ("[1 2, 3]", ("[1 2, 3]", ("1 2", "3"))),  # with a comma, commas split
    ],
)
def test_an_answer_is_trimmed_unquoted_once_and_split_when_bracketed(text, shape):
    typed = reading.typed(text)
    assert (typed.text, typed.entries) == shape


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("array([0.848528, 1.131370])", ("[0.848528, 1.131370]", ("0.848528", "1.131370"))),
        ("array([1, 2], dtype=int32)", ("[1, 2]", ("1", "2"))),
        ("np.array([1.5 , 0.25])", ("[1.5 , 0.25]", ("1.5", "0.25"))),
        ("np.float64(12.5)", ("12.5", None)),
        ("numpy.int64(8)", ("8", None)),
        ("array(12.5)", ("12.5", None)),
        ("tensor(12.5000)", ("12.5000", None)),
        ("tensor([0.8485, 1.1314])", ("[0.8485, 1.1314]", ("0.8485", "1.1314"))),
        ("tensor([1., 2.], dtype=torch.float64, requires_grad=True)", ("[1., 2.]", ("1.", "2."))),
        ("tensor(0.2828, grad_fn=<MulBackward0>)", ("0.2828", None)),
        ("tensor([0.5, 1.5], device='cuda:0')", ("[0.5, 1.5]", ("0.5", "1.5"))),
        ("torch.Size([2, 5, 3])", ("[2, 5, 3]", ("2", "5", "3"))),
        ("'np.float64(12.5)'", ("12.5", None)),
        ("Array([1, 2])", ("Array([1, 2])", None)),  # no print format of numpy's or PyTorch's
        ("print(12.5)", ("print(12.5)", None)),
    ],
)
def test_what_numpy_and_pytorch_print_around_a_value_is_removed(text, shape):
    typed = reading.typed(text)
    assert (typed.text, typed.entries) == shape


def test_a_print_format_built_to_make_the_reader_backtrack_is_read_at_once():
    """Every keyword argument ends at a comma or a bracket, so no text can be split two ways (500 characters)."""
    hostile = "array(" + ", a=      " * 49 + "!"
    assert len(hostile) <= reading.LONGEST and reading.typed(hostile).text == hostile


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
    """Whatever Python builds the page, it sends the table Python's check() reads by, not one of its own."""
    rules = reading.rules()
    assert reading.unpacked(rules["characters"]) == reading.unpacked(STORED)
    typed = "".join(chr(code) for code in sorted(reading.unpacked(rules["characters"])))
    assert reading.plain(typed) == "".join(reading.unpacked(STORED)[code] for code in sorted(reading.unpacked(STORED)))
    assert (rules["number"], rules["longest"], rules["letter"]) == (reading.NUMBER, reading.LONGEST, reading.LETTER)
