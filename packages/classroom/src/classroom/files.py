"""The files a class run grades: a folder's answers files (one level down too), or the files named, each once.

An LMS's bulk download is a folder of files, or a folder per student (Moodle). Every
entry whose name holds ``.toml`` is an answers file; every other entry is kept too
(``others``), so that a student who handed in only a ``.docx`` still gets a row that
says so, and the review queue lists what was not graded. A zip is refused with the
command that unzips it: its members are read once unpacked, as the LMS named them.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from predict_check import GradingError, quoted, visible

SUFFIX = ".toml"  # a folder stands for the entries in it whose names hold this, in any case
SKIPPED = ("__MACOSX",)  # what an archive made on a Mac holds beside the files: no student's


class FilesError(GradingError):
    """Something named on the command line that cannot be graded as it is: it says what to do instead."""

    boundary = "files"


@dataclass(frozen=True)
class Source:
    """A file to grade, and how the class knows it: its path inside the folder given, or as it was named."""

    path: Path
    label: str

    @property
    def answers(self) -> bool:
        """Whether its name makes it an answers file."""
        return SUFFIX in PurePosixPath(self.label).name.casefold()


@dataclass(frozen=True)
class Found:
    """The answers files, each once and in order; the folders' other entries; words on what was passed over."""

    sources: list[Source]
    passed_over: list[str]
    folders: list[Path] = field(default_factory=list)
    others: list[Source] = field(default_factory=list)

    @property
    def paths(self) -> list[Path]:
        return [source.path for source in self.sources]


def answer_files(sources: Iterable[str | Path]) -> Found:
    """The files to grade: a folder stands for the entries in it whose names hold ``.toml`` (any case), in name order.

    A folder named on the command line is read even through a link (the user named it);
    inside it, each real folder is read one level down, and a link is graded as an entry
    (and refused as a link). Any other path stands for itself; one that does not exist is
    kept, so that its row can say so. An entry is graded once however often it is named
    (a hard link counts as the same file). A zip archive is refused: unzip it first.
    """
    found = Found([], [])
    seen: dict[tuple[int, int], Path] = {}
    for given in sources:
        source = Path(given)
        if is_folder(source, follow=True):
            found.folders.append(source)
            entries = _folder_entries(source, found)
        else:
            _refuse_an_archive(source)
            entries = [Source(source, label_of(source, None, str(given)))]
        for entry in entries:
            identity = file_identity(entry.path)
            if identity in seen:
                found.passed_over.append(
                    f"{visible(str(entry.path))} is {visible(str(seen[identity]))} again; graded once"
                )
                continue
            if identity is not None:
                seen[identity] = entry.path
            found.sources.append(entry)
    return found


def _refuse_an_archive(path: Path) -> None:
    try:
        with path.open("rb") as file:
            zipped = file.read(4) == b"PK\x03\x04"
    except OSError:
        return
    if zipped or path.suffix.casefold() == ".zip":
        name = visible(str(path))
        raise FilesError(f"{name} is a zip archive; unzip it first (unzip {name} -d submissions) and grade the folder")


def _folder_entries(folder: Path, found: Found) -> list[Source]:
    """The answers files in a folder and, one level down, in each folder in it; the other entries into ``found``."""
    entries: list[Source] = []
    for path in _listed(folder, found):
        inner = [path]
        if is_folder(path, follow=False):
            inner = _listed(path, found)
            if not any(SUFFIX in entry.name.casefold() for entry in inner):
                found.passed_over.append(
                    f"{visible(str(path))} holds no answers file (*{SUFFIX}); nothing in it was graded"
                )
        entries += [Source(entry, label_of(entry, folder, "")) for entry in inner]
    others = [entry for entry in entries if not entry.answers]
    if others:
        found.others.extend(others)
        found.passed_over.append(
            f"{visible(str(folder))}: {len(others)} entr{'y' if len(others) == 1 else 'ies'} whose name holds "
            f"no {SUFFIX}, such as {quoted(others[0].label)}, passed over"
        )
    return [entry for entry in entries if entry.answers]


def _listed(folder: Path, found: Found) -> list[Path]:
    try:
        listed = sorted(folder.iterdir())
    except OSError as error:
        found.passed_over.append(f"cannot list {visible(str(folder))}: {error.strerror}; nothing in it was graded")
        return []
    return [path for path in listed if path.name not in SKIPPED and not path.name.startswith("._")]


def is_folder(path: Path, follow: bool) -> bool:
    """A folder; through a link only when ``follow`` (a folder the user named, not an entry inside one)."""
    try:
        return stat.S_ISDIR((path.stat() if follow else path.lstat()).st_mode)
    except (OSError, RuntimeError):
        return False


def file_identity(path: Path, follow: bool = False) -> tuple[int, int] | None:
    """The device and inode of ``path`` (a link itself unless ``follow``), or None where it cannot be looked at."""
    try:
        status = path.stat() if follow else path.lstat()
    except (OSError, RuntimeError):  # absent, unreachable, or a loop of links
        return None
    return status.st_dev, status.st_ino


def label_of(path: Path, folder: Path | None, given: str) -> str:
    """A file as the class knows it: its path inside the folder given, or the path as given on the command line."""
    if folder is not None:
        return path.relative_to(folder).as_posix()
    return PurePosixPath(given).as_posix() if not Path(given).is_absolute() else path.name
