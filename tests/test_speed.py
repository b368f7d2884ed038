"""The kernel's speed, held to a saved baseline as ratios, not times: a busy machine slows both sides of each.

``cost.kernel_ratios`` times the kernel beside a copy, the formula or its own forward,
in interleaved rounds. ``make bench`` prints the same ratios beside the baseline
(benchmarks/baseline.json) and beside earlier commits' kernels; ``make baseline``
writes them afresh on a new machine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rmsnorm_course.studies import cost

BASELINE = Path(__file__).resolve().parents[1] / "benchmarks" / "baseline.json"
TOLERANCE = 0.25  # a ratio may grow this much over its baseline before the test calls it a regression
TRIES = 5  # a ratio counts as worse only if it is worse every time: a burst of load is not a regression


@pytest.mark.speed
def test_no_speed_ratio_grows_more_than_a_quarter_over_its_baseline():
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    best: dict[str, float] = {}
    for _ in range(TRIES):
        for name, ratio in cost.kernel_ratios().items():
            best[name] = min(best.get(name, ratio.median), ratio.median)
        worse = {name: ratio for name, ratio in best.items() if ratio > (1 + TOLERANCE) * baseline[name]}
        if not worse:
            break
    assert best.keys() == baseline.keys()
    assert not worse, "slower than the baseline allows: " + "; ".join(
        f"{name}: {ratio:.2f}, baseline {baseline[name]:.2f}" for name, ratio in worse.items()
    )
