"""Where what is computed once is kept: one variable, and ``off`` keeps nothing anywhere."""

from __future__ import annotations

import os
from pathlib import Path

from predict_check import cache, key

from rmsnorm_course.pages import COURSE
from rmsnorm_course.studies import kept, training


def test_the_variable_names_a_folder_says_off_or_leaves_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv(kept.VARIABLE, str(tmp_path))
    assert cache.folder(kept.VARIABLE, Path("elsewhere")) == tmp_path == kept.folder()
    monkeypatch.setenv(kept.VARIABLE, "off")
    assert cache.folder(kept.VARIABLE, Path("elsewhere")) is None
    monkeypatch.delenv(kept.VARIABLE)
    assert cache.folder(kept.VARIABLE, Path("elsewhere")) == Path("elsewhere") and kept.folder() is None


def test_off_keeps_nothing_from_any_cache(monkeypatch, tmp_path):
    """The answer key and the training runs alike: nothing under the working folder or the home folder."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv(kept.VARIABLE, "off")
    monkeypatch.setattr(key.key_of(COURSE), "solved", {})
    small = training.Setup(depth=3, width=6, hidden=8, inputs=4, outputs=2, examples=10, steps=12)
    assert set(training.experiment.__wrapped__(small)) == set(training.VARIANTS)
    assert key.solution(COURSE.exercises["mean-square"]).answer == 12.5  # (9 + 16) / 2
    assert key.key_of(COURSE).path is None
    assert [Path(root, name) for root, _, names in os.walk(tmp_path) for name in names] == []
