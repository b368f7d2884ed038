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

from .errors import GradingError

PRESETS = {
    # doejane_12345_678901_answers.toml, doejane_LATE_12345_678901_answers-1.toml
    "canvas": r"(?P<name>[^_/]+)_(?:(?P<late>LATE)_)?(?P<id>[0-9]+)_[0-9]+_[^/]*",
    # Jane Doe_12345_assignsubmission_file_/answers.toml (a folder per student)
    "moodle": r"(?P<name>[^/]+?)_(?P<id>[0-9]+)_assignsubmission_[A-Za-z]+_?/[^/]*",
    # Predictions_jdoe_attempt_2025-03-14-10-00-00_answers.toml
    "blackboard": r"[^/]*?_(?P<id>[^_/]+)_attempt_[0-9-]+_[^/]*",
}
PLACES = {"{name}": r"(?P<name>[^/]+?)", "{id}": r"(?P<id>[^/]+?)", "{*}": r"[^/]*?"}


class PatternError(GradingError):
    """A ``--pattern`` that is neither a preset nor a template with ``{name}`` or ``{id}``."""

    boundary = "pattern"


@dataclass(frozen=True)
class Pattern:
    """A compiled pattern: matched against a file's path in the class folder, then against its name alone."""

    regex: re.Pattern[str]

    @classmethod
    def of(cls, text: str) -> Pattern:
        if text in PRESETS:
            return cls(re.compile(PRESETS[text]))
        parts = re.split(r"(\{name\}|\{id\}|\{\*\})", text)
        if "{name}" not in parts and "{id}" not in parts:
            presets = ", ".join(PRESETS)
            raise PatternError(f"the pattern names neither {{name}} nor {{id}}; expected one of {presets}, "
                               "or a template like {id}-{name}.toml")  # fmt: skip
        if parts.count("{name}") > 1 or parts.count("{id}") > 1:
            raise PatternError("the pattern names {name} or {id} twice; expected each once at most")
        return cls(re.compile("".join(PLACES.get(part, re.escape(part)) for part in parts)))

    def match(self, label: str) -> dict[str, str]:
        """The name, id and late mark the label gives (those it gives), or nothing."""
        for candidate in (label, PurePosixPath(label).name):
            found = self.regex.fullmatch(candidate)
            if found:
                return {key: value for key, value in found.groupdict().items() if value}
        return {}


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
