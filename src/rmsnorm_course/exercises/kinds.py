"""The four kinds of answer an exercise takes, and how each reads what a person typed.

People type 12 for 12.0, a list, tuple or array for a vector, a tuple or list for a
shape, and a letter or the option's own words for a choice. The answers file shows
every blank answer as ``""``, so people also type inside the quotes: text that reads
as a number or a list of numbers (``"0.282843"``, ``"[0.6, 0.8]"``, ``"(2, 5, 3)"``) is
read as that value, by the rules of ``read_typed``, and a choice may carry quotes of
its own (``"'B'"``). Each kind reads those forms into one plain value, compares it
with the reference, and writes it as TOML. Anything else raises ``AnswerKindError``
with a message saying what was expected.
"""

from __future__ import annotations

import datetime
import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import AnswerKindError

SHOWN_TEXT = 60  # characters of a long text that a message quotes


def shortened(text: str) -> str:
    """Text as a message quotes it: in Python's quotes, cut after ``SHOWN_TEXT`` characters with its length."""
    if len(text) <= SHOWN_TEXT:
        return repr(text)
    return f"{text[:SHOWN_TEXT]!r}... ({len(text)} characters)"


def _described(raw: object) -> str:
    """Name what a person handed in, without judging it: ``the text 'twelve'``, ``a list of 3 values``."""
    if isinstance(raw, str):
        return f"the text {shortened(raw)}"
    if isinstance(raw, datetime.datetime):
        return f"the date and time {raw.isoformat()}"
    if isinstance(raw, datetime.date):
        return f"the date {raw.isoformat()}"
    if isinstance(raw, datetime.time):
        return f"the time {raw.isoformat()}"
    if isinstance(raw, bool):
        return f"the truth value {raw}"
    if isinstance(raw, np.ndarray):
        return f"an array of shape {raw.shape}"
    if isinstance(raw, (list, tuple)):
        return f"a {type(raw).__name__} of {len(raw)} value{'s' * (len(raw) != 1)}"
    if isinstance(raw, dict):
        return "a table"
    return f"{raw!r}"


def _is_whole(raw: object) -> bool:
    return isinstance(raw, (int, np.integer)) and not isinstance(raw, (bool, np.bool_))


def _is_real(raw: object) -> bool:
    return _is_whole(raw) or isinstance(raw, (float, np.floating))


def _unquoted(text: str) -> str:
    """Text without its spaces around, and without one pair of matching quotes: ``"'B'"`` is ``B``."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _as_typed(raw: object) -> object:
    """Text that reads as a number or a list (as ``read_typed`` reads it) becomes that value; the rest stays."""
    if isinstance(raw, str):
        value = read_typed(_unquoted(raw))
        if value is not None and not isinstance(value, str):
            return value
    return raw


def _items(raw: object, what: str) -> list[object]:
    """The entries of a flat list, tuple or rank-one array; anything else is the wrong kind."""
    if isinstance(raw, np.ndarray):
        if raw.ndim != 1:
            raise AnswerKindError(f"expected {what}, got an array of shape {raw.shape}")
        return raw.tolist()
    if isinstance(raw, (list, tuple)):
        return list(raw)
    raise AnswerKindError(f"expected {what}, got {_described(raw)}")


@dataclass(frozen=True)
class Number:
    """One real number; ints count as floats."""

    def describe(self) -> str:
        return "a number, like 0.5"

    def read(self, raw: object) -> float:
        value = _as_typed(raw)
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if _is_real(value):
            return float(value)
        raise AnswerKindError(f"expected {self.describe()}, got {_described(raw)}")

    def agrees(self, given: float, expected: float, tolerance: float) -> bool:
        return math.isfinite(given) and abs(given - expected) <= tolerance

    def show(self, value: float) -> str:
        return f"{value:.6g}"

    def toml(self, value: float) -> str:
        return repr(round(float(value), 6))


@dataclass(frozen=True)
class Vector:
    """A fixed number of real numbers: one per feature."""

    length: int

    def describe(self) -> str:
        example = ", ".join(["0.5", "-1.25", "2.0", "0.75"][: self.length])
        return f"a list of {self.length} numbers, like [{example}]"

    def read(self, raw: object) -> tuple[float, ...]:
        items = _items(_as_typed(raw), self.describe())
        if len(items) != self.length:
            raise AnswerKindError(f"expected {self.describe()}, got {len(items)} value{'s' * (len(items) != 1)}")
        values = []
        for position, item in enumerate(items):
            value = _as_typed(item)
            if not _is_real(value):
                raise AnswerKindError(f"expected {self.describe()}; entry {position} is {_described(item)}")
            values.append(float(value))
        return tuple(values)

    def agrees(self, given: Sequence[float], expected: Sequence[float], tolerance: float) -> bool:
        return all(Number().agrees(g, e, tolerance) for g, e in zip(given, expected))

    def show(self, value: Sequence[float]) -> str:
        return "[" + ", ".join(f"{v:.6f}" for v in value) + "]"

    def toml(self, value: Sequence[float]) -> str:
        return "[" + ", ".join(Number().toml(v) for v in value) + "]"


@dataclass(frozen=True)
class Shape:
    """An array shape: whole numbers, one per axis. A bare whole number is a one-axis shape."""

    def describe(self) -> str:
        return "a list of whole numbers, one per axis, like [4, 7]"

    def read(self, raw: object) -> tuple[int, ...]:
        value = _as_typed(raw)
        items = _items([value] if _is_whole(value) else value, self.describe())
        axes = []
        for position, item in enumerate(items):
            size = _as_typed(item)
            if not _is_whole(size) or size < 0:
                raise AnswerKindError(f"expected {self.describe()}; entry {position} is {_described(item)}")
            axes.append(int(size))
        return tuple(axes)

    def agrees(self, given: tuple[int, ...], expected: tuple[int, ...], tolerance: float | None = None) -> bool:
        return tuple(given) == tuple(expected)

    def show(self, value: Sequence[int]) -> str:
        return str(tuple(value))

    def toml(self, value: Sequence[int]) -> str:
        return "[" + ", ".join(str(int(v)) for v in value) + "]"


@dataclass(frozen=True)
class Choice:
    """One of a few options, answered by its letter (A, B, ...) or by its words."""

    options: tuple[str, ...]

    @property
    def letters(self) -> str:
        return string.ascii_uppercase[: len(self.options)]

    def describe(self) -> str:
        return f"a letter from {self.letters[0]} to {self.letters[-1]} in quotes, or the words of an option"

    def read(self, raw: object) -> int:
        if not isinstance(raw, str):
            hint = "; answer with the option's letter in quotes" if _is_whole(raw) else ""
            raise AnswerKindError(f"expected {self.describe()}, got {_described(raw)}{hint}")
        text = _unquoted(raw)
        # patterns with one way to match each text, so that long text takes linear time
        letter = re.fullmatch(r"\(?\s*([A-Za-z])(?:\s*[).])?", text)
        if letter and letter.group(1).upper() in self.letters:
            return self.letters.index(letter.group(1).upper())
        labelled = re.fullmatch(r"\(?\s*([A-Za-z])\s*[).]\s+(\S.*)", text)  # "B) the words", as the list shows it
        if labelled and labelled.group(1).upper() in self.letters:
            index = self.letters.index(labelled.group(1).upper())
            if _plain_words(labelled.group(2)) == _plain_words(self.options[index]):
                return index
        wanted = _plain_words(text)
        for index, option in enumerate(self.options):
            if _plain_words(option) == wanted:
                return index
        raise AnswerKindError(f"expected {self.describe()}, got {_described(raw)}")

    def agrees(self, given: int, expected: int, tolerance: float | None = None) -> bool:
        return given == expected

    def show(self, value: int) -> str:
        return f"{self.letters[value]}) {self.options[value]}"

    def listed(self) -> tuple[str, ...]:
        """Every option as the reader sees it: ``A) the words``, one per line."""
        return tuple(self.show(index) for index in range(len(self.options)))

    def toml(self, value: int) -> str:
        return f'"{self.letters[value]}"'


Kind = Number | Vector | Shape | Choice

_TYPED_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_TYPED_WHOLE = re.compile(r"[+-]?\d+")
_BRACKETS = {"[": "]", "(": ")"}


def read_typed(text: str) -> object:
    """What a reader typed in a prediction box, as the value ``check`` takes.

    A number (``12``, ``-0.5``, ``1e-5``) becomes an int or a float; ``[a, b]`` or
    ``(a, b)`` a list of them; text in matching quotes, or any other text, stays text.
    Blank means no answer yet (``None``). A unicode minus reads as a minus. The page's
    JavaScript (``static/prediction.js``) reads typed text by exactly these rules.
    """
    text = text.strip().replace("\u2212", "-")
    if not text:
        return None
    if text[0] in _BRACKETS and text[-1] == _BRACKETS[text[0]]:
        items = [item.strip() for item in text[1:-1].split(",")]
        if items and not items[-1]:  # "(4,)" and "[]"
            items.pop()
        return [_typed_scalar(item) for item in items]
    return _typed_scalar(text)


def _typed_scalar(text: str) -> object:
    if _TYPED_WHOLE.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python turns into an int (4300): a float, infinite
            return float(text)
    if _TYPED_NUMBER.fullmatch(text):
        return float(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _plain_words(text: str) -> str:
    """Compare option texts the way a person reads them: case, spacing and a final full stop aside."""
    return " ".join(text.casefold().split()).rstrip(".")
