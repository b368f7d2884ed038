"""The evidence report as plain text: every value with six decimals, then the verdicts.

It shows the worked answers to many of the chapter's predictions, and says so first (``WARNING``).
"""

from __future__ import annotations

import numpy as np

from ..core.format import fmt
from ..studies.evidence import Evidence, Witnessed
from ..studies.example import ANCHOR, BATCH, COMPANION, GAIN_NAME

WARNING = (
    "This report shows the answers to many of the chapter's predictions: every stage of the worked example, "
    "the scale cards, both gradients, and what the package does with the rows it refuses. If you are working "
    "through the chapter, make your predictions first, in its boxes or with check(), then read on."
)
GO_ON = "Press Enter to show the report, or Ctrl+C to stop: "  # asked on a terminal, before anything is shown


def render(evidence: Evidence) -> str:
    sections = (_worked_example, _scale, _rows, _history, _reverse, _tape, _rejections, _verdicts)
    return "\n\n".join(section(evidence) for section in sections) + "\n"


def _section(title: str, *lines: str) -> str:
    """A title, then its lines indented under it."""
    return "\n".join([title, *(f"  {line}" for line in lines)])


def _worked_example(e: Evidence) -> str:
    p, f = e.primary, e.primary.forward
    x_hat_mean_square, ratio = p.plateau
    return "RMSNorm checked evidence\n========================\n\n" + _section(
        f"Worked example: x = {fmt(p.x)}, g = {fmt(p.gain)}, eps = {p.eps:g}",
        f"mean square           {fmt(f.mean_square)}",
        f"reciprocal RMS        {fmt(f.inverse_rms)}",
        f"RMS-rescaled x-hat    {fmt(f.normalized)}",
        f"output g * x-hat      {fmt(f.output)}",
        f"mean(x-hat^2)         {fmt(x_hat_mean_square)}   (ms / (ms + eps) = {fmt(ratio)})",
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


def _witnessed(w: Witnessed) -> tuple[str, str]:
    """``central differences (step 1e-06, tolerance 2e-06): 2/2 input, 2/2 gain coordinates: pass``, then the replay."""
    reports = (("input", w.input_check), ("gain coordinates", w.gain_check))
    counts = ", ".join(
        f"{sum(c.passed for c in report.checks)}/{len(report.checks)} {name}" for name, report in reports
    )
    verdict = "pass" if w.input_check.passed and w.gain_check.passed else "FAIL"
    settings = f"step {w.input_check.step:g}, tolerance {w.input_check.tolerance:g}"
    return (
        f"central differences ({settings}): {counts}: {verdict}",
        f"replay: {'bitwise identical' if w.replay_bitwise else 'DIFFERS'}",
    )


def _reverse(e: Evidence) -> str:
    return _section(
        f"Reverse pass: upstream {fmt(e.primary.upstream)}",
        f"grad_x              {fmt(e.primary.grad_x)}",
        f"grad_gain           {fmt(e.primary.grad_gain)}",
        *_witnessed(e.closed_form),
        f"optimizer policy: {GAIN_NAME} -> {'no-decay' if GAIN_NAME in e.groups.no_decay else 'decay'}",
    )


def _tape(e: Evidence) -> str:
    t = e.tape.run
    nodes = t.tape.output.topological_order()
    output, grad_x, grad_gain = t.differences(e.primary)
    return _section(
        f"Tape: the worked example from primitives, gradients by reverse mode ({len(nodes)} nodes)",
        f"operations in order   {' '.join(node.op for node in nodes if node.op)}",
        f"tape mean square      {fmt(t.forward.mean_square)}",
        f"tape reciprocal RMS   {fmt(t.forward.inverse_rms)}",
        f"tape output           {fmt(t.forward.output)}   (reference max |difference| {output:.3g})",
        f"tape grad_x           {fmt(t.grad_x)}   (closed form max |difference| {grad_x:.3g})",
        f"tape grad_gain        {fmt(t.grad_gain)}   (closed form max |difference| {grad_gain:.3g})",
        *(f"tape {line}" for line in _witnessed(e.tape)),
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
