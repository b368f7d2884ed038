"""The training experiment: its gradients are right, its runs are reproducible, its variants differ only in the norm."""

from __future__ import annotations

import dataclasses
import io

import numpy as np
import pytest

from predict_check.errors import CacheWarning
from rmsnorm_course.core.baselines import layer_norm
from rmsnorm_course.core.gradcheck import numeric_gradient
from rmsnorm_course.pages import training
from rmsnorm_course.studies import cache

SMALL = training.Setup(depth=3, width=6, hidden=8, inputs=4, outputs=2, examples=10, steps=12)


@pytest.mark.parametrize("variant", training.VARIANTS)
@pytest.mark.parametrize("name", ["in", "0.up", "1.down", "2.gain", "2.bias", "final.gain", "out"])
def test_gradients_match_central_differences(variant, name):
    x, targets = training.task(SMALL)
    weights = training.initial_weights(SMALL)
    rng = np.random.default_rng(7)  # move gains and biases off 1 and 0, so every term is exercised
    for key in weights:
        if key.endswith((".gain", ".bias")):
            weights[key] = weights[key] + rng.normal(0, 0.3, weights[key].shape)
    _, grads, _ = training.loss_and_gradients(weights, x, targets, variant, SMALL)

    def loss_at(probe):
        trial = dict(weights, **{name: probe})
        return training.loss_and_gradients(trial, x, targets, variant, SMALL)[0]

    expected = numeric_gradient(loss_at, weights[name], step=1e-6)
    np.testing.assert_allclose(grads[name], expected, rtol=1e-5, atol=1e-8)


def test_the_stream_rms_is_measured_after_every_block():
    x, targets = training.task(SMALL)
    weights = training.initial_weights(SMALL)
    _, _, stream = training.loss_and_gradients(weights, x, targets, training.NONE, SMALL)
    h = x @ weights["in"]
    expected = [np.sqrt(np.mean(h**2))]
    for block in range(SMALL.depth):
        h = h + np.maximum(h @ weights[f"{block}.up"], 0) @ weights[f"{block}.down"]
        expected.append(np.sqrt(np.mean(h**2)))
    np.testing.assert_allclose(stream, expected, rtol=1e-12)


def test_the_layer_norm_variant_is_layer_norm_with_its_affine():
    x, targets = training.task(SMALL)
    weights = training.initial_weights(SMALL)
    weights["final.gain"] = np.linspace(0.5, 1.5, SMALL.width)
    weights["final.bias"] = np.linspace(-0.2, 0.2, SMALL.width)
    loss, _, _ = training.loss_and_gradients(weights, x, targets, training.LAYER_NORM, SMALL)
    h = x @ weights["in"]
    for block in range(SMALL.depth):
        normed = layer_norm(h, SMALL.eps)  # gains 1 and biases 0 inside the blocks
        h = h + np.maximum(normed @ weights[f"{block}.up"], 0) @ weights[f"{block}.down"]
    out = (layer_norm(h, SMALL.eps) * weights["final.gain"] + weights["final.bias"]) @ weights["out"]
    assert loss == pytest.approx(np.mean((out - targets) ** 2), rel=1e-12)


def test_runs_are_reproducible_to_the_bit_and_training_lowers_the_loss():
    first, second = training.train(training.RMS_NORM, SMALL), training.train(training.RMS_NORM, SMALL)
    assert first.losses.tobytes() == second.losses.tobytes()
    assert first.losses.shape == (SMALL.steps + 1,)
    assert first.final_loss < first.losses[0]
    assert first.stream_rms_before.shape == first.stream_rms_after.shape == (SMALL.depth + 1,)


def test_every_variant_starts_from_the_same_weights_and_data_and_held_out_data_is_new():
    x, _ = training.task(SMALL)
    held_x, _ = training.task(SMALL, held_out=True)
    assert not np.array_equal(held_x, x)  # held-out examples are new draws
    starts = {variant: training.train(variant, SMALL).stream_rms_before[0] for variant in training.VARIANTS}
    assert len(set(starts.values())) == 1  # h_0 = x W_in does not depend on the norm


def test_the_trained_weights_give_the_held_out_loss_through_the_network_written_out():
    """The page recomputes each held-out loss from the trained weights; the network here is written out anew."""
    x, targets = training.task(SMALL, held_out=True)
    norms = {
        training.NONE: lambda h, gain, bias: h,
        training.LAYER_NORM: lambda h, gain, bias: layer_norm(h, SMALL.eps) * gain + bias,
        training.RMS_NORM: lambda h, gain, bias: gain * h / np.sqrt(np.mean(h**2, axis=-1, keepdims=True) + SMALL.eps),
    }
    for variant, norm in norms.items():
        run = training.train(variant, SMALL)
        w = run.weights
        assert not np.array_equal(w["0.up"], training.initial_weights(SMALL)["0.up"])  # trained, not the start
        h = x @ w["in"]
        for block in range(SMALL.depth):
            read = norm(h, w[f"{block}.gain"], w[f"{block}.bias"])
            h = h + np.maximum(read @ w[f"{block}.up"], 0) @ w[f"{block}.down"]
        out = norm(h, w["final.gain"], w["final.bias"]) @ w["out"]
        assert run.held_out_loss == pytest.approx(np.mean((out - targets) ** 2), rel=1e-9)


def test_training_is_adam_applied_to_each_weight():
    """One flat vector for every weight gives, bit for bit, Adam written out weight by weight."""
    setup = dataclasses.replace(SMALL, steps=3)
    x, targets = training.task(setup)
    weights = training.initial_weights(setup)
    first = {name: np.zeros_like(value) for name, value in weights.items()}
    second = {name: np.zeros_like(value) for name, value in weights.items()}
    losses = []
    for step in range(1, setup.steps + 1):
        loss, grads, _ = training.loss_and_gradients(weights, x, targets, training.RMS_NORM, setup)
        losses.append(loss)
        for name, grad in grads.items():
            first[name] = 0.9 * first[name] + (1 - 0.9) * grad
            second[name] = 0.999 * second[name] + (1 - 0.999) * grad**2
            step_size = setup.learning_rate * (first[name] / (1 - 0.9**step))
            weights[name] = weights[name] - step_size / (np.sqrt(second[name] / (1 - 0.999**step)) + 1e-8)
    losses.append(training.loss_and_gradients(weights, x, targets, training.RMS_NORM, setup)[0])
    assert training.train(training.RMS_NORM, setup).losses.tolist() == losses


def test_runs_cached_in_the_cache_folder_are_the_runs_trained(tmp_path, monkeypatch):
    """A second process reads what the first trained, to the bit; a change of setup trains anew."""
    monkeypatch.setenv(cache.VARIABLE, str(tmp_path))
    trained = training.experiment.__wrapped__(SMALL)
    assert len(list(tmp_path.glob("training-*.npz"))) == 1
    monkeypatch.setattr(training, "train", lambda *_: pytest.fail("trained again instead of reading the cached runs"))
    read = training.experiment.__wrapped__(SMALL)
    for variant in training.VARIANTS:
        for field in ("losses", "stream_rms_before", "stream_rms_after"):
            assert getattr(read[variant], field).tobytes() == getattr(trained[variant], field).tobytes()
        assert read[variant].held_out_loss == trained[variant].held_out_loss
        assert read[variant].variant == variant
        assert read[variant].weights.keys() == trained[variant].weights.keys() == training.initial_weights(SMALL).keys()
        for name, value in trained[variant].weights.items():
            assert read[variant].weights[name].tobytes() == value.tobytes()
    with pytest.raises(pytest.fail.Exception):
        training.experiment.__wrapped__(dataclasses.replace(SMALL, steps=5))


def test_an_unreadable_cached_file_is_trained_over(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.VARIABLE, str(tmp_path))
    trained = training.experiment.__wrapped__(SMALL)
    (stored,) = tmp_path.glob("training-*.npz")
    stored.write_bytes(b"not an npz file")
    with pytest.warns(CacheWarning, match=str(stored)):
        again = training.experiment.__wrapped__(SMALL)
    assert again[training.RMS_NORM].losses.tobytes() == trained[training.RMS_NORM].losses.tobytes()
    rewritten = np.load(io.BytesIO(cache.folder().read(stored)))
    assert rewritten[f"{training.RMS_NORM}/losses"].tobytes() == trained[training.RMS_NORM].losses.tobytes()
