"""The real-model page's boxes and sentences: each verdict, slip and claim held to the model, measured afresh here.

The forward passes here pick a norm by the order the norms run (a counter), not by the
gain arrays the package's measurement picks them by, so the two agree only if both are right.
"""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course import rms_norm
from rmsnorm_course.model import llama, smollm2
from rmsnorm_course.model import measurements as real_model
from rmsnorm_course.pages import check
from rmsnorm_course.pages import real_model as page

GOLD = "The chemical symbol for gold is"


@pytest.fixture(scope="module")
def model():
    return smollm2.load()


def _top(model, text, norm=None):
    return int(llama.forward(model.weights, model.config, model.encode(text), norm).logits[-1].argmax())


def _distribution(model, text, norm=None):
    return real_model.probabilities(llama.forward(model.weights, model.config, model.encode(text), norm).logits[-1])


def _eps_at_call(model, eps, calls):
    """RMSNorm at ``eps`` at the norms whose place in the order they run is in ``calls``, the model's own elsewhere."""
    count = iter(range(10**6))
    return lambda x, gain: rms_norm(x, gain, eps if next(count) in calls else model.config.eps)


VALUE, WIDTH, RMS = 551.7, 576, 27.75  # the outlier-share question's numbers


@pytest.mark.parametrize(
    ("typed", "named"),
    [
        (VALUE / np.sqrt(WIDTH * RMS**2), "square root of the share"),  # |x_17| / ||x||, not x_17**2 / ||x||**2
        (VALUE / (WIDTH * RMS), "not its square with the squares"),  # the value against a sum of RMS's
        (1 / WIDTH, "all the same size"),  # every value's share alike
        (VALUE**2 / (WIDTH * RMS), "but not the RMS"),  # the RMS left unsquared
    ],
)
def test_each_natural_mistake_on_the_outlier_share_is_named(typed, named):
    verdict = check("outlier-share", f"{typed:.3f}")
    assert verdict.outcome.value != "correct" and named in verdict.message


def test_the_eps_verdict_names_the_prompts_whose_top_token_changes_at_that_eps_and_says_none_does_below(model):
    everywhere = lambda eps: lambda x, gain: rms_norm(x, gain, eps)  # noqa: E731
    changed = {
        eps: [t for t in real_model.PROMPTS if _top(model, t, everywhere(eps)) != _top(model, t)]
        for eps in (1e-4, 1e-3, 1e-2)
    }
    assert changed[1e-4] == changed[1e-3] == [] and GOLD in changed[1e-2]  # the cell after the box shows the same
    verdict = check("eps-threshold", "1e-2")
    assert verdict.outcome.value == "correct" and "1e-4 and 1e-3 none does" in verdict.message
    assert [t for t in real_model.PROMPTS if repr(t) in verdict.message] == changed[1e-2]


def test_eps_raised_at_block_1_s_feed_forward_norm_alone_moves_the_distribution_more_than_at_its_attention_norm(model):
    measured = real_model.measurements()
    for n, text in enumerate(real_model.PROMPTS):
        own = _distribution(model, text)
        attention, ffn = (
            real_model.kl(own, _distribution(model, text, _eps_at_call(model, 1e-2, {k}))) for k in (0, 1)
        )
        assert ffn > attention
        np.testing.assert_allclose(measured.place_kl[:2, 0, n], [attention, ffn], rtol=1e-3, atol=1e-6)


def test_eps_raised_at_every_norm_but_block_1_s_leaves_the_distribution_all_but_unchanged(model):
    later = set(range(2, 2 * model.config.blocks + 1))
    for text in real_model.PROMPTS:
        assert (
            real_model.kl(_distribution(model, text), _distribution(model, text, _eps_at_call(model, 3e-2, later)))
            < 1e-3
        )


def _bfloat16(values):
    """Round float32 to bfloat16, to nearest and ties to even, on the bits: the top 16 of float32's 32."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def _read_by_every_norm(model, text):
    """(row, gain) for each norm as it runs, the row at the last token: recorded by the norm itself."""
    seen = []

    def norm(x, gain):
        seen.append((x[-1].copy(), gain))
        return rms_norm(x, gain, model.config.eps)

    llama.forward(model.weights, model.config, model.encode(text), norm)
    return seen


def test_the_bfloat16_verdict_is_the_worst_error_over_every_row_every_norm_reads(model):
    worst, rows, eps = 0.0, 0, model.config.eps
    for text in real_model.PROMPTS:
        for x, gain in _read_by_every_norm(model, text):
            exact = x.astype(np.float64) / np.sqrt(np.mean(x.astype(np.float64) ** 2) + eps) * gain
            inverse = _bfloat16(1 / np.sqrt(_bfloat16(np.mean(_bfloat16(_bfloat16(x) ** 2))) + np.float32(eps)))
            y = _bfloat16(_bfloat16(_bfloat16(x) * inverse) * _bfloat16(gain))
            worst, rows = max(worst, float(np.abs(y - exact).max() / np.abs(exact).max())), rows + 1
    assert rows == 4 * (2 * model.config.blocks + 1) and 2**-9 < worst < 0.03  # 0.03: "within about one per cent"
    verdict = check("bfloat16-rows", "within about one per cent")
    assert (
        verdict.outcome.value == "correct"
        and f"{worst:.2g}" in verdict.message
        and f"all {rows} rows" in verdict.message
    )


def test_the_eps_table_shows_each_token_as_typed_in_straight_quotes():
    table = page.eps_table(real_model.measurements()).data
    assert "`' '`" in table and "`' Paris'`" in table  # the gold prompt at 0.01, and the first prompt's own
    assert not set("\u2018\u2019\u201c\u201d") & set(table)  # no curly quotes


@pytest.mark.parametrize(("text", "span"), [("' a'", "`' a'`"), ("a`b", "``a`b``"), ("`", "`` ` ``")])
def test_a_token_holding_backticks_is_still_one_code_span(text, span):
    assert page._code(text) == span
