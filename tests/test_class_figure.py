"""The class's results figure: each outcome's share, with its own fill and hatch."""

from __future__ import annotations

from matplotlib.colors import to_hex

from classroom.figure import class_results_figure
from classroom.gradebook import grade_files, tally
from predict_check.verdicts import Outcome
from rmsnorm_course.pages import COURSE
from rmsnorm_course.views import figures
from rmsnorm_course.views.figures import png_bytes


def test_class_results_show_each_outcome_s_share_with_its_own_fill_and_hatch(tmp_path):
    # reciprocal-rms: right, right so far, wrong, blank, unreadable
    answers = {"a": "0.282843", "b": "0.2828", "c": "3.535535", "d": '""', "e": '"twelve"'}
    paths = []
    for name, value in answers.items():
        paths.append(tmp_path / f"{name}.toml")
        paths[-1].write_text(f"mean-square = 12.5\nreciprocal-rms = {value}\n", encoding="utf-8")
    tallies = tally(COURSE, grade_files(COURSE, paths))
    fig = class_results_figure(tallies)
    (ax,) = fig.axes
    bars = ax.patches
    assert len(bars) == 5 * len(COURSE.exercises)  # one segment per outcome per exercise
    # segments go outcome by outcome; the first row is mean-square, the second reciprocal-rms
    rows = len(COURSE.exercises)
    assert [bars[k * rows].get_width() for k in range(5)] == [100.0, 0.0, 0.0, 0.0, 0.0]
    assert [bars[k * rows + 1].get_width() for k in range(5)] == [20.0] * 5
    assert [bars[k * rows + 2].get_width() for k in range(5)] == [0.0, 0.0, 0.0, 100.0, 0.0]
    hatches = [bars[k * rows].get_hatch() or "" for k in range(5)]
    assert len(set(hatches)) == 5  # a second encoding: no two outcomes share a hatch
    fills = [to_hex(bars[k * rows].get_facecolor()) for k in range(5)]
    assert fills == [c.lower() for c in (figures.GREEN, figures.BLUE, figures.ORANGE, "#ffffff", figures.PURPLE)]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [outcome.value for outcome in Outcome]
    assert [t.get_text() for t in ax.get_yticklabels()] == list(COURSE.exercises)
    assert [t.get_text() for t in ax.texts][:2] == ["5/5", "1/5"]
    assert ax.get_xlabel() and ax.get_ylabel()
    assert png_bytes(fig) == png_bytes(class_results_figure(tallies))


def test_the_class_figure_keeps_the_figures_text_size():
    fig = class_results_figure(tally(COURSE, grade_files(COURSE, [])))
    sizes = [text.get_fontsize() for text in fig.findobj(lambda artist: hasattr(artist, "get_fontsize"))]
    assert sizes and min(sizes) >= figures.SMALLEST_TEXT
