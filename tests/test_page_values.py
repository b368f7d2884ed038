"""Each page's values: every field its prose reads, and the guards that stop a sentence the numbers don't support."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from book_pages import timed, values
from rmsnorm_course.pages import COURSE, UnsupportedClaim, cost, history, modern_kernels, predict, training, what_next
from rmsnorm_course.pages import PAGES as MODULE_PAGES
from rmsnorm_course.perf import timings as cost_study
from rmsnorm_course.perf.roofline import Roofline
from rmsnorm_course.studies import evidence

BOOK = Path(__file__).resolve().parent.parent / "book"
PAGES = [page for page in MODULE_PAGES if not timed(page)]  # cost is timed, and read by its own tests below


@pytest.mark.parametrize("name", PAGES)
def test_every_value_a_page_reads_is_computed_by_its_module_and_prints_as_prose(name):
    """As text: numpy 2 writes a 0-d string as np.str_('...'), a number as np.float64(...)."""
    page = values(name)
    text = (BOOK / f"{name.replace('_', '-')}.md").read_text(encoding="utf-8")
    read = set(re.findall(r"\{eval\}`page\.(\w+)`", text))
    assert read <= set(vars(page)), read - set(vars(page))
    assert {field: repr(value) for field, value in vars(page).items() if isinstance(value, np.generic)} == {}


def test_every_page_reads_its_values_from_one_call_and_holds_no_assert():
    for path in BOOK.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        assert "assert " not in text and "np.testing.assert" not in text, path.name
        setups = re.findall(r"tags: \[remove-input, remove-output\]", text)
        assert len(setups) <= 1, path.name  # one hidden set-up cell; the rest draw figures and boxes


def test_the_scale_cards_guard_stops_a_production_card_that_moves(monkeypatch):
    ideal, production, near_zero = evidence.scale_cards()
    moved = dataclasses.replace(production, scaled=production.scaled + 1e-3)
    monkeypatch.setattr(evidence, "scale_cards", lambda: (ideal, moved, near_zero))
    with pytest.raises(UnsupportedClaim, match="differ too little to matter"):
        predict.values()


def test_the_history_guard_stops_an_rms_norm_that_mixes_rows(monkeypatch):
    real = evidence.history()
    mixed = dataclasses.replace(real, rms_norm_with_itself=real.rms_norm_with_itself + 0.1)
    monkeypatch.setattr(evidence, "history", lambda: mixed)
    with pytest.raises(UnsupportedClaim, match="RMSNorm ignores the companion"):
        history.values()


def test_the_training_guard_holds_the_held_out_claim_to_its_threshold(monkeypatch):
    real = training.experiment(training.Setup())
    layer = real["LayerNorm"]
    apart = {**real, "LayerNorm": dataclasses.replace(layer, held_out_loss=layer.held_out_loss * 1.5)}
    monkeypatch.setattr(training, "experiment", lambda setup: apart)
    with pytest.raises(UnsupportedClaim, match="within a fifth"):
        training.values()


def test_the_partial_rms_guard_stops_rows_that_are_no_harder_than_normal_ones(monkeypatch):
    monkeypatch.setattr(modern_kernels, "partial_rms_by_kind", lambda: dict.fromkeys(modern_kernels.ROW_KINDS, 0.03))
    with pytest.raises(UnsupportedClaim, match="far worse"):
        modern_kernels.values()


def test_the_evidence_guard_stops_a_failed_check(monkeypatch):
    real = evidence.collect()
    broken = dataclasses.replace(real, closed_form=dataclasses.replace(real.closed_form, replay_bitwise=False))
    monkeypatch.setattr(evidence, "collect", lambda: broken)
    with pytest.raises(UnsupportedClaim, match="every check"):
        what_next.values(len(COURSE.exercises))


@pytest.mark.parametrize(
    ("low", "high", "words"),
    [
        (1.2, 1.5, "took longer than the RMSNorm formula in every round (1.20 to 1.50 times as long"),
        (0.6, 0.9, "took less time than the RMSNorm formula in every round"),
        (0.9, 1.1, "were within the run-to-run spread"),
    ],
)
def test_a_timing_sentence_claims_only_what_every_round_showed(low, high, words):
    spread = cost_study.Spread(median=(low + high) / 2, low=low, high=high)
    assert words in cost.compared(spread, "LayerNorm", "the RMSNorm formula")


def test_the_cache_sentence_compares_the_copy_s_whole_working_set():
    mib = 2**20
    assert "larger than that cache" in cost.held_in_cache(32 * mib, 48 * mib)  # x and out: 64 MiB
    assert "fit within that cache" in cost.held_in_cache(16 * mib, 48 * mib)
    assert "no cache size is known" in cost.held_in_cache(16 * mib, None)


def test_the_narrowest_margin_reads_rightly_whichever_was_faster():
    assert cost.margin(1.25, "1 MiB") == "at 1 MiB, where the formula took 1.25 times as long as the kernel"
    assert cost.margin(0.8, "1 MiB") == "at 1 MiB, where the kernel took 1.25 times as long as the formula"
    assert np.isclose(1 / 0.8, 1.25)


def test_the_real_model_guard_stops_a_box_whose_given_row_is_not_the_model_s(monkeypatch):
    """The boxes give the model's numbers as their inputs: a changed one no longer matches what the model measures."""
    from rmsnorm_course.model import measurements as study
    from rmsnorm_course.pages import real_model

    monkeypatch.setitem(study.ASKED, "value", study.ASKED["value"] + 1)
    with pytest.raises(UnsupportedClaim, match="the value the box gives"):
        real_model.values()


def test_the_cost_table_the_figure_and_the_prose_show_one_ratio_per_contender(monkeypatch):
    """Each ratio is the median of the ratios taken within each round, wherever it shows; not a ratio of medians."""
    c = cost_study
    rounds = lambda *seconds: np.array(seconds, dtype=float)  # noqa: E731
    forward = c.Timings(
        {
            c.COPY: rounds(1, 1, 2),
            c.INTO_OUT: rounds(2, 3, 3),  # within each round 2, 3 and 1.5 copies: median 2, though 3 / 1 is 3
            c.PACKAGE: rounds(3, 3, 6),
            c.FORMULA: rounds(4, 4, 8),
            c.LAYER_FORMULA: rounds(8, 8, 16),
        }
    )
    backward = c.Timings({c.COPY: rounds(1, 1, 1), "rms_norm_backward": rounds(5, 6, 7), c.FORMULA: rounds(9, 9, 9)})
    backward.samples[c.LAYER_FORMULA] = rounds(9, 9, 9)
    monkeypatch.setattr(c, "cost_timings", lambda shape, dtype: {c.FORWARD: forward, c.BACKWARD: backward})
    seconds = {name: rounds(1, 2) for name in (c.COPY, c.INTO_OUT, c.PACKAGE, c.FORMULA)}
    monkeypatch.setattr(c, "size_sweep", lambda: c.SizeSweep(np.array([1024, 2048]), seconds))
    monkeypatch.setattr(cost, "roofline", lambda: Roofline(bandwidth=1e10, peak=1e11, intensity=0.5, achieved=1e9))
    page = cost.values()
    assert page.f_out == "2.0 (1.5 to 3.0)"
    assert page.ratios[c.FORWARD][c.INTO_OUT] == 2.0  # the figure's bar
    assert page.b_pkg == "6.0 (5.0 to 7.0)"
    assert (page.moves_least, page.moves_most) == ("1.00", "2.00")  # slowest over fastest round: 1 to 2 times


def test_the_predict_page_s_correction_of_the_seed_stops_if_ten_times_did_lift_the_tiny_vector(monkeypatch):
    """The page says ten times the tiny vector stays near eps's regime; a factor that lifts it must stop the build."""
    assert predict.values().tenfold_plateau == f"{1.25 / 2.25:.6f}"  # ms = 1.25 eps: 1.25 / (1.25 + 1)
    monkeypatch.setattr(predict.example, "SCALE_FACTOR", 100.0)
    with pytest.raises(UnsupportedClaim, match="not lifted out of the regime"):
        predict.values()
