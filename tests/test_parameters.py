"""Named parameters and the decay policy: an optimizer decision, kept apart from the formula."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course.core.errors import ParameterNameError
from rmsnorm_course.core.parameters import NamedParameter, adamw_parameter_groups, check_name

GAIN = "decoder.block.0.attention_norm.gain"
WEIGHT = "decoder.block.0.attention.query.weight"


def params():
    return [NamedParameter(WEIGHT, np.ones((4, 4))), NamedParameter(GAIN, np.ones(4))]


def test_default_policy_leaves_the_norm_gain_undecayed():
    groups = adamw_parameter_groups(params())
    assert groups.decay == (WEIGHT,)
    assert groups.no_decay == (GAIN,)


def test_explicit_no_decay_names():
    groups = adamw_parameter_groups(params(), no_decay=[WEIGHT])
    assert groups.decay == (GAIN,) and groups.no_decay == (WEIGHT,)


def test_repeated_parameter_names_are_rejected():
    with pytest.raises(ParameterNameError, match="appears twice"):
        adamw_parameter_groups([NamedParameter(GAIN, [1.0]), NamedParameter(GAIN, [2.0])])


def test_repeated_no_decay_names_are_rejected():
    with pytest.raises(ParameterNameError, match="appears twice"):
        adamw_parameter_groups(params(), no_decay=[GAIN, GAIN])


def test_unknown_no_decay_names_are_rejected():
    with pytest.raises(ParameterNameError, match=r"\['decoder.block.0.ffn_norm.gain'\] are not among"):
        adamw_parameter_groups(params(), no_decay=["decoder.block.0.ffn_norm.gain"])


@pytest.mark.parametrize("name", ["", "a..b", "0abc.x", "gain ", "a.b-c", 3])
def test_invalid_names(name):
    with pytest.raises(ParameterNameError, match="expected dot-separated identifiers"):
        check_name(name)


def test_parameter_owns_a_copy():
    source = np.array([1.0, 2.0])
    parameter = NamedParameter(GAIN, source)
    parameter.value[0] = 5.0
    assert source[0] == 1.0
