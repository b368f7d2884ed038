"""The chapter's first page: the worked example it starts from."""

from __future__ import annotations

from types import SimpleNamespace

from ...core.format import fmt
from .. import example
from ..example import EPS


def values() -> SimpleNamespace:
    return SimpleNamespace(x=fmt(example.INPUT), g=fmt(example.GAIN), eps=f"{EPS:g}")
