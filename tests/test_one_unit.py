"""A class run's outputs are one unit: all replace the last run's, or none does, whatever stops the run.

Each way a run can end early is made to happen: a path refused before anything is
written, a disk that fills up part-way (a real 1 MiB tmpfs where this machine lets a
test mount one, and a write that fails part-way everywhere), and the process killed at
every step between writing and switching. After each, the last run's outputs are as
they were, or the new run's are whole; once the next run has looked, nothing is left.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from classroom import publish
from classroom.__main__ import main

STOPPER = """
import os, signal, sys
from classroom import publish
from classroom.__main__ import main
stop, calls = int(sys.argv[1]), []
def checkpoint(step):
    calls.append(step)
    if len(calls) == stop:
        os.kill(os.getpid(), signal.SIGKILL)
publish._checkpoint = checkpoint
if os.environ.get("NO_EXCHANGE"):
    publish._exchange = lambda first, second: False
sys.exit(main(sys.argv[2:]))
"""


def make_class(folder: Path, letter: str, count: int = 2, answer: str = "12.5") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (folder / f"{letter}-{n}.toml").write_text(f"mean-square = {answer}\n", encoding="utf-8")
    return folder


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``, hidden ones included: files by their bytes, folders as folders."""
    if not folder.exists():
        return {}
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else "folder"
        for path in sorted(folder.rglob("*"))
    }


def leftovers(folder: Path) -> list[str]:
    return [path.name for path in folder.rglob(".*")]


@pytest.fixture
def classes(tmp_path, monkeypatch):
    """Two classes (a and b) and the outputs each writes alone, for comparison."""
    monkeypatch.chdir(tmp_path)
    a, b = make_class(tmp_path / "a", "a"), make_class(tmp_path / "b", "b", answer="25")
    whole = {}
    for label, folder in (("a", a), ("b", b)):
        assert main(["grade", str(folder), "--out", str(tmp_path / f"ref-{label}")]) == 0
        whole[label] = snapshot(tmp_path / f"ref-{label}")
    return tmp_path, a, b, whole


def test_a_class_run_writes_its_outputs_with_the_umask_s_permissions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_class(tmp_path / "a", "a")
    for umask, file_mode, folder_mode in ((0o022, 0o644, 0o755), (0o027, 0o640, 0o750)):
        before = os.umask(umask)
        try:
            assert main(["grade", "a", "--out", f"out-{umask:o}"]) == 0
        finally:
            os.umask(before)
        out = tmp_path / f"out-{umask:o}"
        assert (out.stat().st_mode & 0o777, (out / "feedback").stat().st_mode & 0o777) == (folder_mode, folder_mode)
        assert {path.stat().st_mode & 0o777 for path in out.rglob("*") if path.is_file()} == {file_mode}


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--gradebook", "taken"], "the gradebook taken does not end in .csv"),
        (["--gradebook", "folder.csv"], "folder.csv is a folder; expected a file path for the gradebook"),
        (["--gradebook", "fb/g.csv", "--feedback", "fb"], "the gradebook fb/g.csv is inside the feedback folder fb"),
        (["--gradebook", "g.csv", "--feedback", "g.csv"], "the gradebook g.csv is inside the feedback folder g.csv"),
        (["--feedback", "."], ". holds the current folder, and would be replaced whole"),
        (["--out", "."], ". holds the current folder, and would be replaced whole"),
        (["--feedback", ".."], "the folder .. holds a graded answers file, 'a-0.toml'"),
        (["--feedback", "../a/fb"], "../a/fb is inside the folder being graded, ../a"),
        (["--out", "mine"], "the folder mine holds what the grade command did not write, such as 'notes.txt'"),
        (["--out", "o", "--feedback", "fb"], "--out writes the gradebook and the feedback together"),
    ],
)
def test_a_refused_path_writes_nothing_and_says_so_in_the_user_s_words(tmp_path, monkeypatch, capsys, arguments, says):
    make_class(tmp_path / "a", "a")
    here = tmp_path / "here"
    (here / "folder.csv").mkdir(parents=True)
    (here / "mine").mkdir()
    (here / "mine" / "notes.txt").write_text("the teacher's own\n", encoding="utf-8")
    monkeypatch.chdir(here)
    before = snapshot(tmp_path)
    assert main(["grade", "../a", *arguments]) == 1
    error = capsys.readouterr().err
    assert f"nothing written: {says}" in error, error
    assert "rmsnorm-grade" not in error and "None" not in error  # the user's path, never a temporary one
    assert snapshot(tmp_path) == before


def test_a_disk_that_fills_part_way_leaves_the_last_outputs_and_nothing_else(classes, monkeypatch, capsys):
    tmp_path, a, b, _ = classes
    assert main(["grade", str(a), "--gradebook", "out/g.csv", "--feedback", "out/fb"]) == 0
    before = snapshot(tmp_path / "out")
    written = []
    real = publish._write

    def fills_up(path, data, sync=False):
        if len(written) == 5:  # the sixth file: the disk is full half-way through it
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            os.write(descriptor, data[: len(data) // 2])
            os.close(descriptor)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(path)
        real(path, data, sync)

    monkeypatch.setattr(publish, "_write", fills_up)
    capsys.readouterr()
    assert main(["grade", str(b), "--gradebook", "out/g.csv", "--feedback", "out/fb"]) == 1
    error = capsys.readouterr().err
    assert error.strip().splitlines()[-1].startswith("nothing written: cannot write out/") and "No space" in error
    assert snapshot(tmp_path / "out") == before and not leftovers(tmp_path)


def _mount_tmpfs(where: Path) -> bool:
    where.mkdir()
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True)
    return mounted.returncode == 0


def test_a_real_disk_that_fills_up_leaves_the_last_outputs_whole(tmp_path, monkeypatch, capsys):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk):
        pytest.skip("this machine lets no test mount a small file system (it needs root on Linux)")
    try:
        monkeypatch.chdir(tmp_path)
        small, large = make_class(tmp_path / "small", "s", 1), make_class(tmp_path / "large", "l", 80)
        assert main(["grade", str(small), "--out", str(disk / "grades")]) == 0
        before = snapshot(disk)
        capsys.readouterr()
        assert main(["grade", str(large), "--out", str(disk / "grades")]) == 1  # 80 students' pages need > 1 MiB
        error = capsys.readouterr().err
        assert f"nothing written: cannot write {disk / 'grades'}: No space left on device" in error
        assert snapshot(disk) == before and not leftovers(disk)
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def _stopped(tmp_path: Path, stop: int, arguments: list[str], exchange: bool = True) -> int:
    environment = dict(os.environ, **({} if exchange else {"NO_EXCHANGE": "1"}))
    run = subprocess.run(
        [sys.executable, "-P", "-c", STOPPER, str(stop), *arguments],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=environment,
    )  # fmt: skip
    return run.returncode


def _outputs(tmp_path: Path, separate: bool) -> dict[str, bytes | str]:
    """The outputs as one snapshot, named as in the ``--out`` folder, so that the two layouts compare."""
    if not separate:
        return snapshot(tmp_path / "out")
    found = {name: (tmp_path / "out" / name).read_bytes() for name in ("grades.csv", "grades-long.csv", "grades.png")}
    found.update({k if k == "feedback" else f"feedback/{k}": v for k, v in snapshot(tmp_path / "out" / "fb").items()})
    return found | ({"feedback": "folder"} if (tmp_path / "out" / "fb").exists() else {})


def _lay_out(tmp_path: Path, outputs: dict[str, bytes | str], separate: bool) -> None:
    """The outputs of a whole run put in place again, as the last run left them."""
    shutil.rmtree(tmp_path / "out", ignore_errors=True)
    for name, data in outputs.items():
        if separate:
            name = name.replace("feedback", "fb", 1)
        path = tmp_path / "out" / name
        if data == "folder":
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


# The steps of a run with the outputs in one folder (staging, staged, committed, switched) and in four
# places (staging, four staged, committed, four switched; a folder set aside first where it cannot be
# exchanged). The stops after the last step let the run finish; without exchange only switching differs.
@pytest.mark.parametrize(
    ("separate", "exchange", "stops", "committed"),
    [(False, True, range(1, 6), 3), (True, True, range(1, 12), 6), (True, False, range(6, 13), 6)],
    ids=["one folder", "four outputs", "four outputs, no exchange"],
)
def test_a_run_killed_at_any_step_leaves_one_run_s_outputs_and_nothing_once_the_next_has_run(
    classes, separate, exchange, stops, committed
):
    tmp_path, _, b, whole = classes
    where = ["--gradebook", "out/grades.csv", "--feedback", "out/fb"] if separate else ["--out", "out"]
    for stop in stops:
        _lay_out(tmp_path, whole["a"], separate)
        assert _outputs(tmp_path, separate) == whole["a"]
        code = _stopped(tmp_path, stop, ["grade", str(b), *where], exchange)
        finished = stop == stops[-1]
        assert code == (0 if finished else -9), stop
        if not separate:  # one folder, switched in one step: one run's outputs at every moment
            assert _outputs(tmp_path, separate) in (whole["a"], whole["b"]), stop
        publish.recover((tmp_path / "out").absolute())  # what the next run does first
        publish.recover(tmp_path.absolute(), ["out"])
        assert _outputs(tmp_path, separate) in (whole["a"], whole["b"]), stop
        assert not leftovers(tmp_path / "out") and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
        assert _outputs(tmp_path, separate) == whole["b" if stop >= committed else "a"], stop  # the journal decides


def test_an_earlier_version_s_leftovers_are_cleaned_and_nothing_of_the_teacher_s(classes):
    tmp_path, a, _, _ = classes
    out = tmp_path / "out"
    assert main(["grade", str(a), "--gradebook", "out/grades.csv", "--feedback", "out/feedback"]) == 0
    (out / ".feedback.a1b2c3d4").mkdir()
    (out / ".feedback.a1b2c3d4" / "x.md").write_text("half a page", encoding="utf-8")
    (out / ".grades.csv.x9y8z7w6").write_text("half a gradebook", encoding="utf-8")
    (out / ".bashrc.backup01").write_text("the teacher's own", encoding="utf-8")
    assert main(["grade", str(a), "--gradebook", "out/grades.csv", "--feedback", "out/feedback"]) == 0
    assert sorted(path.name for path in out.iterdir() if path.name.startswith(".")) == [".bashrc.backup01"]


def test_a_symlinked_class_folder_is_graded_as_the_folder_it_names(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    make_class(tmp_path / "real", "r", 3)
    (tmp_path / "subs").symlink_to(tmp_path / "real")
    for named in ("subs", "subs/"):
        assert main(["grade", named, "--out", "out"]) == 0
        rows = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
        assert [row.split(",")[1] for row in rows] == ["r-0", "r-1", "r-2"]
        assert "symbolic link" not in capsys.readouterr().out


def test_a_name_the_shell_expanded_is_a_file_even_when_it_looks_like_an_option(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("--feedback=stolen.toml", "-rf.toml", "ok.toml"):
        (tmp_path / name).write_text("mean-square = 12.5\n", encoding="utf-8")
    expanded = sorted(path.name for path in tmp_path.glob("*.toml"))  # as `grade *.toml` hands them over
    assert main(["grade", *expanded, "--out", "out"]) == 0
    rows = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert sorted(row.split(",")[1] for row in rows) == ["'--feedback=stolen", "'-rf", "ok"]
    assert not (tmp_path / "stolen.toml").exists()
    assert main(["grade", "--out", "out2", "--", *expanded]) == 0


@pytest.mark.end_to_end  # make and a grader run, on a copy of the repository in a temporary folder
def test_make_grade_takes_a_name_that_begins_with_a_dash(tmp_path, make_on_a_copy):
    for name in ("-rf.toml", "-p.toml"):
        (tmp_path / name).write_text("mean-square = 12.5\n", encoding="utf-8")
        run = make_on_a_copy("grade", f"ANSWERS={tmp_path / name}")
        assert run.stdout.strip().splitlines()[-1].startswith("score: 1/"), run.stdout[-2000:] + run.stderr[-2000:]
