"""What a class run reads: a zip of submissions is refused, before anything is written, with the command to unzip it."""

from __future__ import annotations

import zipfile

import pytest

from classroom.__main__ import main
from hostile import SOLUTIONS

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")


@pytest.mark.parametrize("name", ["submissions.zip", "submissions (1)"])  # a download's name, or one it lost
def test_a_zip_of_submissions_is_refused_with_unzip_first(tmp_path, capsys, name):
    with zipfile.ZipFile(tmp_path / name, "w") as archive:
        archive.writestr("beckertom_69437_678901_answers.toml", SOLUTIONS)
    assert main(["grade", name, "--out", "out"]) == 1
    said = capsys.readouterr().err
    assert f"nothing written: {name} is a zip archive; unzip it first (unzip {name} -d submissions)" in said
    assert sorted(path.name for path in tmp_path.iterdir()) == [name]
