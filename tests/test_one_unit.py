"""A class run's outputs are one folder: it replaces the last run's whole, or not at all, whatever stops the run.

Each way a run can end early is made to happen: a path refused before anything is
written, a disk that fills up part-way (a real 1 MiB tmpfs where this machine lets a
test mount one, and a write that fails part-way everywhere), and the process killed at
every step between writing and swapping, with the system's one-step exchange and
without it. After each, the last run's outputs are as they were, or the new run's are
whole; once the next run has looked, nothing is left beside them.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from classroom import publish
from classroom.__main__ import main


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
def classes(tmp_path, monkeypatch, class_figure_stand_in):
    """Two classes (a and b) and the outputs each writes alone, for comparison (the figure a stand-in)."""
    monkeypatch.chdir(tmp_path)
    a, b = make_class(tmp_path / "a", "a"), make_class(tmp_path / "b", "b", answer="25")
    whole = {}
    for label, folder in (("a", a), ("b", b)):
        assert main(["grade", str(folder), "--out", str(tmp_path / f"ref-{label}")]) == 0
        whole[label] = snapshot(tmp_path / f"ref-{label}")
    return tmp_path, a, b, whole


@pytest.mark.usefixtures("class_figure_stand_in")
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
        (["--out", "."], ". holds the current folder, and would be replaced whole"),
        (["--out", "../here"], "../here holds the current folder, and would be replaced whole"),
        (["--out", ".."], "the folder .. holds a graded answers file, 'a-0.toml'"),
        (["--out", "../a/fb"], "../a/fb is inside the folder being graded, ../a"),
        (["--out", "mine"], "the folder mine holds what the grade command did not write, such as 'notes.txt'"),
        (["--out", "folder.csv/x.csv"], "the folder folder.csv/x.csv holds what the grade command did not write"),
        (["--out", "mine/notes.txt"], "mine/notes.txt is not a folder; expected a folder for the outputs"),
    ],
)
def test_a_refused_path_writes_nothing_and_says_so_in_the_user_s_words(tmp_path, monkeypatch, capsys, arguments, says):
    make_class(tmp_path / "a", "a")
    here = tmp_path / "here"
    (here / "folder.csv" / "x.csv" / "y").mkdir(parents=True)
    (here / "mine").mkdir()
    (here / "mine" / "notes.txt").write_text("the teacher's own\n", encoding="utf-8")
    monkeypatch.chdir(here)
    before = snapshot(tmp_path)
    assert main(["grade", "../a", *arguments]) == 1
    error = capsys.readouterr().err
    assert f"nothing written: {says}" in error, error
    assert "rmsnorm-grade" not in error and "None" not in error  # the user's path, never a temporary one
    assert snapshot(tmp_path) == before


class FillsUp:
    """The disk fills up half-way through the sixth file written: ``open`` as ``publish`` calls it."""

    def __init__(self):
        self.opened = 0

    def __call__(self, path, mode):
        self.opened += 1
        handle = open(path, mode)
        if self.opened == 6:
            real = handle.write

            def half_then_full(data):
                real(data[: len(data) // 2])
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            handle.write = half_then_full
        return handle


def test_a_disk_that_fills_part_way_leaves_the_last_outputs_and_nothing_else(classes, monkeypatch, capsys):
    tmp_path, a, b, _ = classes
    assert main(["grade", str(a), "--out", "out"]) == 0
    before = snapshot(tmp_path / "out")
    monkeypatch.setattr(publish, "open", FillsUp(), raising=False)
    capsys.readouterr()
    assert main(["grade", str(b), "--out", "out"]) == 1
    error = capsys.readouterr().err
    assert error.strip().splitlines()[-1].startswith("nothing written: cannot write out: ") and "No space" in error
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
    """A class run in a process of its own (forked from this one), killed at its ``stop``-th step; its exit code.

    A code as subprocess gives it: -9 for a run killed by SIGKILL.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the child runs the class grader only, then exits
        child = os.fork()
    if child == 0:  # the run: nothing of it returns to the tests but its exit code
        code = 70
        try:
            os.chdir(tmp_path)
            calls = []

            def checkpoint(step: str) -> None:
                calls.append(step)
                if len(calls) == stop:
                    os.kill(os.getpid(), signal.SIGKILL)

            publish._checkpoint = checkpoint
            if not exchange:
                publish._exchange = lambda new, folder: False
            code = main(arguments)
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status)


def _lay_out(tmp_path: Path, outputs: dict[str, bytes | str]) -> None:
    """The outputs of a whole run put in place again, as the last run left them."""
    shutil.rmtree(tmp_path / "out", ignore_errors=True)
    (tmp_path / "out").mkdir()
    for name, data in outputs.items():
        path = tmp_path / "out" / name
        if data == "folder":
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


# The steps of a run: written (the new folder whole beside the old), then swapped in one step; without the
# system's exchange, the old folder is set aside between two renames. A stop after the last step lets the run end.
@pytest.mark.parametrize(
    ("exchange", "stops", "swapped"),
    [(True, range(1, 4), 2), (False, range(1, 5), 3)],
    ids=["exchanged in one step", "two renames"],
)
def test_a_run_killed_at_any_step_leaves_one_run_s_outputs_and_nothing_once_the_next_has_run(
    classes, exchange, stops, swapped
):
    tmp_path, _, b, whole = classes
    for stop in stops:
        _lay_out(tmp_path, whole["a"])
        assert snapshot(tmp_path / "out") == whole["a"]
        code = _stopped(tmp_path, stop, ["grade", str(b), "--out", "out"], exchange)
        assert code == (0 if stop == stops[-1] else -9), stop
        if exchange:  # swapped in one step: one run's outputs in place at every moment
            assert snapshot(tmp_path / "out") in (whole["a"], whole["b"]), stop
        publish.recover((tmp_path / "out").absolute())  # what the next run does first
        assert snapshot(tmp_path / "out") == whole["b" if stop >= swapped else "a"], stop
        assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")], stop


@pytest.mark.usefixtures("class_figure_stand_in")
def test_a_symlinked_class_folder_is_graded_as_the_folder_it_names(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    make_class(tmp_path / "real", "r", 3)
    (tmp_path / "subs").symlink_to(tmp_path / "real")
    for named in ("subs", "subs/"):
        assert main(["grade", named, "--out", "out"]) == 0
        rows = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8-sig").splitlines()[1:]
        assert [row.split(",")[1] for row in rows] == ["r-0", "r-1", "r-2"]
        assert "symbolic link" not in capsys.readouterr().out


@pytest.mark.usefixtures("class_figure_stand_in")
def test_a_name_the_shell_expanded_is_a_file_even_when_it_looks_like_an_option(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("--out=stolen.toml", "-rf.toml", "ok.toml"):
        (tmp_path / name).write_text("mean-square = 12.5\n", encoding="utf-8")
    expanded = sorted(path.name for path in tmp_path.glob("*.toml"))  # as `grade *.toml` hands them over
    assert main(["grade", *expanded, "--out", "out"]) == 0
    rows = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8-sig").splitlines()[1:]
    assert sorted(row.split(",")[1] for row in rows) == ["'--out=stolen", "'-rf", "ok"]
    assert not (tmp_path / "stolen.toml").exists()
    assert main(["grade", "--out", "out2", "--", *expanded]) == 0


@pytest.mark.end_to_end  # make and a grader run, on a copy of the repository in a temporary folder
def test_make_grade_takes_a_name_that_begins_with_a_dash(tmp_path, make_on_a_copy):
    for name in ("-rf.toml", "-p.toml"):
        (tmp_path / name).write_text("mean-square = 12.5\n", encoding="utf-8")
        run = make_on_a_copy("grade", f"ANSWERS={tmp_path / name}")
        assert run.stdout.strip().splitlines()[-1].startswith("score: 1/"), run.stdout[-2000:] + run.stderr[-2000:]
