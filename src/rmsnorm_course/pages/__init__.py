"""What each page of the chapter prints, computed in one call per page, with the guards that keep it true.

A page's hidden set-up is one line, ``page = <module>.values()``; its prose reads the
fields with ``{eval}``. Every sentence that interprets a measurement is chosen or
checked here (``holds``), so a build whose numbers do not support a sentence stops
with the sentence named, instead of printing it.
"""

from __future__ import annotations


class UnsupportedClaim(AssertionError):
    """A sentence a page would print that this build's numbers do not support."""


def holds(condition: object, claim: str) -> None:
    """Stop the build where a page's sentence ``claim`` is not what the numbers show."""
    if not condition:
        raise UnsupportedClaim(f"the page would say {claim!r}, which this build's numbers do not support")
