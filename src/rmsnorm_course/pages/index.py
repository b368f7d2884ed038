"""The chapter's first page: the worked example it starts from."""

from __future__ import annotations

from types import SimpleNamespace

from ..core.format import given
from ..studies import example
from ..studies.example import EPS


def values() -> SimpleNamespace:
    return SimpleNamespace(x=given(example.INPUT), g=given(example.GAIN), eps=f"{EPS:g}")
