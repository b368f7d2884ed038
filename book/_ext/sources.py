"""Each link to a claim's source says, as its title, what was checked there.

The sources are the package's (``rmsnorm_course.studies.sources``): a page links the
address, and the build gives the link the entry's ``checked`` line, so a reader who
hovers sees what the sentence rests on. A test holds every sentence that names a
model, library or paper to one of these addresses.
"""

from __future__ import annotations

from docutils import nodes

from rmsnorm_course.studies.sources import BY_URL


def _title_sources(app, doctree, docname) -> None:
    for reference in doctree.findall(nodes.reference):
        source = BY_URL.get(reference.get("refuri", ""))
        if source is not None:
            reference["reftitle"] = f"Source: {source.checked}"


def setup(app):
    app.connect("doctree-resolved", _title_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
