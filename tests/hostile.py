"""Hostile answers files: the bytes of each, words its report must hold, and the score it must get.

One table for every way in: ``AnswerSheet.read`` (test_toml_reader), the pytest grader
(predict_check/test_pytest_plugin) and the gradebook (test_gradebook). A file the grader refuses whole
scores 0; a file with one hostile answer among the reference answers scores M - 1;
the score is known from how the file is built, never read from the grader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from predict_check import answers_file
from rmsnorm_course.pages import COURSE

M = len(COURSE.exercises)
SOLUTIONS = answers_file(COURSE, solutions=True)
REFERENCE = dict(re.findall(r"^([a-z0-9-]+) = (.*)$", SOLUTIONS, re.M))
# every answer right, typed into the blank file as a student does: a file of one's own, not the key's text
ALL_RIGHT = re.sub(r'^([a-z0-9-]+) = ""$', lambda m: f"{m[1]} = {REFERENCE[m[1]]}", answers_file(COURSE), flags=re.M)
MiB = 2**20


def with_answer(exercise_id: str, value: str, text: str = SOLUTIONS) -> str:
    """The reference answers file with one answer replaced by ``value`` (TOML text)."""
    replaced, count = re.subn(rf"^{exercise_id} = .*$", lambda _: f"{exercise_id} = {value}", text, flags=re.M)
    assert count == 1
    return replaced


def line_of(text: str, start: str) -> int:
    """The line (from 1) of the first line of ``text`` that starts with ``start``."""
    return next(n for n, line in enumerate(text.splitlines(), start=1) if line.startswith(start))


@dataclass(frozen=True)
class Hostile:
    name: str
    content: bytes
    says: str | None  # words the report must hold (a verdict, or a problem with the file); None: all right
    score: int


def without(exercise_id: str, text: str = SOLUTIONS) -> str:
    """The reference answers file without one exercise's line."""
    return with_answer(exercise_id, '""', text).replace(f'{exercise_id} = ""\n', "")


def _text(name: str, text: str, says: str | None, score: int) -> Hostile:
    return Hostile(name, text.encode("utf-8"), says, score)


_ONE_BAD_LINE = with_answer("mean-square", '"12.5')  # a quote never closed: one line that cannot be read
_UNQUOTED = with_answer("eps-near-zero", "B", with_answer("mean-square", "12,5"))  # read as the same text in quotes
_NORMALIZED = re.search(r"^normalized = (.*)$", SOLUTIONS, re.M).group(1)
_WIDE = 'name = "\u4e00\u3000\u0100"\n' + SOLUTIONS  # each of 一, U+3000 and Ā has a zero byte on the other side
_VARIANT_KEYS = '[variants.mean-square]\n"\u00b9" = "5"\n"\u2460" = "5"\n"' + "9" * 5000 + '" = "5"\n'
_RANDOM = np.random.default_rng(15).integers(0, 256, 4096, dtype=np.uint8).tobytes()
_INVALID_BYTES = SOLUTIONS.encode().replace(b"\n", b"\nbad = '\xff\xfe'\n", 1)  # on line 2
_TWICE = SOLUTIONS + "mean-square = 25\n"

HOSTILE = [
    _text("deep-arrays", "mean-square = " + "[" * 500 + "]" * 500 + "\n", "nests arrays 500 deep (line 1)", 0),
    _text("deep-inline-tables", "mean-square = " + "{a = " * 500 + "1" + "}" * 500, "inline tables 500 deep", 0),
    _text("deep-mixed", "x = " + "[{a = " * 300 + "1" + "}]" * 300 + "\n", "arrays and inline tables 600 deep", 0),
    _text("deep-after-answers", SOLUTIONS + "notes = " + "[" * 100_000 + "]" * 100_000, "nests arrays 100000 deep", 0),
    _text("one-past-the-depth-limit", "mean-square = " + "[" * 17 + "]" * 17, "nests arrays 17 deep", 0),
    _text(
        "at-the-depth-limit",
        with_answer("mean-square", "[" * 16 + "]" * 16),
        "expected a number, like 0.5; got a list of 1 value",
        M - 1,
    ),
    _text("brackets-hidden-in-a-quote-trick", 'notes = ["""x"""", ' + "[" * 500 + "]" * 501, "arrays 501 deep", 0),
    _text("megabytes", SOLUTIONS + "# " + "x" * (3 * MiB), "MiB, more than the 256 KiB the grader reads", 0),
    Hostile("one-long-line", b"a" * (5 * MiB), "is 5 MiB, more than the 256 KiB the grader reads", 0),
    # bytes that are not UTF-8 are Windows-1252 (0xff 0xfe is "ÿþ"): the file is read, its stray key named
    Hostile("invalid-bytes", _INVALID_BYTES, "line 2: there is no exercise 'bad'", M),
    Hostile("random-bytes", _RANDOM, "is no character in Windows-1252 either", 0),
    Hostile("utf-16", SOLUTIONS.encode("utf-16"), None, M),
    Hostile("utf-16-without-byte-order-mark", SOLUTIONS.encode("utf-16-le"), None, M),
    Hostile("nul-byte", b"mean-square = 12.5\x00\n", "line 1: the answer holds a control character, \\x00", 0),
    _text("control-character", with_answer("mean-square", '"12.5\x07"'), "holds a control character, \\x07", M - 1),
    _text(
        "duplicate-key",
        _TWICE,
        f"given twice, on lines {line_of(_TWICE, 'mean-square')} and {len(_TWICE.splitlines())}; keep one of them",
        M - 1,
    ),
    _text("duplicate-table", "[notes]\n[notes]\n", "line 2: given twice, on lines 1 and 2", 0),
    _text("date", with_answer("mean-square", "1979-05-27"), "; got a date.", M - 1),
    _text("date-and-time", with_answer("normalized", "1979-05-27T07:32:00Z"), "; got a date and time.", M - 1),
    _text("time", with_answer("output-shape", "07:32:00"), "; got a time of day.", M - 1),
    _text(
        "table-as-answer",
        without("mean-square") + "[mean-square]\nvalue = 12.5\n",
        "expected a number, like 0.5; got a table",
        M - 1,
    ),
    _text("array-of-tables", without("normalized") + "[[normalized]]\nx = 1\n", "got a list of 1 value", M - 1),
    _text("huge-integer", with_answer("mean-square", "9" * 5000), "a whole number this long cannot be read", M - 1),
    _text(
        "huge-quoted-integer",
        with_answer("mean-square", '"' + "9" * 5000 + '"'),
        "got an answer of 5000 characters; the grader reads at most 500 in one answer",
        M - 1,
    ),
    _text("long-integer", with_answer("mean-square", "9" * 400), "Not yet, you said " + "9" * 60 + "… (400", M - 1),
    _text("long-text-answer", with_answer("mean-square", '"' + "x" * 200_000 + '"'), "an answer of 200000", M - 1),
    _text(
        "long-spaced-choice",
        with_answer("eps-near-zero", '"B)' + " " * 200_000 + 'x"'),
        "an answer of 200003 characters",
        M - 1,
    ),
    _text("many-keys", SOLUTIONS + "".join(f"k{i} = 1\n" for i in range(20_000)), "and 19990 more keys", M),
    _text("long-key", SOLUTIONS + '"' + "k" * 100_000 + '" = 1\n', "(100000 characters)", M),
    _text("long-blank-line", " " * 200_000 + "\n" + SOLUTIONS, None, M),
    _text("escaped-quotes", 'mean-square = "' + '\\"' * 100_000 + "\n", "line 1 could not be read", 0),
    _text("unclosed-multi-line-string", 'mean-square = """' + "[" * 1000, "close the quote", 0),
    _text("brackets-in-a-string", SOLUTIONS + 'notes = "' + "[" * 1000 + '"\n', "there is no exercise 'notes'", M),
    _text("long-dotted-key", "a" + ".a" * 20_000 + " = 1\n", "has a dotted key of 20001 parts (line 1)", 0),
    _text("long-quoted-dotted-key", SOLUTIONS + '"a"' + ' . "a"' * 20_000 + " = 1\n", "a dotted key of 20001 parts", 0),
    _text("dotted-key-at-the-limit", SOLUTIONS + "a" + ".a" * 15 + " = 1\n", "there is no exercise 'a'", M),
    _text("python-code", '__import__("pathlib").Path("executed").touch()\n', "neither an answer", 0),
    _text("crlf-line-endings-and-a-bad-line", _ONE_BAD_LINE.replace("\n", "\r\n"), "close the quote", M - 1),
    _text("cr-line-endings-and-a-bad-line", _ONE_BAD_LINE.replace("\n", "\r"), "close the quote", M - 1),
    _text("unquoted-letter-and-decimal-comma", _UNQUOTED, "got a number with a decimal comma; write a point", M - 1),
    Hostile("utf-16-le-without-byte-order-mark-wide-characters", _WIDE.encode("utf-16-le"), None, M),
    Hostile("utf-16-be-without-byte-order-mark-wide-characters", _WIDE.encode("utf-16-be"), None, M),
    _text("variant-keys-that-are-no-numbers", SOLUTIONS + _VARIANT_KEYS, None, M),
    _text(  # the table keeps its header: its normalized is no answer
        "bad-line-before-an-array-of-tables",
        without("mean-square", without("normalized")) + f'mean-square = "12.5\n[[extra]]\nnormalized = {_NORMALIZED}\n',
        "close the quote",
        M - 2,
    ),
    _text(
        "answer-then-a-table-of-its-name",
        SOLUTIONS + "[mean-square]\nvalue = 12.5\n",
        f"given twice, on lines {line_of(SOLUTIONS, 'mean-square')} and {len(SOLUTIONS.splitlines()) + 1}",
        M - 1,
    ),
    Hostile("empty", b"", "mean-square: not answered", 0),
    Hostile("byte-order-mark", b"\xef\xbb\xbf" + SOLUTIONS.encode(), None, M),
]
