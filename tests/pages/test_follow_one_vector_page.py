"""The follow-one-vector page: the mistakes a learner makes on x-hat's mean square are named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rmsnorm_course import check

PAGE = (Path(__file__).resolve().parents[2] / "book" / "follow-one-vector.md").read_text(encoding="utf-8")
X, EPS = np.array([0.006, 0.008]), 1e-5
X_HAT = X / np.sqrt(np.mean(X**2) + EPS)


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (np.sum(X_HAT**2), "without dividing by d"),
        (np.mean(X**2), "mean square of x itself"),
        (1.0, "eps = 0 ideal"),
    ],
)
def test_the_plateau_value_s_slips_are_named(answer, named):
    verdict = check("plateau-value", f"{answer:.6g}")
    assert verdict.outcome.value == "wrong" and named in verdict.message, verdict.message
