"""Follow one feature vector: the worked example, stage by stage."""

from __future__ import annotations

from types import SimpleNamespace

from ...core.format import fmt
from .. import evidence


def values() -> SimpleNamespace:
    primary = evidence.primary()
    return SimpleNamespace(primary=primary, x=fmt(primary.x), y=fmt(primary.forward.output))
