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


def test_the_value_over_the_row_s_length_is_named_as_the_square_root_of_the_share():
    value, width, rms = 551.7, 576, 27.75  # the question's numbers
    typed = f"{value / np.sqrt(width * rms**2):.3f}"  # |x_17| / ||x||, not x_17**2 / ||x||**2
    verdict = check("outlier-share", typed)
    assert verdict.outcome.value == "wrong" and "square root of the share" in verdict.message


def test_the_eps_verdict_names_a_prompt_whose_top_token_changes_at_that_eps_and_at_none_below(model):
    verdict = check("eps-threshold", "1e-2")
    assert verdict.outcome.value == "correct" and repr(GOLD) in verdict.message
    everywhere = lambda eps: lambda x, gain: rms_norm(x, gain, eps)  # noqa: E731
    assert _top(model, GOLD, everywhere(1e-2)) != _top(model, GOLD)
    assert all(_top(model, text, everywhere(1e-3)) == _top(model, text) for text in real_model.PROMPTS)


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


def test_the_bfloat16_verdict_is_the_error_on_the_row_the_question_names(model):
    row = llama.forward(model.weights, model.config, model.encode(real_model.PROMPTS[0])).stream[29, -1]
    gain = model.weights.blocks[29].attention_norm
    exact = row.astype(np.float64) / np.sqrt(np.mean(row.astype(np.float64) ** 2) + model.config.eps) * gain
    off = np.abs(real_model.bfloat16_formula(row, gain, model.config.eps) - exact).max() / np.abs(exact).max()
    assert round(abs(float(row[17])), 1) == 551.7 and 2**-12 < off < 0.03  # 0.03: "within about one per cent"
    assert check("bfloat16-rows", "within about one per cent").outcome.value == "correct"


def test_the_eps_table_shows_each_token_as_typed_in_straight_quotes():
    table = page.eps_table(real_model.measurements()).data
    assert "`' '`" in table and "`' Paris'`" in table  # the gold prompt at 0.01, and the first prompt's own
    assert not set("\u2018\u2019\u201c\u201d") & set(table)  # no curly quotes


@pytest.mark.parametrize(("text", "span"), [("' a'", "`' a'`"), ("a`b", "``a`b``"), ("`", "`` ` ``")])
def test_a_token_holding_backticks_is_still_one_code_span(text, span):
    assert page._code(text) == span
