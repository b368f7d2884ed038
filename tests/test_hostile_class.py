"""A class graded safely: no student's file or file name can crash the run, forge a grade or reach the teacher.

One real run of the grade command over a folder of hostile files and names, made from
inside that folder (where a student left a ``numpy.py``), then the feedback pages it
wrote built as a book with Jupyter Book's default configuration. Every file ends in a
row and a score; nothing outside the outputs changes; no output holds a student's text
except as text.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rmsnorm_course.__main__ import main
from rmsnorm_course.exercises.answers import AnswerSheet, answers_file
from rmsnorm_course.exercises.gradebook import answer_files
from rmsnorm_course.exercises.registry import EXERCISES

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = answers_file(solutions=True)
ONE_RIGHT = "mean-square = 12.5\n"  # where what is tested is not the grading, a file that needs one solver only
M = len(EXERCISES)
TEMPLATE_CODE = '{{ env.srcdir.joinpath("PWNED").touch() }}'
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

NAMES = {  # file name -> what it holds
    "alice.toml": SOLUTIONS,
    "bob\nscore: 27 of 27.toml": SOLUTIONS,
    "carol\r=1+2+3.toml": 'mean-square = "12.5"\n',
    "=HYPERLINK(1).toml": 'mean-square = "25"\n',
    "{{ env.srcdir.joinpath('PWNED_NAME').touch() }}.toml": 'mean-square = "12.5"\n',
    "\x1b[2J\x1b[31mfake.toml": 'mean-square = "12.5"\n',
    "\u202egnp.toml": 'mean-square = "12.5"\n',
    "<img src=x onerror=alert(1)>.toml": 'mean-square = "12.5"\n',
    "```{raw} html\n<img src=x onerror=alert(2)>\n```.toml": 'mean-square = "12.5"\n',
    "$x^2$ [link](example.com) www.example.com.toml": 'mean-square = "12.5"\n',
    "BOB.TOML": 'mean-square = "12.5"\n',
    "carol.toml.txt": 'mean-square = "12.5"\n',
    "dave.toml ": 'mean-square = "12.5"\n',
    "template-answer.toml": f"mean-square = '{TEMPLATE_CODE}'\n",
    "markup-answer.toml": 'mean-square = "<script>alert(1)</script>"\n',
    "huge-bare.toml": "mean-square = " + "9" * 400 + "\n",
    "huge-quoted.toml": 'mean-square = "' + "9" * 400 + '"\n',
    "huge-vector.toml": "normalized = [" + "9" * 400 + ", 1]\n",
    "many-axes.toml": "output-shape = [" + ", ".join(["1"] * 60_000) + "]\n",
    "string-with-keys.toml": 'notes = """\nmean-square = 3\n"""\nmean-square = 12.6\n',
}
ROWS = len(NAMES) + 4  # and a folder named x.toml, links to the solutions and the system's environment, a loop


def fingerprint(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` (links as links), and the hash of every file's bytes."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            seen[str(path)] = "link to " + os.readlink(path)
        elif path.is_file():
            seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            seen[str(path)] = "folder"
    return seen


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile-class")
    folder = base / "submissions"
    folder.mkdir()
    for name, text in NAMES.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "x.toml").mkdir()
    solutions = base / "solutions.toml"
    solutions.write_text(SOLUTIONS, encoding="utf-8")
    (folder / "linked-solutions.toml").symlink_to(solutions)
    (folder / "environ.toml").symlink_to("/proc/self/environ")
    (folder / "loop.toml").symlink_to(folder / "loop.toml")
    (folder / "numpy.py").write_text(f"open({str(base / 'IMPORTED')!r}, 'w').close()\n", encoding="utf-8")
    before = fingerprint(base)
    out = base / "out"
    run = subprocess.run(
        [sys.executable, "-P", "-m", "rmsnorm_course", "grade", ".", "--gradebook", str(out / "grades.csv"),
         "--feedback", str(out / "feedback")],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    after = {path: value for path, value in fingerprint(base).items() if not path.startswith(str(out))}
    return base, folder, out, run, before, after


@pytest.mark.end_to_end
def test_the_run_ends_well_and_changes_nothing_it_reads(graded):
    base, _, _, run, before, after = graded
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert after == before  # the graded files, the links and the folder are as they were
    assert not (base / "IMPORTED").exists()  # the student's numpy.py was never imported
    assert not list(base.rglob("PWNED*"))


@pytest.mark.end_to_end
def test_every_file_has_one_row_with_a_score_and_nothing_forges_a_row_or_a_formula(graded):
    _, _, out, _, _, _ = graded
    text = (out / "grades.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == ROWS and len(text.splitlines()) == ROWS + 1  # one line per row: no name breaks a line
    for row in rows:
        assert row["score"].isdigit() and row["out of"] == str(M)
        for cell in row.values():
            assert not CONTROLS.search(cell) and cell[:1] not in ("=", "+", "-", "@")
    by_name = {row["file"]: row for row in rows}
    assert by_name["alice.toml"]["score"] == str(M)
    assert by_name["bob\\nscore: 27 of 27.toml"]["score"] == str(M)  # the name is shown escaped, never a new line
    assert by_name["'=HYPERLINK(1).toml"]["score"] == "0"
    assert by_name["huge-bare.toml"]["mean-square"] == "wrong"
    assert by_name["huge-vector.toml"]["normalized"] == "wrong"
    assert by_name["string-with-keys.toml"]["problems"].startswith(
        "string-with-keys.toml, line 1: there is no exercise"
    )
    for refused in ("linked-solutions.toml", "environ.toml", "loop.toml"):
        assert "is a symbolic link" in by_name[refused]["problems"] and by_name[refused]["score"] == "0"
    assert "is a folder" in by_name["x.toml"]["problems"]


@pytest.mark.end_to_end
def test_the_terminal_shows_names_as_text_and_never_a_control(graded):
    _, _, _, run, _, _ = graded
    shown = run.stdout + run.stderr
    assert not CONTROLS.search(shown)
    assert not re.search(r"^score:", run.stdout, re.M)  # no name forges a score line


@pytest.mark.end_to_end
def test_each_feedback_page_holds_student_text_only_in_code_spans(graded):
    _, _, out, _, _, _ = graded
    pages = sorted((out / "feedback").glob("*.md"))
    assert len(pages) == ROWS
    for page in pages:
        text = page.read_text(encoding="utf-8")
        outside = re.sub(r"(`+) .*? \1", "", text)  # the code spans taken out
        outside = re.sub(r"\\.", "", outside)  # and the characters the page escapes
        assert "{{" not in outside and "<" not in outside and "$" not in outside, page.name
        assert not CONTROLS.search(text)
    template = (out / "feedback" / "template-answer.md").read_text(encoding="utf-8")
    assert "env.srcdir" not in template  # an answer that cannot be read is never shown back
    keys = (out / "feedback" / "string-with-keys.md").read_text(encoding="utf-8")
    assert "## 1. mean-square (line 4)" in keys  # not line 2, inside the string


@pytest.mark.end_to_end
def test_the_feedback_pages_built_as_a_book_show_every_name_as_text_and_create_no_file(graded, tmp_path):
    base, _, out, _, _, _ = graded
    book = tmp_path / "book"
    (book / "pages").mkdir(parents=True)
    pages = sorted((out / "feedback").glob("*.md"))
    for number, page in enumerate(pages):  # the pages as written; named for the table of contents
        (book / "pages" / f"page-{number:02d}.md").write_bytes(page.read_bytes())
    toc = ["format: jb-book", "root: pages/page-00", "chapters:"]
    toc += [f"- file: pages/page-{number:02d}" for number in range(1, len(pages))]
    (book / "_toc.yml").write_text("\n".join(toc) + "\n", encoding="utf-8")
    (book / "_config.yml").write_text("title: Feedback\n", encoding="utf-8")  # Jupyter Book's defaults otherwise
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    build = subprocess.run([str(jupyter_book), "build", str(book)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert not list(base.rglob("PWNED*")) and not list(book.rglob("PWNED*")) and not list(Path.cwd().glob("PWNED*"))
    html = "".join(path.read_text(encoding="utf-8") for path in (book / "_build" / "html" / "pages").glob("*.html"))
    assert '&lt;img</span> <span class="pre">src=x</span>' in html and "<img src=x" not in html
    assert "env.srcdir.joinpath('PWNED_NAME').touch()" in html  # the name, shown as text
    assert str(book) not in html.replace(str(book / "_build"), "")  # no path of the teacher's was printed


def test_a_report_or_gradebook_may_not_replace_an_answers_file(tmp_path, pytester, capsys, monkeypatch):
    answers = tmp_path / "answers.toml"
    answers.write_text(SOLUTIONS, encoding="utf-8")
    kept = answers.read_bytes()
    monkeypatch.chdir(tmp_path)
    grader = pytester.runpytest_inprocess(
        str(ROOT / "exercises"), "--answers", str(answers), "--junitxml", str(answers)
    )
    assert grader.ret == pytest.ExitCode.USAGE_ERROR and "is the answers file itself" in grader.stderr.str()
    link = tmp_path / "grades.csv"
    os.link(answers, link)  # a hard link: another name for the same file
    capsys.readouterr()
    assert main(["grade", str(answers), "--gradebook", str(link)]) == 1
    assert "would replace a graded answers file" in capsys.readouterr().err
    assert answers.read_bytes() == kept


def test_a_folder_that_cannot_be_listed_is_passed_over_with_a_word(tmp_path, monkeypatch):
    shut = tmp_path / "shut"
    shut.mkdir()

    def refuse(self):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "iterdir", refuse)
    found = answer_files([shut])
    assert found.paths == [] and found.passed_over == [
        f"cannot list {shut}: Permission denied; nothing in it was graded"
    ]


@pytest.mark.end_to_end
def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path):
    answers = tmp_path / "answers.toml"
    answers.write_text(ONE_RIGHT, encoding="utf-8")
    command = f"{sys.executable} -P -m rmsnorm_course grade {answers} {answers} {answers} | head -c 10"
    run = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in run.stderr and "BrokenPipeError" not in run.stderr


@pytest.mark.end_to_end
def test_two_runs_at_once_leave_the_outputs_of_one_of_them(tmp_path):
    classes = {}
    for label in ("a", "b"):
        folder = tmp_path / label
        folder.mkdir()
        for n in range(40):
            (folder / f"{label}-{n:02d}.toml").write_text(ONE_RIGHT if n % 2 else 'mean-square = "25"\n')
        classes[label] = folder
    out = tmp_path / "out"
    for _ in range(2):
        runs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-P",
                    "-m",
                    "rmsnorm_course",
                    "grade",
                    str(folder),
                    "--gradebook",
                    str(out / "grades.csv"),
                    "--feedback",
                    str(out / "feedback"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for folder in classes.values()
        ]
        assert [run.wait(timeout=300) for run in runs] == [0, 0]
        rows = list(csv.DictReader(io.StringIO((out / "grades.csv").read_text())))
        in_csv = {Path(row["file"]).stem for row in rows}
        pages = {page.stem for page in (out / "feedback").glob("*.md")}
        assert in_csv == pages and len({stem[0] for stem in pages}) == 1  # one run's outputs, whole


def test_check_names_a_hostile_value_by_its_type(tmp_path):
    class Sneaky(list):
        def __iter__(self):
            raise RuntimeError("boom")

    from rmsnorm_course import check

    assert check("normalized", Sneaky([1, 2])).outcome.name == "UNREADABLE"
    assert AnswerSheet.read(tmp_path / "absent.toml").unreadable.startswith("cannot open")


@pytest.mark.end_to_end
def test_everyday_and_hostile_names_work_through_make_and_nothing_in_them_runs(tmp_path):
    """The name a browser gives a second download, spaces, and text that make or a shell would run."""
    for name in ("my answers (1) $(shell touch PWNED-make).toml", "`touch PWNED-shell`.toml"):
        answers = tmp_path / name
        answers.write_text(ONE_RIGHT, encoding="utf-8")
        run = subprocess.run(
            ["make", "--no-print-directory", "-C", str(ROOT), "grade", f"ANSWERS={answers}"],
            capture_output=True, text=True, cwd=tmp_path, timeout=600,
        )  # fmt: skip
        assert run.stdout.strip().splitlines()[-1] == f"score: 1/{M}", run.stdout[-2000:]
    assert not list(tmp_path.glob("PWNED*")) and not list(ROOT.glob("PWNED*"))


@pytest.mark.end_to_end
def test_the_grader_run_from_a_students_folder_imports_nothing_from_it(tmp_path):
    (tmp_path / "numpy.py").write_text(f"open({str(tmp_path / 'IMPORTED')!r}, 'w').close()\n", encoding="utf-8")
    (tmp_path / "answers.toml").write_text(ONE_RIGHT, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-P", "-m", "pytest", str(ROOT / "exercises"), "--answers", "answers.toml", "-q",
         "-p", "no:cacheprovider", "-p", "no:hypothesispytest"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert run.stdout.strip().splitlines()[-1] == f"score: 1/{M}" and not (tmp_path / "IMPORTED").exists()
