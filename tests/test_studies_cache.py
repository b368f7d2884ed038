"""What the studies cache: computed once between processes, read back whole, never trusted over its sources."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os

import numpy as np
import pytest

from blocking import within
from predict_check.errors import CacheWarning
from rmsnorm_course.studies import cache


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


def cached(compute, parts=("question",)) -> Pair:
    return cache.record("test", parts, compute, Pair)


def test_a_cached_value_is_computed_once_then_read(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.VARIABLE, str(tmp_path))
    compute = Counted()
    first, again = cached(compute), cached(compute)
    assert compute.calls == 1 and again.first.tolist() == first.first.tolist() == [1]
    assert again.second.tolist() == ["a", "b"]
    cached(compute, ("another question",))
    assert compute.calls == 2


@pytest.mark.parametrize("setting", ["off", ""])
def test_off_or_empty_caches_nothing(tmp_path, monkeypatch, setting):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(cache.VARIABLE, setting)
    compute = Counted()
    cached(compute), cached(compute)
    assert compute.calls == 2 and list(tmp_path.iterdir()) == []


def test_a_damaged_cached_file_is_said_and_computed_again(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.VARIABLE, str(tmp_path))
    compute = Counted()
    cached(compute, ("damaged",))
    (stored,) = tmp_path.glob("test-*.npz")
    stored.write_bytes(b"PK\x03\x04 not a whole file")
    cache._read.cache_clear()
    with pytest.warns(CacheWarning, match=str(stored)):
        assert cached(compute, ("damaged",)).first.tolist() == [2]


def test_a_file_written_by_anyone_else_is_said_and_computed_again(tmp_path, monkeypatch):
    """Anyone who can write the cache folder, but not read this user's files, runs the same code with their values."""
    monkeypatch.setenv(cache.VARIABLE, str(tmp_path / "cache"))
    compute = Counted()
    cached(compute)
    with monkeypatch.context() as theirs:
        for variable, folder in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"), (cache.VARIABLE, "cache")):
            theirs.setenv(variable, str(tmp_path / "theirs" / folder))
        cached(lambda: Pair(np.array([-1]), np.array(["FORGED"])))
    ((mine,), (theirs,)) = (list((tmp_path / where).glob("test-*.npz")) for where in ("cache", "theirs/cache"))
    mine.write_bytes(theirs.read_bytes())
    cache._read.cache_clear()
    with pytest.warns(CacheWarning, match=str(mine)):
        again = cached(compute)
    assert again.second.tolist() == ["a", "b"] and compute.calls == 2


def test_a_fifo_in_place_of_a_cached_file_is_said_and_not_waited_for(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.VARIABLE, str(tmp_path))
    compute = Counted()
    cached(compute)
    (stored,) = tmp_path.glob("test-*.npz")
    stored.unlink()
    os.mkfifo(stored)
    cache._read.cache_clear()
    with pytest.warns(CacheWarning, match="not a regular file"):
        assert within(5, lambda: cached(compute), stored).first.tolist() == [2]


def _compute_in(folder: str, barrier, results) -> None:
    import os

    os.environ[cache.VARIABLE] = folder
    calls = []
    barrier.wait()
    cache.arrays("shared", ["both"], lambda: calls.append(1) or {"x": np.arange(3)})
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
