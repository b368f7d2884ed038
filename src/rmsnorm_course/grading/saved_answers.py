"""The answers file the prediction boxes save: the page's download, and the widget's save in a kernel.

Both write the same bytes for the same predictions (``typed_answers_file``; the page's
``answersFile`` in views/static/prediction-store.js builds its file from the same comments and
table names, sent to it as data). In a kernel, "Save my answers" writes the file next
to the notebook and keeps what an earlier save from another page put there
(``save_typed``); a file written by hand is never overwritten.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..questions.registry import EXERCISES
from .answers import FIRST_TRIES, ID, NAME, SHOWN_FIRST, VARIANTS, AnswerSheet
from .errors import AnswersFileError
from .untrusted import quoted

FILE_NAME = "answers.toml"  # the download's name when no student name is given, and the widget's file
# The comments of the file the boxes save; {file} is the file's own name.
COMMENTS = {
    "header": "# My predictions, typed in the RMSNorm chapter's prediction boxes.",
    "grade": "# Grade them with:  pytest exercises --answers={file}",
    "first": "# Each exercise's first prediction, as kept where you typed it: your own record, not part of the score.",
    "shown": "# The exercises whose answer you asked to see before your first prediction.",
    "variants": '# Answers to "Try another": practice, never part of the score.',
}


@dataclass(frozen=True)
class Typed:
    """What the boxes keep of one learner: first and last predictions as typed, answers shown, practice.

    ``shown``: exercises whose answer was shown before any prediction. ``variants`` maps
    an exercise id to its "Try another" answers, by variant number (from 1).
    """

    first: Mapping[str, str] = field(default_factory=dict)
    last: Mapping[str, str] = field(default_factory=dict)
    shown: frozenset[str] = frozenset()
    variants: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    name: str = ""
    id: str = ""

    def answered(self) -> list[str]:
        """The exercises with a final prediction, in the grader's order."""
        return [exercise_id for exercise_id in EXERCISES if self.last.get(exercise_id)]

    def kept_over(self, earlier: Typed) -> Typed:
        """These predictions saved over ``earlier`` ones: a first try stays the first, the latest answer wins."""
        return Typed(
            first={**self.first, **earlier.first},
            last={**earlier.last, **{key: text for key, text in self.last.items() if text}},
            shown=(self.shown - set(earlier.first)) | earlier.shown,
            variants={**earlier.variants, **self.variants},
            name=self.name or earlier.name,
            id=self.id or earlier.id,
        )


def well_formed(text: str) -> str:
    """Typed text with any lone surrogate (which no file can hold) made U+FFFD, as the page's input makes it."""
    return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)


def toml_string(text: str) -> str:
    """Text as a TOML basic string: escaped as JSON escapes it (a JSON string is a TOML string), DEL too."""
    return json.dumps(well_formed(text), ensure_ascii=False).replace("\x7f", "\\u007f")


def typed_answers_file(typed: Typed, file_name: str = FILE_NAME) -> str:
    """The file the boxes save: who (if given), every last prediction in the grader's order, first tries, practice."""
    lines = [COMMENTS["header"], COMMENTS["grade"].format(file=file_name)]
    lines += [f"{key} = {toml_string(value)}" for key, value in ((NAME, typed.name), (ID, typed.id)) if value]
    lines += [f"{exercise_id} = {toml_string(typed.last.get(exercise_id, ''))}" for exercise_id in EXERCISES]
    lines += ["", COMMENTS["first"], f"[{FIRST_TRIES}]"]
    firsts = [exercise_id for exercise_id in EXERCISES if typed.first.get(exercise_id)]
    lines += [f"{exercise_id} = {toml_string(typed.first[exercise_id])}" for exercise_id in firsts]
    lines += ["", COMMENTS["shown"], f"[{SHOWN_FIRST}]"]
    lines += [f"{exercise_id} = true" for exercise_id in EXERCISES if exercise_id in typed.shown]
    practised = [exercise_id for exercise_id in EXERCISES if typed.variants.get(exercise_id)]
    if practised:
        lines += ["", COMMENTS["variants"]]
    for exercise_id in practised:
        lines.append(f"[{VARIANTS}.{exercise_id}]")
        answers = typed.variants[exercise_id]
        lines += [f"{number} = {toml_string(answers[number])}" for number in sorted(answers)]
    return "\n".join(lines) + "\n"


def read_typed(path: str | Path) -> Typed:
    """The predictions a file the boxes saved holds; ``AnswersFileError`` for any other file.

    A file that holds anything the boxes do not write (an answer that is not text, a key
    that names no exercise, a table of its own, a line that is not TOML) was written by
    hand: it is not the boxes' to change.
    """
    sheet = AnswerSheet.read(path)
    if sheet.unreadable is not None:
        raise AnswersFileError(sheet.unreadable)
    if sheet.bad:
        raise AnswersFileError(f"{sheet.name}: line {sheet.bad[0].line} is not a line the prediction boxes write")
    first, last, shown, variants, who = {}, {}, set(), {}, {}
    for key, value in sheet.answers.items():
        if key in EXERCISES and isinstance(value, str):
            last[key] = value
        elif key in (NAME, ID) and isinstance(value, str):
            who[key] = value
        elif key == FIRST_TRIES and _texts(value, EXERCISES.__contains__):
            first.update(value)
        elif key == SHOWN_FIRST and isinstance(value, dict) and all(v is True for v in value.values()):
            shown = {exercise_id for exercise_id in value if exercise_id in EXERCISES}
        elif key == VARIANTS and _practice(value):
            variants = {i: {int(n): text for n, text in tried.items()} for i, tried in value.items()}
        else:
            line = f" (line {sheet.lines[key]})" if key in sheet.lines else ""
            raise AnswersFileError(f"{sheet.name}: {quoted(key)}{line} is not an answer the prediction boxes save")
    return Typed(first, last, frozenset(shown), variants, who.get(NAME, ""), who.get(ID, ""))


def _texts(table: object, key_ok) -> bool:
    return isinstance(table, dict) and all(key_ok(key) and isinstance(text, str) for key, text in table.items())


def _practice(tables: object) -> bool:
    """Whether ``tables`` are "Try another" answers as the page saves them: text, by variant number, per exercise."""
    if not isinstance(tables, dict):
        return False
    for exercise_id, tried in tables.items():
        count = len(EXERCISES[exercise_id].variants) if exercise_id in EXERCISES else 0
        numbers = {str(number) for number in range(1, count + 1)}
        if not _texts(tried, numbers.__contains__):
            return False
    return True


def save_typed(path: str | Path, typed: Typed) -> Typed:
    """Write ``typed`` to ``path``, kept over the predictions a file the boxes saved there holds; what was written.

    A file there that the boxes did not write is left as it is (``AnswersFileError`` says
    why). The file is replaced whole, never left half written.
    """
    path = Path(path)
    kept = typed.kept_over(read_typed(path)) if path.exists() or path.is_symlink() else typed
    text = typed_answers_file(kept, path.name)
    handle, temporary = tempfile.mkstemp(prefix=".answers-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return kept
