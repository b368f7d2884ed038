"""The one set of rules that turns typed text into an answer: characters, shape, tokens."""

from __future__ import annotations

import unicodedata

import pytest

from predict_check import reading

NAMED = {  # words of a character's Unicode name, and the ASCII a character so named stands for, the first found
    **{"DECIMAL SEPARATOR": ".", "FULL STOP": ".", "COMMA": ",", "LEFT BLACK": "[", "RIGHT BLACK": "]"},
    **{"DOUBLE": '"', "QUOTATION": "'", "PRIME": "'", "MINUS": "-", "HYPHEN": "-", "DASH": "-"},
}


def what_unicode_says(char: str) -> str:
    """The ASCII a character stands for, by Unicode's own data: its compatibility form, category, digit or name."""
    compatible = unicodedata.normalize("NFKC", char)
    if compatible != char and compatible.isascii() and compatible.isprintable():
        return compatible
    if char.isspace():
        return " "
    if unicodedata.category(char) == "Cf":
        return ""
    if unicodedata.category(char) == "Nd":
        return str(unicodedata.digit(char))
    return next((ascii for words, ascii in NAMED.items() if words in unicodedata.name(char, "")), char)


@pytest.mark.parametrize("char", list(reading.CHARACTERS))
def test_each_listed_character_is_read_as_what_unicode_says_it_is(char):
    assert reading.CHARACTERS[char] == what_unicode_says(char), unicodedata.name(char, hex(ord(char)))


@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("\uff11\uff12.\uff15", "12.5"),  # fullwidth digits and point
        ("\u0661\u0662.\u0665", "12.5"),  # Arabic-Indic digits
        ("\u0661\u0662\u066b\u0665", "12.5"),  # and the Arabic decimal separator
        ("\u06f1\u06f2", "12"),  # Persian digits
        ("\u0967\u0968", "12"),  # Devanagari digits
        ("\u3010\uff10\u30025\u3001 1\u3011", "[0.5, 1]"),  # a Chinese keyboard's brackets, full stop and comma
        ("\u2013 1 \u2014 \u2010", "- 1 - -"),  # dashes and hyphens
        ("\u201cB\u201d \u2018B\u2019", "\"B\" 'B'"),  # a word processor's quotes
        ("\ufeff12.5", "12.5"),  # a byte-order mark is dropped
        ("1\u200b2", "12"),  # so is a zero-width space
        ("\u200e-1", "-1"),  # and a direction mark
        ("\u22121", "-1"),  # the minus sign
        ("\x1c12\x85", " 12 "),  # what Python counts as space is a space
        ("\u00a012\u3000", " 12 "),
        ("\ufb01ve", "five"),  # a ligature is its letters
    ],
)
def test_characters_become_what_they_stand_for(typed, plain):
    assert reading.plain(typed) == plain


# a combining mark, controls, a letter, signs, and digits and letters of forms no student types for ASCII
KEPT = [
    "\u0301",
    "\x00",
    "\x1b",
    "\u00e9",
    "\u2044",
    "\U0001f600",
    "\u00b2",
    "\u2460",
    "\U0001d7ce",
    "\u0e51",
    "\u017f",
]


@pytest.mark.parametrize("kept", KEPT)
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
    """Whatever Python builds the page, it sends the one list of characters Python's check() reads by."""
    rules = reading.rules()
    assert rules["characters"] == reading.CHARACTERS
    assert reading.plain("".join(rules["characters"])) == "".join(rules["characters"].values())
    assert (rules["number"], rules["longest"], rules["letter"]) == (reading.NUMBER, reading.LONGEST, reading.LETTER)
