"""A class of 30 graded as a teacher does it, from the LMS's download to the files to import and upload, twice:
laid out as Canvas's bulk download with Canvas's gradebook export, and as Moodle's with Moodle's grading worksheet.

The class is the one a teacher meets: blank and partial files, the usual slips (some carried on to the exercises
that follow), five files downloaded from the book with their first tries, badly typed files (Word's quotes, a
letter without quotes, a quote never closed, Windows-1252), two marked late, a student who handed in two files
(a draft first), one whose answers slid down a line, one who pasted numpy's printed output, one who handed in a
.docx, and one in the LMS who handed in nothing. Each layout is graded with one command,
``make grade-class DIR=... PATTERN=... LMS=... [COLUMN=...]``; the script prints each run's time, the review
queue, the gradebook (one row per student), the filled Canvas export and Moodle worksheet, and one student's page.

    python benchmarks/class_walkthrough.py [OUT]    # OUT: where to keep everything (default: a temporary folder)
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from predict_check import answers_file  # noqa: E402
from rmsnorm_course.pages import COURSE  # noqa: E402

SOLUTIONS = answers_file(COURSE, solutions=True)
ANSWERS = re.findall(r"^([a-z0-9-]+) = (.*)$", SOLUTIONS, re.M)
TEMPLATE = answers_file(COURSE)  # the blank file the students get
RIGHT = re.sub(r'^([a-z0-9-]+) = ""$', lambda m: f"{m[1]} = {dict(ANSWERS)[m[1]]}", TEMPLATE, flags=re.M)  # typed in
SURNAMES = "garcia lee okafor novak silva kim rossi haddad ito muller dubois jensen ali costa"
FIRSTS = "ana ben chloe dev eva finn gia hugo iris jon kai lena mo nia omar pia quinn rui sara tom"
KINDS = ["blank"] * 3 + ["partial"] * 3 + ["slips"] * 9 + ["book"] * 5 + ["typed"] * 4 + ["right"] * 2
KINDS += ["two files", "shifted", "numpy", "docx"]  # 30 students; a 31st in the LMS hands in nothing
COLUMN = "RMSNorm predictions"
NOTE = "Well done on reaching the end of the chapter.\nRevisit the first item on your list before Thursday.\n"


def with_answer(text: str, exercise_id: str, value: str) -> str:
    return re.sub(rf"^{exercise_id} = .*$", lambda _: f"{exercise_id} = {value}", text, count=1, flags=re.M)


def slips(text: str, n: int) -> str:
    """The usual slips: the sum for the mean (carried on to what follows), one for the plateau, a length for x-hat."""
    if n % 2 == 0:
        text = with_answer(text, "mean-square", "25")
        text = with_answer(text, "reciprocal-rms", "0.2")  # follows from 25
    if n % 3 == 0:
        text = with_answer(text, "plateau-value", "1")
    if n % 4 == 1:
        text = with_answer(text, "normalized", "[0.6, 0.8]")
        text = with_answer(text, "output", "[0.9, 0.4]")  # follows from [0.6, 0.8]
    if n % 5 == 2:
        text = with_answer(text, "float16-formula-row", "[inf, inf]")
    return with_answer(text, "grad-x", f"[0.4, -0.{3 + n % 7}]")  # each student's own guess at the last one


def student(n: int) -> tuple[str, str, str]:
    """The n-th student's Canvas slug, full name, and number (Canvas's user id, Moodle's participant)."""
    surname, first = SURNAMES.split()[n % 14], FIRSTS.split()[n % 20]
    return f"{surname}{first}", f"{first.title()} {surname.title()}", str(1001 + n)


def answers(kind: str, n: int) -> bytes:
    full, number = student(n)[1:]
    letter = re.search(r'^zero-row-zero-eps = "([A-Z])"$', RIGHT, re.M).group(1)
    partial = "\n".join(RIGHT.splitlines()[: RIGHT.index("tiny-normalized") // 60]) + "\n"  # cut short
    if n != 5:  # the rest left blank: answered part way, as the blank file has it
        partial = re.sub(
            r'^([a-z0-9-]+) = ""$', lambda m: f"{m[1]} = {dict(ANSWERS)[m[1]]}", TEMPLATE, count=4, flags=re.M
        )
    shifted = "".join(
        f"{key} = {ANSWERS[i + 1][1] if 3 <= i < 9 else value}\n" for i, (key, value) in enumerate(ANSWERS)
    )
    numpy = with_answer(slips(RIGHT, 1), "normalized", '"[0.84852814 1.13137085]"')  # as numpy prints them
    numpy = with_answer(
        with_answer(numpy, "mean-square", '"np.float64(12.5)"'), "output", '"array([1.27279, 0.56568])"'
    )
    quoted = re.sub(r"^([a-z0-9-]+) = ([^\"].*)$", r'\1 = "\2"', RIGHT, flags=re.M)  # typed inside the quotes
    book = f'name = "{full}"\nid = "{number}"\n' + slips(RIGHT, n)
    book += '\n[first-tries]\nmean-square = "25"\nreciprocal-rms = "0.282843"\nnormalized = "[0.6, 0.8]"\n'
    typed = [
        re.sub(r'= "([A-Z])"', lambda m: f"= \u201c{m.group(1)}\u201d", RIGHT),  # Word's quotes on every choice
        with_answer(RIGHT, "zero-row-zero-eps", letter),  # a letter without quotes
        with_answer(slips(RIGHT, 3), "zero-row-zero-eps", f'"{letter}'),  # a quote never closed
    ]
    made = {
        "blank": TEMPLATE,
        "partial": partial,
        "slips": slips(RIGHT, n),
        "book": book + "\n[shown-before-first-try]\nplateau-value = true\n",
        "right": quoted,
        "two files": quoted,
        "shifted": shifted,
        "numpy": numpy,
        "docx": "PK\x03\x04 a word processor's file",
    }
    if kind == "typed" and n % 4 == 3:
        return ("# r\u00e9ponses de l'\u00e9tudiant\n" + slips(RIGHT, 7)).encode("cp1252")  # Windows-1252
    return (typed[n % 4] if kind == "typed" else made[kind]).encode()


def make_class(folder: Path, layout: str) -> None:
    """The class as the LMS's bulk download lays it out: Canvas's file names, or Moodle's folder per student."""
    for n, kind in enumerate(KINDS):
        slug, full, number = student(n)
        name = "essay.docx" if kind == "docx" else "answers.toml"
        late = "LATE_" if n in (9, 21) else ""
        if layout == "canvas":
            path = folder / f"{slug}_{late}{number}_{50001 + n}_{name}"
        else:
            path = folder / f"{full}_{number}_assignsubmission_file_" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(answers(kind, n))
        if kind == "two files":  # the draft went in first: Canvas numbers it lower, Moodle's copy is older
            draft = path.with_name(
                f"{slug}_{number}_{40001 + n}_answers-draft.toml" if layout == "canvas" else "draft.toml"
            )
            draft.write_bytes("\n".join(RIGHT.splitlines()[:40]).encode())
            stamp = path.stat().st_mtime - 3600
            os.utime(draft, (stamp, stamp))


def canvas_export(path: Path) -> None:
    """Canvas's Grades, Export: the header, the Points Possible row, then every student, as Canvas writes them."""
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{COLUMN} (4242)", "Quiz 1 (4243)"]
    header += ["Current Score", "Final Score"]
    rows = [header, ["    Points Possible", "", "", "", "", f"{len(COURSE)}.00", "10.00", "(read only)", "(read only)"]]
    for n in range(len(KINDS) + 1):
        slug, full, number = student(n)
        first, surname = full.split()
        rows.append([f"{surname}, {first}", number, f"S{number}", slug, "RMSNorm 101", "", "8.00", "80", "80"])
    write_csv(path, rows)


def moodle_worksheet(path: Path) -> None:
    """Moodle's Download grading worksheet, as Moodle writes it: a participant per row."""
    header = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed"]
    header += ["Last modified (submission)", "Last modified (grade)", "Feedback comments"]
    rows = [header]
    for n in range(len(KINDS) + 1):
        slug, full, number = student(n)
        status = "Submitted for grading" if n < len(KINDS) else "No submission"
        rows.append([f"Participant {number}", full, f"{slug}@example.com", status, "", f"{len(COURSE)}.00", "Yes",
                     "Friday, 14 March 2025, 10:00 AM", "-", ""])  # fmt: skip
    write_csv(path, rows)


def write_csv(path: Path, rows: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as file:
        csv.writer(file).writerows(rows)


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))


def table(rows: list[dict[str, str]], columns: list[str], width: int = 34) -> str:
    """Rows as a fixed-width table of the columns given, each cell cut to ``width``."""
    cut = [[(row.get(column) or "")[:width] for column in columns] for row in rows]
    widths = [max([len(column), *(len(line[i]) for line in cut)]) for i, column in enumerate(columns)]
    lines = ["  ".join(column.ljust(w) for column, w in zip(columns, widths))]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)) for line in cut]
    return "\n".join(line.rstrip() for line in lines)


def grade(base: Path, layout: str) -> tuple[subprocess.CompletedProcess, float]:
    export = base / ("canvas-export.csv" if layout == "canvas" else "moodle-worksheet.csv")
    (canvas_export if layout == "canvas" else moodle_worksheet)(export)
    command = ["make", "--no-print-directory", "-C", str(ROOT), "grade-class", f"DIR={base / layout}",
               f"OUT={base / ('grades-' + layout)}", f"PATTERN={layout}", f"LMS={export}",
               "TITLE=RMSNorm chapter, spring term", f"NOTE={base / 'note.txt'}"]  # fmt: skip
    command += [f"COLUMN={COLUMN}"] if layout == "canvas" else []
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    return run, time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, help="keep everything here (default: a temporary folder)")
    base = parser.parse_args(argv).out or Path(tempfile.mkdtemp(prefix="class-walkthrough-"))
    (base / "note.txt").parent.mkdir(parents=True, exist_ok=True)
    (base / "note.txt").write_text(NOTE, encoding="utf-8")
    status = 0
    for layout in ("canvas", "moodle"):
        make_class(base / layout, layout)
        run, took = grade(base, layout)
        status |= run.returncode
        grades = base / f"grades-{layout}"
        print(f"=== {layout}: {sum(1 for p in (base / layout).rglob('*') if p.is_file())} files; "
              f"make grade-class: exit {run.returncode}, {took:.1f} s ===")  # fmt: skip
        print(run.stderr.strip())
        print(run.stdout[run.stdout.find("graded ") :].split("\nmean-square: ")[0])  # the head of the summary
        print(f"\n--- {layout}: the review queue, review.csv ---")
        print(table(read_csv(grades / "review.csv"), ["id", "name", "file", "exercise", "what", "as typed"], 30))
        print(f"\n--- {layout}: grades.csv, one row per student ---")
        columns = ["id", "name", "points", "maximum points", "percentage", "late", "needs review", "other files"]
        print(table(read_csv(grades / "grades.csv"), columns, 40))
        filled = read_csv(grades / f"{layout}-grades.csv")
        print(f"\n--- {layout}: {layout}-grades.csv, the LMS's own file filled in, ready to import ---")
        if layout == "canvas":
            print(table(filled, ["Student", "ID", "SIS User ID", f"{COLUMN} (4242)", "Quiz 1 (4243)"]))
        else:
            print(table(filled, ["Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments"], 70))
        with zipfile.ZipFile(grades / f"{layout}-feedback.zip") as archive:
            names = archive.namelist()
        print(f"\n--- {layout}: {layout}-feedback.zip, {len(names)} pages, such as {names[0]} ---")
    numpy = next(row for row in read_csv(base / "grades-canvas" / "grades.csv") if row["id"] == student(28)[2])
    page = (base / "grades-canvas" / "feedback" / numpy["feedback page"]).with_suffix(".txt")
    print(f"\n--- one student's page (numpy's printed answers): {page.relative_to(base)} ---")
    print(page.read_text(encoding="utf-8"))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
