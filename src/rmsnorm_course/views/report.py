"""The evidence report as plain text: every value with six decimals, then the verdicts.

It shows the worked answers to many of the chapter's predictions, and says so first (``WARNING``).
"""

from __future__ import annotations

import numpy as np

from ..core.format import fmt
from ..core.gradcheck import GradientCheckReport
from ..studies.evidence import Evidence
from ..studies.example import ANCHOR, BATCH, COMPANION, GAIN_NAME

WARNING = (
    "This report shows the answers to many of the chapter's predictions: every stage of the worked example, "
    "the scale cards, both gradients, and what the package does with the rows it refuses. If you are working "
    "through the chapter, make your predictions first, in its boxes or with check(), then read on."
)
GO_ON = "Press Enter to show the report, or Ctrl+C to stop: "  # asked on a terminal, before anything is shown


def render(evidence: Evidence) -> str:
    sections = [
        _worked_example(evidence),
        _scale(evidence),
        _rows(evidence),
        _history(evidence),
        _reverse(evidence),
        _tape(evidence),
        _rejections(evidence),
        _verdicts(evidence),
    ]
    return "\n\n".join(sections) + "\n"


def _section(title: str, *lines: str) -> str:
    """A title, then its lines indented under it."""
    return "\n".join([title, *(f"  {line}" for line in lines)])


def _worked_example(e: Evidence) -> str:
    p, f = e.primary, e.primary.forward
    return "RMSNorm checked evidence\n========================\n\n" + _section(
        f"Worked example: x = {fmt(p.x)}, g = {fmt(p.gain)}, eps = {p.eps:g}",
        f"mean square           {fmt(f.mean_square)}",
        f"reciprocal RMS        {fmt(f.inverse_rms)}",
        f"RMS-rescaled x-hat    {fmt(f.normalized)}",
        f"output g * x-hat      {fmt(f.output)}",
        f"mean(x-hat^2)         {fmt(e.normalized_mean_square)}"
        f"   (ms / (ms + eps) = {fmt(e.predicted_normalized_mean_square)})",
    )


def _scale(e: Evidence) -> str:
    return _section(
        f"Scale invariance: x-hat before the gain, input multiplied by a = {e.scale_cards[0].factor:g}",
        *(
            f"{card.label:<11} x = {fmt(card.x)}, eps = {card.eps:g}: "
            f"{fmt(card.original)} -> {fmt(card.scaled)}, max difference {card.max_difference:.6g}"
            for card in e.scale_cards
        ),
    )


def _rows(e: Evidence) -> str:
    batch = ", ".join(f"row {i} {fmt(row)}" for i, row in enumerate(e.batch_output))
    return _section(
        "Rows",
        f"all-zero row, eps = {e.primary.eps:g}: {fmt(e.zero_output)}",
        f"batch {np.asarray(BATCH).tolist()}: {batch}",
        f"zero-sized batch: output shape {e.empty_batch_output.shape}",
    )


def _history(e: Evidence) -> str:
    h = e.history
    norms = (
        ("BatchNorm", h.batch_with_companion, h.batch_with_itself),
        ("LayerNorm", h.layer_norm_with_companion, h.layer_norm_with_itself),
        ("RMSNorm (eps = 0)", h.rms_norm_with_companion, h.rms_norm_with_itself),
    )
    return _section(
        f"History: anchor {list(ANCHOR)} with companion {list(COMPANION)} | with itself",
        *(f"{name:<19} {fmt(companion)} | {fmt(itself)}" for name, companion, itself in norms),
        f"RMSNorm output mean {fmt(h.rms_mean)}",
    )


def _central_differences(input_check: GradientCheckReport, gain_check: GradientCheckReport) -> str:
    """``central differences (step 1e-06, tolerance 2e-06): 2/2 input, 2/2 gain coordinates: pass``."""
    counts = ", ".join(
        f"{sum(c.passed for c in report.checks)}/{len(report.checks)} {name}"
        for name, report in (("input", input_check), ("gain coordinates", gain_check))
    )
    verdict = "pass" if input_check.passed and gain_check.passed else "FAIL"
    return f"central differences (step {input_check.step:g}, tolerance {input_check.tolerance:g}): {counts}: {verdict}"


def _replay(bitwise: bool) -> str:
    return f"replay: {'bitwise identical' if bitwise else 'DIFFERS'}"


def _reverse(e: Evidence) -> str:
    return _section(
        f"Reverse pass: upstream {fmt(e.primary.upstream)}",
        f"grad_x              {fmt(e.primary.grad_x)}",
        f"grad_gain           {fmt(e.primary.grad_gain)}",
        _central_differences(e.input_check, e.gain_check),
        _replay(e.replay_bitwise),
        f"optimizer policy: {GAIN_NAME} -> {'no-decay' if GAIN_NAME in e.groups.no_decay else 'decay'}",
    )


def _tape(e: Evidence) -> str:
    t = e.tape
    return _section(
        f"Tape: the worked example from primitives, gradients by reverse mode ({t.nodes} nodes)",
        f"operations in order   {' '.join(t.operations)}",
        f"tape mean square      {fmt(t.forward.mean_square.value)}",
        f"tape reciprocal RMS   {fmt(t.forward.inverse_rms.value)}",
        f"tape output           {fmt(t.forward.output.value)}   (reference max |difference| {t.output_difference:.3g})",
        f"tape grad_x           {fmt(t.grad_x)}   (closed form max |difference| {t.grad_x_difference:.3g})",
        f"tape grad_gain        {fmt(t.grad_gain)}   (closed form max |difference| {t.grad_gain_difference:.3g})",
        f"tape {_central_differences(t.input_check, t.gain_check)}",
        f"tape {_replay(t.replay_bitwise)}",
    )


def _rejections(e: Evidence) -> str:
    return _section(
        "Rejected requests",
        *(
            f"{r.case.boundary} ({r.case.request}): {r.raised.__name__ if r.raised else 'nothing raised'}: {r.message}"
            for r in e.rejections
        ),
    )


def _verdicts(e: Evidence) -> str:
    checks = e.checks()
    lines = ["Checks"] + [f"  [{'pass' if ok else 'FAIL'}] {name}" for name, ok in checks]
    failed = sum(not ok for _, ok in checks)
    lines.append(f"{len(checks) - failed} of {len(checks)} checks passed.")
    return "\n".join(lines)
