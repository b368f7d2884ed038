"""The timings: the stopwatch measures what it says, and the package's forward it times is the kernel's."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course.perf import kernel
from rmsnorm_course.perf import timings as cost


def test_arithmetic_intensity_counts_four_flops_over_a_read_and_a_write():
    assert cost.arithmetic_intensity(np.float32) == 4 / (4 + 4)
    assert cost.arithmetic_intensity(np.float64) == 4 / (8 + 8)


def test_median_seconds_interleaves_the_runs_and_times_them(monkeypatch):
    clock = [0.0]  # a clock that only the calls move, so no load on the machine can blur it
    monkeypatch.setattr(cost.time, "perf_counter", lambda: clock[0])
    calls = []

    def call(name, seconds):
        calls.append(name)
        clock[0] += seconds

    runs = {"a": lambda: call("a", 0.001), "b": lambda: call("b", 0.01)}
    times = cost.median_seconds(runs, repeats=3, warmup=1)
    assert calls == ["a", "b"] * 4
    assert times == {"a": pytest.approx(0.001), "b": pytest.approx(0.01)}


def test_the_package_s_forward_is_timed_as_the_kernel_s_into_out_and_not(monkeypatch):
    outs = []

    def recorded(x, gain=None, eps=kernel.DEFAULT_EPS, out=None):
        outs.append(out)
        return kernel.rms_norm_blocked(x, gain, eps, out)

    monkeypatch.setattr(cost, "rms_norm_blocked", recorded)
    cost.cost_timings(shape=(4, 8), repeats=1)
    assert any(out is None for out in outs) and any(isinstance(out, np.ndarray) for out in outs)


def test_cost_ratios_cover_both_formulas_in_both_directions():
    measured = cost.cost_timings(shape=(4, 8), repeats=1)
    for direction in (cost.FORWARD, cost.BACKWARD):
        ratios = {name: spread.median for name, spread in measured[direction].ratios(cost.COPY).items()}
        assert {"RMSNorm formula", "LayerNorm formula"} <= ratios.keys()
        assert all(np.isfinite(v) and v > 0 for v in ratios.values())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_size_sweep_times_every_contender_at_every_size(dtype, monkeypatch):
    monkeypatch.setattr(cost, "SAMPLE_BYTES", 4096)  # a few calls per sample, not a mebibyte's worth of them
    sweep = cost.size_sweep(dtype, sizes=(64, 1024, 4096), width=8, repeats=1)
    itemsize = np.dtype(dtype).itemsize
    np.testing.assert_array_equal(sweep.nbytes, [max(64, 8 * itemsize), 1024, 4096])  # at least one row
    np.testing.assert_array_equal(sweep.elements * itemsize, sweep.nbytes)
    assert list(sweep.seconds) == [cost.COPY, cost.INTO_OUT, cost.PACKAGE, cost.FORMULA]
    for spans in sweep.seconds.values():
        assert spans.shape == (3,) and np.all(spans > 0)


def test_the_chapter_sweeps_from_4_kib_to_32_mib():
    assert cost.SWEEP_BYTES[0] == 4 * 1024 and cost.SWEEP_BYTES[-1] == 32 * 1024 * 1024
    assert all(b > a for a, b in zip(cost.SWEEP_BYTES, cost.SWEEP_BYTES[1:]))


def test_median_seconds_divides_a_sample_of_many_calls_by_their_number(monkeypatch):
    clock = [0.0]  # a clock that only the calls move, 1 ms each, so no load on the machine can blur it
    monkeypatch.setattr(cost.time, "perf_counter", lambda: clock[0])
    calls = []

    def call():
        calls.append(None)
        clock[0] += 0.001

    times = cost.median_seconds({"a": call}, repeats=3, warmup=0, number=5)
    assert len(calls) == 15
    assert times["a"] == pytest.approx(0.001)


def test_size_sweep_derived_figures_follow_from_its_times():
    seconds = {
        cost.COPY: np.array([1.0, 1.0]),
        cost.PACKAGE: np.array([4.0, 2.0]),
        cost.FORMULA: np.array([2.0, 6.0]),
    }
    sweep = cost.SizeSweep(elements=np.array([256, 1024]), seconds=seconds)
    np.testing.assert_array_equal(sweep.speedup(cost.PACKAGE), [0.5, 3.0])
    np.testing.assert_array_equal(sweep.slower_than_formula(cost.PACKAGE), [1024])
    np.testing.assert_array_equal(sweep.nanoseconds_per_element(cost.COPY), [1e9 / 256, 1e9 / 1024])
