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
from collections.abc import Container
from dataclasses import dataclass, field, replace
from pathlib import Path

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


def read_bytes(path: Path) -> bytes:
    """The file's bytes: a regular file of at most ``MAX_BYTES``.

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
            f"{name} is {_size(size)}, more than the {_size(MAX_BYTES)} the grader reads of an answers file; {EXPECTED}"
        )
    return data


@dataclass(frozen=True)
class Decoded:
    """A file's text, and the encoding it was read in when that was not plain UTF-8 (for a note)."""

    text: str
    encoding: str | None = None


UTF16_SHARE = 0.4  # of the byte pairs in a file whose one byte is 0: UTF-16 text of the ASCII an answers file holds


def decode(data: bytes, path: Path) -> Decoded:
    """Text in the encodings editors save in: UTF-8 (with or without a byte-order mark), UTF-16, Windows-1252.

    UTF-16 is known by its byte-order mark, or without one by the zero byte beside each
    ASCII character, on the side where most zero bytes are (a character such as 一 or Ā
    has a zero byte on the other). Bytes that are not UTF-8 are read as Windows-1252 (the Western
    encoding of Windows editors), where every byte but five is a character; a file that
    is none of these is refused with the first byte that is not text.
    """
    name = visible(str(path))
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    utf16 = _utf16(data)
    if utf16 is not None:
        try:
            return Decoded(data.decode(utf16).removeprefix("\ufeff"), "UTF-16")
        except UnicodeDecodeError:
            raise AnswersFileError(
                f"{name} begins as UTF-16 text but is not: expected a TOML file saved as UTF-8"
            ) from None
    try:
        return Decoded(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        first = error.start
    try:
        return Decoded(data.decode("cp1252"), "Windows-1252")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, first) + 1
        raise AnswersFileError(
            f"{name} is not text: byte 0x{data[first]:02x} on line {line} is not UTF-8, and byte "
            f"0x{data[error.start]:02x} is no character in Windows-1252 either; expected a TOML file saved as UTF-8"
        ) from None


def _utf16(data: bytes) -> str | None:
    """The codec of UTF-16 text, by its byte-order mark or by zero bytes on one side of most pairs; else None."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    pairs = len(data) // 2
    if pairs == 0 or len(data) % 2:
        return None
    low, high = data[1::2].count(0), data[0::2].count(0)  # zero high bytes of little-endian pairs, of big-endian
    if max(low, high) < UTF16_SHARE * pairs or low == high:
        return None
    return "utf-16-le" if low > high else "utf-16-be"


def _within_limits(text: str, name: str) -> None:
    """Refuse a text nested deeper, or with longer dotted keys, than the parser may be handed."""
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


def key_occurrences(text: str) -> list[tuple[str, int]]:
    """Each line (from 1) that starts with a key or a table header, with that key, in order.

    Lines inside a multi-line string are text, not keys, however they look.
    """
    inside = _scan(text).inside
    found = []
    for index, line in enumerate(text.split("\n")):  # TOML's lines end at a line feed only
        match = _KEY.match(line)
        if match and index not in inside:
            found.append((next(group for group in match.groups() if group is not None), index + 1))
    return found


@dataclass(frozen=True)
class _Lines:
    """What one scan of a text's tokens tells of each line (from 0): strings it is inside, brackets it leaves open."""

    inside: frozenset[int]  # the lines that begin inside a multi-line string
    brackets: tuple[int, ...]  # per line, the brackets it opens less those it closes, outside strings and comments


def _scan(text: str) -> _Lines:
    """Each line's shape, in one linear pass of the scanner that ``nesting`` uses."""
    inside: set[int] = set()
    brackets = [0] * (text.count("\n") + 1)
    line = end = 0
    for token in _TOKEN.finditer(text):
        line += text.count("\n", end, token.start())
        end = token.end()
        kind = token.lastgroup
        if kind in ("open", "close"):
            brackets[line] += 1 if kind == "open" else -1
        elif kind == "string" and "\n" in token.group():
            spanned = token.group().count("\n")
            inside.update(range(line + 1, line + spanned + 1))
            line += spanned
    return _Lines(frozenset(inside), tuple(brackets))


def key_lines(text: str) -> dict[str, int]:
    """The line (from 1) where each top-level key or table first appears, for messages."""
    lines: dict[str, int] = {}
    for key, number in key_occurrences(text):
        lines.setdefault(key, number)
    return lines


# --- a file that is not quite TOML, read as far as it can be -----------------------------------

# Typographic quotes (a word processor's) and the no-break space, as TOML needs them.
STRAIGHT = str.maketrans(
    {
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\uff02": '"',
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\uff07": "'",
        "\u00a0": " ",
    }
)
LONGEST_ANSWER_LINES = 100  # a value spread over more lines than this is not an answer
SUGGESTED = 120  # characters of a suggested line shown back
HEADER_FIX = "a table's name stands alone in brackets, like [first-tries]"
QUOTES_NOTE = "typographic quotes (\u201c \u201d \u2018 \u2019) were read as straight quotes"
LOST = "\0"  # the table of lines under a header that could not be read: they belong to no table that can be
_NAME = r"""(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')"""
_DOTTED = rf"{_NAME}(?:\s*\.\s*{_NAME})*"
_STATEMENT = re.compile(rf"^\s*{_DOTTED}\s*=")  # a line that begins an answer: key =
_HEADER = re.compile(rf"^\s*\[\[?\s*{_DOTTED}\s*\]\]?\s*(?:#.*)?$")  # a line that is a table's header
_PAIR = re.compile(r"""[ \t]*([A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')[ \t]*=(.*)""", re.S)  # the value: .strip() it
_SIMPLE_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_SPACED = re.compile(r"""[ \t]*([A-Za-z0-9_-]+)[ \t]+(\S.*)""", re.S)
_PARSE_ERRORS = (tomllib.TOMLDecodeError, ValueError, RecursionError)


@dataclass(frozen=True)
class BadLine:
    """A line (or lines) that could not be read, what to change, and the line as it could be written.

    ``suggestion`` is made from the student's own text: it is shown only as text.
    """

    line: int
    last: int
    key: str | None  # the key the line gives, where one can be read
    table: str | None  # the table it stands in (None at the top of the file, LOST under an unreadable header)
    fix: str
    suggestion: str | None = None
    text: str = ""  # the lines as the file writes them (the student's text: shown only as text)

    @property
    def lines(self) -> str:
        return f"line {self.line}" if self.last == self.line else f"lines {self.line} to {self.last}"


@dataclass(frozen=True)
class Contents:
    """What a file gives: its data, the line of each key, each value as written, and what could not be read.

    ``notes`` say how the file was read where that was not plain TOML in UTF-8 (its
    encoding, straightened quotes); they take nothing from the grade.
    """

    data: dict[str, object]
    lines: dict[str, int]
    written: dict[tuple[str | None, str], str]  # (table, key) -> the value as the file writes it
    bad: tuple[BadLine, ...] = ()
    notes: tuple[str, ...] = ()


def read_answers(path: Path, wanted: Container[str] = ()) -> Contents:
    """A file read as far as it can be: whole when it is TOML, else statement by statement; refused only past a limit.

    ``wanted`` are the keys whose values are kept as written (the exercises' ids).
    """
    decoded = decode(read_bytes(path), path)
    notes = (f"saved as {decoded.encoding}, and read so",) if decoded.encoding else ()
    return contents(decoded.text, path, notes, wanted)


def contents(text: str, path: Path, notes: tuple[str, ...] = (), wanted: Container[str] = ()) -> Contents:
    """``text`` as TOML; failing that with its quotes straightened; failing that, each statement on its own.

    Lines may end as any editor ends them (a line feed, a carriage return, or both): they are read alike.
    """
    text = re.sub(r"\r\n?", "\n", text)
    _within_limits(text, visible(str(path)))
    for attempt, note in ((text, ()), (text.translate(STRAIGHT), (QUOTES_NOTE,))):
        if note and attempt == text:
            continue
        try:
            data = tomllib.loads(attempt)
        except _PARSE_ERRORS:
            continue
        return Contents(data, key_lines(attempt), _read(attempt, wanted).written, (), notes + note)
    read = _read(text, wanted)
    note = (QUOTES_NOTE,) if read.straightened else ()
    return Contents(read.data, key_lines(text), read.written, tuple(read.bad), notes + note)


def _read(text: str, wanted: Container[str]) -> _Statements:
    """Each header and statement of ``text`` parsed on its own, in order: what the file gives as far as it can."""
    lines = text.split("\n")
    shape = _scan(text)
    read = _Statements(wanted)
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if not line or line.startswith("#"):
            i += 1
        elif line.startswith("["):  # where a statement may begin, a bracket begins a table's header
            read.header(lines[i], i + 1)
            i += 1
        else:
            end = _statement_end(lines, shape, i)
            if not read.statement("\n".join(lines[i:end]), i + 1):
                end = _next_start(lines, end)
                last = max(k for k in range(i, end) if lines[k].strip() and not lines[k].lstrip().startswith("#"))
                bad = _bad(lines[i], i + 1, last + 1, read.name, wanted)
                read.bad.append(replace(bad, text="\n".join(lines[i : last + 1])))
            i = end
    twice = {(bad.table, bad.key) for bad in read.bad if bad.key is not None and bad.fix.startswith("given twice")}
    for table_key in twice:
        read.written.pop(table_key, None)
    return read


def _statement_end(lines: list[str], shape: _Lines, first: int) -> int:
    """The line after a statement that begins on ``first``: the first line it ends outside a string with its
    brackets closed, or, with a bracket left open, the last before a line that begins another; at most
    ``LONGEST_ANSWER_LINES`` lines."""
    depth = 0
    for line in range(first, min(len(lines), first + LONGEST_ANSWER_LINES)):
        depth = max(0, depth + shape.brackets[line])
        after = line + 1
        if after not in shape.inside and (depth == 0 or after == len(lines) or _starts(lines[after])):
            return after
    return min(len(lines), first + LONGEST_ANSWER_LINES)


def _next_start(lines: list[str], end: int) -> int:
    """The first line from ``end`` that begins a statement or a table (the lines before it go with a bad one)."""
    while end < len(lines) and not _starts(lines[end]):
        end += 1
    return end


def _starts(line: str) -> bool:
    """Whether a line begins a statement or a table (else it may continue the one before)."""
    return bool(_STATEMENT.match(line) or _STATEMENT.match(line.translate(STRAIGHT)) or _HEADER.match(line))


@dataclass
class _Statements:
    """What a file's statements give, read one at a time: its data, its wanted values as written, its bad lines.

    Each statement is parsed by the standard parser on its own, and put in the table its
    header names. A key given twice is read neither time: the second line is listed.
    """

    wanted: Container[str]
    data: dict[str, object] = field(default_factory=dict)
    written: dict[tuple[str | None, str], str] = field(default_factory=dict)
    bad: list[BadLine] = field(default_factory=list)
    straightened: bool = False
    table: dict[str, object] | None = None  # where the statements now go (None: under a header that was refused)
    name: str | None = None  # that table's name, as messages and ``written`` give it
    place: tuple[str | int, ...] = ()  # that table's place in the data (an array's tables by number)
    seen: dict[tuple[str | int, ...], int] = field(default_factory=dict)  # each key's place -> the line giving it

    def __post_init__(self) -> None:
        self.table = self.data

    def parsed(self, text: str) -> dict[str, object] | None:
        """``text`` parsed by the standard parser, its quotes straightened if need be; None if it cannot be."""
        for attempt in (text, text.translate(STRAIGHT)):
            try:
                data = tomllib.loads(attempt)
            except _PARSE_ERRORS:
                continue
            self.straightened |= attempt != text
            return data
        return None

    def statement(self, text: str, number: int) -> bool:
        """Read one statement into the table it stands in; False if it cannot be parsed."""
        parsed = self.parsed(text)
        if parsed is None:
            return False
        for key, value in parsed.items() if self.table is not None else ():  # one key (a dotted one gives a table)
            place = (*self.place, key)
            if key in self.table or place in self.seen:  # a key given again, after twice, is still given twice
                self.bad.append(_twice(self.name, key, self.seen.get(place, number), number))
                self.table.pop(key, None)
                continue
            self.seen[place] = number
            self.table[key] = value
            if key in self.wanted:
                self.written[(self.name, key)] = _as_written(text, value)
        return True

    def header(self, text: str, number: int) -> None:
        """Go into the table a header names (``[a]``, ``[a.b]``, ``[[a]]``), made where it is new."""
        parsed = self.parsed(text)
        path, array = _header_path(parsed) if parsed is not None else ((), False)
        if not path:
            self.bad.append(BadLine(number, number, None, self.name, HEADER_FIX))
            self._lose()
            return
        table, place = self.data, ()
        for depth, key in enumerate(path):
            place = (*place, key)
            found = self._into(table, key, place, number, array if depth == len(path) - 1 else None)
            if found is None:
                self.bad.append(_twice(".".join(path[:depth]) or None, key, self.seen.get(place, number), number))
                self._lose()
                return
            if isinstance(found, list):  # an array of tables: its last one
                place, found = (*place, len(found) - 1), found[-1]
            table = found
        self.table, self.name, self.place = table, ".".join(path), place

    def _into(self, parent: dict, key: str, place: tuple, number: int, array: bool | None) -> dict | list | None:
        """The table (or array of tables) ``key`` names in ``parent``, made if new; None where it cannot be one.

        ``array`` is None on the way to a header's last key; there, whether the header adds an array's table.
        """
        value = parent.get(key)
        if value is None and place not in self.seen:
            value = parent[key] = [{}] if array else {}
        elif not self._opens(value, place, array):
            if not isinstance(value, (dict, list)):
                parent.pop(key, None)  # a value given twice is read neither time
            return None
        elif array:
            value.append({})
        if array is not None:
            self.seen.setdefault(place, number)
        return value

    def _opens(self, value: object, place: tuple, array: bool | None) -> bool:
        """Whether a header may go into a ``value`` already there: a table, or an array of tables, not given before."""
        tables = isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)
        if array is None:
            return tables or isinstance(value, dict)
        return tables if array else isinstance(value, dict) and place not in self.seen

    def _lose(self) -> None:
        self.table, self.name, self.place = None, LOST, ()


def _header_path(parsed: dict[str, object]) -> tuple[tuple[str, ...], bool]:
    """The keys a header names, and whether it is an array's table: ``[[a.b]]`` parses as {a: {b: [{}]}}."""
    path: list[str] = []
    node: object = parsed
    while isinstance(node, dict) and len(node) == 1:
        ((key, node),) = node.items()
        path.append(key)
        if isinstance(node, list) and node == [{}]:
            return tuple(path), True
        if node == {}:
            return tuple(path), False
    return (), False


def _unquoted(key: str) -> str:
    return key[1:-1] if key[:1] in "\"'" else key


def _twice(table: str | None, key: str, first: int, again: int) -> BadLine:
    return BadLine(again, again, key, table, f"given twice, on lines {first} and {again}; keep one of them")


def _bad(line: str, number: int, end: int, table: str | None, wanted: Container[str] = ()) -> BadLine:
    """A statement that cannot be read, with what to change in plain words and, where it is clear, the line fixed.

    A line that begins with a wanted key (an exercise's id) and no "=" is told to add one.
    """
    line = line.translate(STRAIGHT)
    pair = _PAIR.match(line)
    if pair is None:
        return _no_pair(line, number, end, table, wanted)
    key, value = _unquoted(pair.group(1)), pair.group(2).strip()
    control = next((char for char in value if not char.isprintable() and char != "\t"), None)
    if control is not None:
        fix = f"the answer holds a control character, {visible(control)}, that no one can type; delete it"
    elif not value:
        fix = 'write your answer after "=", or "" to leave it blank'
        return BadLine(number, end, key, table, fix, f'{pair.group(1)} = ""')
    elif value[0] in "\"'" and (len(value) == 1 or value[-1] != value[0]):
        fix = f"close the quote: put a straight {value[0]} at the end of the answer"
        return BadLine(number, end, key, table, fix, _suggest(pair.group(1), value[1:]))
    elif value[0] == '"':
        fix = "a backslash in double quotes starts an escape; write the answer in single quotes"
        return BadLine(number, end, key, table, fix, _suggest(pair.group(1), value[1:-1], "'"))
    elif value[0] == "[" and value.count("[") > value.count("]"):
        fix = "close the list: put ] at the end of the answer"
        return BadLine(number, end, key, table, fix, f"{pair.group(1)} = {value}]")
    elif re.fullmatch(r"[+-]?[0-9]+,[0-9]+", value):
        fix = "write a point for decimals, not a comma"
        return BadLine(number, end, key, table, fix, f"{pair.group(1)} = {value.replace(',', '.')}")
    elif re.fullmatch(r"[A-Za-z][A-Za-z .)]*", value):
        fix = "put letters in straight quotes"
    elif re.fullmatch(r"[+-]?[0-9]{4300,}", value):
        fix = "a whole number this long cannot be read; put it in straight quotes"
    else:
        fix = "put the answer in straight quotes"
    return BadLine(number, end, key, table, fix, _suggest(pair.group(1), value) if control is None else None)


def _no_pair(line: str, number: int, end: int, table: str | None, wanted: Container[str]) -> BadLine:
    """A line with no ``key =``: an exercise's id and an answer with no "=" between, or no answer at all."""
    spaced = _SPACED.match(line)
    if spaced and "=" not in line and spaced.group(1) in wanted:
        key, value = spaced.group(1), spaced.group(2).strip()
        return BadLine(number, end, key, table, 'write "=" between the exercise and your answer', _suggest(key, value))
    return BadLine(number, end, None, table, "this line is neither an answer (exercise = answer) nor a note; "
                   "start a note with #")  # fmt: skip


def _suggest(key: str, value: str, quote: str = '"') -> str:
    """``key = "value"``: the student's value in quotes (single ones where it holds a double), cut if long."""
    if quote == '"' and '"' in value and "'" not in value:
        quote = "'"
    value = value if len(value) <= SUGGESTED else value[:SUGGESTED] + "…"
    return f"{key} = {quote}{value}{quote}"


def _as_written(statement: str, value: object) -> str:
    """A value as the student wrote it: text as the text itself, else the value's source when it is on one line.

    ``1.00`` stays ``1.00`` and ``3`` stays ``3`` (the parser would give 1.0 and 3);
    what cannot be found as written is shown as the parser gives it.
    """
    if isinstance(value, str):
        return value
    pair = _PAIR.match(statement.split("\n")[0])
    if pair is not None and "\n" not in statement:
        source = pair.group(2)
        comment = next((t for t in _TOKEN.finditer(source) if t.lastgroup == "comment"), None)
        source = (source[: comment.start()] if comment else source).strip()
        if _SIMPLE_NUMBER.fullmatch(source) and not isinstance(value, bool) and isinstance(value, (int, float)):
            return source if float(source) == value else _shown(value)  # 1.00 and 3 as written, no parse
        try:
            if tomllib.loads(f"v = {source}")["v"] == value:
                return source
        except (tomllib.TOMLDecodeError, ValueError, RecursionError):
            pass
    return _shown(value)


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_shown(item) for item in value[:64]) + (", …]" if len(value) > 64 else "]")
    if isinstance(value, str):
        return value
    return f"a {type(value).__name__}"


def _size(nbytes: int) -> str:
    """A file's size as a person reads it: ``393 KiB``, ``5 MiB``."""
    return f"{nbytes / 2**20:g} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:g} KiB"
