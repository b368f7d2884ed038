"""The kinds of answer an exercise takes (a number, a vector, a shape, a choice, a place on a figure), and what
each makes of an answer.

Typed text is read by the rules of ``reading`` (the same in ``check()``, the grader
and the page). Values handed in from Python or from a TOML file (a float, a list, an
array) are first written as the tokens a person would type for them. A kind then
turns the tokens into a ``Reading``: the value, the answer as it is shown back
("you said ..."), and, for numbers, how many decimals each one states. Anything else
raises ``AnswerKindError`` whose message says what was expected and what was found,
in words that never quote the answer itself.

Numbers are judged at the precision the question asks (``decimals``, six unless it
says otherwise): right when, rounded to that many decimals, they round as the reference
does (more decimals than asked are rounded first); "right so far" when they give fewer
decimals but at least ``FIGURES`` significant figures, and round as the reference does
at the decimals they give.
"""

from __future__ import annotations

import datetime
import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

import numpy as np

from . import reading
from .errors import AnswerKindError

DECIMALS = 6  # the precision the chapter prints and asks for
SHOWN = 60  # characters of a long answer that a verdict shows back
MESSAGE = "expected {expected}; got {found}."  # the words for every answer that cannot be read
FOUND = {  # ... and what was found instead; the page fills in the same templates
    "text": "text that is not {what}",
    "list": "a list of {count} values",
    "list of one": "a list of 1 value",
    "number": "a single number",
    "entry": "a list whose entry {index} is not {what}",
    "long": "an answer of {count} characters; the grader reads at most {longest} in one answer",
    "no option": "text that names no option",
    "comma": "a number with a decimal comma; write a point for decimals, as in 0.5",
    "list comma": "numbers with decimal commas; write points for decimals, commas between numbers: [0.5, 1.25]",
    "open": "a list that is not closed; add {close} at its end",
    "words": "a number followed by other words; write the number alone",
    "zero below": "a fraction with 0 below the line",
}
NO_FIGURE = "(No figure to place the marker on here: type the number instead.)"  # a picture box, away from a page
MOST_ENTRIES = (reading.LONGEST + 1) // 2  # the most entries a typed answer can hold: a longer list is refused unread
NEAR = 0.01  # a wrong number within this share of the reference is told where it is off, not given a hint
SLACK = 1e-12  # relative room for the binary rounding of both numbers when half a unit decides
FIGURES = 3  # the significant figures an answer with fewer decimals than asked needs to be "right so far"


def judging() -> dict[str, float]:
    """The numbers the page's judge needs beside the reading rules, from their one home here."""
    return {"shown": SHOWN, "near": NEAR, "slack": SLACK, "figures": FIGURES}


class Outcome(Enum):
    """What became of an answer."""

    CORRECT = "correct"
    CLOSE = "right so far"
    WRONG = "wrong"
    NOT_ANSWERED = "not answered"
    UNREADABLE = "unreadable"


@dataclass(frozen=True)
class Reading:
    """An answer as a kind reads it: its value, how it is shown back, and the decimals each number states."""

    value: object
    shown: str
    decimals: tuple[int, ...] = ()


def shortened(text: str) -> str:
    """An answer as a verdict shows it back: whole, or its first ``SHOWN`` characters and its length."""
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}… ({len(text)} characters)"


def unreadable(expected: str, found: str) -> AnswerKindError:
    return AnswerKindError(MESSAGE.format(expected=expected, found=found))


# --- answers handed in as values, written as tokens -----------------------------------------


class Odd:
    """An entry that is no token at all (a truth value, a table, a nested list), named in words."""

    def __init__(self, found: str):
        self.found = found


def _token(raw: object) -> str | Odd:
    """A value as the text a person would type for it; text stays text (after ``reading.plain``)."""
    if isinstance(raw, str):
        return reading.plain(raw).strip(" ")
    if isinstance(raw, (bool, np.bool_)):
        return Odd("a truth value")
    if isinstance(raw, (np.timedelta64, np.datetime64)):
        return Odd("a span of time" if isinstance(raw, np.timedelta64) else "a date")
    if isinstance(raw, (int, np.integer)):
        number = int(raw)
        return str(number) if number.bit_length() < 4000 else Odd("a whole number too long to read")
    if isinstance(raw, (float, np.floating)):
        return repr(float(raw))  # inf and nan too: they are answers, judged like any other
    return Odd(_named(raw))


def _named(raw: object) -> str:
    """What a value is, in words, without asking the value anything (its own methods may not be trusted)."""
    if isinstance(raw, datetime.datetime):
        return "a date and time"
    if isinstance(raw, datetime.date):
        return "a date"
    if isinstance(raw, datetime.time):
        return "a time of day"
    if isinstance(raw, dict):
        return "a table"
    if isinstance(raw, (list, tuple)):
        return f"a list of {len(raw)} values"
    if isinstance(raw, np.ndarray):
        return f"an array of shape {tuple(int(n) for n in raw.shape)}"
    return f"a value of type {type(raw).__name__}"


def as_typed(raw: object) -> reading.Typed:
    """Any answer as typed text after ``reading``'s steps: text is read, a value is written first.

    A value that fails while being read (a container whose own methods raise) is named
    by its type: its error never passes through.
    """
    try:
        return _as_typed(raw)
    except AnswerKindError:
        raise
    except Exception:  # a hostile object's own error, whatever it is
        raise AnswerKindError(f"a value of type {type(raw).__name__} that could not be read") from None


def _as_typed(raw: object) -> reading.Typed:
    if isinstance(raw, str):
        if reading.too_long(raw):
            raise AnswerKindError(FOUND["long"].format(count=len(raw), longest=reading.LONGEST))
        return reading.typed(raw)
    count = raw.size if isinstance(raw, np.ndarray) and raw.ndim == 1 else _length(raw)
    if count > MOST_ENTRIES:  # refused before a single entry is converted
        raise AnswerKindError(FOUND["list"].format(count=count))
    if isinstance(raw, np.ndarray) and raw.ndim == 1:
        raw = raw.tolist()
    elif isinstance(raw, np.ndarray) and raw.ndim == 0:
        raw = raw.item()
    if isinstance(raw, (list, tuple)):
        entries = tuple(_token(entry) if not isinstance(entry, (list, tuple)) else Odd(_named(entry)) for entry in raw)
        return reading.Typed("", entries)  # type: ignore[arg-type]
    token = _token(raw)
    if isinstance(token, Odd):
        raise AnswerKindError(token.found)
    return reading.Typed(token)


def _length(raw: object) -> int:
    """How many entries a list or tuple holds (0 for anything else), asked without iterating it."""
    return len(raw) if isinstance(raw, (list, tuple)) else 0


def _found(typed: reading.Typed, what: str) -> str:
    """Name what was found where ``what`` was wanted: text, or a list of so many values."""
    if typed.entries is None:
        return FOUND["text"].format(what=what)
    count = len(typed.entries)
    return FOUND["list of one"] if count == 1 else FOUND["list"].format(count=count)


# --- the kinds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Number:
    """One real number, stated to ``decimals`` places or exactly.

    ``units`` names the unit the question asks in (its first word is its name): a
    number written with one of them, ``8 bytes``, reads as the number. ``stated``
    says whether the question asks for the decimals in words ("Give six decimals."),
    which it does unless the answer is a short exact number.
    """

    decimals: int = DECIMALS
    units: tuple[str, ...] = ()
    stated: bool = True

    def describe(self) -> str:
        return f"a number of {self.units[0]}, like 3" if self.units else "a number, like 0.5"

    def instruction(self) -> str:
        """What the question adds about precision, written from ``decimals``."""
        return _give(self.decimals) if self.stated else ""

    def read(self, raw: object) -> Reading:
        typed = _typed(raw, self.describe())
        if typed.entries is None:
            number = _number(typed.text, self.decimals, self.units)
            if isinstance(number, Reading):
                return number
            raise unreadable(self.describe(), number)
        raise unreadable(self.describe(), _found(typed, "a number"))

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is a reference answer of this kind, as a solver returns it (the key checks a kept one)."""
        return _real(value)

    def compare(self, given: Reading, expected: float) -> Outcome:
        return _compare((given.value,), given.decimals, (expected,), self.decimals)

    def matches(self, given: Reading, value: float) -> bool:
        """Whether ``given`` states ``value`` to the decimals it gives (for a known slip's wrong answer)."""
        return _agree(given.value, value, min(given.decimals[0], self.decimals))

    def exactly(self, given: Reading, value: float) -> bool:
        """Whether ``given`` is ``value`` at the precision asked: a slip's value, not a rounded right answer."""
        return _agree(given.value, value, self.decimals)

    def off(self, given: Reading, expected: float) -> int | None:
        """Where a near miss first differs (0 the whole-number part, k the k-th decimal), or None if not near."""
        return _off((given.value,), (expected,), self.decimals)

    def show(self, value: float) -> str:
        """A reference value at the precision asked, without trailing zeros: 12.5, 0.282843."""
        return _decimal_text(value, self.decimals)

    def data(self) -> dict[str, object]:
        return {"type": "number", "decimals": self.decimals, "units": list(self.units)}

    def plain(self, value: float) -> float:
        """A reference value as the page compares with it."""
        return float(value)

    def toml(self, value: float) -> str:
        return repr(round(float(value), self.decimals))


def _number(text: str, decimals: int, units: tuple[str, ...] = ()) -> Reading | str:
    """One number as written, or what was found instead: a decimal, a fraction, a number in the unit asked."""
    if reading.is_number(text):
        return Reading(float(text), text, (reading.decimals(text),))
    percent = re.fullmatch(reading.PERCENT, text)
    fraction = re.fullmatch(reading.FRACTION, text)
    if fraction:
        above, below = fraction.groups()
        if float(below) == 0:
            return FOUND["zero below"]
        return Reading(float(above) / float(below), f"{above}/{below}", (decimals,))  # exact: judged in full
    worded = re.fullmatch(reading.WITH_WORDS, text)
    if worded and units and reading.plain_words(worded.group(2)) in units:
        token = worded.group(1)
        return Reading(float(token), f"{token} {units[0]}", (reading.decimals(token),))
    if percent:  # a hundredth: 4% states two decimals more than 4
        token = percent.group(1)
        return Reading(float(token) / 100, f"{token}%", (reading.decimals(token) + 2,))
    if worded:
        return FOUND["words"]
    if re.fullmatch(reading.DECIMAL_COMMA, text):
        return FOUND["comma"]
    return FOUND["text"].format(what="a number")


@dataclass(frozen=True)
class Vector:
    """A fixed number of real numbers, one per feature, each stated to ``decimals`` places."""

    length: int
    decimals: int = DECIMALS

    def describe(self) -> str:
        example = ", ".join(["0.5", "-1.25", "2.0", "0.75"][: self.length])
        return f"a list of {self.length} numbers, like [{example}]"

    def instruction(self) -> str:
        return _give(self.decimals)

    def read(self, raw: object) -> Reading:
        expected = self.describe()
        typed = _unclosed(_typed(raw, expected), expected)
        if typed.entries is None:
            found = FOUND["number"] if reading.is_number(typed.text) else _found(typed, "a list of numbers")
            raise unreadable(expected, found)
        if len(typed.entries) != self.length:
            commas = reading.decimal_commas(typed.text, self.length)
            raise unreadable(expected, FOUND["list comma"] if commas else _found(typed, ""))
        for index, entry in enumerate(typed.entries):
            if not (isinstance(entry, str) and reading.is_number(entry)):
                raise unreadable(expected, FOUND["entry"].format(index=index + 1, what="a number"))
        entries: tuple[str, ...] = typed.entries  # type: ignore[assignment]
        return Reading(
            tuple(float(entry) for entry in entries),
            "[" + ", ".join(entries) + "]",
            tuple(reading.decimals(entry) for entry in entries),
        )

    def accepts(self, value: object) -> bool:
        return isinstance(value, tuple) and len(value) == self.length and all(_real(v) for v in value)

    def compare(self, given: Reading, expected: Sequence[float]) -> Outcome:
        return _compare(given.value, given.decimals, tuple(expected), self.decimals)

    def matches(self, given: Reading, value: Sequence[float]) -> bool:
        return all(
            _agree(g, v, min(d, self.decimals)) for g, v, d in zip(given.value, value, given.decimals, strict=True)
        )

    def exactly(self, given: Reading, value: Sequence[float]) -> bool:
        return all(_agree(g, v, self.decimals) for g, v in zip(given.value, value, strict=True))

    def off(self, given: Reading, expected: Sequence[float]) -> int | None:
        return _off(given.value, tuple(expected), self.decimals)

    def show(self, value: Sequence[float]) -> str:
        """Every entry to as many decimals as the longest needs, so the entries line up: [0.848528, 1.131370]."""
        texts = [_decimal_text(v, self.decimals) for v in value]
        places = max((len(text.partition(".")[2]) for text in texts), default=0)
        return "[" + ", ".join(f"{float(text):.{places}f}" for text in texts) + "]"

    def data(self) -> dict[str, object]:
        return {"type": "vector", "length": self.length, "decimals": self.decimals}

    def plain(self, value: Sequence[float]) -> list[float]:
        return [float(v) for v in value]

    def toml(self, value: Sequence[float]) -> str:
        return "[" + ", ".join(Number(self.decimals).toml(v) for v in value) + "]"


@dataclass(frozen=True)
class Shape:
    """An array shape: whole numbers, one per axis. A single whole number is a one-axis shape.

    Sizes are kept as their digits, so a size of any length is compared, never converted.
    """

    def describe(self) -> str:
        return "a list of whole numbers, one per axis, like [4, 7]"

    def instruction(self) -> str:
        return ""

    def read(self, raw: object) -> Reading:
        expected = self.describe()
        typed = _unclosed(_typed(raw, expected), expected, by=True)
        entries = typed.entries if typed.entries is not None else (typed.text,)
        sizes = []
        for index, entry in enumerate(entries):
            size = _axis_digits(entry)
            if size is None:
                what = "a whole number of 0 or more"
                found = FOUND["entry"].format(index=index + 1, what=what) if typed.entries is not None else None
                raise unreadable(expected, found or FOUND["text"].format(what=what))
            sizes.append(size)
        return Reading(tuple(sizes), "(" + ", ".join(sizes) + ("," if len(sizes) == 1 else "") + ")")

    def accepts(self, value: object) -> bool:
        return isinstance(value, tuple) and all(_whole(v) and v >= 0 for v in value)

    def compare(self, given: Reading, expected: Sequence[int]) -> Outcome:
        return Outcome.CORRECT if given.value == tuple(str(int(n)) for n in expected) else Outcome.WRONG

    def matches(self, given: Reading, value: Sequence[int]) -> bool:
        return self.compare(given, value) == Outcome.CORRECT

    exactly = matches

    def off(self, given: Reading, expected: Sequence[int]) -> None:
        return None

    def show(self, value: Sequence[int]) -> str:
        return str(tuple(int(v) for v in value))

    def data(self) -> dict[str, object]:
        return {"type": "shape"}

    def plain(self, value: Sequence[int]) -> list[str]:
        return [str(int(v)) for v in value]

    def toml(self, value: Sequence[int]) -> str:
        return "[" + ", ".join(str(int(v)) for v in value) + "]"


def _whole(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _real(value: object) -> bool:
    return _whole(value) or isinstance(value, (float, np.floating))


def _typed(raw: object, expected: str) -> reading.Typed:
    """``raw`` as typed text, or the error that says what was expected."""
    try:
        return as_typed(raw)
    except AnswerKindError as odd:
        raise unreadable(expected, str(odd)) from None


def _unclosed(typed: reading.Typed, expected: str, by: bool = False) -> reading.Typed:
    """A list's answer without its brackets read as a list; one begun and never closed is refused with what to add."""
    close = reading.opened(typed)
    if close is not None:
        raise unreadable(expected, FOUND["open"].format(close=close))
    return reading.unbracketed(typed, by=by)


def _axis_digits(entry: object) -> str | None:
    """An axis size as its digits without a sign or leading zeros, or None if it is not a whole number >= 0."""
    if not (isinstance(entry, str) and reading.is_whole(entry)):
        return None
    digits = entry.lstrip("+-").lstrip("0") or "0"
    return None if entry.startswith("-") and digits != "0" else digits


class Right:
    """The mark of the option its author holds to be right (the solver must agree: a test holds them together)."""

    def __repr__(self) -> str:
        return "RIGHT"


RIGHT = Right()


@dataclass(frozen=True)
class Choice:
    """One of a few options, answered by its letter (A, B, ...) or by its words.

    Each wrong option carries why it is wrong, said to a reader who picks it; the
    option its author holds right is marked ``RIGHT``. A solver answers with the
    option's words, never its position.
    """

    options: tuple[str, ...]
    why_wrong: tuple[str, ...] = ()
    marked: str | None = None

    @classmethod
    def of(cls, options: dict[str, str | Right]) -> Choice:
        """``{option: why it is wrong, or RIGHT}``, in the order the reader sees them."""
        marked = [option for option, why in options.items() if why is RIGHT]
        if len(marked) != 1:
            raise ValueError(f"a choice marks exactly one option RIGHT; {len(marked)} are marked")
        notes = tuple("" if why is RIGHT else why for why in options.values())
        return cls(tuple(options), notes, marked[0])  # type: ignore[arg-type]

    def slips(self, right: str) -> tuple[tuple[str, str], ...]:
        """Each wrong option that has a word of its own, with that word."""
        return tuple((option, why) for option, why in zip(self.options, self.why_wrong) if why and option != right)

    def index(self, option: str) -> int:
        """The position of an option given by its words: the letter the reader sees is the page's business."""
        if option not in self.options:
            raise ValueError(f"{option!r} is not one of the options {self.options}")
        return self.options.index(option)

    @property
    def letters(self) -> str:
        return string.ascii_uppercase[: len(self.options)]

    def describe(self) -> str:
        return f"a letter from {self.letters[0]} to {self.letters[-1]}, or the words of an option"

    def instruction(self) -> str:
        return ""

    def read(self, raw: object) -> Reading:
        expected = self.describe()
        if not isinstance(raw, str):  # a number names the option whose words it is (255), as the same text would
            token = Odd(_named(raw)) if isinstance(raw, (list, tuple, np.ndarray)) else _token(raw)
            if isinstance(token, Odd):
                raise unreadable(expected, token.found)
            if token in self.words():
                return Reading(self.words().index(token), self.letters[self.words().index(token)])
            hint = "a whole number; write the option's letter" if reading.is_whole(token) else "a number"
            raise unreadable(expected, hint)
        try:
            text = as_typed(raw).text  # the whole text: "(B)" is a letter in brackets, not a list
        except AnswerKindError as odd:
            raise unreadable(expected, str(odd)) from None
        index = self._index(text)
        if index is None:
            raise unreadable(expected, FOUND["no option"])
        return Reading(index, self.letters[index])

    def _index(self, text: str) -> int | None:
        lower = reading.ascii_lower(text)
        letter = re.fullmatch(reading.LETTER, lower)
        if letter and letter.group(1).upper() in self.letters:
            return self.letters.index(letter.group(1).upper())
        labelled = re.fullmatch(reading.LABELLED, lower)
        if labelled and labelled.group(1).upper() in self.letters:
            index = self.letters.index(labelled.group(1).upper())
            if reading.plain_words(labelled.group(2)) == self.words()[index]:
                return index
        wanted = reading.plain_words(text)
        return self.words().index(wanted) if wanted in self.words() else None

    def words(self) -> list[str]:
        """Each option's words as answers are compared with them."""
        return [reading.plain_words(reading.plain(option)) for option in self.options]

    def accepts(self, value: object) -> bool:
        return isinstance(value, str) and value in self.options

    def compare(self, given: Reading, expected: str) -> Outcome:
        return Outcome.CORRECT if self.options[given.value] == expected else Outcome.WRONG

    def matches(self, given: Reading, value: str) -> bool:
        return self.options[given.value] == value

    exactly = matches

    def off(self, given: Reading, expected: str) -> None:
        return None

    def show(self, option: str) -> str:
        return f"{self.letters[self.index(option)]}) {option}"

    def listed(self) -> tuple[str, ...]:
        """Every option as the reader sees it: ``A) the words``, one per line."""
        return tuple(self.show(option) for option in self.options)

    def data(self) -> dict[str, object]:
        return {"type": "choice", "letters": self.letters, "words": self.words()}

    def plain(self, option: str) -> int:
        """The option's position, as the page compares with the letter it reads."""
        return self.index(option)

    def toml(self, option: str) -> str:
        return f'"{self.letters[self.index(option)]}"'


@dataclass(frozen=True)
class Axis:
    """The axis a picture answer is placed on: its range, its scale and what it measures.

    ``scale`` is "log", "linear" or "angle" (degrees around a circle, 0 along the first axis).
    """

    low: float
    high: float
    scale: str
    label: str

    def data(self) -> dict[str, object]:
        return {"low": self.low, "high": self.high, "scale": self.scale, "label": self.label}


@dataclass(frozen=True)
class Place:
    """A number answered by placing a marker on a figure, right within ``tolerance`` of the reference.

    The tolerance is a share of the reference (``relative``) or, on an angle, degrees.
    The marker writes its value into the box as text, so a placed answer is read, kept,
    downloaded and graded as a typed number is; a number typed instead is judged alike.
    """

    axis: Axis
    tolerance: float
    relative: bool = True

    def describe(self) -> str:
        return "a number, or place the marker on the figure"

    def typed(self) -> str:
        """What to type where there is no figure (an answers file): the number, as the axis measures it."""
        return f"a number ({re.sub(r' *[(]log scale[)]', '', self.axis.label)})"

    def instruction(self) -> str:
        within = f"{self.tolerance:.0%} of the answer" if self.relative else f"{self.tolerance:g} degrees"
        return f"Within {within} counts."

    @property
    def units(self) -> tuple[str, ...]:
        """What a placed number may be written in: degrees on an angle, nothing else."""
        return reading.DEGREES if self.axis.scale == "angle" else ()

    def read(self, raw: object) -> Reading:
        typed = _typed(raw, self.describe())
        if typed.entries is None:
            number = _number(typed.text, DECIMALS, self.units)
            if isinstance(number, Reading):
                return number
            raise unreadable(self.describe(), number)
        raise unreadable(self.describe(), _found(typed, "a number"))

    def distance(self, given: float, expected: float) -> float:
        """How far ``given`` is from ``expected``: a share of it, or degrees the short way round."""
        if self.axis.scale == "angle":
            return abs((given - expected + 180.0) % 360.0 - 180.0)
        if not self.relative:
            return abs(given - expected)
        if expected == 0:  # a slip at zero: no share of it is room, so only zero itself is there
            return 0.0 if given == 0 else math.inf
        return abs(given - expected) / abs(expected)

    def accepts(self, value: object) -> bool:
        return _real(value)

    def compare(self, given: Reading, expected: float) -> Outcome:
        within = math.isfinite(given.value) and self.distance(given.value, expected) <= self.tolerance
        return Outcome.CORRECT if within else Outcome.WRONG

    def matches(self, given: Reading, value: float) -> bool:
        return math.isfinite(given.value) and self.distance(given.value, value) <= self.tolerance

    exactly = matches

    def off(self, given: Reading, expected: float) -> None:
        return None

    def show(self, value: float) -> str:
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"

    def data(self) -> dict[str, object]:
        return {
            "type": "place",
            "axis": self.axis.data(),
            "tolerance": self.tolerance,
            "relative": self.relative,
            "units": list(self.units),
        }

    def plain(self, value: float) -> float:
        return float(value)

    def toml(self, value: float) -> str:
        return repr(float(f"{value:.4g}"))


Kind = Number | Vector | Shape | Choice | Place


# --- numbers at the precision asked ---------------------------------------------------------


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
PLACES = ("whole-number part", *(f"{word} decimal" for word in ORDINALS))  # where a near miss is off
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _give(decimals: int) -> str:
    places = NUMBER_WORDS[decimals] if decimals < len(NUMBER_WORDS) else str(decimals)
    return f"Give {places} decimals."


def _off(given: Sequence[float], expected: Sequence[float], decimals: int) -> int | None:
    """For a wrong answer within ``NEAR`` of the reference in every number, the first place where it is off.

    0 is the whole-number part, k the k-th decimal: the first precision at which the
    answer no longer rounds to the reference.
    """
    for g, e in zip(given, expected, strict=True):
        if e == 0 or not (math.isfinite(g) and math.isfinite(e)) or abs(g - e) > NEAR * abs(e):
            return None
    for place in range(decimals + 1):
        if not all(_nearly(g, e, place) for g, e in zip(given, expected, strict=True)):
            return place
    return None


def _decimal_text(value: float, decimals: int) -> str:
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _unit(decimals: int) -> float:
    """One unit in the last of ``decimals`` places, as the page computes it too: 1e-6 for six."""
    return 1.0 / float(f"1e{decimals}")


def _rounded(value: float, decimals: int) -> float:
    """``value`` rounded to ``decimals`` places (half up), by the same float steps the page takes.

    A number too large to have a digit at that place, inf and nan stay as they are.
    """
    scale = float(f"1e{decimals}")
    if not (math.isfinite(value) and abs(value) * scale < 2.0**52):
        return value
    return math.floor(value * scale + 0.5) / scale


def figures(value: float, decimals: int) -> int:
    """How many significant figures a number stated to ``decimals`` places gives: 0.283 three, 1.00 three, 1 one.

    The first figure's place is read from the shortest text that writes ``value`` (as the page
    reads it from its own), so 0.0283 starts at the second decimal and 12.5 at the tens.
    """
    if not math.isfinite(value) or value == 0:
        return 0
    return decimals + Decimal(repr(abs(value))).adjusted() + 1


def _agree(given: float, expected: float, decimals: int) -> bool:
    """Whether ``given`` is ``expected`` to ``decimals`` places: rounded there, within half a unit of it.

    More decimals than that are rounded away first (1.27279221 is 1.272792 at six). Half a
    unit exactly counts, with room for the binary rounding of both numbers, so that a
    reference ending in 5 may be rounded either way.
    """
    if not (math.isfinite(given) and math.isfinite(expected)):  # inf is inf of the same sign, nan is nan
        return given == expected or (math.isnan(given) and math.isnan(expected))
    slack = SLACK * max(1.0, abs(expected))
    return abs(_rounded(given, decimals) - expected) <= 0.5 * _unit(decimals) + slack


def _nearly(given: float, expected: float, decimals: int) -> bool:
    """Whether ``given`` is ``expected`` rounded to ``decimals`` places: strictly within half a unit."""
    return math.isfinite(given) and abs(given - expected) < 0.5 * _unit(decimals)


def _so_far(given: float, stated: int, expected: float, decimals: int) -> bool:
    """Whether one number is right so far: fewer decimals than asked, but ``FIGURES`` figures, all the reference's."""
    return stated < decimals and figures(given, stated) >= FIGURES and _nearly(given, expected, stated)


def _compare(given: Sequence[float], stated: Sequence[int], expected: Sequence[float], decimals: int) -> Outcome:
    """Right to ``decimals`` places; right so far (each number right, or right so far); or wrong."""
    right = [_agree(g, e, decimals) for g, e in zip(given, expected, strict=True)]
    if all(right):
        return Outcome.CORRECT
    numbers = zip(right, given, stated, expected, strict=True)
    if all(ok or _so_far(g, d, e, decimals) for ok, g, d, e in numbers):
        return Outcome.CLOSE
    return Outcome.WRONG
