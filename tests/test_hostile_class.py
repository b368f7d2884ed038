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
import html.parser
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # no file locks here: the lock test is skipped
    fcntl = None

from classroom.__main__ import main
from classroom.files import answer_files
from predict_check import AnswerSheet, answers_file
from predict_check.untrusted import code_span, csv_cell, visible
from rmsnorm_course.pages import COURSE

pytestmark = pytest.mark.end_to_end  # a real class run over hostile files, shared by every test here
ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = answers_file(COURSE, solutions=True)
ONE_RIGHT = "mean-square = 12.5\n"  # where what is tested is not the grading, a file that needs one solver only
M = len(COURSE.exercises)
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
    # names a book's theme once wrote into attributes and scripts as they were
    'a" onmouseover="alert(1)" x=".toml': 'mean-square = "12.5"\n',
    "b';alert(2);'.toml": 'mean-square = "12.5"\n',
    "';alert(3);'.toml": 'mean-square = "12.5"\n',
    "\U0001f600" * 61 + "\\" * 6 + ".toml": 'mean-square = "12.5"\n',  # 255 bytes: at the file system's limit
    ".carl.toml": 'mean-square = "25"\n',  # a hidden file and its visible twin: two students
    "carl.toml": SOLUTIONS,
    "Jos\u00e9.toml": 'mean-square = "12.5"\n',  # the same name composed (NFC) and decomposed (NFD)
    "Jose\u0301.toml": SOLUTIONS,
    "secA/bob.toml": 'mean-square = "12.5"\n',  # the same name in two sections' folders
    "secB/bob.toml": SOLUTIONS,
}
SCORES = {name: M if text == SOLUTIONS else int(text == 'mean-square = "12.5"\n') for name, text in NAMES.items()}
ROWS = len(NAMES) + 3  # and links to the solutions and the system's environment, a loop (x.toml/ is an empty folder)


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
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    assert len(("\U0001f600" * 61 + "\\" * 6 + ".toml").encode()) == 255
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
        [sys.executable, "-P", "-m", "classroom", "grade", ".", "--out", str(out)],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    after = {path: value for path, value in fingerprint(base).items() if not path.startswith(str(out))}
    return base, folder, out, run, before, after


def test_the_run_ends_well_and_changes_nothing_it_reads(graded):
    base, _, _, run, before, after = graded
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert after == before  # the graded files, the links and the folder are as they were
    assert not (base / "IMPORTED").exists()  # the student's numpy.py was never imported
    assert not list(base.rglob("PWNED*"))


def test_every_file_has_one_row_with_a_score_and_nothing_forges_a_row_or_a_formula(graded):
    _, _, out, _, _, _ = graded
    text = (out / "grades.csv").read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == ROWS and len(text.splitlines()) == ROWS + 1  # one line per row: no name breaks a line
    for row in rows:
        assert row["points"].isdigit() and row["maximum points"] == str(M)
        for cell in row.values():
            assert not CONTROLS.search(cell) and cell[:1] not in ("=", "+", "-", "@")
    by_name = {row["file"]: row for row in rows}
    assert by_name["alice.toml"]["points"] == str(M)
    assert by_name["bob\\nscore: 27 of 27.toml"]["points"] == str(M)  # the name is shown escaped, never a new line
    assert by_name["'=HYPERLINK(1).toml"]["points"] == "0"
    assert by_name["huge-bare.toml"]["mean-square"] == "0"
    assert by_name["huge-vector.toml"]["normalized"] == "0"
    for name, score in SCORES.items():  # every look-alike its own row, with its own file's score
        assert by_name[csv_cell(name)]["points"] == str(score), name
    assert by_name["Jose\\u0301.toml"]["name"] == "Jose\\u0301" != by_name["Jos\u00e9.toml"]["name"]
    assert by_name["string-with-keys.toml"]["problems"].startswith(
        "string-with-keys.toml, line 1: there is no exercise"
    )
    for refused in ("linked-solutions.toml", "environ.toml", "loop.toml"):
        assert "is a symbolic link" in by_name[refused]["problems"] and by_name[refused]["points"] == "0"
    assert "x.toml" not in by_name


def test_the_terminal_shows_names_as_text_and_never_a_control(graded):
    _, _, _, run, _, _ = graded
    shown = run.stdout + run.stderr
    assert not CONTROLS.search(shown)
    assert not re.search(r"^score:", run.stdout, re.M)  # no name forges a score line


def pages_by_file(out: Path) -> dict[str, str]:
    """Each graded file (as the gradebook shows it) -> the Markdown page the gradebook says is its own."""
    rows = list(csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8-sig"))))
    return {row["file"]: Path(row["feedback page"]).with_suffix(".md").name for row in rows}


def test_every_page_is_named_from_a_safe_alphabet_and_goes_to_its_own_student(graded):
    _, _, out, _, _, _ = graded
    feedback = out / "feedback"
    names = sorted(path.name for path in feedback.iterdir())
    assert all(re.fullmatch(r"(index|[0-9]{3}-[a-z0-9-]{0,40})\.(md|html|txt)", name) for name in names), names
    assert all(len(name.encode()) <= 60 for name in names)
    pages = pages_by_file(out)
    assert len(set(pages.values())) == ROWS == len(list(feedback.glob("[0-9]*.md")))
    index = (feedback / "index.md").read_text(encoding="utf-8")
    for name, score in SCORES.items():
        page = (feedback / pages[csv_cell(name)]).read_text(encoding="utf-8")
        assert f"Answers file: {code_span(name)}" in page, name  # its own file, under its own name
        assert f"Score: {score} of {M} points" in page, name  # and its own file's grade
        assert f"[{pages[csv_cell(name)].removesuffix('.md')}]({pages[csv_cell(name)]}): " in index
        assert f"file {code_span(name)}" in index


def test_each_feedback_page_holds_student_text_only_in_code_spans(graded):
    _, _, out, _, _, _ = graded
    pages = sorted((out / "feedback").glob("*.md"))
    assert len(pages) == ROWS + 1  # and the index
    for page in pages:
        text = page.read_text(encoding="utf-8")
        outside = re.sub(r"(`+) .*? \1", "", text)  # the code spans taken out
        outside = re.sub(r"\\.", "", outside)  # and the characters the page escapes
        assert "{{" not in outside and "<" not in outside and "$" not in outside, page.name
        assert not CONTROLS.search(text)
    pages = pages_by_file(out)
    template = (out / "feedback" / pages["template-answer.toml"]).read_text(encoding="utf-8")
    assert f"Your answer: {code_span(TEMPLATE_CODE)}" in template  # shown back as typed, in a code span only
    keys = (out / "feedback" / pages["string-with-keys.toml"]).read_text(encoding="utf-8")
    assert "✗ Not yet (mean-square)\n\nYour answer: ` 12.6 `" in keys  # the answer on line 4, not in the string
    assert "string-with-keys.toml, line 1: there is no exercise" in keys  # not line 2, inside the string


class Markup(html.parser.HTMLParser):
    """Every attribute of every element, every script's text, and the text a reader sees."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.attributes: list[tuple[str, str]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.attributes += [(name, value or "") for name, value in attrs]
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.text).append(data)


def test_the_feedback_pages_built_as_a_book_with_its_defaults_run_nothing_from_a_name(graded, tmp_path):
    base, _, out, _, _, _ = graded
    book = tmp_path / "book"
    (book / "fb").mkdir(parents=True)
    pages = sorted((out / "feedback").glob("*.md"))
    for page in pages:  # the pages as written, under the names the command gave them
        (book / "fb" / page.name).write_bytes(page.read_bytes())
    toc = ["format: jb-book", "root: fb/index", "chapters:"]
    toc += [f"- file: fb/{page.stem}" for page in pages if page.stem != "index"]
    (book / "_toc.yml").write_text("\n".join(toc) + "\n", encoding="utf-8")
    (book / "_config.yml").write_text("title: Feedback\n", encoding="utf-8")  # Jupyter Book's defaults otherwise
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    build = subprocess.run([str(jupyter_book), "build", str(book)], capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert not list(base.rglob("PWNED*")) and not list(book.rglob("PWNED*")) and not list(Path.cwd().glob("PWNED*"))
    built = {path.stem: path.read_text(encoding="utf-8") for path in (book / "_build" / "html" / "fb").glob("*.html")}
    assert len(built) == len(pages)
    by_file = pages_by_file(out)
    handlers = set()
    for stem, document in built.items():
        markup = Markup()
        markup.feed(document)
        handlers |= {(name, value) for name, value in markup.attributes if name.startswith("on")}
        assert not [value for _, value in markup.attributes if "alert(" in value], stem  # no handler from a name
        assert not [script for script in markup.scripts if "alert(" in script or "PWNED" in script], stem
        assert f"pagename = 'fb/{stem}'" in document  # the theme's script holds the page's safe name, nothing else
    for name in SCORES:
        stem = by_file[csv_cell(name)].removesuffix(".md")
        markup = Markup()
        markup.feed(built[stem])
        seen = " ".join("".join(markup.text).split())
        assert f"Answers file: {visible(name)}" in seen, name  # each page names its own student's file, as text
    assert str(book) not in "".join(built.values()).replace(str(book / "_build"), "")  # no path of the teacher's
    assert handlers == {("onclick", "window.print()"), ("onclick", "toggleFullScreen()")}  # the theme's own, no more


def test_a_report_or_gradebook_may_not_replace_an_answers_file(tmp_path, pytester, capsys, monkeypatch):
    answers = tmp_path / "answers.toml"
    answers.write_text(SOLUTIONS, encoding="utf-8")
    kept = answers.read_bytes()
    monkeypatch.chdir(tmp_path)
    grader = pytester.runpytest_inprocess(
        str(ROOT / "exercises"), "--answers", str(answers), "--junitxml", str(answers)
    )
    assert grader.ret == pytest.ExitCode.USAGE_ERROR and "is the answers file itself" in grader.stderr.str()
    (tmp_path / "out").mkdir()
    os.link(answers, tmp_path / "out" / "grades.csv")  # a hard link: another name for the same file
    capsys.readouterr()
    assert main(["grade", str(answers), "--out", str(tmp_path / "out")]) == 1
    assert "holds what the grade command did not write, such as 'grades.csv'" in capsys.readouterr().err
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


def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path):
    answers = tmp_path / "answers.toml"
    answers.write_text(ONE_RIGHT, encoding="utf-8")
    command = f"{sys.executable} -P -m classroom grade {answers} {answers} {answers} | head -c 10"
    run = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in run.stderr and "BrokenPipeError" not in run.stderr


def _waiting_for_a_lock_on(folder: Path) -> bool:
    """Whether some process waits for an flock on ``folder`` (Linux lists a blocked request with "->")."""
    inode = folder.stat().st_ino
    return any(line.split()[1] == "->" and line.split()[-3].endswith(f":{inode}") for line in _locks())


def _locks() -> list[str]:
    return Path("/proc/locks").read_text().splitlines()


@pytest.mark.skipif(fcntl is None or not Path("/proc/locks").exists(), reason="needs flock and /proc/locks (Linux)")
def test_a_second_run_waits_for_the_folder_s_lock_and_then_writes_whole(tmp_path):
    """A run that finds the output folder locked waits, writes nothing meanwhile, and writes once it is free."""
    folder = tmp_path / "class"
    folder.mkdir()
    for n in range(3):
        (folder / f"s-{n}.toml").write_text(ONE_RIGHT)
    out = tmp_path / "out"
    out.mkdir()
    holder = os.open(out, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another run, mid-write
    command = [sys.executable, "-P", "-m", "classroom", "grade", str(folder), "--out", str(out / "grades")]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not _waiting_for_a_lock_on(out):
            assert run.poll() is None, f"the run ended without waiting for the lock: {run.stderr.read()}"
            assert time.monotonic() < deadline, "the run never asked for the folder's lock"
            time.sleep(0.05)  # polling a condition, not waiting a fixed time
        assert sorted(path.name for path in out.iterdir()) == []  # nothing written while the lock is held
    finally:
        os.close(holder)  # the other run is done
    assert run.wait(timeout=300) == 0, run.stderr.read()
    assert len(list(csv.DictReader(io.StringIO((out / "grades" / "grades.csv").read_text(encoding="utf-8-sig"))))) == 3


def test_check_names_a_hostile_value_by_its_type(tmp_path):
    class Sneaky(list):
        def __iter__(self):
            raise RuntimeError("boom")

    from rmsnorm_course import check

    assert check("normalized", Sneaky([1, 2])).outcome.name == "UNREADABLE"
    assert AnswerSheet.read(COURSE, tmp_path / "absent.toml").unreadable.startswith("cannot open")


def test_everyday_and_hostile_names_work_through_make_and_nothing_in_them_runs(tmp_path, make_on_a_copy):
    """The name a browser gives a second download, spaces, and text that make or a shell would run."""
    for name in ("my answers (1) $(shell touch PWNED-make).toml", "`touch PWNED-shell`.toml"):
        answers = tmp_path / name
        answers.write_text(ONE_RIGHT, encoding="utf-8")
        run = make_on_a_copy("grade", f"ANSWERS={answers}")
        assert run.stdout.strip().splitlines()[-1] == f"score: 1/{M}", run.stdout[-2000:]
    assert not list(tmp_path.rglob("PWNED*")) and not list(ROOT.glob("PWNED*"))


def test_the_grader_run_from_a_students_folder_imports_nothing_from_it(tmp_path):
    (tmp_path / "numpy.py").write_text(f"open({str(tmp_path / 'IMPORTED')!r}, 'w').close()\n", encoding="utf-8")
    (tmp_path / "answers.toml").write_text(ONE_RIGHT, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-P", "-m", "pytest", str(ROOT / "exercises"), "--answers", "answers.toml", "-q",
         "-p", "no:cacheprovider", "-p", "no:hypothesispytest"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert run.stdout.strip().splitlines()[-1] == f"score: 1/{M}" and not (tmp_path / "IMPORTED").exists()
