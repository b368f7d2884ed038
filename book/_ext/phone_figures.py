"""Every figure on a phone: the package's second drawing, served beside the first.

The package draws each of the chapter's figures twice (``rmsnorm_course.views.figures``):
at page width, and for a phone, its panels stacked in one narrow column. A notebook keeps
the page-width drawing as its PNG, which the book writes to ``_images`` with the alt
text the page gives it; beside it, in the same output, is a ``<picture>`` holding both.
Here the PNG stays the figure's image, the phone's drawing becomes a file of its own in
``_images``, and the two are joined as ``<picture><source media=...><img></picture>``: a
narrow screen loads the phone's drawing, a wide one and print the page-width one.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.osutil import relative_uri

PICTURE = re.compile(
    r'^<picture class="rmsnorm-figure"><source media="(?P<media>[^"]+)" srcset="data:image/png;base64,(?P<png>[^"]+)">'
)


def _mime(bundle: nodes.Element, mime_type: str) -> nodes.Element | None:
    return next((child for child in bundle.children if child.get("mime_type") == mime_type), None)


class PhonePictures(SphinxPostTransform):
    """Join each figure's page-width image and its phone drawing, before a format picks one output."""

    default_priority = 3  # before myst-nb's SelectMimeType (4) picks one output of each bundle

    def run(self, **kwargs) -> None:
        builder = self.app.builder
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            image, page = _mime(bundle, "image/png"), _mime(bundle, "text/html")
            found = PICTURE.match(page.astext()) if image is not None and page is not None else None
            if found is None:
                continue
            bundle.remove(page)  # the image is the figure in every format
            if builder.format != "html":
                continue
            data = base64.b64decode(found["png"])
            name = f"{hashlib.sha256(data).hexdigest()}.png"
            images = Path(builder.outdir) / "_images"
            images.mkdir(parents=True, exist_ok=True)
            if not (images / name).exists():
                (images / name).write_bytes(data)
            source = relative_uri(builder.get_target_uri(self.env.docname), f"_images/{name}")
            opening = f'<picture class="rmsnorm-figure"><source media="{found["media"]}" srcset="{source}">'
            image.insert(0, nodes.raw("", opening, format="html"))
            image.append(nodes.raw("", "</picture>", format="html"))


def setup(app):
    app.add_post_transform(PhonePictures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
