"""Text that came from a student (a file's name, a key, an answer) as every output shows it.

Whatever it holds, such text is shown as text: on one line, every control character
(line breaks, escapes a terminal would act on, direction overrides, zero-width marks)
written out as a visible escape; in Markdown, inside a code span, where neither
Markdown, MyST roles and substitutions, dollar math, links nor HTML are read; in HTML,
escaped (by the templates' autoescape); in a CSV cell, never as the start of a formula; and in a file name, never at
all (``slug`` keeps a fixed alphabet of ASCII letters, digits and hyphens).

Messages the package composes around such text (``quoted`` and ``visible`` inside)
are already safe to show; ``one_line`` shows them without escaping their backslashes
a second time.
"""

from __future__ import annotations

import re
import unicodedata

SHOWN = 60  # characters of a long text that a message quotes
SLUG = 40  # characters of a file name made from a student's name


def visible(text: str) -> str:
    """``text`` on one line, every character that is not plainly printable escaped: ``\\n``, ``\\x1b``, ``\\u202e``.

    A backslash is escaped too (``\\\\``), so that two different texts never look the same:
    a name holding a line break shows as ``a\\nb``, one holding a backslash and an n as ``a\\\\nb``.
    Text that Unicode would write otherwise when composed (NFC) shows its combining marks
    escaped, so ``José`` typed as e and an accent (``Jose\\u0301``) never looks like ``José``.
    """
    decomposed = not unicodedata.is_normalized("NFC", text)
    return "".join(
        "\\\\"
        if char == "\\"
        else repr(char)[1:-1]
        if not char.isprintable()
        else f"\\u{ord(char):04x}"
        if decomposed and unicodedata.combining(char)
        else char
        for char in text
    )


def one_line(text: str) -> str:
    """A message already made of visible text, kept on one line: any character still unprintable is escaped.

    Backslashes are left as they are, so a message that quotes ``'\\x01'`` shows it so,
    not as ``'\\\\x01'``.
    """
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def quoted(text: str) -> str:
    """Text in a message: visible, in quotes, cut after ``SHOWN`` characters with its length."""
    if len(text) <= SHOWN:
        return f"'{visible(text)}'"
    return f"'{visible(text[:SHOWN])}'… ({len(text)} characters)"


def code_span(text: str, composed: bool = False) -> str:
    """Visible text as a Markdown code span, fenced by more backticks than it holds in a row.

    ``composed`` text is a message already made visible (``one_line`` instead of ``visible``).
    """
    shown = one_line(text) if composed else visible(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", shown)), default=0) + 1)
    return f"{fence} {shown} {fence}"


def csv_cell(text: str, composed: bool = False) -> str:
    """Visible text for a spreadsheet: a cell that begins like a formula gets a leading apostrophe."""
    shown = one_line(text) if composed else visible(text)
    return "'" + shown if shown[:1] in ("=", "+", "-", "@", "\t", "\r") else shown


def slug(text: str, longest: int = SLUG) -> str:
    """A part of a file name made from ``text``: lower-case ASCII letters, digits and single hyphens.

    Letters with accents lose them (``José`` is ``jose``); everything else separates
    words. The result may be empty (a name in another script): a caller adds what
    makes the name unique.
    """
    ascii_only = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_only)[:longest].strip("-")
