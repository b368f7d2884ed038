"""What an answer is: the one set of rules that turns what a person typed into an answer.

``check()``, the grader and the page's prediction boxes read every answer by these
rules. The page receives them as data (``RULES``, served beside its script) and
applies them as they are, so the three cannot drift apart. In order:

1. Characters. Each character is looked up in one table (``characters.json``), made
   once from Unicode's data as Python 3.11 knows it (Unicode 14, recorded in the file)
   by ``character_table()``, so that every Python reads answers alike: a compatibility
   form becomes the plain characters it stands for (fullwidth one, U+FF11, is ``1``;
   the ligature U+FB01 is ``fi``; the long s, U+017F, is ``s``); a decimal digit of
   any script becomes its ASCII digit (the Arabic-Indic two, U+0662, is ``2``);
   every space and line break is a space; invisible format characters (zero-width
   spaces, the byte-order mark, direction marks, the soft hyphen) are dropped; and the
   minus sign (U+2212) is ``-``. Every other character stays as it is, so an accented
   letter, a combining mark or a control character leaves text that is no number.
2. Shape. Spaces around the answer are trimmed and one pair of matching quotes around
   it is removed (the answers file shows every blank answer as ``""``). What numpy and
   PyTorch print around a value is removed too (``PRINTED``): ``array([0.5, 1.25])``,
   ``np.float64(12.5)``, ``tensor(12.5000)``, ``tensor([0.5, 1.25], dtype=torch.float64)``,
   ``torch.Size([2, 5, 3])``. Text in ``[ ]`` or ``( )`` is a list, split at commas (one
   trailing comma is allowed), or, where it holds no comma, at spaces, as numpy prints
   an array: ``[0.84852814 1.13137026]``.
3. Tokens. An entry (or the whole answer) is a number when it matches ``NUMBER``:
   ASCII digits, an optional sign, point and exponent, as in ``-0.5``, ``.5``, ``1e-5``;
   or infinity or not-a-number, ``inf``, ``-infinity``, ``nan`` in any case (the
   natural wrong predictions where a square overflows: read, so that they are judged).
   A few other ways people write answers are read too, or answered with what to
   change (``kinds`` decides, by the kind of answer asked): a fraction ``1/4``; a
   number with the unit the question asks for, ``8 bytes``; a percentage, ``4%``
   (0.04); an angle in degrees, ``116.6°`` or ``116.6 degrees``; a vector or shape
   without its brackets, ``0.8, 1.1``; a shape with times signs, ``2x5x3``; a choice
   as ``Option D``, or as its letter and its words, ``A) a row of zeros`` or
   ``A - a row of zeros``; and a decimal comma, ``0,28``, which is told to use a point.

An answer longer than ``LONGEST`` characters is not read at all: the page refuses it
in the box, and the grader with the same words. What a kind of answer (a number, a
vector, a shape, a choice) makes of the tokens is in ``kinds``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

LONGEST = 500  # characters in one answer: 25 answers, each kept twice, stay far inside the grader's 256 KiB
FINITE = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
NOT_FINITE = r"[+-]?(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])"  # inf, -Infinity, NaN
NUMBER = rf"{FINITE}|{NOT_FINITE}"
WHOLE = r"[+-]?[0-9]+"
# A choice's letter, matched in lower case: b, (b), b), b. or b: and "option b" too.
LETTER = r"(?:option +)?\(? *([a-z]) *[).:]?"
# The letter and the option's words, as the box lists them, "b) words", or after a colon or a dash.
LABELLED = r"(?:option +)?\(? *([a-z]) *[).:\u2013\u2014-] *([^ ].*)"
# Forms a person writes that are not plain decimals, each read or answered with what to change:
FRACTION = rf"({FINITE}) */ *({FINITE})"  # 1/4 is a quarter
DECIMAL_COMMA = r"[+-]?[0-9]+,[0-9]+"  # 0,28: a decimal comma, told to write a point
WITH_WORDS = rf"({FINITE}) *([A-Za-z%\u00b0][A-Za-z%\u00b0 ]*)"
PERCENT = rf"({FINITE}) *%"  # 4% is 0.04  # 8 bytes: a number and a unit, or other words
BY = r"[0-9]+(?: *[xX\u00d7] *[0-9]+)+"  # 2x5x3: a shape written with times signs
BY_SIGN = r" *[xX\u00d7] *"
# numpy's and PyTorch's print formats around a value: the value, then any keyword arguments, each up to a comma
PRINTED = (
    r"(?:(?:np|numpy|torch)\.)?(?:array|tensor|Size|u?int(?:8|16|32|64)|float(?:16|32|64))"
    r"\((.*?)(?:, *[a-z_]+ *=[^,()]*)*\)"
)
DEGREES = ("degrees", "degree", "deg", "\u00b0")  # the units an angle may be written in: 116.6 degrees, 116.6°
QUOTES = "\"'"
MINUS_SIGN = "\u2212"
TABLE = files("predict_check") / "characters.json"


def character_table() -> dict[str, str]:
    """The character rules of step 1, computed from ``unicodedata`` (slow: every code point is visited)."""
    table: dict[str, str] = {}
    for code in range(0x110000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF or char == " ":
            continue
        category = unicodedata.category(char)
        if char.isspace():
            table[char] = " "
        elif category == "Cf":
            table[char] = ""
        elif category == "Nd" and not char.isascii():
            table[char] = str(unicodedata.digit(char))
        else:
            plain = unicodedata.normalize("NFKC", char)
            if plain != char and all(" " <= c <= "~" for c in plain):
                table[char] = plain
    table[MINUS_SIGN] = "-"
    return table


def table_text() -> str:
    """characters.json as this Python's Unicode data makes it: the packed table and the Unicode version.

    The file is data tied to that version; regenerate it with
    ``TABLE.write_text(table_text())`` only on the Python the table is meant to follow.
    """
    data = {"unicode": unicodedata.unidata_version, **packed(character_table())}
    return json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"


def packed(table: dict[str, str]) -> dict[str, object]:
    """The table as the page receives it: runs of consecutive one-to-one mappings, and the rest one by one.

    A run ``[first, count, to]`` maps code points first .. first + count - 1 to to .. to + count - 1.
    """
    runs: list[list[int]] = []
    single: dict[str, str] = {}
    for char, plain in sorted(table.items()):
        if len(plain) == 1:
            code, target = ord(char), ord(plain)
            if runs and runs[-1][0] + runs[-1][1] == code and runs[-1][2] + runs[-1][1] == target:
                runs[-1][1] += 1
                continue
            runs.append([code, 1, target])
        else:
            single[char] = plain
    return {"runs": [run for run in runs if run[1] > 1], "single": single | _lone(runs, table)}


def _lone(runs: list[list[int]], table: dict[str, str]) -> dict[str, str]:
    return {chr(first): table[chr(first)] for first, count, _ in runs if count == 1}


def unpacked(data: dict[str, object]) -> dict[int, str]:
    """The table as ``str.translate`` takes it, from the packed form."""
    table = {ord(char): plain for char, plain in data["single"].items()}
    for first, count, to in data["runs"]:
        table.update({first + k: chr(to + k) for k in range(count)})
    return table


@cache
def _table() -> dict[int, str]:
    return unpacked(json.loads(TABLE.read_text(encoding="utf-8")))


def rules() -> dict[str, object]:
    """Everything the page needs to read answers as this module does."""
    return {
        "characters": json.loads(TABLE.read_text(encoding="utf-8")),
        "longest": LONGEST,
        "number": NUMBER,
        "whole": WHOLE,
        "letter": LETTER,
        "labelled": LABELLED,
        "fraction": FRACTION,
        "percent": PERCENT,
        "decimal_comma": DECIMAL_COMMA,
        "with_words": WITH_WORDS,
        "by": BY,
        "by_sign": BY_SIGN,
        "printed": PRINTED,
        "degrees": list(DEGREES),
        "quotes": QUOTES,
    }


def plain(text: str) -> str:
    """Step 1: every character by the table."""
    return text.translate(_table())


@dataclass(frozen=True)
class Typed:
    """An answer after steps 1 and 2: its text (trimmed, unquoted), and its entries if it is a list."""

    text: str
    entries: tuple[str, ...] | None = None

    @property
    def blank(self) -> bool:
        return not self.text and self.entries is None


def typed(text: str) -> Typed:
    """Steps 1 and 2 for one answer (its length is checked before, by ``too_long``)."""
    text = plain(text).strip(" ")
    if len(text) >= 2 and text[0] == text[-1] and text[0] in QUOTES:
        text = text[1:-1].strip(" ")
    printed = re.fullmatch(PRINTED, text)
    if printed:
        text = printed.group(1).strip(" ")
    if len(text) >= 2 and (text[0], text[-1]) in (("[", "]"), ("(", ")")):
        inside = text[1:-1]
        separator = "," if "," in inside else " "  # numpy prints an array's entries apart by spaces
        entries = [entry.strip(" ") for entry in inside.strip(" ").split(separator) if separator == "," or entry]
        if entries and not entries[-1]:  # "(4,)" and "[]"
            entries.pop()
        return Typed(text, tuple(entries))
    return Typed(text)


def unbracketed(answer: Typed, by: bool = False) -> Typed:
    """A list written without its brackets, ``0.8, 1.1`` (or, for a shape, ``2x5x3``), as a list.

    Only a kind that asks for a list reads an answer this way: for a number, the
    same commas are a decimal comma.
    """
    if answer.entries is not None:
        return answer
    if "," in answer.text:
        return typed(f"[{answer.text}]")
    if by and re.fullmatch(BY, answer.text):
        return Typed(answer.text, tuple(re.split(BY_SIGN, answer.text)))
    return answer


def too_long(text: str) -> bool:
    return len(text) > LONGEST


def is_number(token: str) -> bool:
    return re.fullmatch(NUMBER, token) is not None


def is_whole(token: str) -> bool:
    return re.fullmatch(WHOLE, token) is not None


def decimals(token: str) -> int:
    """How many decimals a number token states: ``0.2828`` four, ``2.8e-1`` two, ``12`` none."""
    mantissa, _, exponent = token.lower().partition("e")
    fraction = mantissa.partition(".")[2]
    shift = 0
    if exponent:
        digits = exponent.lstrip("+-").lstrip("0") or "0"  # 1e+0000000 is 1e0: leading zeros are no size
        shift = int(digits) if len(digits) <= 6 else 999_999
        shift = -shift if exponent.startswith("-") else shift
    return min(max(len(fraction) - shift, 0), 999_999)


def ascii_lower(text: str) -> str:
    """Lower case for A to Z only, so that every reader of these rules agrees on every other character."""
    return re.sub("[A-Z]", lambda m: m.group().lower(), text)


def plain_words(text: str) -> str:
    """Option words as a person reads them: case, runs of spaces and a final full stop aside."""
    return " ".join(word for word in ascii_lower(text).split(" ") if word).rstrip(".")
