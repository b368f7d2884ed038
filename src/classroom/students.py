"""Who each answers file is from: a name and an id, from the LMS's file names or from the file itself.

A learning platform's bulk download names each file (or each student's folder)
after its student. ``--pattern`` says how: a preset (``canvas``, ``moodle``,
``blackboard``) or a template of the file's path inside the class folder, with
``{name}``, ``{id}`` and ``{*}`` (anything) in it, such as ``{id}-{name}.toml``.
What a pattern finds comes first; then the file's own ``name = "..."`` and
``id = "..."`` lines (the book's download writes them); then the file's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from predict_check.errors import GradingError

PRESETS = {
    # doejane_12345_678901_answers.toml, doejane_LATE_12345_678901_answers-1.toml
    "canvas": r"(?P<name>[^_/]+)_(?:(?P<late>LATE)_)?(?P<id>[0-9]+)_[0-9]+_[^/]*",
    # Jane Doe_12345_assignsubmission_file_/answers.toml (a folder per student)
    "moodle": r"(?P<name>[^/]+?)_(?P<id>[0-9]+)_assignsubmission_[A-Za-z]+_?/[^/]*",
    # Predictions_jdoe_attempt_2025-03-14-10-00-00_answers.toml
    "blackboard": r"[^/]*?_(?P<id>[^_/]+)_attempt_[0-9-]+_[^/]*",
}
PLACES = ("{name}", "{id}", "{*}")


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
    """Who a file is from, as every output names them; ``late`` where the LMS's name marks the file late."""

    name: str
    id: str | None = None
    late: bool = False


def identify(label: str, own_name: str | None, own_id: str | None, pattern: Pattern | None) -> Student:
    """The student behind a file: the pattern's findings first, then the file's own lines, then its name."""
    found = pattern.match(label) if pattern is not None else {}
    stem = PurePosixPath(label).name
    stem = stem[: -len(".toml")] if stem.casefold().endswith(".toml") else stem
    name = found.get("name") or own_name or stem
    return Student(name.replace("_", " ").strip() or label, found.get("id") or own_id, "late" in found)


def label_of(path: Path, folder: Path | None, given: str) -> str:
    """A file as the class knows it: its path inside the folder given, or the path as given on the command line."""
    if folder is not None:
        return path.relative_to(folder).as_posix()
    return PurePosixPath(given).as_posix() if not Path(given).is_absolute() else path.name
