"""What an answer is: the one set of rules that turns what a person typed into an answer.

``check()``, the grader and the page's prediction boxes read every answer by these
rules. The page receives them as data (``RULES``, served beside its script) and
applies them as they are, so the three cannot drift apart. In order:

1. Characters. What students type in place of the ASCII an answer is read in is read as
   that ASCII, by one short list (``CHARACTERS``): full-width forms (U+FF11 is ``1``,
   U+FF0E is ``.``), the digits of an Arabic, Persian or Hindi keyboard (U+0662 is ``2``),
   the Arabic decimal separator and a Chinese keyboard's full stop, comma and brackets,
   the minus sign, hyphens and dashes (``-``), curly quotes and primes (straight ones),
   every character Python counts as a space (a space), the invisible marks that copied
   text carries (zero-width spaces, the byte-order mark, direction marks, the soft
   hyphen: dropped), and the ligatures a PDF's text gives (U+FB01 is ``fi``). Every other
   character stays as it is, so an accented letter, a combining mark, a control
   character or a digit of another script leaves text that is no number.
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
   without its brackets, ``0.8, 1.1`` or ``0.8 1.1``; a shape with times signs, ``2x5x3``; a choice
   as ``Option D``, or as its letter and its words, ``A) a row of zeros`` or
   ``A - a row of zeros``; and a decimal comma, ``0,28`` or ``[0,85, 1,13]``, which is told to use a
   point. A list begun and never closed, ``[0.8, 1.1``, is told to add its ``]``.

An answer longer than ``LONGEST`` characters is not read at all: the page refuses it
in the box, and the grader with the same words. What a kind of answer (a number, a
vector, a shape, a choice) makes of the tokens is in ``kinds``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LONGEST = 500  # characters in one answer: 25 answers, each kept twice, stay far inside the grader's 256 KiB
FINITE = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
NOT_FINITE = r"[+-]?(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])"  # inf, -Infinity, NaN
NUMBER = rf"{FINITE}|{NOT_FINITE}"
WHOLE = r"[+-]?[0-9]+"
# A choice's letter, matched in lower case: b, (b), b), b. or b: and "option b" too.
LETTER = r"(?:option +)?\(? *([a-z]) *[).:]?"
# The letter and the option's words, as the box lists them, "b) words", or after a colon or a dash.
LABELLED = r"(?:option +)?\(? *([a-z]) *[).:-] *([^ ].*)"
# Forms a person writes that are not plain decimals, each read or answered with what to change:
FRACTION = rf"({FINITE}) */ *({FINITE})"  # 1/4 is a quarter
DECIMAL_COMMA = r"[+-]?[0-9]+,[0-9]+"  # 0,28: a decimal comma, told to write a point
COMMA_APART = r" *; *|,? +"  # what stands between numbers written with decimal commas: [0,85; 1,13], [0,85, 1,13]
WITH_WORDS = rf"({FINITE}) *([A-Za-z%\u00b0][A-Za-z%\u00b0 ]*)"
PERCENT = rf"({FINITE}) *%"  # 4% is 0.04  # 8 bytes: a number and a unit, or other words
BY = r"[0-9]+(?: *[xX\u00d7] *[0-9]+)+"  # 2x5x3: a shape written with times signs
BY_SIGN = r" *[xX\u00d7] *"
SPACED = rf"(?:{NUMBER})(?: +(?:{NUMBER}))+"  # 0.8 1.1: numbers apart by spaces, a list without its brackets
# numpy's and PyTorch's print formats around a value: the value, then any keyword arguments, each up to a comma
PRINTED = (
    r"(?:(?:np|numpy|torch)\.)?(?:array|tensor|Size|u?int(?:8|16|32|64)|float(?:16|32|64))"
    r"\((.*?)(?:, *[a-z_]+ *=[^,()]*)*\)"
)
DEGREES = ("degrees", "degree", "deg", "\u00b0")  # the units an angle may be written in: 116.6 degrees, 116.6°
QUOTES = "\"'"


SPACES = (  # every character Python counts as a space, the typographer's thin and narrow ones among them
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
INVISIBLE = (  # what copied text carries and shows nothing: soft hyphen, zero widths, direction marks, byte-order mark
    "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)


def _run(first: str, last: str, plain: str) -> dict[str, str]:
    """The characters ``first`` to ``last``, each as the character as far from ``plain``."""
    return {chr(code): chr(ord(plain) + code - ord(first)) for code in range(ord(first), ord(last) + 1)}


# What students type in place of ASCII, each as that ASCII ("" for a mark that shows nothing): one list, which the
# page receives as data and reads every answer by, as ``plain`` does.
CHARACTERS: dict[str, str] = {
    **_run("\uff01", "\uff5e", "!"),  # full-width forms, an East Asian keyboard's: digits, signs, point, letters
    **_run("\u0660", "\u0669", "0"),  # Arabic-Indic digits, an Arabic keyboard's
    **_run("\u06f0", "\u06f9", "0"),  # Eastern Arabic-Indic digits, a Persian or Urdu keyboard's
    **_run("\u0966", "\u096f", "0"),  # Devanagari digits, a Hindi keyboard's
    "\u066b": ".",  # the Arabic decimal separator
    "\u3002": ".",  # a Chinese keyboard's full stop
    "\u3001": ",",  # its comma
    "\u3010": "[",  # its brackets
    "\u3011": "]",
    **dict.fromkeys("\u2212\u2010\u2011\u2012\u2013\u2014\ufe63", "-"),  # the minus sign, hyphens and dashes
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),  # a word processor's double quotes, the double prime
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),  # its single quotes, the prime
    **dict.fromkeys(SPACES, " "),
    **dict.fromkeys(INVISIBLE, ""),
    **{"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"},  # a PDF's ligatures
}
_PLAIN = str.maketrans(CHARACTERS)


def rules() -> dict[str, object]:
    """Everything the page needs to read answers as this module does."""
    return {
        "characters": CHARACTERS,
        "longest": LONGEST,
        "number": NUMBER,
        "whole": WHOLE,
        "letter": LETTER,
        "labelled": LABELLED,
        "fraction": FRACTION,
        "percent": PERCENT,
        "decimal_comma": DECIMAL_COMMA,
        "comma_apart": COMMA_APART,
        "with_words": WITH_WORDS,
        "by": BY,
        "by_sign": BY_SIGN,
        "spaced": SPACED,
        "printed": PRINTED,
        "quotes": QUOTES,
    }


def plain(text: str) -> str:
    """Step 1: every character by the list."""
    return text.translate(_PLAIN)


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
    """A list written without its brackets, ``0.8, 1.1`` or ``0.8 1.1`` (or, for a shape, ``2x5x3``), as a list.

    Only a kind that asks for a list reads an answer this way: for a number, the
    same commas are a decimal comma. Numbers apart by spaces alone are a list as
    they are in brackets, the way numpy prints an array.
    """
    if answer.entries is not None:
        return answer
    if "," in answer.text:
        return typed(f"[{answer.text}]")
    if by and re.fullmatch(BY, answer.text):
        return Typed(answer.text, tuple(re.split(BY_SIGN, answer.text)))
    if re.fullmatch(SPACED, answer.text):
        return typed(f"[{answer.text}]")
    return answer


def opened(answer: Typed) -> str | None:
    """The bracket a list that was begun but never closed needs, ``]`` for ``[0.8, 1.1``; None for any other answer."""
    if answer.entries is None and answer.text[:1] in ("[", "("):
        return "]" if answer.text[0] == "[" else ")"
    return None


def decimal_commas(text: str, count: int) -> bool:
    """Whether ``text`` is ``count`` numbers written with decimal commas, ``[1,27, 0,57]``, which split at commas
    make a list of another length."""
    parts = re.split(COMMA_APART, text.strip("[]() "))
    written = [re.fullmatch(DECIMAL_COMMA, part) is not None for part in parts]
    return len(parts) == count and any(written) and all(w or is_number(p) for w, p in zip(written, parts, strict=True))


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
