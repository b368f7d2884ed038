"""The studies' matrix products run on one BLAS thread, and the caller's limit comes back after."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from rmsnorm_course.pages import training
from rmsnorm_course.studies import block, cache


def blas_threads() -> list[int]:
    """The thread count of every BLAS library loaded in this process."""
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


SMALL = training.Setup(depth=2, width=6, hidden=8, inputs=4, outputs=2, examples=10, steps=3)


def test_the_training_experiment_runs_on_one_blas_thread_and_restores_the_limit(monkeypatch):
    seen = []
    step = training.loss_and_gradients

    def spy(*args, **kwargs):
        seen.append(blas_threads())
        return step(*args, **kwargs)

    monkeypatch.setattr(training, "loss_and_gradients", spy)
    monkeypatch.delenv(cache.VARIABLE, raising=False)  # trained here, not read from make's cache
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        training.experiment.__wrapped__(SMALL)  # not the cached runs
        after = blas_threads()
    assert before and set(before) == {2}  # a BLAS is loaded, and the caller asked for two threads
    assert len(seen) == len(training.VARIANTS) * (SMALL.steps + 2)  # every step, and the two evaluations
    assert all(threads == [1] * len(before) for threads in seen)
    assert after == before


def test_the_block_multiplies_on_one_blas_thread(monkeypatch):
    seen = []
    layer = block.PreNormBlock(width=4, hidden=8)
    mixing = layer.mixing

    def spy(x):
        seen.append(blas_threads())
        return mixing(x)

    monkeypatch.setattr(layer, "mixing", spy)
    with threadpool_limits(limits=2, user_api="blas"):
        layer(np.ones((3, 4)))
        assert set(blas_threads()) == {2}
    assert seen and all(set(threads) == {1} for threads in seen)
