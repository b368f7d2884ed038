"""A gradebook a teacher can use: students by name, numbers an LMS imports, a scoring policy, pages ready to send.

Every expected value is known from how the files are built (which answers are right,
which slip each wrong one makes), never read from the grader.
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import pytest

from classroom.__main__ import main
from classroom.feedback import Options, feedback_html, feedback_text
from classroom.files import answer_files
from classroom.gradebook import grade_files, tally
from classroom.policy import PolicyError, load
from classroom.report import summary
from classroom.students import Pattern, PatternError
from hostile import SOLUTIONS, M, with_answer
from leaks import unstated
from rmsnorm_course import check
from rmsnorm_course.pages import COURSE
from submissions import generate_class, write_class

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")

OUTCOMES = ("correct", "right so far", "wrong", "not answered", "unreadable")
NUMERIC = ("points", "maximum points", "percentage", *(f"exercises {outcome}" for outcome in OUTCOMES))


def rows_of(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))


def test_a_canvas_download_gives_each_row_its_student_s_name_id_and_late_mark(tmp_path):
    folder = tmp_path / "canvas"
    folder.mkdir()
    (folder / "doejane_12345_678901_answers.toml").write_text(SOLUTIONS, encoding="utf-8")
    (folder / "smithbob_LATE_23456_678902_answers-1.toml").write_text("mean-square = 12.5\n", encoding="utf-8")
    assert main(["grade", str(folder), "--pattern", "canvas", "--out", "out"]) == 0
    rows = rows_of(tmp_path / "out" / "grades.csv")
    assert [(row["id"], row["name"], row["late"]) for row in rows] == [
        ("12345", "doejane", ""),
        ("23456", "smithbob", "yes"),
    ]
    assert sorted(path.name for path in (tmp_path / "out" / "feedback").glob("*.html")) == [
        "001-doejane.html",
        "002-smithbob.html",
        "index.html",
    ]


def test_a_moodle_folder_per_student_download_is_read_one_level_down(tmp_path, capsys):
    folder = tmp_path / "moodle"
    for name, text in {
        "Ana P\u00e9rez_301_assignsubmission_file_": SOLUTIONS,
        "Ben Ode_302_assignsubmission_file_": "",
    }.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "answers.toml").write_text(text, encoding="utf-8")
    (folder / "Cy Lee_303_assignsubmission_onlinetext_").mkdir()
    (folder / "Cy Lee_303_assignsubmission_onlinetext_" / "onlinetext.html").write_text("<p>hi</p>", encoding="utf-8")
    assert main(["grade", str(folder), "--pattern", "moodle", "--out", "out"]) == 0
    rows = rows_of(tmp_path / "out" / "grades.csv")
    assert [(row["id"], row["name"], row["points"]) for row in rows] == [
        ("301", "Ana P\u00e9rez", str(M)),
        ("302", "Ben Ode", "0"),
        ("303", "Cy Lee", ""),  # handed in no answers file: a row that says so, with no points
    ]
    error = capsys.readouterr().err
    assert "Cy Lee_303_assignsubmission_onlinetext_ holds no answers file (*.toml)" in error
    page = (tmp_path / "out" / "feedback" / "001-ana-perez.txt").read_text(encoding="utf-8")
    assert (
        "Student: Ana P\u00e9rez (id 301)" in page
        and "Answers file: Ana P\u00e9rez_301_assignsubmission_file_/answers.toml" in page
    )


def test_files_named_by_a_wildcard_get_pages_that_tell_them_apart(tmp_path):
    for name in ("Ana_1", "Ben_2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "answers.toml").write_text(f'name = "{name[:3]}"\nmean-square = 12.5\n', encoding="utf-8")
    sources = answer_files(sorted(str(p.relative_to(tmp_path)) for p in tmp_path.glob("*/answers.toml"))).sources
    assert [source.label for source in sources] == ["Ana_1/answers.toml", "Ben_2/answers.toml"]
    graded = grade_files(COURSE, sources, Pattern.of("{name}_{id}/answers.toml"))
    assert [(file.student.name, file.student.id) for file in graded] == [("Ana", "1"), ("Ben", "2")]
    assert "Answers file: <code>Ana_1/answers.toml</code>" in feedback_html(graded[0])


def test_a_pattern_that_names_no_part_is_refused_in_words():
    with pytest.raises(PatternError, match=re.escape("names neither {name} nor {id}")):
        Pattern.of("answers.toml")
    assert Pattern.of("{id}-{name}.toml").match("42-ana.toml") == {"id": "42", "name": "ana"}
    found = Pattern.of("blackboard").match("Predictions_jdoe_attempt_2025-03-14-10-00-00_a.toml")
    assert found == {"id": "jdoe", "attempt": "2025-03-14-10-00-00"}


def test_the_book_s_download_names_its_student_and_no_line_of_it_is_a_problem(tmp_path):
    path = tmp_path / "answers-ana-7.toml"
    path.write_text('name = "Ana"\nid = "7"\n' + SOLUTIONS, encoding="utf-8")
    (file,) = grade_files(COURSE, [path])
    assert (file.student.name, file.student.id, file.problems()) == ("Ana", "7", [])


def test_the_gradebook_opens_as_numbers_and_the_long_one_holds_each_answer_as_typed(tmp_path):
    submissions = generate_class(30, seed=3)
    write_class(tmp_path / "class", submissions)
    assert main(["grade", str(tmp_path / "class"), "--out", "out"]) == 0
    rows = rows_of(tmp_path / "out" / "grades.csv")
    for row, submission in zip(rows, submissions):
        numbers = {
            column: float(row[column]) for column in (*NUMERIC, *COURSE.exercises)
        }  # every one parses as a number
        assert numbers["points"] == submission.score and numbers["maximum points"] == M
        assert numbers["percentage"] == pytest.approx(round(100 * submission.score / M, 1))
        assert sum(numbers[column] for column in NUMERIC[3:]) == M
        assert re.fullmatch(r"rmsnorm-course \d+\.\d+\.\d+.*", row["answer key"])
    long = rows_of(tmp_path / "out" / "grades-long.csv")
    assert len(long) == 30 * M
    first = [row for row in long if row["name"] == submissions[0].name.removesuffix(".toml")]
    assert {row["exercise"]: row["verdict"] for row in first} == submissions[0].verdicts


def test_an_answer_is_echoed_as_typed_not_as_the_grader_reads_it(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text("gain-gradient-shape = 3\nplateau-value = 1.00\n", encoding="utf-8")
    (file,) = grade_files(COURSE, [path])
    page = feedback_text(file)
    assert ": ✓ Correct, you wrote 3\n" in page and "Your answer: 1.00\n" in page and "(3,)" not in page


def test_a_policy_sets_points_right_so_far_credit_and_a_late_factor(tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text(
        "[points]\ndefault = 1\nmean-square = 4\nreciprocal-rms = 2\n[credit]\nright-so-far = 0.5\n"
        '[late]\nfactor = 0.5\ndeadline = 2025-03-14T12:00:00Z\nroster = "roster.csv"\ncolumn = "late"\n',
        encoding="utf-8",
    )
    (tmp_path / "roster.csv").write_text("id,late\nexcused,no\n", encoding="utf-8")
    folder = tmp_path / "class"
    folder.mkdir()
    answers = "mean-square = 12.5\nreciprocal-rms = 0.2828\nnormalized = [0.848528, 1.13137]\n"  # 4 + 2 * 0.5 + 1
    for name, (changed, own_id) in {
        "early": (1741900000, None),
        "late": (1742000000, None),
        "ex": (1742000000, "excused"),
    }.items():
        path = folder / f"{name}.toml"
        path.write_text(answers + (f'id = "{own_id}"\n' if own_id else ""), encoding="utf-8")
        os.utime(path, (changed, changed))  # before and after the deadline, 1741953600
    assert main(["grade", str(folder), "--policy", str(policy), "--out", "out"]) == 0
    rows = {row["name"]: row for row in rows_of(tmp_path / "out" / "grades.csv")}
    maximum = 4 + 2 + (M - 2)
    assert {name: (row["points"], row["maximum points"], row["late"]) for name, row in rows.items()} == {
        "early": ("6", str(maximum), ""),
        "ex": ("6", str(maximum), ""),  # after the deadline, but the roster says not late
        "late": ("3", str(maximum), "yes"),
    }
    assert (rows["early"]["mean-square"], rows["early"]["reciprocal-rms"], rows["early"]["normalized"]) == (
        "4",
        "1",
        "1",
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[points]\nmean-sqare = 2\n", "[points] has 'mean-sqare'"),
        ("[credit]\nright-so-far = 2\n", "credit.right-so-far must be between 0 and 1"),
        ("[late]\ndeadline = 2025-03-14\n", "late.deadline must be a date and time with its offset"),
        ("[points]\ndefault = 0\n", "every exercise is worth 0 points"),
        ("score = 1\n", "expected [points], [credit], [late]"),
    ],
)
def test_a_policy_that_cannot_be_used_is_refused_with_what_was_expected(tmp_path, text, says):
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PolicyError, match=re.escape(says)):
        load(COURSE, path)


def test_the_summary_groups_answers_by_what_they_say_and_carries_a_slip_to_what_follows(tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    for n, plateau in enumerate(["1", "1.0", "1.000000", "0.5"]):
        (folder / f"s{n}.toml").write_text(f"plateau-value = {plateau}\nmean-square = 25\nreciprocal-rms = 0.2\n")
    graded = grade_files(COURSE, answer_files([folder]).sources)
    text = summary(COURSE, graded, tally(COURSE, graded))
    plateau = text.split("\nplateau-value: ")[1].split("\n")
    eps_free = "That is the eps = 0 ideal, exactly one; with eps in the denominator the mean square falls short."
    assert plateau[1] == f"    1 (3 students): {eps_free}"
    assert plateau[2] == "    0.5 (1 student): no known slip gives this answer"
    reciprocal = text.split("\nreciprocal-rms: ")[1].split("\n")[1]
    assert reciprocal.startswith("    0.2 (4 students): follows from the slip in mean-square: That is the sum")
    assert "[s0, s1, s2]" not in text
    assert "[s0, s1, s2]" in summary(COURSE, graded, tally(COURSE, graded), names=True)
    page = feedback_text(graded[0])
    assert "This follows from your answer to \u201cThe mean square\u201d" in page


def test_inf_and_nan_are_judged_with_the_overflow_s_own_words():
    for typed in ("[inf, inf]", "[nan, nan]", "[inf, NaN]"):
        verdict = check("float16-formula-row", typed)
        assert verdict.outcome.value == "wrong" and verdict.message.startswith("A square too large for float16")
    assert check("huge-row", "[inf, inf]").message.startswith("inf and nan come from the formula as written")
    assert check("mean-square", "inf").outcome.value == "wrong"


def test_a_page_ready_to_send_has_no_markup_escapes_and_the_teacher_s_title_and_note(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text(with_answer("mean-square", "25", SOLUTIONS) + 'name = "<b>Ana</b> *x*"\n', encoding="utf-8")
    (file,) = grade_files(COURSE, [path])
    options = Options(title="RMSNorm, spring term", note="Well done.\n\nSee me about <b>one</b> thing.")
    text, page = feedback_text(file, options), feedback_html(file, options)
    assert "\\" not in text and "RMSNorm, spring term" in text and "  See me about <b>one</b> thing." in text
    assert text.index("Revisit first:") < text.index("1. The mean square (mean-square)")
    assert "Student: &lt;b&gt;Ana&lt;/b&gt; *x*" not in page and "<strong>&lt;b&gt;Ana&lt;/b&gt; *x*</strong>" in page
    assert "See me about &lt;b&gt;one&lt;/b&gt; thing." in page and "<script" not in page
    assert "default-src 'none'" in page


def test_no_page_states_an_answer_the_student_has_not_got_right_by_value_whatever_its_length(tmp_path):
    submissions = generate_class(24, seed=11)
    graded = grade_files(COURSE, write_class(tmp_path / "class", submissions))
    for file, submission in zip(graded, submissions):
        not_right = [i for i, word in submission.verdicts.items() if word != "correct"]
        for page in (feedback_text(file), feedback_html(file)):
            assert unstated(page, file, not_right) == [], submission.name


def test_each_carried_computation_gives_the_next_answer_from_the_right_earlier_one():
    carrying = [exercise for exercise in COURSE if exercise.carried]
    assert len(carrying) >= 4  # the worked example's chain: mean square, then 1/RMS, x-hat, output, grad-gain
    for exercise in carrying:
        exercise_id = exercise.id
        for carried in exercise.carried:
            followed = carried.follow(COURSE.exercises[carried.upstream].solve().answer)
            assert exercise.kind.exactly(exercise.kind.read(followed), exercise.solve().answer), exercise_id
