"""Fixtures the unit tests share. Helpers that build inputs live in modules named for what they
build: hostile.py (hostile answer files), submissions.py (a generated class), leaks.py (the
forms an answer can be written in), highprecision.py (the exact reference), book_pages.py
(the pages in reading order)."""

from __future__ import annotations

import pytest


@pytest.fixture
def in_a_folder_of_its_own(tmp_path, monkeypatch):
    """Relative outputs (a gradebook, feedback pages) land in the test's own folder."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
