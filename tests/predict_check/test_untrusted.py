"""Text from a student as every output shows it: one line, nothing a terminal, Markdown or a spreadsheet acts on."""

from __future__ import annotations

import pytest

from predict_check.untrusted import SHOWN, code_span, csv_cell, one_line, quoted, slug, visible


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("alice.toml", "alice.toml"),
        ("bob\nscore.toml", "bob\\nscore.toml"),
        ("\x1b[2Jred", "\\x1b[2Jred"),
        ("abc\u202edef", "abc\\u202edef"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("back\\slash", "back\\\\slash"),
    ],
)
def test_visible_text_is_one_line_with_every_control_written_out(text, shown):
    assert visible(text) == shown


def test_two_different_names_never_look_the_same():
    with_a_line_break, with_a_backslash_and_n = "col\nx.toml", "col\\nx.toml"
    assert visible(with_a_line_break) != visible(with_a_backslash_and_n)


def test_a_quoted_text_is_cut_after_the_shown_characters_with_its_length():
    assert quoted("<b>\x1b") == "'<b>\\x1b'"
    long = "x" * (SHOWN + 40)
    assert quoted(long) == f"'{'x' * SHOWN}'… ({SHOWN + 40} characters)"


def test_a_code_span_is_fenced_by_more_backticks_than_the_text_holds_in_a_row():
    assert code_span("a ``b`` c") == "``` a ``b`` c ```"
    assert code_span("plain") == "` plain `"


@pytest.mark.parametrize("formula", ["=1+1", "+1", "-1", "@SUM(A1)"])
def test_a_cell_never_starts_a_formula(formula):
    assert csv_cell(formula) == "'" + formula
    assert csv_cell("alice.toml") == "alice.toml"


def test_a_name_written_composed_and_decomposed_never_looks_the_same():
    composed, decomposed = "Jos\u00e9", "Jose\u0301"
    assert visible(composed) == "Jos\u00e9" and visible(decomposed) == "Jose\\u0301"
    assert visible("\u0928\u092e\u0938\u094d\u0924\u0947") == "\u0928\u092e\u0938\u094d\u0924\u0947"  # NFC marks stay


def test_a_message_already_made_visible_keeps_its_escapes_as_they_are():
    message = f"there is no exercise {quoted(chr(1))}"
    assert one_line(message) == "there is no exercise '\\x01'"
    assert code_span(message, composed=True) == "` there is no exercise '\\x01' `"
    assert csv_cell(message, composed=True) == "there is no exercise '\\x01'"


@pytest.mark.parametrize(
    ("name", "made"),
    [
        ("Jos\u00e9 Garc\u00eda", "jose-garcia"),
        ('a" onmouseover="alert(1)" x="', "a-onmouseover-alert-1-x"),
        ("b';alert(2);'", "b-alert-2"),
        ("\U0001f600" * 61 + "\\" * 6, ""),
        ("../../etc/passwd", "etc-passwd"),
        ("x" * 300, "x" * 40),
    ],
)
def test_a_slug_keeps_a_fixed_alphabet_and_a_bounded_length(name, made):
    assert slug(name) == made
