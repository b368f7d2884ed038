"""The hardened reader: every hostile file ends in verdicts and a score, and is left as it was."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from hostile import HOSTILE, SOLUTIONS, Hostile, M, with_answer
from predict_check.errors import AnswersFileError
from predict_check.sheet_reader import AnswerSheet
from predict_check.toml_reader import MAX_BYTES, MAX_DEPTH, contents, decode, nesting, read_bytes
from rmsnorm_course.pages import COURSE


def report(sheet: AnswerSheet) -> tuple[str, int]:
    """Everything the grader would say about a sheet, and its score."""
    verdicts = [sheet.grade(exercise_id) for exercise_id in COURSE.exercises]
    lines = [sheet.explain(verdict) for verdict in verdicts] + sheet.problems()
    return "\n".join(lines), sum(verdict.correct for verdict in verdicts)


@pytest.mark.parametrize("hostile", HOSTILE, ids=[h.name for h in HOSTILE])
def test_a_hostile_file_ends_in_verdicts_and_its_score_and_is_left_alone(tmp_path, monkeypatch, hostile: Hostile):
    monkeypatch.chdir(tmp_path)  # where code in the file would leave its mark, were it run
    path = tmp_path / "answers.toml"
    path.write_bytes(hostile.content)
    path.chmod(stat.S_IRUSR)  # read-only: any attempt to write would fail loudly
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    said, score = report(AnswerSheet.read(COURSE, path))
    assert score == hostile.score
    if hostile.says is not None:
        assert hostile.says in said
    assert len(said) < 20_000  # a few lines per exercise, however large the file
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(os.listdir(tmp_path)) == ["answers.toml"]


def test_the_hostile_table_covers_each_kind_of_refusal():
    said = " ".join(h.says or "" for h in HOSTILE)
    for refusal in ("deep", "MiB", "Windows-1252", "given twice", "could not be read", "control character", "date"):
        assert refusal in said


def test_the_limits_leave_room_for_any_answers_file():
    assert len(SOLUTIONS.encode()) * 10 < MAX_BYTES
    assert nesting(SOLUTIONS).depth == 1 < MAX_DEPTH


@pytest.mark.parametrize(
    ("text", "parts", "line"),
    [
        ("mean-square = 0.5\n", 2, 1),  # a float is two parts of a dotted run
        ("a.b.c = 1\n", 3, 1),
        ("\na . \"b.c\" . 'd' = 1\n", 3, 2),
        ("[x.y.z.w]\n", 4, 1),
        ("x = {a.b = 1}\n", 2, 1),
        ('a = "p.q.r.s"\n', 1, 1),
        ("a = 1 # p.q.r.s\n", 1, 1),
        ("a. = 1\n", 1, 1),
        ("a = 1979-05-27T07:32:00.5\n", 2, 1),
    ],
)
def test_nesting_counts_the_parts_of_the_longest_dotted_run(text, parts, line):
    found = nesting(text)
    assert (found.key_parts, found.key_line) == (parts, line)


@pytest.mark.parametrize(
    ("text", "depth", "line", "what"),
    [
        ("a = 1\n", 0, 0, ""),
        ("a = [1, [2, [3]]]\n", 3, 1, "arrays"),
        ("\n\na = {b = {c = 1}}\n", 2, 3, "inline tables"),
        ("a = [{b = [1]}]\n", 3, 1, "arrays and inline tables"),
        ("[table]\n[[array.of.tables]]\n", 2, 2, "arrays"),
        ("a = \"[[[[\"\nb = '{{{{'\n", 0, 0, ""),
        ('a = """\n[[[[\n"""\n', 0, 0, ""),
        ("a = '''[[[['''\n", 0, 0, ""),
        ('a = """x"""" \nb = [[1]]\n', 2, 2, "arrays"),  # a multi-line string may end in a quote of its own
        ("a = ''''x''''' \nb = [[1]]\n", 2, 2, "arrays"),
        ('a = "\\"[[[["\n', 0, 0, ""),
        ("a = 1 # [[[[\n", 0, 0, ""),
        ('a = "unclosed [[[[\nb = [1]\n', 1, 2, "arrays"),  # an unclosed string ends with its line
        ("]]]] a = [1]\n", 1, 1, "arrays"),
    ],
)
def test_nesting_counts_brackets_outside_strings_and_comments(text, depth, line, what):
    found = nesting(text)
    assert (found.depth, found.line, found.what) == (depth, line, what)


def parse(text: str, path: Path) -> dict[str, object]:
    return contents(text, path).data


def test_nesting_agrees_with_the_parser_on_what_is_a_string():
    text = 'a = ["[", \'{\', """]\n[""", [1, [2]]]\n# ]]]]\n'
    assert tomllib.loads(text)["a"][3] == [1, [2]]
    assert nesting(text).depth == 3


def test_the_depth_limit_is_refused_one_past_it_only():
    at_limit = "a = " + "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse(at_limit, Path("answers.toml"))["a"] != []
    with pytest.raises(AnswersFileError, match=rf"nests arrays {MAX_DEPTH + 1} deep \(line 1\)"):
        parse("a = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), Path("answers.toml"))


def test_the_dotted_key_limit_is_refused_one_past_it_only():
    key = ".".join(["a"] * MAX_DEPTH)
    value = parse(f"{key} = 1", Path("answers.toml"))
    for _ in range(MAX_DEPTH):
        value = value["a"]
    assert value == 1
    with pytest.raises(AnswersFileError, match=rf"has a dotted key of {MAX_DEPTH + 1} parts \(line 1\)"):
        parse(f"a.{key} = 1", Path("answers.toml"))


def read_text(path):
    """The file's text as the grader reads it: its bytes within the limit, then decoded."""
    return decode(read_bytes(path), path).text


def test_the_size_limit_is_refused_one_byte_past_it_only(tmp_path):
    at_limit = tmp_path / "at.toml"
    at_limit.write_bytes(b"#" * MAX_BYTES)
    assert read_text(at_limit) == "#" * MAX_BYTES
    past = tmp_path / "past.toml"
    past.write_bytes(b"#" * (MAX_BYTES + 1))
    with pytest.raises(AnswersFileError, match=r"is 256.001 KiB, more than the 256 KiB the grader reads"):
        read_text(past)


def test_a_folder_is_no_answers_file(tmp_path):
    with pytest.raises(AnswersFileError, match="is a folder; expected a TOML file"):
        read_text(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX feature")
def test_a_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    pipe = tmp_path / "answers.toml"
    os.mkfifo(pipe)
    with pytest.raises(AnswersFileError, match="is not a regular file; expected a TOML file"):
        read_text(pipe)


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(AnswersFileError, match=r"cannot open .*nowhere\.toml: No such file or directory"):
        read_text(tmp_path / "nowhere.toml")


def test_a_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_bytes(b"\xef\xbb\xbfmean-square = 12.5\n")
    assert read_text(path) == "mean-square = 12.5\n"


def test_key_lines_find_bare_quoted_and_table_keys():
    text = '# a comment\nmean-square = 1\n\n"grad-x" = [1, 2]\n[extra]\nsub = 1\n  [[ more ]]\n'
    lines = contents(text, Path("answers.toml")).lines
    assert lines == {"mean-square": 2, "grad-x": 4, "extra": 5, "sub": 6, "more": 7}


def test_the_reference_answers_read_in_full():
    assert parse(SOLUTIONS, Path("solutions.toml")) == tomllib.loads(SOLUTIONS)
    assert len(parse(SOLUTIONS, Path("solutions.toml"))) == M


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_lines_end_as_any_editor_ends_them_and_are_read_alike(tmp_path, ending):
    text = with_answer("mean-square", "12,5")  # one line that cannot be read
    path = tmp_path / "answers.toml"
    path.write_bytes(text.encode())
    saved_with_line_feeds = report(AnswerSheet.read(COURSE, path))
    path.write_bytes(text.replace("\n", ending).encode())
    assert report(AnswerSheet.read(COURSE, path)) == saved_with_line_feeds
    assert saved_with_line_feeds[1] == M - 1


def test_a_file_read_statement_by_statement_gives_what_the_parser_gives_without_its_bad_lines():
    """Tables keep their headers: dotted ones, arrays of tables, quoted names, and those after a bad line."""
    bad = 'mean-square = "12.5\n'
    good = (
        'output = [1, 2]\n[[extra]]\nnormalized = [3, 4]\n[[extra]]\nnormalized = "5"\n'
        '[variants.mean-square]\n1 = "12.5"\n["first-tries"]\nmean-square = """\n[not-a-table]\n"""\n'
    )
    text = good.replace("[[extra]]", bad + "[[extra]]", 1)
    read = contents(text, Path("answers.toml"), wanted={"mean-square", "normalized"})
    assert read.data == tomllib.loads(good)
    assert [(b.line, b.table) for b in read.bad] == [(2, None)]
    assert read.written[("first-tries", "mean-square")] == "[not-a-table]\n"  # a string, as the parser reads it


def test_a_bad_line_keeps_its_text_as_the_file_writes_it_for_a_person_to_regrade():
    text = "mean-square = \"12.5\nnormalized = [0.8,\n  1.1\n# a note\nzero-row-zero-eps = 'D\n"
    read = contents(text, Path("answers.toml"), wanted={"mean-square", "normalized", "zero-row-zero-eps"})
    assert [(b.key, b.text) for b in read.bad] == [
        ("mean-square", 'mean-square = "12.5'),
        ("normalized", "normalized = [0.8,\n  1.1"),  # both of its lines, the note after them left out
        ("zero-row-zero-eps", "zero-row-zero-eps = 'D"),
    ]


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("eps-near-zero = B", "B"),
        ("eps-near-zero = B  # my guess", "B"),
        ("reciprocal-rms = 0,282843", "0,282843"),
        ("zero-row-zero-eps = a row of NaNs.", "a row of NaNs."),
        ("normalized = 0.848528, 1.131370", "0.848528, 1.131370"),
        ('"eps-near-zero" = b)', "b)"),
    ],
)
def test_an_answer_typed_without_its_quotes_reads_as_the_same_text_in_quotes(line, value):
    """Quoting changes nothing: a bare letter, decimal comma or list without brackets is the text it would be."""
    read = contents(f"mean-square = 12.5\n{line}\noutput-shape = [2, 5, 3]\n", Path("answers.toml"), wanted={"x"})
    key = line.split("=")[0].strip().strip('"')
    assert read.bad == () and read.data == {"mean-square": 12.5, key: value, "output-shape": [2, 5, 3]}


@pytest.mark.parametrize(
    ("line", "fix"),
    [
        ('eps-near-zero = "B', "close the quote"),
        ("normalized = [0.848528, 1.131370", "close the list"),
        ("output = [1,272792; 0,565685]", "write a point for decimals and a comma between numbers"),
        ("eps-near-zero = B\u0007", "control character"),
        ("eps-near-zero = {B}", "put the answer in straight quotes"),
    ],
)
def test_an_answer_that_tomls_own_marks_begin_or_that_holds_a_control_is_still_a_bad_line(line, fix):
    read = contents(f"{line}\n", Path("answers.toml"))
    assert read.data == {} and len(read.bad) == 1 and fix in read.bad[0].fix


def test_a_key_then_a_table_of_its_name_is_given_twice_and_read_neither_time():
    read = contents("mean-square = 12.5\n[mean-square]\nvalue = 12.5\n", Path("answers.toml"))
    assert "mean-square" not in read.data
    assert [(b.line, b.key, b.fix) for b in read.bad] == [
        (2, "mean-square", "given twice, on lines 1 and 2; keep one of them")
    ]


def test_recovery_parses_each_statement_a_bounded_number_of_times_however_the_file_is_shaped(monkeypatch):
    """An answer of many lines, given again and again up to the size limit: the work grows with the file, no faster."""
    block = "mean-square = [\n" + "  [1, [2, [3]]],\n" * 97 + "]\n"
    parsed = []
    loads = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: parsed.append(len(text)) or loads(text))
    for blocks in (1, MAX_BYTES // len(block)):
        parsed.clear()
        read = contents(block * blocks, Path("answers.toml"))
        assert len(read.bad) == blocks - 1  # given twice, and again
        assert sum(parsed) <= 3 * len(block * blocks)  # the whole text, then each statement, each at most twice


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf_16_without_a_byte_order_mark_is_read_whatever_its_characters(tmp_path, codec):
    text = 'name = "\u4e00\u3000\u0100 \u00e9"\n' + SOLUTIONS  # 一, U+3000, Ā: a zero byte on the other side
    path = tmp_path / "answers.toml"
    path.write_bytes(text.encode(codec))
    assert read_text(path) == text
    sheet = AnswerSheet.read(COURSE, path)
    assert sheet.identity("name") == "\u4e00\u3000\u0100 \u00e9" and report(sheet)[1] == M


def test_variant_keys_are_read_as_ascii_numbers_of_a_few_digits_only(tmp_path):
    path = tmp_path / "answers.toml"
    odd = ("\u00b9", "\u2460", "\uff11", "9" * 5000, "0", "-1", "+1", "1.0")  # ¹, ①, a fullwidth 1, ...
    lines = "".join(f'"{key}" = "12.5"\n' for key in odd)
    path.write_text(f'[variants.mean-square]\n{lines}2 = "0"\n', encoding="utf-8")
    tries = AnswerSheet.read(COURSE, path).variant_tries()
    x1, x2 = COURSE.exercises["mean-square"].variants[1]["x"]
    assert [(exercise_id, number, verdict.correct) for exercise_id, number, verdict in tries] == [
        ("mean-square", 2, (x1 * x1 + x2 * x2) / 2 == 0)
    ]
