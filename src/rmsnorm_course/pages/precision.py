"""Precision: float16's overflow, bfloat16's lost squares, and the rescue for rows too large or small."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core.rmsnorm import rms_norm
from ..studies import precision
from ..studies.example import EPS
from ..studies.formulas import rms_norm_formula
from . import holds


def values() -> SimpleNamespace:
    fp16, fp32, fp64 = np.finfo(np.float16), np.finfo(np.float32), np.finfo(np.float64)
    row = np.array(precision.HALF_PRECISION_ROW, dtype=np.float16)
    with np.errstate(over="ignore"):
        formula16 = rms_norm_formula(row, np.ones(len(row), dtype=np.float16), EPS)
        holds(np.isinf(np.square(row)[0]) and np.all(formula16 == 0), "the formula in float16 returns zeros")
    fits = np.array(precision.FITTING_ROW, dtype=np.float16)
    fit_out = rms_norm_formula(fits, np.ones(len(fits), dtype=np.float16), EPS)
    exact = np.array(precision.FITTING_ROW) / np.sqrt(np.mean(np.square(precision.FITTING_ROW)) + EPS)
    holds(np.all(np.isfinite(np.square(fits))), "every square of the fitting row fits in float16")
    holds(np.array_equal(np.round(fit_out.astype(float), 2), np.round(exact, 2)), "the formula works, to two decimals")
    upcast = (row.astype(np.float64) / np.sqrt(np.mean(row.astype(np.float64) ** 2) + EPS)).astype(np.float16)
    holds(np.array_equal(rms_norm(row), upcast), "rms_norm computes it in a wider format")
    bf16 = precision.bfloat16()
    holds(np.isfinite(bf16.square_of_row) and bf16.running_sum < bf16.float32_sum, "bfloat16's sum stalls")
    pairwise = precision.pairwise_sum(1.0, precision.SUM_LENGTH, precision.BFLOAT16_SIGNIFICAND_BITS)
    holds(pairwise == precision.SUM_LENGTH, "a pairwise bfloat16 sum of the same ones is exact")
    result = precision.sweep(np.float32)
    with_eps = precision.sweep(np.float32, eps=EPS)
    failing = with_eps.exponents[with_eps.formula_ulps > precision.FAILURE_ULPS]
    holds(np.all(10.0 ** (2 * failing) > float(fp32.max)), "with eps, only rows whose squares overflow fail")
    holds(result.package_ulps.max() <= 2, "the package's worst error is a couple of ulps")
    holds(result.formula_failures >= 10, "the formula as written fails in many decades")
    return SimpleNamespace(
        fp16_max=f"{float(fp16.max):.0f}",
        fp16_exponent_bits=int(fp16.nexp),
        fp16_root=f"{float(np.ceil(np.sqrt(float(fp16.max)))):.0f}",
        half_value=f"{precision.HALF_PRECISION_ROW[0]:g}",
        half_row="[" + ", ".join(f"{v:g}" for v in precision.HALF_PRECISION_ROW) + "]",
        fit_row="[" + ", ".join(f"{v:g}" for v in precision.FITTING_ROW) + "]",
        fit_value=f"{precision.FITTING_ROW[0]:g}",
        fit_square=f"{float(np.square(fits)[0]):,.0f}",
        fit_out="[" + ", ".join(f"{float(v):.2f}" for v in fit_out) + "]",
        bf16_bits=precision.BFLOAT16_SIGNIFICAND_BITS,
        bf16_exponent_bits=int(fp32.nexp),  # bfloat16 keeps float32's exponent field
        bf16_square=f"{bf16.square_of_row:g}",
        bf16_largest=f"{bf16.largest:.3g}",
        bf16_spacing=f"{bf16.spacing_at_one:g}",
        bf16_length=f"{precision.SUM_LENGTH:,}",
        bf16_sum=f"{bf16.running_sum:,.0f}",
        bf16_true_sum=f"{bf16.float32_sum:,.0f}",
        bf16_pairwise=f"{pairwise:,.0f}",
        bf16_ratio=f"{bf16.mean_square_ratio:g}",
        bf16_output_factor=f"{bf16.mean_square_ratio**-0.5:g}",
        fp32_root=f"{float(np.sqrt(float(fp32.max))):.1e}",
        fp32_floor_root=f"{float(np.sqrt(float(fp32.tiny))):.1e}",
        fp64_root=f"{float(np.sqrt(fp64.max)):.1e}",
        fp64_floor_root=f"{float(np.sqrt(fp64.tiny)):.1e}",
        sweep_first=int(precision.FLOAT32_DECADES[0]),
        sweep_last=int(precision.FLOAT32_DECADES[-1]),
        sweep=result,
        failure_ulps=precision.FAILURE_ULPS,
        sweep_worst=f"{float(result.package_ulps.max()):.2f}",
        sweep_failures=result.formula_failures,
        sweep_rows=len(result.exponents),
        sweep_eps=f"{EPS:g}",
        sweep_failures_eps=with_eps.formula_failures,
    )
