"""The courses installed here: each registers its ``Course`` under the entry point group ``predict_check.courses``.

A course's distribution names it in its metadata (``pyproject.toml``):

    [project.entry-points."predict_check.courses"]
    my-course = "my_course.exercises:COURSE"

so that tools that serve or grade any course (the class grader, the Sphinx extension, the
template command) find it by name (``load_course``), without importing it by hand.
"""

from __future__ import annotations

from importlib import metadata

from .errors import GradingError
from .exercises import GROUP, Course
from .untrusted import quoted


def load_course(name: str | None = None) -> Course:
    """The course named ``name``, or the one course installed when no name is given."""
    entries = {entry.name: entry for entry in metadata.entry_points(group=GROUP)}
    if name is None and len(entries) == 1:
        (name,) = entries
    if name not in entries:
        known = ", ".join(sorted(entries)) or "none is installed"
        asked = "no course was named" if name is None else f"there is no course {quoted(name)}"
        raise GradingError(f"{asked}; expected one of the installed courses: {known}")
    course = entries[name].load()
    if not isinstance(course, Course):
        raise GradingError(f"the course {quoted(name)} names {type(course).__name__}, not a Course")
    return course
