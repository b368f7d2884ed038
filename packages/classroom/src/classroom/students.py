"""Who each answers file is from: a name and an id, from the LMS's file names or from the file itself.

A learning platform's bulk download names each file (or each student's folder)
after its student. ``--pattern`` says how: a preset (``canvas``, ``moodle``,
``blackboard``) or a template of the file's path inside the class folder, with
``{name}``, ``{id}`` and ``{*}`` (anything) in it, such as ``{id}-{name}.toml``.
An id comes from the pattern (the LMS's own), else from the file's own ``id = "..."``
line. A name comes from the roster or the LMS's export (the record), else from the file's
own ``name = "..."`` line (the book's download writes it), else from the pattern (Canvas
writes a slug, ``beckertom``), else from the file's name. A preset also finds the attempt: which
of a student's files came last.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TypeVar

from predict_check import GradingError

Row = TypeVar("Row")

PRESETS = {
    # doejane_12345_678901_answers.toml, doejane_LATE_12345_678901_answers-1.toml: the user's id, the file's id
    "canvas": r"(?P<name>[^_/]+)_(?:(?P<late>LATE)_)?(?P<id>[0-9]+)_(?P<attempt>[0-9]+)_[^/]*",
    # Jane Doe_12345_assignsubmission_file_/answers.toml (a folder per student)
    "moodle": r"(?P<name>[^/]+?)_(?P<id>[0-9]+)_assignsubmission_[A-Za-z]+_?/[^/]*",
    # Predictions_jdoe_attempt_2025-03-14-10-00-00_answers.toml
    "blackboard": r"[^/]*?_(?P<id>[^_/]+)_attempt_(?P<attempt>[0-9-]+)_[^/]*",
}
PLACES = ("{name}", "{id}", "{*}")
PROGRESS = 100_000  # rows: a roster or an export this long says how far it has been read, every so many rows


class PatternError(GradingError):
    """A ``--pattern`` that is neither a preset nor a template with ``{name}`` or ``{id}``."""

    boundary = "pattern"


@dataclass(frozen=True)
class Pattern:
    """A compiled pattern: matched against a file's path in the class folder, then against its name alone.

    A preset is a regular expression; a template is its text split at its places
    (literal, place, literal, ..., literal), matched by ``fill`` in one pass.
    """

    regex: re.Pattern[str] | None = None
    template: tuple[str, ...] = ()

    @classmethod
    def of(cls, text: str) -> Pattern:
        if text in PRESETS:
            return cls(re.compile(PRESETS[text]))
        parts = tuple(re.split("(" + "|".join(map(re.escape, PLACES)) + ")", text))
        if "{name}" not in parts and "{id}" not in parts:
            presets = ", ".join(PRESETS)
            raise PatternError(f"the pattern names neither {{name}} nor {{id}}; expected one of {presets}, "
                               "or a template like {id}-{name}.toml")  # fmt: skip
        if parts.count("{name}") > 1 or parts.count("{id}") > 1:
            raise PatternError("the pattern names {name} or {id} twice; expected each once at most")
        return cls(template=parts)

    def match(self, label: str) -> dict[str, str]:
        """The name, id and late mark the label gives (those it gives), or nothing."""
        for candidate in (label, PurePosixPath(label).name):
            found = self._found(candidate)
            if found is not None:
                return {key: value for key, value in found.items() if value}
        return {}

    def _found(self, text: str) -> dict[str, str | None] | None:
        if self.regex is None:
            return fill(self.template, text)
        found = self.regex.fullmatch(text)
        return found.groupdict() if found else None


def fill(template: tuple[str, ...], text: str) -> dict[str, str] | None:
    """What the places of a template (literal, place, ..., literal) hold in ``text``; None where it does not fit.

    Each place holds no "/" and as few characters as let the rest fit ({name} and {id}
    at least one), as a lazy pattern would. So each literal between two places is found
    where it first fits, and the last ends the text: a literal found further on would
    only leave the next place more to hold. One search per literal, and no backtracking,
    however many places follow each other and however long the name.
    """
    literals, places = template[0::2], template[1::2]
    if not text.startswith(literals[0]):
        return None
    at, found = len(literals[0]), {}
    for index, (place, literal) in enumerate(zip(places, literals[1:], strict=True)):
        least = 0 if place == "{*}" else 1
        if index < len(places) - 1:
            end = text.find(literal, at + least)
        else:  # the last place holds everything up to the literal that ends the text
            end = len(text) - len(literal) if text.endswith(literal) else -1
        if end < at + least or "/" in text[at:end]:
            return None
        if place != "{*}":
            found[place[1:-1]] = text[at:end]
        at = end + len(literal)
    return found


@dataclass(frozen=True)
class Student:
    """Who a file is from, as every output names them.

    ``late`` where the LMS's name marks the file late; ``attempt`` orders one student's
    files where the LMS numbers them; ``named`` says the name is known, not made from
    the file's name (so that two files of one name can be one student's).
    """

    name: str
    id: str | None = None
    late: bool = False
    attempt: int | None = None
    named: bool = False

    @property
    def key(self) -> tuple[str, str] | None:
        """What makes two files one student's: the id, else a known name; None when neither is known."""
        return ("id", self.id) if self.id else ("name", self.name) if self.named else None


def identify(
    label: str,
    own_name: str | None,
    own_id: str | None,
    pattern: Pattern | None,
    names: Mapping[str, str] | None = None,
) -> Student:
    """The student behind a file: the LMS's id before the file's own, the record's name before the file's own."""
    found = pattern.match(label) if pattern is not None else {}
    student_id = found.get("id") or own_id
    stem = PurePosixPath(label).name
    stem = stem[: -len(".toml")] if stem.casefold().endswith(".toml") else stem
    known = (names or {}).get(student_id or "") or own_name or found.get("name")
    name = (known or stem).replace("_", " ").strip() or label
    attempt = found.get("attempt", "").replace("-", "")
    return Student(name, student_id, "late" in found, int(attempt) if attempt.isdigit() else None, bool(known))


def counted(rows: Iterable[Row], what: str) -> Iterator[Row]:
    """``rows`` as they are read, said on stderr every ``PROGRESS`` rows: a long roster or export shows it moves."""
    for n, row in enumerate(rows, start=1):
        if n % PROGRESS == 0:
            print(f"reading {what}: {n:,} rows so far", file=sys.stderr, flush=True)
        yield row


def repeated(values: Sequence[str]) -> tuple[str, list[int]] | None:
    """The first value given again, with every place (from 0) it is at; None where each is given once.

    One look-up per value, then one pass for the places: linear, so that a roster or an export of a
    million students is checked as fast as it is read.
    """
    seen: set[str] = set()
    for value in values:
        if value in seen:
            return value, [n for n, other in enumerate(values) if other == value]
        seen.add(value)
    return None
