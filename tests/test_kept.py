"""What the studies keep: computed once between processes, read back whole, never trusted over its sources."""

from __future__ import annotations

import dataclasses
import multiprocessing

import numpy as np
import pytest

from rmsnorm_course.studies import kept


@dataclasses.dataclass(frozen=True)
class Pair:
    first: np.ndarray
    second: np.ndarray


class Counted:
    def __init__(self):
        self.calls = 0

    def __call__(self) -> Pair:
        self.calls += 1
        return Pair(np.array([self.calls]), np.array(["a", "b"]))


def keep(compute, parts=("question",)) -> Pair:
    return kept.record("test", [__name__], parts, compute, Pair)


def test_a_kept_value_is_computed_once_then_read(tmp_path, monkeypatch):
    monkeypatch.setenv(kept.VARIABLE, str(tmp_path))
    compute = Counted()
    first, again = keep(compute), keep(compute)
    assert compute.calls == 1 and again.first.tolist() == first.first.tolist() == [1]
    assert again.second.tolist() == ["a", "b"]
    keep(compute, ("another question",))
    assert compute.calls == 2


@pytest.mark.parametrize("setting", ["off", ""])
def test_off_or_empty_keeps_nothing(tmp_path, monkeypatch, setting):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(kept.VARIABLE, setting)
    compute = Counted()
    keep(compute), keep(compute)
    assert compute.calls == 2 and list(tmp_path.iterdir()) == []


def test_a_damaged_kept_file_is_computed_again(tmp_path, monkeypatch):
    monkeypatch.setenv(kept.VARIABLE, str(tmp_path))
    compute = Counted()
    keep(compute, ("damaged",))
    (stored,) = tmp_path.glob("test-*.npz")
    stored.write_bytes(b"PK\x03\x04 not a whole file")
    kept._read.cache_clear()
    assert keep(compute, ("damaged",)).first.tolist() == [2]


def _compute_in(folder: str, barrier, results) -> None:
    import os

    os.environ[kept.VARIABLE] = folder
    calls = []
    barrier.wait()
    kept.arrays("shared", [__name__], ["both"], lambda: calls.append(1) or {"x": np.arange(3)})
    results.put(len(calls))


def test_two_processes_side_by_side_compute_once_between_them(tmp_path):
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_compute_in, args=(str(tmp_path), barrier, results)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert sorted(results.get(timeout=10) for _ in workers) == [0, 1]
