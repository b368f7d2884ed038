"""Text that came from a student (a file's name, a key, an answer) as every output shows it.

Whatever it holds, such text is shown as text: on one line, every control character
(line breaks, escapes a terminal would act on, direction overrides, zero-width marks)
written out as a visible escape; in Markdown, inside a code span, where neither
Markdown, MyST roles and substitutions, dollar math, links nor HTML are read; and in a
CSV cell, never as the start of a formula.
"""

from __future__ import annotations

import re

SHOWN = 60  # characters of a long text that a message quotes


def visible(text: str) -> str:
    """``text`` on one line, every character that is not plainly printable escaped: ``\\n``, ``\\x1b``, ``\\u202e``.

    A backslash is escaped too (``\\\\``), so that two different texts never look the same:
    a name holding a line break shows as ``a\\nb``, one holding a backslash and an n as ``a\\\\nb``.
    """
    return "".join("\\\\" if char == "\\" else char if char.isprintable() else repr(char)[1:-1] for char in text)


def quoted(text: str) -> str:
    """Text in a message: visible, in quotes, cut after ``SHOWN`` characters with its length."""
    if len(text) <= SHOWN:
        return f"'{visible(text)}'"
    return f"'{visible(text[:SHOWN])}'… ({len(text)} characters)"


def code_span(text: str) -> str:
    """Visible text as a Markdown code span, fenced by more backticks than it holds in a row."""
    shown = visible(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", shown)), default=0) + 1)
    return f"{fence} {shown} {fence}"


def csv_cell(text: str) -> str:
    """Visible text for a spreadsheet: a cell that begins like a formula gets a leading apostrophe."""
    shown = visible(text)
    return "'" + shown if shown[:1] in ("=", "+", "-", "@") else shown
