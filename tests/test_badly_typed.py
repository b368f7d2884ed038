"""Files as students really save them: partial credit for a slip, never a silent 0, and every message in words.

A word processor's quotes, Windows-1252 and UTF-16 are read in full; a line that
cannot be read is listed with what to change while every other line is graded, and
the file is marked for review. The scores are known from how each file is built.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from classroom.__main__ import main
from classroom.feedback import feedback_markdown, feedback_text
from classroom.gradebook import grade_files, tally
from classroom.report import Run, summary
from hostile import ALL_RIGHT, SOLUTIONS, M, line_of, with_answer
from predict_check import AnswerSheet
from rmsnorm_course.pages import COURSE

CHOICES = ("zero-row-zero-eps", "eps-near-zero")
LETTERS = {i: re.search(rf'^{i} = "([A-Z])"$', SOLUTIONS, re.M).group(1) for i in CHOICES}
CURLY = with_answer(  # every answer right, typed into the blank file, two of them in a word processor's quotes
    "zero-row-zero-eps",
    f"\u201c{LETTERS['zero-row-zero-eps']}\u201d",
    with_answer("eps-near-zero", f"\u2018{LETTERS['eps-near-zero']}\u2019", ALL_RIGHT),
)


def graded(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    (file,) = grade_files(COURSE, [path])
    return file


def test_a_file_with_word_processor_quotes_grades_in_full(tmp_path):
    file = graded(tmp_path, "curly.toml", CURLY.encode())
    assert file.score == M and not file.needs_review
    assert file.sheet.notes == ("typographic quotes (\u201c \u201d \u2018 \u2019) were read as straight quotes",)


@pytest.mark.parametrize(
    ("codec", "note"),
    [("cp1252", "saved as Windows-1252, and read so"), ("utf-16", "saved as UTF-16, and read so"),
     ("utf-16-le", "saved as UTF-16, and read so"), ("utf-16-be", "saved as UTF-16, and read so")],
)  # fmt: skip
def test_a_file_saved_in_another_encoding_grades_in_full(tmp_path, codec, note):
    text = 'name = "Jos\u00e9 Garc\u00eda"\n# r\u00e9ponses\n' + SOLUTIONS
    file = graded(tmp_path, "encoded.toml", text.encode(codec))
    assert file.score == M and file.sheet.notes == (note,)
    assert file.student.name == "Jos\u00e9 Garc\u00eda"


def test_an_unclosed_quote_grades_every_other_line_lists_the_bad_one_and_asks_for_review(tmp_path):
    letter = LETTERS["zero-row-zero-eps"]
    text = with_answer("zero-row-zero-eps", f'"{letter}')
    file = graded(tmp_path, "unclosed.toml", text.encode())
    line = line_of(text, "zero-row-zero-eps")
    assert file.score == M - 1 and file.needs_review
    verdict = file.verdicts[list(COURSE.exercises).index("zero-row-zero-eps")]
    assert verdict.outcome.value == "unreadable"
    fix = 'close the quote: put a straight " at the end of the answer'
    assert verdict.message == f"line {line} could not be read: {fix}."
    assert file.problems() == [
        f'unclosed.toml, line {line}: close the quote: put a straight " at the end of the answer; '
        f'write it as  zero-row-zero-eps = "{letter}"'
    ]
    page = feedback_text(file)
    assert f'Write it as: zero-row-zero-eps = "{letter}"' in page and f"{M - 1} of {M} exercises right" in page


def test_every_bad_line_is_listed_at_once_each_with_a_fix_in_plain_words(tmp_path):
    text = SOLUTIONS
    for exercise_id, value in {
        "zero-row-zero-eps": "'D",  # a quote never closed
        "mean-square": "[12,5; 1]",  # a decimal comma in a list TOML cannot read
        "normalized": "[0.848528, 1.131371",  # a list never closed
        "output-shape": "",  # nothing after =
    }.items():
        text = with_answer(exercise_id, value, text)
    text += "my answers are above\n"
    file = graded(tmp_path, "slips.toml", text.encode())
    assert file.score == M - 4
    said = [re.sub(r"^.*?, line \d+: ", "", problem) for problem in file.problems()]
    assert said == [
        "write a point for decimals and a comma between numbers; write it as  mean-square = [12.5, 1]",
        "close the list: put ] at the end of the answer; write it as  normalized = [0.848528, 1.131371]",
        'write your answer after "=", or "" to leave it blank; write it as  output-shape = ""',
        'close the quote: put a straight \' at the end of the answer; write it as  zero-row-zero-eps = "D"',
        "this line is neither an answer (exercise = answer) nor a note; start a note with #",
    ]


def test_a_line_separator_in_an_answer_moves_no_later_line_number(tmp_path):
    text = with_answer("mean-square", '"12.5\u2028"')
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    sheet = AnswerSheet.read(COURSE, path)
    line = text.split("\n").index(next(x for x in text.split("\n") if x.startswith("forward-bytes"))) + 1
    assert sheet.where("forward-bytes") == f"forward-bytes (line {line})"
    assert line_of(text, "forward-bytes") == line + 1  # Python's own line split counts the separator as a line


def test_a_message_quotes_a_control_character_once_escaped_everywhere(tmp_path):
    file = graded(tmp_path, "key.toml", (SOLUTIONS + '"\\u0001" = 1\n').encode())
    problem = file.problems()[0]
    assert problem.endswith("there is no exercise '\\x01'; expected one of " + ", ".join(COURSE.exercises))
    assert "'\\x01'" in feedback_markdown(file) and "'\\\\x01'" not in feedback_markdown(file)
    said = summary(COURSE, [file], tally(COURSE, [file]), items=Run(COURSE, [file]).items)
    assert "'\\x01'" in said and "'\\\\x01'" not in said


def test_a_hand_written_first_try_without_an_answer_is_flagged_and_labelled_the_student_s_own(tmp_path, capsys):
    text = '[first-tries]\nmean-square = "12.5"\nnormalized = "[1, 1]"\n\n[shown-before-first-try]\noutput = true\n'
    file = graded(tmp_path, "hand.toml", text.encode())
    mean_square, normalized, output = file.first_tries[0], file.first_tries[2], file.first_tries[3]
    assert (mean_square.word, mean_square.unanswered) == ("right", True)
    assert (normalized.word, output.word) == ("not right", "shown")
    assert file.score == 0 and not file.problems()
    page = feedback_markdown(file)
    assert "First tries: your first tries are your own record, kept where you typed them" in page
    assert "your first prediction was ✓ Correct; this file gives no final answer here, so it is not counted" in page
    assert main(["grade", str(file.path), "--out", str(tmp_path / "out")]) == 0
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "grades.csv").read_text(encoding="utf-8-sig"))))
    # a first try counts only beside a final answer: none here, so none counts, right or shown
    assert (rows[0]["first tries (own record)"], rows[0]["first tries right (own record)"]) == ("0", "0")
    assert rows[0]["answers shown first (own record)"] == "0"
    assert "first try*: first tries are the student's own record" in capsys.readouterr().out
