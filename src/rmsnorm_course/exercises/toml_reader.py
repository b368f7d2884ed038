"""An answers file read as TOML data, with limits: whatever the file holds, the reader ends in data or one message.

The file is opened for reading only and parsed as data; nothing in it is run and
nothing is written. Before the parser sees it, the text is bounded: at most
``MAX_BYTES`` (the template is under 10 KiB) and arrays or inline tables nested at
most ``MAX_DEPTH`` deep (an answer needs one level). The standard parser recurses
once per level, so the nesting is measured first, by a scan that knows TOML's
strings and comments. Every refusal is an ``AnswersFileError`` that says what was
wrong and what was expected.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..core.format import binary_size
from .errors import AnswersFileError
from .untrusted import visible

MAX_BYTES = 256 * 1024
MAX_DEPTH = 16
EXPECTED = 'expected one answer per line, like  mean-square = 0.5  or  id = ""'

_KEY = re.compile(r"""^\s*(?:\[+\s*)?(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*[=\].]""")  # one way to match
_TOKEN = re.compile(
    r'''(?P<string>"""(?:\\.|[^\\])*?(?:"{3,5}|\Z)'''  # a multi-line string may end in two quotes of its own
    r"""|'''.*?(?:'{3,5}|\Z)"""
    r"""|"(?:\\[^\n]|[^"\\\n])*"?"""  # an unclosed string ends with its line, where the parser refuses it
    r"""|'[^'\n]*'?)"""
    r"""|(?P<comment>\#[^\n]*)"""
    r"""|(?P<open>[\[{])|(?P<close>[\]}])|(?P<dot>\.)|(?P<word>[A-Za-z0-9_-]+)""",
    re.S,
)
_AT_LINE = re.compile(r"at line (\d+)")


@dataclass(frozen=True)
class Nesting:
    """How deep a text nests: brackets (arrays ``[``, inline tables ``{``) and the parts of a dotted key.

    The parser recurses once per bracket, and spends time that grows with the square
    of a dotted key's parts (``a.b.c = 1`` has three); both are bounded before it runs.
    """

    depth: int = 0
    line: int = 0  # where the brackets are first that deep
    what: str = ""  # "arrays", "inline tables" or "arrays and inline tables", open at the deepest point
    key_parts: int = 0
    key_line: int = 0


def nesting(text: str) -> Nesting:
    """The deepest brackets and the longest dotted key outside strings and comments, in one linear pass."""
    opened: list[str] = []
    braces = deepest = at = 0
    what = ""
    parts = longest = key_at = end = 0
    after_dot = False
    for token in _TOKEN.finditer(text):
        kind, start = token.lastgroup, token.start()
        joined = not text[end:start].strip(" \t")  # nothing but blanks since the last token
        end = token.end()
        if kind in ("word", "string"):
            parts = parts + 1 if after_dot and joined else 1
            after_dot = False
            if parts > longest:
                longest, key_at = parts, start
            continue
        after_dot = kind == "dot" and joined and parts > 0 and not after_dot
        parts = parts if after_dot else 0
        if kind == "open":
            opened.append(token.group())
            braces += token.group() == "{"
            if len(opened) > deepest:
                deepest, at = len(opened), start
                what = "arrays" if not braces else "inline tables" if braces == deepest else "arrays and inline tables"
        elif kind == "close" and opened:
            braces -= opened.pop() == "{"

    def line(position: int) -> int:
        return text.count("\n", 0, position) + 1

    return Nesting(deepest, line(at) if deepest else 0, what, longest, line(key_at) if longest else 0)


def read_text(path: Path) -> str:
    """The file's text: a regular file of at most ``MAX_BYTES``, in UTF-8 (a leading byte-order mark is dropped).

    A symbolic link is refused, not followed: an answers file is a file of its own, not a
    way to have the grader read another (the solutions, or a file of the system's).
    """
    name = visible(str(path))
    try:
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            raise AnswersFileError(f"{name} is a symbolic link; expected an answers file of its own")
        if not stat.S_ISREG(mode):  # a folder, a device or a pipe (whose opening would wait for a writer)
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise AnswersFileError(f"{name} is {kind}; expected a TOML file")
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):  # swapped since it was looked at
                raise AnswersFileError(f"{name} is not a regular file; expected a TOML file")
            data = file.read(MAX_BYTES + 1)
            size = max(len(data), os.fstat(file.fileno()).st_size)
    except OSError as error:
        raise AnswersFileError(f"cannot open {name}: {error.strerror}; expected a readable TOML file") from None
    if len(data) > MAX_BYTES:
        raise AnswersFileError(
            f"{name} is {binary_size(size)}, more than the {binary_size(MAX_BYTES)} "
            f"the grader reads of an answers file; {EXPECTED}"
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise AnswersFileError(f"{name} is UTF-16 text; expected a TOML file saved as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise AnswersFileError(
            f"{name} is not UTF-8 text: byte 0x{data[error.start]:02x} on line {line} is not UTF-8; "
            "expected a TOML file saved as UTF-8"
        ) from None
    return text.removeprefix("\ufeff")


def parse(text: str, path: Path) -> dict[str, object]:
    """The TOML data in ``text``, once its nesting is known to be shallow enough to parse."""
    name = visible(str(path))
    deepest = nesting(text)
    if deepest.depth > MAX_DEPTH:
        raise AnswersFileError(
            f"{name} nests {deepest.what} {deepest.depth} deep (line {deepest.line}); "
            f"the grader reads at most {MAX_DEPTH} levels; {EXPECTED}"
        )
    if deepest.key_parts > MAX_DEPTH:
        raise AnswersFileError(
            f"{name} has a dotted key of {deepest.key_parts} parts (line {deepest.key_line}); "
            f"the grader reads keys of at most {MAX_DEPTH}; {EXPECTED}"
        )
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        said = _repeated(text, str(error), path) or f"{name} is not valid TOML: {error}; {EXPECTED}"
        raise AnswersFileError(said) from None
    except RecursionError:  # the scan above keeps this away; kept so that no file can end in a traceback
        raise AnswersFileError(f"{name} nests values too deep to read; {EXPECTED}") from None
    except ValueError as error:  # a whole number of more digits than Python converts, for one
        reason = str(error).split(";")[0]
        raise AnswersFileError(f"{name} is not valid TOML as the grader reads it: {reason}; {EXPECTED}") from None


def key_occurrences(text: str) -> list[tuple[str, int]]:
    """Each line (from 1) that starts with a key or a table header, with that key, in order.

    Lines inside a multi-line string are text, not keys, however they look.
    """
    inside = _lines_inside_strings(text)
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _KEY.match(line)
        if match and number not in inside:
            found.append((next(group for group in match.groups() if group is not None), number))
    return found


def _lines_inside_strings(text: str) -> set[int]:
    """The lines (from 1) that begin inside a multi-line string, in one pass of the scanner."""
    inside: set[int] = set()
    for token in _TOKEN.finditer(text):
        if token.lastgroup == "string" and "\n" in token.group():
            first = text.count("\n", 0, token.start()) + 1
            inside.update(range(first + 1, first + token.group().count("\n") + 1))
    return inside


def key_lines(text: str) -> dict[str, int]:
    """The line (from 1) where each top-level key or table first appears, for messages."""
    lines: dict[str, int] = {}
    for key, number in key_occurrences(text):
        lines.setdefault(key, number)
    return lines


def _repeated(text: str, error: str, path: Path) -> str | None:
    """The parser's "Cannot overwrite a value", said in words: which key is given twice, and on which lines."""
    if not error.startswith("Cannot"):
        return None
    at = _AT_LINE.search(error)
    first: dict[str, int] = {}
    for key, number in key_occurrences(text):
        if key in first and (at is None or int(at.group(1)) == number):
            return (
                f"{visible(str(path))}: {visible(key)} is given twice, on lines {first[key]} and {number}; "
                "expected each exercise once"
            )
        first.setdefault(key, number)
    return None
