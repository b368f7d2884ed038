"""The chapter's exercises: one module per page, named after it, declaring its boxes in the order the page asks them.

The chapter asks them in the book's order: the pages' modules are read in the order of
``_toc.yml``, so adding a page adds no list to keep. ``Prediction("id")`` is a box on a
page; ``check("id", answer)`` judges an answer in any Python session.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from predict_check import Box
from predict_check.verdicts import checker

from .course import COURSE

ROOT = Path(__file__).resolve().parents[3]  # the course's folder: the book beside the package's source
TABLE_OF_CONTENTS = ROOT / "_toc.yml"
SHARED = {"course"}  # modules here that are no page's


def book_pages() -> list[Path]:
    """The book's pages in reading order, as ``_toc.yml`` lists them; none where the book is not beside the package."""
    try:
        listed = re.findall(r"^\s*-?\s*(?:root|file):\s*(\S+)", TABLE_OF_CONTENTS.read_text(encoding="utf-8"), re.M)
    except OSError:
        return []
    return [ROOT / f"{page.removesuffix('.md')}.md" for page in listed]


def pages() -> list[str]:
    """The modules of the pages with boxes, in the book's order (by name where the book is not beside the package)."""
    modules = sorted(info.name for info in pkgutil.iter_modules(__path__) if info.name not in SHARED)
    order = [page.stem.replace("-", "_") for page in book_pages()]
    return sorted(modules, key=lambda name: order.index(name) if name in order else len(order))


for _page in pages():
    importlib.import_module(f"{__name__}.{_page}")

check = checker(COURSE)


def Prediction(exercise_id: str, gate: bool = True) -> Box:
    """The box of the exercise ``exercise_id``: a widget in Jupyter, a kernel-free form in the book."""
    return Box(COURSE.get(exercise_id), gate)


__all__ = ["COURSE", "Prediction", "book_pages", "check", "pages"]
