"""The evidence report: every value of the seed fixture printed with six decimals, exit status from the checks."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys

import pytest

from rmsnorm_course.__main__ import main
from rmsnorm_course.studies import evidence
from rmsnorm_course.studies.thresholds import ROUNDING
from rmsnorm_course.views import report

RUST_CHAPTER_LINES = [
    "mean square           [12.500000]",
    "reciprocal RMS        [0.282843]",
    "RMS-rescaled x-hat    [0.848528, 1.131370]",
    "output g * x-hat      [1.272792, 0.565685]",
    "mean(x-hat^2)         0.999999",
    "max difference 4.48023e-07",  # 4/sqrt(12.5) * (eps / 25) * 0.99
    "[0.094281, 0.125708] -> [0.632456, 0.843274], max difference 0.717566",
    "row 0 [1.272792, 0.565685], row 1 [0.000000, 0.707106]",
    "all-zero row, eps = 1e-05: [0.000000, 0.000000]",
    "BatchNorm           [-0.999999, -0.999999] | [0.000000, 0.000000]",
    "LayerNorm           [-0.999995, 0.999995] | [-0.999995, 0.999995]",
    "RMSNorm (eps = 0)   [0.447214, 1.341641] | [0.447214, 1.341641]",
    "RMSNorm output mean 0.894427",
    "grad_x              [0.407293, -0.305470]",
    "grad_gain           [0.848528, -2.262741]",
    "2/2 input, 2/2 gain coordinates: pass",
    "replay: bitwise identical",
    "decoder.block.0.attention_norm.gain -> no-decay",
    "zero-sized batch: output shape (0, 2)",
]


@pytest.fixture(scope="module")
def printed():
    run = subprocess.run([sys.executable, "-m", "rmsnorm_course"], capture_output=True, text=True, check=False)
    return run


def test_module_run_exits_zero(printed):
    assert printed.returncode == 0, printed.stderr


@pytest.mark.parametrize("line", RUST_CHAPTER_LINES)
def test_report_prints_the_rust_chapter_s_value(printed, line):
    assert line in printed.stdout


def test_every_boundary_is_listed_with_its_message(printed):
    for case in evidence.BOUNDARY_CASES:
        assert f"{case.boundary} ({case.request}): {case.expected.__name__}: " in printed.stdout
    assert "ZeroEnergyRow: eps is 0 but input row 1 is all zeros" in printed.stdout


def test_the_report_says_it_shows_answers_before_it_shows_any(printed):
    warning, _, rest = printed.stdout.partition("\n")
    assert warning == report.WARNING and "predictions first" in warning
    assert "12.500000" not in warning and "12.500000" in rest


class Terminal:
    """Standard input that is a terminal, answering ``input()`` with ``reply`` (or raising it)."""

    def __init__(self, reply):
        self.reply = reply

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        if isinstance(self.reply, BaseException):
            raise self.reply
        return self.reply


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), EOFError()])
def test_on_a_terminal_nothing_is_shown_until_the_reader_says_to_go_on(monkeypatch, capsys, stop):
    monkeypatch.setattr(sys, "stdin", Terminal(stop))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(evidence, "collect", lambda: pytest.fail("the report was computed"))
    assert main([]) == 130
    out = capsys.readouterr().out
    assert out.startswith(report.WARNING) and report.GO_ON in out and "12.500000" not in out


def test_on_a_terminal_enter_shows_the_report(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", Terminal("\n"))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert main([]) == 0
    assert "mean square           [12.500000]" in capsys.readouterr().out


def test_a_failing_check_makes_the_exit_status_nonzero(monkeypatch, capsys):
    real = evidence.collect()
    broken = dataclasses.replace(real, closed_form=dataclasses.replace(real.closed_form, replay_bitwise=False))
    monkeypatch.setattr(evidence, "collect", lambda: broken)
    assert main([]) == 1
    assert "[FAIL] bitwise replay" in capsys.readouterr().out


# The tape section: the seed fixture's gradients reached by reverse mode. 12 nodes = 2 leaves (x, g),
# 2 constants (eps, -0.5) and 8 operations (x*x, mean, + eps, log, * -0.5, exp, * x, * g).
TAPE_LINES = [
    "Tape: the worked example from primitives, gradients by reverse mode (12 nodes)",
    "operations in order   * mean + log * exp * *",
    "tape mean square      [12.500000]",
    "tape reciprocal RMS   [0.282843]",
    "tape output           [1.272792, 0.565685]",
    "tape grad_x           [0.407293, -0.305470]",
    "tape grad_gain        [0.848528, -2.262741]",
    "tape central differences (step 1e-06, tolerance 2e-06): 2/2 input, 2/2 gain coordinates: pass",
    "tape replay: bitwise identical",
    f"[pass] tape gradients equal the closed form within {ROUNDING:.2g}",
]


@pytest.mark.parametrize("line", TAPE_LINES)
def test_report_prints_the_tape_section(printed, line):
    assert line in printed.stdout


def test_tape_differences_from_the_closed_form_are_printed_and_tiny(printed):
    found = re.findall(r"\((?:reference|closed form) max \|difference\| ([0-9.e+-]+)\)", printed.stdout)
    assert len(found) == 3
    assert all(float(value) <= ROUNDING for value in found)


def test_a_failing_tape_replay_makes_the_exit_status_nonzero(monkeypatch, capsys):
    real = evidence.collect()
    broken = evidence.Evidence(**{**real.__dict__, "tape": dataclasses.replace(real.tape, replay_bitwise=False)})
    monkeypatch.setattr(evidence, "collect", lambda: broken)
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] tape bitwise replay" in out and "tape replay: DIFFERS" in out
