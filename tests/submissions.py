"""A generated class: seeded answer files whose every verdict, and so whose score, is known by construction.

Each file answers each exercise one way, drawn with the seed: right, right but typed
inside the quotes, a known slip, another wrong value, an unreadable text, blank, or
left out. A few files are hostile whole (too deep, not UTF-8, a key given twice) and
must score 0 with every exercise "unreadable". The grader is never asked what to expect.
Used by the gradebook's tests and by ``benchmarks/grade_class.py``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hostile import HOSTILE
from predict_check.exercises import Exercise
from predict_check.kinds import Choice, Number, Place, Shape, Vector
from rmsnorm_course.pages import COURSE
from solved import solved

SEED = 15
WHOLE_FILE_REFUSALS = (
    "deep-arrays",
    "random-bytes",
    "deep-inline-tables",
    "long-dotted-key",
    "one-past-the-depth-limit",
    "brackets-hidden-in-a-quote-trick",
)
HOSTILE_EVERY = 50  # one file in this many is hostile whole


def right(exercise: Exercise) -> str:
    """The reference answer, as the solutions file writes it (TOML text)."""
    return exercise.kind.toml(solved(exercise).answer)


def quoted(exercise: Exercise) -> str:
    """The reference answer typed inside the template's quotes: "0.282843", "[0.848528, 1.13137]", "'B'"."""
    written = right(exercise)
    return f'"{written}"' if not isinstance(exercise.kind, Choice) else f"\"'{written.strip(chr(34))}'\""


def wrong(exercise: Exercise) -> str:
    """A readable answer of the right kind that is not the reference."""
    kind, answer = exercise.kind, solved(exercise).answer
    if isinstance(kind, (Number, Place)):
        return kind.toml(2 * answer + 1)
    if isinstance(kind, Vector):
        return kind.toml(tuple(2 * v + 1 for v in answer))
    if isinstance(kind, Shape):
        return kind.toml((*answer, 7))
    assert isinstance(kind, Choice)
    return kind.toml(kind.options[(kind.index(answer) + 1) % len(kind.options)])


def slip(exercise: Exercise) -> str | None:
    """The first known slip's answer (TOML text), or None for an exercise without one."""
    slips = solved(exercise).slips
    return exercise.kind.toml(slips[0][0]) if slips else None


@dataclass(frozen=True)
class Submission:
    name: str
    content: bytes
    verdicts: dict[str, str]  # exercise id -> the verdict word it must get
    slips: dict[str, str]  # exercise id -> the slip answer given, where one was

    @property
    def score(self) -> int:
        return sum(word == "correct" for word in self.verdicts.values())


# how each answer is written, the verdict word it must get, and its weight (scaled by the exercise's ease)
WAYS = ("right", "quoted", "slip", "wrong", "unreadable", "blank", "missing")
WORDS = {
    "right": "correct",
    "quoted": "correct",
    "slip": "wrong",
    "wrong": "wrong",
    "unreadable": "unreadable",
    "blank": "not answered",
    "missing": "not answered",
}


def generate_class(count: int = 300, seed: int = SEED) -> list[Submission]:
    """``count`` answer files; exercise by exercise the class is more or less at ease, so the tally varies."""
    rng = np.random.default_rng(seed)
    ease = rng.uniform(0.25, 0.95, len(COURSE.exercises))
    hostile = {h.name: h for h in HOSTILE}
    made = []
    for number in range(count):
        name = f"student-{number:03d}.toml"
        if number % HOSTILE_EVERY == HOSTILE_EVERY // 3:
            chosen = hostile[WHOLE_FILE_REFUSALS[(number // HOSTILE_EVERY) % len(WHOLE_FILE_REFUSALS)]]
            made.append(Submission(name, chosen.content, dict.fromkeys(COURSE.exercises, "unreadable"), {}))
            continue
        lines, verdicts, slips = [f"# answers of student {number}"], {}, {}
        for (exercise_id, exercise), p in zip(COURSE.exercises.items(), ease):
            weights = np.array([0.8 * p, 0.2 * p, 0.6 * (1 - p), 0.25 * (1 - p), 0.05, 0.05, 0.05])
            way = WAYS[rng.choice(len(WAYS), p=weights / weights.sum())]
            if way == "slip" and slip(exercise) is None:
                way = "wrong"
            written = {
                "right": right,
                "quoted": quoted,
                "slip": slip,
                "wrong": wrong,
                "unreadable": lambda _: '"no idea"',
                "blank": lambda _: '""',
            }.get(way)
            if written is not None:
                lines.append(f"{exercise_id} = {written(exercise)}")
            if way == "slip":
                slips[exercise_id] = slip(exercise)
            verdicts[exercise_id] = WORDS[way]
        made.append(Submission(name, ("\n".join(lines) + "\n").encode(), verdicts, slips))
    return made


def write_class(folder: Path, submissions: list[Submission]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for submission in submissions:
        path = folder / submission.name
        path.write_bytes(submission.content)
        paths.append(path)
    return paths


def excel_rows(data: bytes) -> list[dict[str, str]]:
    """A CSV read as Excel's import reads it: UTF-8 only where a byte-order mark says so, cp1252 otherwise, and a
    record ended by CRLF (a file with LF endings is one long record here, as Excel on Windows treats it badly)."""
    bom = data.startswith(b"\xef\xbb\xbf")
    text = data[3:].decode("utf-8") if bom else data.decode("cp1252", errors="replace")
    records = text.split("\r\n")
    assert records[-1] == "", "the last record is ended by CRLF"
    rows = [next(csv.reader([record])) for record in records[:-1]]
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
