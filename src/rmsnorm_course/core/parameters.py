"""Named parameters and the AdamW decay policy.

Which parameters get weight decay is the optimizer's business, not the formula's:
RMSNorm only owns a gain called, say, ``decoder.block.0.attention_norm.gain``.
A stable name is what lets an optimizer policy find that gain and leave it undecayed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .errors import ParameterNameError

_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")


def check_name(name: str) -> str:
    """A parameter name is dot-separated identifiers or indices: ``decoder.block.0.attention_norm.gain``."""
    if not isinstance(name, str) or not all(_SEGMENT.fullmatch(part) for part in name.split(".")):
        raise ParameterNameError(
            f"parameter name {name!r} is not valid; expected dot-separated identifiers or indices, "
            "like 'decoder.block.0.attention_norm.gain'"
        )
    return name


@dataclass(frozen=True)
class NamedParameter:
    """A trainable array with a stable name. The array is the parameter's own copy."""

    name: str
    value: np.ndarray

    def __init__(self, name: str, value: npt.ArrayLike):
        object.__setattr__(self, "name", check_name(name))
        object.__setattr__(self, "value", np.array(value, dtype=np.float64))


@dataclass(frozen=True)
class ParameterGroups:
    """Parameter names split into the AdamW weight-decay set and the no-decay set."""

    decay: tuple[str, ...]
    no_decay: tuple[str, ...]


def adamw_parameter_groups(
    parameters: Iterable[NamedParameter], no_decay: Iterable[str] | None = None
) -> ParameterGroups:
    """Split named parameters into decay and no-decay sets.

    With ``no_decay=None`` the usual policy applies: parameters of rank one or less
    (normalization gains, biases) are not decayed, matrices are. Passing names chooses
    the no-decay set explicitly. Unknown or repeated names are rejected.
    """
    parameters = list(parameters)
    names = [parameter.name for parameter in parameters]
    _reject_repeats(names, "parameter")
    if no_decay is None:
        excluded = [parameter.name for parameter in parameters if parameter.value.ndim <= 1]
    else:
        excluded = [check_name(name) for name in no_decay]
        _reject_repeats(excluded, "no-decay")
        unknown = sorted(set(excluded) - set(names))
        if unknown:
            raise ParameterNameError(
                f"no-decay names {unknown} are not among the parameters; expected names from {sorted(names)}"
            )
    excluded_set = set(excluded)
    return ParameterGroups(
        decay=tuple(name for name in names if name not in excluded_set),
        no_decay=tuple(name for name in names if name in excluded_set),
    )


def _reject_repeats(names: list[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ParameterNameError(f"{what} name {name!r} appears twice; expected each name once")
        seen.add(name)
