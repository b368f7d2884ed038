"""RMSNorm inside a real model: SmolLM2-135M's own rows, each claim of the chapter measured on them."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..model import measurements as real_model
from ..studies import modern
from . import holds

LAST = 12  # norms: from block 25's feed-forward norm on, channel 17 is the largest value of every row


def _norm(m: real_model.Measurements, name: str) -> int:
    return list(m.norm_names).index(name)


def _asked_as_measured(m: real_model.Measurements) -> None:
    """The boxes' given inputs are the measurements, to the digits the questions write."""
    row = _norm(m, real_model.OUTLIER_NORM)
    asked = real_model.ASKED
    holds(round(float(m.residual_rms[0, 0]), 3) == asked["embedded"], "the embedding's RMS the box gives")
    holds(round(float(m.input_rms[0, row]), 2) == asked["rms"], "the RMS of block 30's row the box gives")
    holds(int(m.outlier_channel[0, row]) == asked["channel"], "the channel the box names")
    holds(round(abs(float(m.outlier_value[0, row])), 1) == asked["value"], "the value the box gives")
    holds(np.ceil(float(m.mean_over_rms.max()) * 10) / 10 == asked["largest_mean"], "the largest mean the box gives")


def _synthetic_partial_error(width: int) -> float:
    """pRMSNorm's typical error on rows of independent standard normal values of the model's width (seeded)."""
    rows = np.random.default_rng(0).standard_normal((modern.ROWS, width))
    return float(np.median(modern.partial_error(rows, modern.SHARE)))


def values() -> SimpleNamespace:
    m = real_model.measurements()
    _asked_as_measured(m)
    row = _norm(m, real_model.OUTLIER_NORM)
    growth = m.residual_rms[:, -1] / m.residual_rms[:, 0]
    holds(growth.min() > 100, "the stream grows more than a hundredfold")
    holds(np.all(m.output_rms[:, :-1] < 1), "every block's norm hands its branch a row of RMS below one")
    holds(np.all(m.outlier_channel[:, -LAST:] == 17), "channel 17 is the largest in the last twelve norms")
    holds(m.fold_same_top.all(), "folding keeps every position's top token")
    holds(np.all(m.layer_norm_top_tokens == m.predicted), "LayerNorm keeps the four top tokens")
    half, inside, brain = (list(m.precisions).index(name) for name in real_model.PRECISIONS)
    overflowing = m.float16_overflows > 0
    holds(np.all(m.precision_error[half][overflowing] == 1), "the float16 formula loses every overflowing row")
    changed = [eps for eps, tops in zip(m.epsilons[1:], m.eps_top[1:]) if eps > 0 and np.any(tops != m.eps_top[0])]
    synthetic = _synthetic_partial_error(int(m.partial_values) * 16)
    formats = dict(zip(m.formats.tolist(), m.format_counts.tolist()))
    config = real_model.shape_of(m)
    return SimpleNamespace(
        m=m,
        config=config,
        blocks=config.blocks,
        width=config.width,
        heads=config.heads,
        kv_heads=config.kv_heads,
        hidden=config.hidden,
        rope_base=f"{config.rope_base:g}",
        vocab=f"{config.vocab:,}",
        model_eps=f"{config.eps:.9g}",
        name=str(m.model_name),
        formats=", ".join(f"{count} in {kind}" for kind, count in formats.items()),
        gains=formats.get("F32", 0),
        prompt=str(m.prompts[0]),
        predicted=repr(str(m.predicted[0])),
        predicted_all=", ".join(repr(str(token)) for token in m.predicted),
        embedded=f"{m.residual_rms[0, 0]:.3f}",
        before_final=f"{m.residual_rms[0, -1]:.1f}",
        growth_low=f"{growth.min():.0f}",
        growth_high=f"{growth.max():.0f}",
        branch_low=f"{m.output_rms[:, :-1].min():.2f}",
        branch_high=f"{m.output_rms[:, :-1].max():.2f}",
        final_out=f"{m.output_rms[:, -1].min():.1f} to {m.output_rms[:, -1].max():.1f}",
        first_gain_mean=f"{m.gain_mean[0]:.4f}",
        later_gain_low=f"{m.gain_mean[1:-1].min():.2f}",
        later_gain_high=f"{m.gain_mean[1:-1].max():.2f}",
        final_gain_mean=f"{m.gain_mean[-1]:.2f}",
        sink=f"{m.first_position_rms[0].max():.0f}",
        outlier_shares=", ".join(f"{share:.2f}" for share in m.outlier_share[:, row]),
        outlier_values=", ".join(f"{abs(value):.1f}" for value in m.outlier_value[:, row]),
        share_final=f"{m.outlier_share[:, -1].min():.2f} to {m.outlier_share[:, -1].max():.2f}",
        partial_values=int(m.partial_values),
        partial_share=f"{float(m.partial_share):.2%}",
        partial_median=f"{np.median(m.partial_error):.2f}",
        partial_outlier=f"{m.partial_error[:, -LAST:].min():.1f} to {m.partial_error[:, -LAST:].max():.1f}",
        partial_synthetic=f"{synthetic:.2f}",
        overflowing_rows=int(overflowing.sum()),
        rows=overflowing.size,
        largest_square=f"{m.largest_square.max():,.0f}",
        float16_inside=f"{m.precision_error[inside].max():.1g}",
        bfloat16_worst=f"{m.precision_error[brain].max():.2g}",
        bfloat16_median=f"{np.median(m.precision_error[brain]):.2g}",
        eps_first=f"{min(changed):g}",
        eps_kl_small=f"{m.eps_kl[m.epsilons == 1e-3].max():.3f}",
        eps_paris=f"{m.eps_kept_probability[0, 0]:.4f} to {m.eps_kept_probability[m.epsilons == 1e-3][0, 0]:.4f}",
        ln_kl=f"{m.layer_norm_kl.min():.3f} to {m.layer_norm_kl.max():.3f}",
        ln_agreement=", ".join(f"{share:.0%}" for share in m.layer_norm_agreement),
        mean_median=f"{np.median(m.mean_over_rms):.3f}",
        fold_difference=f"{m.fold_max_difference.max():.1g}",
        fold_relative=f"{(m.fold_max_difference / m.fold_largest_logit).max():.1g}",
        fold_logit=f"{m.fold_largest_logit.min():.0f} to {m.fold_largest_logit.max():.0f}",
        eps_nominal=f"{config.eps:.0e}".replace("e-0", "e-"),
        eps_small=f"{real_model.EPSILONS[2]:g}",
        prompt_count=len(m.prompts),
        norms=len(m.norm_names),
        outlier_norm=real_model.OUTLIER_NORM,
        outlier_from=str(m.norm_names[-LAST]),
        outlier_channel=int(m.outlier_channel[0, -1]),
        float16_largest=f"{real_model.FLOAT16_LARGEST:.0f}",
    )
