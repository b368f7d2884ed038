"""The history page opens with what it will show and ends with what to remember."""

from __future__ import annotations

from pathlib import Path

PAGE = (Path(__file__).resolve().parents[2] / "book" / "history.md").read_text(encoding="utf-8")


def test_the_page_opens_by_saying_what_it_will_show():
    opening = PAGE.split("```", 2)[2].split("##")[0]  # the prose after the hidden set-up cell
    assert "This page" in opening
