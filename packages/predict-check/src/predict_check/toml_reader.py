"""An answers file read as TOML data, the way students type it: whatever the file holds, it ends in data or one message.

The file is opened for reading only and parsed by the standard parser as data: nothing in it is run or written.
First the text is bounded: at most ``MAX_BYTES``; brackets nested at most ``MAX_DEPTH`` deep and dotted keys of at
most ``MAX_DEPTH`` parts (the parser recurses once per bracket, and spends time that grows with the square of a
dotted key's parts), measured by one scan that knows TOML's strings and comments. A file that is not quite TOML is
read statement by statement, each parsed on its own at most twice (as typed, then with its quotes straightened):
every statement that can be read is kept, a one-line answer typed without its quotes (``letter = B``) is read as
the same text in quotes, and every other statement is listed with what to change. Every refusal is an
``AnswersFileError`` that says what was wrong and what was expected.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path

from .errors import AnswersFileError
from .reading import CHARACTERS, DECIMAL_COMMA, QUOTES
from .untrusted import visible

MAX_BYTES = 256 * 1024
MAX_DEPTH = 16
EXPECTED = 'expected one answer per line, like  mean-square = 0.5  or  id = ""'
UTF16_SHARE = 0.4  # of the byte pairs whose one byte is 0: UTF-16 text of the ASCII an answers file holds
LONGEST_ANSWER_LINES = 100  # a value spread over more lines than this is not an answer
SUGGESTED = 120  # characters of a suggested line shown back
LOST = "\0"  # the table of lines under a header that could not be read: they belong to no table that can be
HEADER_FIX = "a table's name stands alone in brackets, like [first-tries]"
QUOTES_NOTE = "typographic quotes (\u201c \u201d \u2018 \u2019) were read as straight quotes"
# A word processor's quotes (and primes) and the no-break space, as TOML needs them: as the answers read them.
STRAIGHT = str.maketrans({typed: plain for typed, plain in CHARACTERS.items() if plain in QUOTES} | {"\u00a0": " "})
_TOKEN = re.compile(
    r'''(?P<string>"""(?:\\.|[^\\])*?(?:"{3,5}|\Z)'''  # a multi-line string may end in two quotes of its own
    r"""|'''.*?(?:'{3,5}|\Z)|"(?:\\[^\n]|[^"\\\n])*"?|'[^'\n]*'?)"""  # an unclosed string ends with its line
    r"""|(?P<comment>\#[^\n]*)|(?P<open>[\[{])|(?P<close>[\]}])|(?P<dot>\.)|(?P<word>[A-Za-z0-9_-]+)""",
    re.S,
)
_NAME = r"""(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')"""
_DOTTED = rf"{_NAME}(?:\s*\.\s*{_NAME})*"
_STARTS = re.compile(rf"\s*{_DOTTED}\s*=|\s*\[\[?\s*{_DOTTED}\s*\]\]?\s*(?:#.*)?$")  # key = ..., or a table's header
_KEY = re.compile(r"""\s*(?:\[+\s*)?(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*[=\].]""")  # the key a line gives
_PAIR = re.compile(rf"[ \t]*({_NAME})[ \t]*=(.*)", re.S)  # one key (not dotted) and its value
_SPACED = re.compile(r"[ \t]*([A-Za-z0-9_-]+)[ \t]+(\S.*)", re.S)  # a key and a value with no "=" between
_PARSE_ERRORS = (ValueError, RecursionError)  # the parser's own error is a ValueError, as is a number too long


def read_bytes(path: Path) -> bytes:
    """A regular file's bytes; a symbolic link is refused, not followed (no way to have the grader read another)."""
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


def decode(data: bytes, path: Path) -> Decoded:
    """Text in the encodings editors save in: UTF-8 (with or without a byte-order mark), UTF-16, Windows-1252.

    UTF-16 is known by its byte-order mark, or without one by the zero byte beside each ASCII character, on the side
    where most zero bytes are (一 or Ā has its zero byte on the other). Bytes that are not UTF-8 are read as
    Windows-1252, where every byte but five is a character; a file that is none of these is refused.
    """
    data, name = data.removeprefix(b"\xef\xbb\xbf"), visible(str(path))
    low, high = data[1::2].count(0), data[0::2].count(0)  # the zero high bytes of little-endian pairs, of big-endian
    codec = "utf-16" if data.startswith((b"\xff\xfe", b"\xfe\xff")) else None
    if not codec and data and len(data) % 2 == 0 and max(low, high) >= UTF16_SHARE * len(data) / 2 and low != high:
        codec = "utf-16-le" if low > high else "utf-16-be"
    try:
        return Decoded(data.decode(codec).removeprefix("\ufeff"), "UTF-16") if codec else Decoded(data.decode())
    except UnicodeDecodeError as error:
        if codec:
            raise AnswersFileError(
                f"{name} begins as UTF-16 text but is not: expected a TOML file saved as UTF-8"
            ) from None
        first, line = error.start, data.count(b"\n", 0, error.start) + 1
    try:
        return Decoded(data.decode("cp1252"), "Windows-1252")
    except UnicodeDecodeError as error:
        raise AnswersFileError(
            f"{name} is not text: byte 0x{data[first]:02x} on line {line} is not UTF-8, and byte "
            f"0x{data[error.start]:02x} is no character in Windows-1252 either; expected a TOML file saved as UTF-8"
        ) from None


@dataclass(frozen=True)
class Nesting:
    """How a text nests outside strings and comments: its deepest brackets (arrays ``[``, inline tables ``{``), its
    longest dotted key (``a.b.c`` has three parts), and each line's shape, which tells where a statement ends."""

    depth: int = 0
    line: int = 0  # where the brackets are first that deep
    what: str = ""  # "arrays", "inline tables" or "arrays and inline tables", open at the deepest point
    key_parts: int = 0
    key_line: int = 0
    brackets: tuple[int, ...] = ()  # per line (from 0), the brackets it opens less those it closes
    inside: frozenset[int] = frozenset()  # the lines (from 0) that begin inside a multi-line string


def nesting(text: str) -> Nesting:
    """The text's nesting and its lines' shape, in one linear pass over its tokens."""
    opened: list[str] = []
    brackets, inside = [0] * (text.count("\n") + 1), set()
    braces = parts = line = end = 0
    deepest, longest, after_dot = (0, 0, ""), (0, 0), False
    for token in _TOKEN.finditer(text):
        kind, start = token.lastgroup, token.start()
        joined = not text[end:start].strip(" \t")  # nothing but blanks since the last token
        line += text.count("\n", end, start)
        end = token.end()
        if kind in ("word", "string"):
            parts = parts + 1 if after_dot and joined else 1
            after_dot = False
            longest = max(longest, (parts, line + 1), key=lambda found: found[0])  # the first of the longest
            spanned = token.group().count("\n")
            inside.update(range(line + 1, line + spanned + 1))
            line += spanned
            continue
        after_dot = kind == "dot" and joined and parts > 0 and not after_dot
        parts = parts if after_dot else 0
        if kind == "open":
            opened.append(token.group())
            braces += token.group() == "{"
            brackets[line] += 1
            what = "arrays" if not braces else "inline tables" if braces == len(opened) else "arrays and inline tables"
            deepest = max(deepest, (len(opened), line + 1, what), key=lambda found: found[0])
        elif kind == "close":
            braces -= bool(opened) and opened.pop() == "{"
            brackets[line] -= 1
    return Nesting(*deepest, *longest, tuple(brackets), frozenset(inside))


@dataclass(frozen=True)
class BadLine:
    """A statement that could not be read: its lines, what to change, and the line as it could be written.

    ``suggestion`` and ``text`` (the lines as the file writes them) are the student's own text: shown only as text.
    """

    line: int
    last: int
    key: str | None  # the key the line gives, where one can be read
    table: str | None  # the table it stands in (None at the top of the file, LOST under an unreadable header)
    fix: str
    suggestion: str | None = None
    text: str = ""

    @property
    def lines(self) -> str:
        return f"line {self.line}" if self.last == self.line else f"lines {self.line} to {self.last}"


@dataclass(frozen=True)
class Contents:
    """What a file gives: its data, the line of each key, each wanted value as written, and what could not be read.

    ``notes`` say how the file was read where that was not plain TOML in UTF-8; they take nothing from the grade.
    """

    data: dict[str, object]
    lines: dict[str, int]
    written: dict[tuple[str | None, str], str]  # (table, key) -> the value as the file writes it
    bad: tuple[BadLine, ...] = ()
    notes: tuple[str, ...] = ()
    unquoted: tuple[int, ...] = ()  # the lines (from 1) whose answer was read as text typed without its quotes


def read_answers(path: Path, wanted: Container[str] = ()) -> Contents:
    """A file read as far as it can be; ``wanted`` are the keys whose values are kept as written (the exercises')."""
    decoded = decode(read_bytes(path), path)
    notes = (f"saved as {decoded.encoding}, and read so",) if decoded.encoding else ()
    return contents(decoded.text, path, notes, wanted)


def contents(text: str, path: Path, notes: tuple[str, ...] = (), wanted: Container[str] = ()) -> Contents:
    """``text`` as TOML, as typed or with its quotes straightened; failing both, statement by statement.

    Lines may end as any editor ends them (a line feed, a carriage return, or both): they are read alike.
    """
    text, name = re.sub(r"\r\n?", "\n", text), visible(str(path))
    shape = nesting(text)
    if shape.depth > MAX_DEPTH:
        raise AnswersFileError(
            f"{name} nests {shape.what} {shape.depth} deep (line {shape.line}); "
            f"the grader reads at most {MAX_DEPTH} levels; {EXPECTED}"
        )
    if shape.key_parts > MAX_DEPTH:
        raise AnswersFileError(
            f"{name} has a dotted key of {shape.key_parts} parts (line {shape.key_line}); "
            f"the grader reads keys of at most {MAX_DEPTH}; {EXPECTED}"
        )
    read = _Statements(wanted).read(text, shape)
    for attempt in dict.fromkeys((text, text.translate(STRAIGHT))):  # each different text once
        try:
            data = tomllib.loads(attempt)
        except _PARSE_ERRORS:
            continue
        return Contents(data, read.lines, read.written, (), notes + (QUOTES_NOTE,) * (attempt != text))
    straightened = notes + (QUOTES_NOTE,) * read.straightened
    return Contents(read.data, read.lines, read.written, tuple(read.bad), straightened, tuple(read.unquoted))


@dataclass
class _Statements:
    """A text read one statement at a time: its data, the line of each key, its wanted values as written, its bad lines.

    Each statement is parsed on its own and put in the table its header names. A key given twice is read neither
    time, and its second line is listed.
    """

    wanted: Container[str]
    data: dict[str, object] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # the line (from 1) where each key or table first appears
    written: dict[tuple[str | None, str], str] = field(default_factory=dict)
    bad: list[BadLine] = field(default_factory=list)
    straightened: bool = False
    unquoted: list[int] = field(default_factory=list)  # the lines read as text typed without its quotes
    table: dict[str, object] | None = None  # where the statements now go (None: under a header that was refused)
    name: str | None = None  # that table's name, as messages and ``written`` give it
    place: tuple[str | int, ...] = ()  # that table's place in the data (an array's tables by number)
    seen: dict[tuple[str | int, ...], int] = field(default_factory=dict)  # each key's place -> the line giving it

    def read(self, text: str, shape: Nesting) -> _Statements:
        lines, self.table, first = text.split("\n"), self.data, 0  # TOML's lines end at a line feed only
        while first < len(lines):
            line = lines[first].strip()
            key = _KEY.match(lines[first])
            if key:
                self.lines.setdefault(next(group for group in key.groups() if group is not None), first + 1)
            if not line or line.startswith("#"):
                first += 1
            elif line.startswith("["):  # where a statement may begin, a bracket begins a table's header
                self.header(lines[first], first + 1)
                first += 1
            else:
                first = self.statement(lines, first, _statement_end(lines, shape, first))
        return self

    def parsed(self, text: str) -> dict[str, object] | None:
        """``text`` parsed by the standard parser, its quotes straightened if need be; None if it cannot be."""
        for attempt in dict.fromkeys((text, text.translate(STRAIGHT))):
            try:
                data = tomllib.loads(attempt)
            except _PARSE_ERRORS:
                continue
            self.straightened |= attempt != text
            return data
        return None

    def statement(self, lines: list[str], first: int, end: int) -> int:
        """Read the statement on lines ``first`` to ``end`` (from 0) into its table; the line after it."""
        text, number = "\n".join(lines[first:end]), first + 1
        parsed = self.parsed(text)
        if parsed is None and (parsed := _bare(text)) is not None:
            self.unquoted.append(number)
        if parsed is None:  # the lines up to one that begins a statement or a table go with it
            while end < len(lines) and not _starts(lines[end]):
                end += 1
            last = max(k for k in range(first, end) if lines[k].strip() and not lines[k].lstrip().startswith("#"))
            text = "\n".join(lines[first : last + 1])
            self.bad.append(BadLine(number, last + 1, *_fix(lines[first], self.name, self.wanted), text))
            return end
        for key, value in parsed.items() if self.table is not None else ():  # one key (a dotted one gives a table)
            place = (*self.place, key)
            if key in self.table or place in self.seen:  # a key given again, after twice, is still given twice
                self.twice(self.name, key, place, number)
                self.table.pop(key, None)
                continue
            self.seen[place] = number
            self.table[key] = value
            if key in self.wanted:
                self.written[(self.name, key)] = _as_written(text, value)
        return end

    def header(self, text: str, number: int) -> None:
        """Go into the table a header names (``[a]``, ``[a.b]``, ``[[a]]``), made where it is new."""
        path, array = _header_path(self.parsed(text))
        if not path:
            self.bad.append(BadLine(number, number, None, self.name, HEADER_FIX))
        table, place = self.data, ()
        for depth, key in enumerate(path):
            place, last = (*place, key), depth == len(path) - 1
            found = self._into(table, key, place, array if last else None)
            if found is None:
                self.twice(".".join(path[:depth]) or None, key, place, number)
                path = ()
                break
            if last:
                self.seen.setdefault(place, number)
            if isinstance(found, list):  # an array of tables: its last one
                place, found = (*place, len(found) - 1), found[-1]
            table = found
        self.table, self.name, self.place = (table, ".".join(path), place) if path else (None, LOST, ())

    def _into(self, parent: dict, key: str, place: tuple, array: bool | None) -> dict | list | None:
        """The table (or array of tables) ``key`` names in ``parent``, made if new; None where it cannot be one.

        ``array`` is None on the way to a header's last key, where a table or an array of tables opens; at the last
        key, an array's header adds a table to an array of tables, and a table's header opens a table not given before.
        """
        value = parent.get(key)
        tables = isinstance(value, list) and bool(value) and isinstance(value[-1], dict)
        table = isinstance(value, dict)
        opens = {None: tables or table, True: tables, False: table and place not in self.seen}
        if value is None and place not in self.seen:
            parent[key] = [{}] if array else {}
        elif not opens[array]:
            if not isinstance(value, (dict, list)):
                parent.pop(key, None)  # a value given twice is read neither time
            return None
        elif array:
            value.append({})
        return parent[key]

    def twice(self, table: str | None, key: str, place: tuple, again: int) -> None:
        """A key or a table given again: its line is listed, and its value as written dropped."""
        fix = f"given twice, on lines {self.seen.get(place, again)} and {again}; keep one of them"
        self.bad.append(BadLine(again, again, key, table, fix))
        self.written.pop((table, key), None)


def _bare(statement: str) -> dict[str, str] | None:
    """A one-line answer typed without its quotes (``eps-near-zero = B``, ``reciprocal-rms = 0,28``) as the text it
    would be in quotes, so that quoting changes nothing; None for a value TOML's own marks begin (a quote, a list, a
    table), one that holds a control character, or a key that is not one name.
    """
    pair = _PAIR.fullmatch(statement.translate(STRAIGHT))
    if pair is None or "\n" in statement:
        return None
    written, value = pair.group(1), pair.group(2).partition(" #")[0].strip()
    if not value or value[0] in "\"'[{#" or not value.isprintable() or re.fullmatch(r"[+-]?[0-9]{4300,}", value):
        return None  # (a whole number too long for the parser is told so)
    return {written[1:-1] if written[0] in QUOTES else written: value}


def _statement_end(lines: list[str], shape: Nesting, first: int) -> int:
    """The line after a statement that begins on ``first``: the first it ends on outside a string with its brackets
    closed, or, with a bracket left open, the last before a line that begins another; at most ``LONGEST_ANSWER_LINES``.
    """
    depth = 0
    for line in range(first, min(len(lines), first + LONGEST_ANSWER_LINES)):
        depth = max(0, depth + shape.brackets[line])
        after = line + 1
        if after not in shape.inside and (depth == 0 or after == len(lines) or _starts(lines[after])):
            return after
    return min(len(lines), first + LONGEST_ANSWER_LINES)


def _starts(line: str) -> bool:
    """Whether a line begins a statement or a table (else it may continue the one before)."""
    return bool(_STARTS.match(line) or _STARTS.match(line.translate(STRAIGHT)))


def _header_path(parsed: dict[str, object] | None) -> tuple[tuple[str, ...], bool]:
    """The keys a header names, and whether it adds an array's table: ``[[a.b]]`` parses as {a: {b: [{}]}}."""
    path: list[str] = []
    node: object = parsed
    while isinstance(node, dict) and len(node) == 1:
        ((key, node),) = node.items()
        path.append(key)
        if node in ({}, [{}]):
            return tuple(path), node == [{}]
    return (), False


def _fix(line: str, table: str | None, wanted: Container[str]) -> tuple[str | None, str | None, str, str | None]:
    """A statement that cannot be read: the key it gives (where one can be read), its table, what to change in plain
    words and, where it is clear, the line fixed. A wanted key (an exercise's id) and no "=" is told to add one."""
    line = line.translate(STRAIGHT)
    pair, spaced = _PAIR.match(line), _SPACED.match(line)
    if pair is None and spaced and "=" not in line and spaced.group(1) in wanted:
        key, value = spaced.group(1), spaced.group(2).strip()
        return key, table, 'write "=" between the exercise and your answer', _suggest(key, value)
    if pair is None:
        return None, table, "this line is neither an answer (exercise = answer) nor a note; start a note with #", None
    written, value = pair.group(1), pair.group(2).strip()
    key = written[1:-1] if written[0] in "\"'" else written
    control = next((char for char in value if not char.isprintable() and char != "\t"), None)
    if control is not None:
        fix = f"the answer holds a control character, {visible(control)}, that no one can type; delete it"
        return key, table, fix, None
    return key, table, *_value_fix(written, value)


def _value_fix(key: str, value: str) -> tuple[str, str]:
    """What to change in a value that cannot be read, and its line as it could be written."""
    if not value:
        return 'write your answer after "=", or "" to leave it blank', f'{key} = ""'
    if value[0] in "\"'" and (len(value) == 1 or value[-1] != value[0]):
        return f"close the quote: put a straight {value[0]} at the end of the answer", _suggest(key, value[1:])
    if value[0] == '"':
        fix = "a backslash in double quotes starts an escape; write the answer in single quotes"
        return fix, _suggest(key, value[1:-1], "'")
    if value[0] == "[" and value.count("[") > value.count("]"):
        return "close the list: put ] at the end of the answer", f"{key} = {value}]"
    if re.fullmatch(DECIMAL_COMMA, value):  # 0,28, as the answers read it
        return "write a point for decimals, not a comma", f"{key} = {value.replace(',', '.')}"
    if value[0] == "[" and re.search(r"[0-9],[0-9]", value):  # [0,85; 1,13]
        pointed = re.sub(r"([0-9]),([0-9])", r"\1.\2", value).replace(";", ",")
        return "write a point for decimals and a comma between numbers", f"{key} = {pointed}"
    if re.fullmatch(r"[A-Za-z][A-Za-z .)]*", value):
        return "put letters in straight quotes", _suggest(key, value)
    if re.fullmatch(r"[+-]?[0-9]{4300,}", value):
        return "a whole number this long cannot be read; put it in straight quotes", _suggest(key, value)
    return "put the answer in straight quotes", _suggest(key, value)


def _suggest(key: str, value: str, quote: str = '"') -> str:
    """``key = "value"``: the student's value in quotes (single ones where it holds a double), cut if long."""
    quote = "'" if quote == '"' and '"' in value and "'" not in value else quote
    return f"{key} = {quote}{value if len(value) <= SUGGESTED else value[:SUGGESTED] + '…'}{quote}"


def _as_written(statement: str, value: object) -> str:
    """A value as the student wrote it: text as the text itself, else its source without comments, on one line.

    ``1.00`` stays ``1.00`` and ``3`` stays ``3`` (the parser would give 1.0 and 3).
    """
    pair = _PAIR.match(statement)
    if isinstance(value, str) or pair is None:
        return value if isinstance(value, str) else f"a {type(value).__name__}"
    source = _TOKEN.sub(lambda token: "" if token.lastgroup == "comment" else token.group(), pair.group(2))
    return re.sub(r"\s*\n\s*", " ", source).strip()


def _size(nbytes: int) -> str:
    """A file's size as a person reads it: ``393 KiB``, ``5 MiB``."""
    return f"{nbytes / 2**20:g} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:g} KiB"
