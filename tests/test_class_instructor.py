"""The instructor's class as a test: 36 students typed as students type, graded as Canvas and as Moodle lay it out.

Decimal commas and unquoted letters (overridden), a shift (settled), a copy pair, an edited copy of the key
(points set by hand), a late pair, and a student missing from the export. One overrides file, naming each
student by the email both LMSs give, settles every held row in one re-run. Every score is known by
construction, and no page holds a reference answer the student did not get right, but as they typed it.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from classroom.__main__ import main
from hostile import ALL_RIGHT, REFERENCE, SOLUTIONS, M, with_answer
from rmsnorm_course.pages import COURSE
from submissions import excel_rows, slip, wrong
from test_lms_export import CANVAS_HEADER, MOODLE_HEADER, read_csv, write_csv

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")
CLASS = 36
IDS = list(COURSE.exercises)
COMMA, SHIFT, COPY_A, COPY_B, KEY, LATE_A, LATE_B, MISSING = range(1, 9)
SHIFTED = 13  # the first 13 answers moved up a line: each the next exercise's answer
FACTOR = 0.8


def name(n: int) -> tuple[str, str]:
    return f"Stu{n:02d}", f"Dent{chr(65 + n % 26)}"


def email(n: int) -> str:
    return f"s{n:02d}@uni.example"


def typical(n: int) -> tuple[str, set[str]]:
    """A student's own file: a few wrong answers and slips, as their number draws them; and the exercises not right."""
    own = f'name = "{" ".join(name(n))}"\n' if n != MISSING else ""  # the missing student's file names no one
    text, missed = own + ALL_RIGHT, set()
    for index, exercise_id in enumerate(IDS):
        exercise = COURSE.exercises[exercise_id]
        draw = (7 * n + 3 * index) % 11
        given = wrong(exercise) if draw == 0 else slip(exercise) if draw == 1 else None
        if given is not None:
            text, missed = with_answer(exercise_id, given, text), missed | {exercise_id}
    return text, missed


def shifted_up(count: int) -> str:
    answers = [REFERENCE[exercise_id] for exercise_id in IDS]
    return "".join(
        f"{exercise_id} = {answers[n + 1] if n < count else answers[n]}\n" for n, exercise_id in enumerate(IDS)
    )


def made_class() -> dict[int, tuple[str, set[str], float]]:
    """Student number -> the file's text, the exercises not right in it, and the points they earn once settled."""
    made = {}
    for n in range(1, CLASS + 1):
        text, missed = typical(n)
        made[n] = (text, missed, float(M - len(missed)) * (FACTOR if n in (LATE_A, LATE_B) else 1))
    comma = with_answer("eps-near-zero", "B", with_answer("reciprocal-rms", "0,282843", made[COMMA][0]))
    missed = made[COMMA][1] - {"reciprocal-rms", "eps-near-zero"}  # both lines overridden: correct
    made[COMMA] = (comma, missed, float(M - len(missed)))
    made[SHIFT] = (shifted_up(SHIFTED), set(IDS[:SHIFTED]), float(M - SHIFTED))  # settled: graded as handed in
    copy = with_answer("mean-square", "25", ALL_RIGHT)  # the same bytes, sharing a wrong answer
    made[COPY_A], made[COPY_B] = (copy, {"mean-square"}, 0.0), (copy, {"mean-square"}, float(M - 1))
    made[KEY] = (with_answer("grad-x", "[0.4, -0.3]", SOLUTIONS), {"grad-x"}, 0.0)  # the key, edited
    return made


OVERRIDES = f"""
["{email(COMMA)}".reciprocal-rms]
verdict = "correct"
reason = "0,282843 is the reciprocal RMS, with a decimal comma."
["{email(COMMA)}".eps-near-zero]
verdict = "correct"
reason = "B, without quotes: the right choice."
["{email(SHIFT)}"]
settled = "Looked: the answers slid a line; graded as handed in."
["{email(COPY_A)}"]
points = 0
reason = "The same file as another student's: integrity case 7."
["{email(COPY_B)}"]
settled = "Looked: this student wrote the file; graded as handed in."
["{email(KEY)}"]
points = 0
reason = "An edited copy of the answer key: integrity case 8."
"""


def canvas(folder: Path, made: dict) -> Path:
    folder.mkdir()
    rows = [CANVAS_HEADER, ["    Points Possible", "", "", "", "", f"{M:.2f}", "10.00", *["(read only)"] * 6]]
    for n, (text, _, _) in made.items():
        first, last = name(n)
        late = "LATE_" if n in (LATE_A, LATE_B) else ""
        path = folder / f"{last.lower()}{first.lower()}_{late}{80000 + n}_{90000 + n}_answers.toml"
        path.write_text(text, encoding="utf-8")
        if n != MISSING:
            rows.append([f"{last}, {first}", str(80000 + n), f"S{n:04d}", email(n), "RMSNorm 101", "", *[""] * 7])
    return write_csv(Path("canvas.csv"), rows)


def moodle(folder: Path, made: dict) -> Path:
    rows = [MOODLE_HEADER]
    for n, (text, _, _) in made.items():
        first, last = name(n)
        student = folder / f"{first} {last}_{400 + n}_assignsubmission_file_"
        student.mkdir(parents=True)
        (student / "answers.toml").write_text(text, encoding="utf-8")
        if n != MISSING:
            rows.append([f"Participant {400 + n}", f"{first} {last}", email(n), "Submitted for grading", "",
                         f"{M:.2f}", "Yes", "-", "-", ""])  # fmt: skip
    Path("late.csv").write_text(f"id,late\n{400 + LATE_A},yes\n{400 + LATE_B},yes\n", encoding="utf-8")
    return write_csv(Path("moodle.csv"), rows)


def typed_lines_out(page: str) -> str:
    """A plain-text page without the student's own text: their answers, as they typed them, are theirs to see."""
    page = re.sub(r"^   Your answer: .*$", "", page, flags=re.M)
    return re.sub(r", you wrote .*$", "", page, flags=re.M)


def leaks(page: str, missed: set[str]) -> list[str]:
    """The reference answers of exercises not right that a page states: numbers and vectors, as the key writes them."""
    kept = typed_lines_out(page)
    return [e for e in missed if '"' not in REFERENCE[e] and len(REFERENCE[e]) >= 4 and REFERENCE[e] in kept]


@pytest.mark.end_to_end  # two real grader runs over 36 files: 5 to 8 s each on a loaded 2-core machine
@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_the_instructor_s_class_settles_in_one_re_run_with_no_row_held(tmp_path, capsys, lms):
    made = made_class()
    export = canvas(Path("class"), made) if lms == "canvas" else moodle(Path("class"), made)
    roster = "" if lms == "canvas" else 'roster = "late.csv"\n'
    Path("policy.toml").write_text(f"[late]\nfactor = {FACTOR}\n{roster}", encoding="utf-8")
    Path("overrides.toml").write_text(OVERRIDES, encoding="utf-8")  # one file for both: by the students' email
    grade = ["grade", "class", "--pattern", lms, "--policy", "policy.toml", "--lms-gradebook", str(export)]
    grade += ["--formats", "txt", *(["--column", "RMSNorm predictions"] if lms == "canvas" else [])]
    assert main([*grade, "--out", "first"]) == 0
    held = {row["id"] for row in excel_rows(Path("first/grades.csv").read_bytes()) if row["needs review"]}
    base = 80000 if lms == "canvas" else 400
    assert held == {str(base + n) for n in (COMMA, SHIFT, COPY_A, COPY_B, KEY)}
    capsys.readouterr()

    assert main([*grade, "--overrides", "overrides.toml", "--out", "out"]) == 0  # the one re-run
    said = capsys.readouterr()
    assert "held" not in said.out + said.err
    gradebook = {int(row["id"]) - base: row for row in excel_rows(Path("out/grades.csv").read_bytes())}
    assert {n: float(row["points"]) for n, row in gradebook.items()} == pytest.approx(
        {n: points for n, (_, _, points) in made.items()}
    )
    assert not any(row["needs review"] for row in gradebook.values())
    shift = (Path("out/feedback") / gradebook[SHIFT]["feedback page"]).read_text(encoding="utf-8")
    assert "look shifted by a line: check your file from the line of" in " ".join(shift.split())
    assert gradebook[MISSING]["name"] == ("not in the LMS's export" if lms == "canvas" else "Stu08 DentI")
    queue = excel_rows(Path("out/review.csv").read_bytes())  # eps-near-zero's unquoted B is read as "B": no item
    assert {item["what to do"].split(":")[0] for item in queue if item["id"] != str(base + MISSING)} == {
        "settled by the override of reciprocal-rms", "settled", "settled by the row's points set by hand (0)",
    }  # fmt: skip
    filled = read_csv(Path(f"out/{lms}-grades.csv"))
    column = CANVAS_HEADER.index("RMSNorm predictions (4242)") if lms == "canvas" else MOODLE_HEADER.index("Grade")
    graded = [row[column] for row in filled[1 if lms == "moodle" else 2 :]]
    assert len(graded) == CLASS - 1 and all(graded)  # every student in the export has a grade
    pages = zipfile.ZipFile(f"out/{lms}-feedback.zip").namelist()
    assert len(pages) == CLASS  # the missing student's page too: matched by the file's own numbers
    for n, (_, missed, _) in made.items():
        page = (Path("out/feedback") / gradebook[n]["feedback page"]).with_suffix(".txt").read_text(encoding="utf-8")
        assert leaks(page, missed) == [], n
        assert "Your teacher will look" not in page and "provisional" not in page and "right answer to" not in page
        assert "the student" not in page.lower() and "their browser" not in page  # addressed to "you"
        late = "You handed in late: your points are multiplied by 0.8" in " ".join(page.split())
        assert late == (n in (LATE_A, LATE_B))
