"""The book's pages in reading order, from _toc.yml, and their modules' values: one reading for every test."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType, SimpleNamespace

import yaml

ROOT = Path(__file__).resolve().parent.parent
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
CHAPTER = [entry["file"] for entry in TOC.get("chapters", [])]  # every page after the first
PAGES = [TOC["root"], *CHAPTER]  # every page, the first included
TIMING = re.compile(r"^from \.\.perf(\.timings| import .*\btimings\b)", re.M)  # the study that times the kernels


def module(page: str) -> ModuleType:
    """The module of a page (``scale-and-epsilon`` or ``book/scale-and-epsilon``): ``pages/scale_and_epsilon.py``."""
    return importlib.import_module(f"rmsnorm_course.pages.{Path(page).name.replace('-', '_')}")


def arguments() -> dict[str, object]:
    """What a page's ``values`` is given, by the name of its parameter, as the page's notebook gives it."""
    from rmsnorm_course.pages import COURSE
    from rmsnorm_course.views.explorer import SCALE_MAX, SCALE_MIN

    return {"scale_min": SCALE_MIN, "scale_max": SCALE_MAX, "exercises": len(COURSE.exercises)}


def values(page: str) -> SimpleNamespace:
    """A page's values, computed by its module."""
    compute = module(page).values
    given = arguments()
    return compute(**{name: given[name] for name in inspect.signature(compute).parameters})


def timed(page: str) -> bool:
    """Whether a page's values are timings of this machine (its module reads the timing study)."""
    return bool(TIMING.search(inspect.getsource(module(page))))
