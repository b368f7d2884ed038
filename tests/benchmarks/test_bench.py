"""The benchmark's own parts: its memory probe, and earlier commits' kernels read from where they lived."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    """benchmarks/bench.py as a module (a script, not a package's): registered while its tests run."""
    spec = importlib.util.spec_from_file_location("bench_under_test", ROOT / "benchmarks" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_peak_extra_bytes_counts_temporaries_not_the_result(bench):
    size = 1 << 20

    def temporary_then_small_result():
        return float(np.ones(size).sum())

    def result_only():
        return np.ones(size)

    assert bench.peak_extra_bytes(temporary_then_small_result) >= 8 * size
    assert bench.peak_extra_bytes(result_only) < 8 * size // 100
    out = np.empty(size)
    assert bench.peak_extra_bytes(lambda: np.copyto(out, 1.0)) < 8 * size // 100


EARLIER = """
from .machine import cache_bytes
from .reference import DEFAULT_EPS

BLOCK_BYTES = cache_bytes(2)


def rms_norm_blocked(x, gain=None, eps=DEFAULT_EPS, out=None):
    return "earlier", eps
"""
TODAY = """
from ..core.reference import DEFAULT_EPS


def rms_norm_blocked(x, gain=None, eps=DEFAULT_EPS, out=None):
    return "today", eps
"""


def commit(repository: Path, path: str, text: str) -> str:
    """Write ``text`` at ``path`` in ``repository`` (a git repository of its own) and commit it; its commit id."""
    (repository / path).parent.mkdir(parents=True, exist_ok=True)
    (repository / path).write_text(text)
    git = ["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "-m", path], check=True, capture_output=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def test_a_kernel_is_read_from_where_its_commit_kept_it(bench, tmp_path, monkeypatch):
    """An earlier commit's kernel at core/fastpath.py, importing core.machine (now perf.caches); today's in perf/."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, capture_output=True)
    earlier = commit(tmp_path, "src/rmsnorm_course/core/fastpath.py", EARLIER)
    (tmp_path / "src/rmsnorm_course/core/fastpath.py").unlink()
    today = commit(tmp_path, "src/rmsnorm_course/perf/kernel.py", TODAY)
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    then, now = bench.load_kernel(earlier), bench.load_kernel(today)
    assert then.forward(np.ones(2), None, 0.5, None) == ("earlier", 0.5)
    assert now.forward(np.ones(2), None, 0.5, None) == ("today", 0.5)
    assert then.module.BLOCK_BYTES == bench.machine.cache_bytes(2)
    assert then.commit == earlier[: len(then.commit)] and bench.commit_before_the_kernel_changed() == then.commit
    assert "rmsnorm_course.core.machine" not in sys.modules  # the earlier name was lent for the load alone
