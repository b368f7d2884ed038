"""Figures are drawn from computed values, labelled, and reproducible."""

from __future__ import annotations

import io
from itertools import pairwise

import matplotlib.image
import matplotlib.text
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import FancyArrowPatch, Rectangle

from rmsnorm_course.pages import (
    backward,
    follow_one_vector,
    formula,
    history,
    in_the_model,
    modern_blocks,
    modern_gains,
    modern_kernels,
    scale_and_epsilon,
    training,
)
from rmsnorm_course.pages import (
    cost as cost_page,
)
from rmsnorm_course.pages import (
    precision as precision_page,
)
from rmsnorm_course.pages import (
    real_model as real_model_page,
)
from rmsnorm_course.perf import timings as cost
from rmsnorm_course.perf.roofline import Roofline
from rmsnorm_course.studies import evidence, partial, precision
from rmsnorm_course.studies.comparison import activation_comparison, placement_curves
from rmsnorm_course.views import figures
from rmsnorm_course.views.explorer import TINY, WORKED, explore


@pytest.mark.parametrize(
    "make",
    [
        lambda: scale_and_epsilon.normalized_mean_square_figure(state=explore()),
        lambda: figures.explorer_figure(explore()),
        lambda: history.activation_histograms(activation_comparison(shape=(2, 4, 32))),
        lambda: scale_and_epsilon.eps_placement_figure(placement_curves(np.logspace(-6, 1, 50), 1e-5), 1e-5),
    ],
)
def test_plots_have_labelled_axes_and_draw_the_same_twice(make):
    fig = make()
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel()
    drawn = figures.png_bytes(fig)
    assert drawn == figures.png_bytes(make())
    assert b"matplotlib" not in drawn  # no version written in: two builds give the same bytes


def test_curve_figure_draws_the_curve_from_rms_norm():
    fig = scale_and_epsilon.normalized_mean_square_figure(eps_values=(1e-5,))
    line = fig.axes[0].get_lines()[0]
    x, y = line.get_data()
    np.testing.assert_allclose(y, x**2 / (x**2 + 1e-5), rtol=1e-12)


def test_follow_one_vector_gives_each_kind_of_box_its_own_border():
    primary = evidence.primary()
    fig = follow_one_vector.follow_one_vector_figure(primary)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    for value in (*primary.forward.normalized, *primary.forward.output):
        assert f"{value:.6f}" in texts
    assert f"{primary.forward.inverse_rms[0]:.6f}" in texts
    boxes = [p for p in fig.axes[0].patches if isinstance(p, Rectangle) and not p.get_fill()]
    styles = [{"solid": "-"}.get(p.get_linestyle(), p.get_linestyle()) for p in boxes]
    # input solid, two dotted numbers, dashed x-hat, dash-dot gain, and the output's double border (two solid boxes)
    assert styles == ["-", ":", ":", "--", "-.", "-", "-"]


def test_sweep_figure_has_labelled_axes_and_both_methods():
    fig = precision_page.precision_sweep_figure(precision.sweep(exponents=[-30, 0, 30]))
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and len(ax.get_legend().get_texts()) == 2


def test_cost_figure_has_labelled_axes_and_marks_the_copy():
    fig = cost_page.cost_ratios_figure({cost.FORWARD: {"copy": 1.0, "a": 2.0}, cost.BACKWARD: {"a": 3.0}})
    forward, backward = fig.axes
    assert forward.get_xlabel() and forward.get_ylabel() and forward.get_title() == cost.FORWARD
    assert [bar.get_width() for bar in forward.patches] == [1.0, 2.0]
    assert forward.patches[0].get_hatch() == "//" and backward.patches[0].get_width() == 3.0


def test_size_sweep_figure_plots_nanoseconds_per_element_with_a_style_per_contender():
    seconds = {
        cost.COPY: np.array([1e-6, 8e-6]),
        cost.PACKAGE: np.array([4e-6, 2e-5]),
        cost.FORMULA: np.array([2e-6, 5e-5]),
    }
    sweep = cost.SizeSweep(elements=np.array([2**18, 2**20]), seconds=seconds)
    ax = cost_page.size_sweep_figure(sweep).axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == list(seconds)
    for line, name in zip(lines, seconds):
        np.testing.assert_array_equal(line.get_xdata(), [1.0, 4.0])  # MiB
        np.testing.assert_allclose(line.get_ydata(), 1e9 * seconds[name] / sweep.elements)
    assert len({(line.get_linestyle(), line.get_marker()) for line in lines}) == 3
    assert ax.get_xlabel() and ax.get_ylabel()


def test_follow_one_vector_reads_at_page_width_with_an_arrow_from_x_to_x_hat():
    fig = follow_one_vector.follow_one_vector_figure(evidence.primary())
    ax = fig.axes[0]
    assert fig.get_figwidth() <= 7.5  # shown near its own size on a page, not shrunk
    assert min(t.get_fontsize() for t in ax.texts) >= 10
    downward = [
        p for p in ax.patches
        if isinstance(p, FancyArrowPatch) and p._posA_posB[0][0] == p._posA_posB[1][0]
        and p._posA_posB[0][1] > p._posA_posB[1][1]
    ]  # fmt: skip
    assert len(downward) == 1 and any(t.get_text() == "x times 1/rms" for t in ax.texts)


@pytest.mark.parametrize(("vector", "scale", "side"), [(WORKED, 1e4, "right"), (TINY, 1e-4, "left")])
def test_explorer_figure_puts_an_off_axis_marker_on_its_edge_and_says_so(vector, scale, side):
    state = explore(vector, scale, 1e-5)
    curve = figures.explorer_figure(state).axes[1]
    marker = curve.get_lines()[-1]
    low, high = curve.get_xlim()
    x, y = marker.get_xdata()[0], marker.get_ydata()[0]
    assert low < x < high and (x < low * 10 if side == "left" else x > high / 10)  # just inside its edge
    assert 0.05 <= y <= 0.97 and y == pytest.approx(min(max(state.scaled_normalized_mean_square, 0.05), 0.97))
    assert marker.get_marker() == ("<" if side == "left" else ">")
    assert f"RMS {state.scaled_rms:.3g}, off the axis to the {side}" in marker.get_label()


def test_explorer_figure_draws_both_bars_on_one_scale_per_vector():
    state = explore("activation row (d = 8, seed 0)", 0.03, 1e-2)
    bars = figures.explorer_figure(state).axes[0]
    heights = [p.get_height() for p in bars.patches if isinstance(p, Rectangle)][: 2 * state.x.size]
    np.testing.assert_array_equal(heights, [*state.normalized, *state.scaled_normalized])
    x = np.array(state.x)
    assert bars.get_ylim()[1] == pytest.approx(1.15 * np.max(np.abs(x)) / np.sqrt(np.mean(x**2)))


def test_training_figure_draws_every_variants_losses_and_stream():
    small = training.Setup(depth=2, width=4, hidden=4, inputs=3, outputs=1, examples=6, steps=5)
    runs = training.experiment(small)
    losses, stream = training.training_figure(runs).axes
    assert [line.get_label() for line in losses.get_lines()] == list(training.VARIANTS)
    for line, run in zip(losses.get_lines(), runs.values()):
        np.testing.assert_array_equal(line.get_ydata(), run.losses)
    drawn = [line.get_ydata() for line in stream.get_lines()]
    for k, run in enumerate(runs.values()):
        np.testing.assert_array_equal(drawn[2 * k], run.stream_rms_before)
        np.testing.assert_array_equal(drawn[2 * k + 1], run.stream_rms_after)
    styles = {(line.get_linestyle(), line.get_marker()) for line in losses.get_lines()}
    assert len(styles) == 3 and losses.get_yscale() == "log"


def test_geometry_figure_puts_the_images_where_the_study_says():
    g = formula.geometry()
    maps, shrink = formula.geometry_figure(g).axes
    by_label = {line.get_label(): line for line in maps.get_lines()}
    rms = by_label["RMSNorm(x), eps = 0"]
    np.testing.assert_array_equal(np.column_stack([rms.get_xdata(), rms.get_ydata()]), g.rms_images)
    layer = by_label["LayerNorm(x), eps = 0"]
    np.testing.assert_array_equal(np.column_stack([layer.get_xdata(), layer.get_ydata()]), g.layer_images)
    assert rms.get_marker() != layer.get_marker()
    walked = shrink.get_lines()[-1]
    np.testing.assert_array_equal(np.column_stack([walked.get_xdata(), walked.get_ydata()]), g.shrink_images)


def test_gradient_figure_draws_the_gradient_from_x_hat():
    p = backward.gradient_picture()
    ax = backward.gradient_figure(p).axes[0]
    arrows = [patch for patch in ax.patches if isinstance(patch, FancyArrowPatch)]
    assert len(arrows) == 2
    start, end = arrows[0]._posA_posB
    np.testing.assert_allclose(start, p.normalized)
    np.testing.assert_allclose(np.subtract(end, start), 2 * p.grad_x)
    assert abs(np.dot(np.subtract(end, start), p.normalized)) < 1e-12  # tangent, as drawn


def test_axes_figure_outlines_columns_for_batch_norm_and_rows_for_the_others():
    batch_norm, layer_norm, rms = history.axes_figure(batch=4, features=6).axes

    def outlines(ax):
        return [p for p in ax.patches if isinstance(p, Rectangle) and not p.get_fill()]

    assert [(p.get_width(), p.get_height()) for p in outlines(batch_norm)] == [(1, 4)] * 6
    for ax in (layer_norm, rms):
        assert [(p.get_width(), p.get_height()) for p in outlines(ax)] == [(6, 1)] * 4
    assert "mean square" in rms.get_title() and "variance" in layer_norm.get_title()


def test_roofline_figure_plots_the_roof_and_the_measured_point():
    r = Roofline(bandwidth=20e9, peak=200e9, intensity=0.5, achieved=4e9)
    ax = cost_page.roofline_figure(r).axes[0]
    roof, *_, point = ax.get_lines()
    np.testing.assert_allclose(roof.get_ydata(), r.attainable(roof.get_xdata()) / 1e9)
    assert point.get_xdata()[0] == 0.5 and point.get_ydata()[0] == 4.0
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


@pytest.fixture(scope="module")
def every_figure():
    """Every figure the book draws, from small but real inputs: drawn once for the tests that read them all."""
    import tiny_llama
    from rmsnorm_course.model import measurements as real_model
    from rmsnorm_course.perf.roofline import Roofline
    from rmsnorm_course.studies.comparison import activation_comparison, placement_curves
    from rmsnorm_course.views.explorer import explore

    names = (cost.COPY, cost.INTO_OUT, cost.PACKAGE, cost.FORMULA)
    sweep = cost.SizeSweep(np.array([2**18, 2**20]), {name: np.array([1e-4, 4e-4]) for name in names})
    timed = cost.cost_timings(shape=(4, 8), repeats=1)
    ratios = {d: {n: spread.median for n, spread in t.ratios(cost.COPY).items()} for d, t in timed.items()}
    small = training.Setup(depth=3, width=6, hidden=8, inputs=4, outputs=2, examples=10, steps=4)
    tiny = real_model.measure(tiny_llama.model(), ("ab ab", "a b c", "c a", "b"))  # a tiny LLaMA, four prompts
    return {
        "normalized mean square": scale_and_epsilon.normalized_mean_square_figure(),
        "explorer": figures.explorer_figure(explore(TINY, 1e-4, 1e-5)),
        "activations": history.activation_histograms(activation_comparison()),
        "eps placement": scale_and_epsilon.eps_placement_figure(placement_curves(np.logspace(-6, 1, 40), 1e-5), 1e-5),
        "pre-norm block": in_the_model.pre_norm_block_figure(),
        "follow one vector": follow_one_vector.follow_one_vector_figure(evidence.primary()),
        "cost ratios": cost_page.cost_ratios_figure(ratios),
        "size sweep": cost_page.size_sweep_figure(sweep),
        "precision sweep": precision_page.precision_sweep_figure(precision.sweep(exponents=[-30, 0, 30])),
        "training": training.training_figure(training.experiment.__wrapped__(small)),
        "geometry": formula.geometry_figure(formula.geometry()),
        "gradient": backward.gradient_figure(backward.gradient_picture()),
        "axes": history.axes_figure(),
        "roofline": cost_page.roofline_figure(Roofline(2e10, 5e10, 0.5, 1e9)),
        "post-norm and model": in_the_model.post_norm_and_model_figure(),
        "gain decay": modern_gains.gain_decay_figure(modern_gains.gain_decay(steps=50)),
        "qk-norm": modern_gains.qk_norm_figure(
            modern_gains.qk_norm.__wrapped__(scales=(1.0, 10.0), width=8, positions=4)
        ),
        "depth": modern_blocks.depth_figure(modern_blocks.stream_through_depth()),
        "fused roofline": modern_kernels.fused_roofline_figure(Roofline(2e10, 5e10, 0.5, 1e9), modern_kernels.KERNELS),
        "partial rms": modern_kernels.partial_rms_figure(partial.partial_rms(widths=(64,), shares=(0.25, 1.0), rows=8)),
        "real stream": real_model_page.real_stream_figure(tiny),
        "real gains": real_model_page.real_gains_figure(tiny),
    }


def test_every_figure_the_pages_draw_is_checked(every_figure):
    import rmsnorm_course.pages as pages

    modules = [figures, *(getattr(pages, name) for name in pages.PAGES)]
    drawn = {f"{module.__name__}.{name}" for module in modules for name in dir(module)
             if getattr(getattr(module, name), "__module__", None) == module.__name__
             and (name.endswith("_figure") or name == "activation_histograms")}  # fmt: skip
    assert len(every_figure) == len(drawn)


def test_no_figure_has_text_smaller_than_the_smallest_size_nor_is_wider_than_the_page_allows(every_figure):
    """With figures.SMALLEST_TEXT points at 100 dpi, the pages' CSS keeps every text at 9 px or more as displayed."""
    for name, fig in every_figure.items():
        saved_width = _saved_width(fig)  # as the page saves it: cropped, or grown, to its ink
        texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
        smallest = min(text.get_fontsize() for text in texts)
        assert smallest >= figures.SMALLEST_TEXT, (name, smallest)
        assert fig.dpi == 100 and saved_width <= figures.WIDEST * fig.dpi, (name, saved_width)


def _saved_width(fig) -> int:
    """Pixels across of ``savefig(bbox_inches="tight")``'s PNG, found as saving finds it, with nothing painted.

    Saving lays the figure out, crops it to its ink and pads it; painting and reading back the
    pixels would only repeat that width, at about twice the cost.
    """
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw_without_rendering()
    ink = fig.get_tightbbox(renderer).padded(matplotlib.rcParams["savefig.pad_inches"])
    return int(ink.width * fig.dpi)


@pytest.mark.parametrize("phone", [False, True])
def test_measuring_a_figure_s_saved_width_without_painting_it_gives_the_png_s_width(phone):
    """One figure with its legend outside its panel, saved for real and measured without painting."""

    def drawn():
        fig = modern_blocks.depth_figure(modern_blocks.stream_through_depth())
        return fig.phone() if phone else fig

    buffer = io.BytesIO()
    drawn().savefig(buffer, format="png", bbox_inches="tight")
    assert _saved_width(drawn()) == matplotlib.image.imread(io.BytesIO(buffer.getvalue())).shape[1]


def _drawn(fig):
    """Lay the figure out on an image canvas, as saving it does; its renderer, to measure with."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def test_every_figure_the_book_shows_draws_for_a_phone_with_its_panels_stacked(every_figure):
    """At 390 px a phone's column shows a figure whole: one narrow column of panels, text at 9 points or more."""
    for name, fig in every_figure.items():
        if name == "class results":  # the class report's figure, not the book's
            continue
        phone = fig.phone()
        saved_width = _saved_width(phone)
        assert saved_width <= figures.PHONE_WIDEST * phone.dpi, (name, saved_width)
        texts = [t for t in phone.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
        assert min(t.get_fontsize() for t in texts) >= figures.SMALLEST_TEXT, name
        assert len(phone.axes) == len(fig.axes), name
        # the panels where measuring the saved width laid them out, as saving does
        boxes = sorted((ax.get_position() for ax in phone.axes), key=lambda box: -box.y1)
        for upper, lower in pairwise(boxes):
            assert lower.y1 <= upper.y0 + 1e-9, f"{name}: panels side by side on a phone"


def test_the_size_sweep_s_labels_do_not_run_into_each_other():
    elements = 2 ** np.array([10, 12, 14, 16, 18, 20, 22, 23])
    sweep = cost.SizeSweep(elements, {name: np.geomspace(1e-6, 1e-2, 8) for name in (cost.COPY, cost.PACKAGE)})
    for fig in (cost_page.size_sweep_figure(sweep), cost_page.size_sweep_figure(sweep).phone()):
        _drawn(fig)
        labels = [label for label in fig.axes[0].get_xticklabels() if label.get_text()]
        assert len(labels) == 8
        # slanted labels are parallel lines of text: neighbours clear each other when the distance
        # between their baselines (across the slant) is more than a line of text is high
        angle = np.radians(labels[0].get_rotation())
        anchors = np.array([fig.axes[0].transData.transform((label.get_position()[0], 1))[0] for label in labels])
        line = labels[0].get_fontsize() * fig.dpi / 72
        assert 0 < angle < np.pi / 2 and np.min(np.diff(anchors)) * np.sin(angle) > line


def test_the_depth_figure_s_legend_covers_no_curve():
    for fig in (
        modern_blocks.depth_figure(modern_blocks.stream_through_depth()),
        modern_blocks.depth_figure.__wrapped__(modern_blocks.stream_through_depth()),
    ):
        renderer = _drawn(fig)
        (legend,) = fig.legends
        assert not legend.get_window_extent(renderer).overlaps(fig.axes[0].get_window_extent(renderer))


@pytest.mark.parametrize(
    ("vector", "scale", "eps"),
    [(WORKED, 10.0, 1e-5), (TINY, 1e-3, 1e-2), (TINY, 1e-4, 1e-5), ("activation row (d = 8, seed 0)", 1e3, 0.0)],
)
def test_the_explorer_s_legends_lie_above_their_frames_clear_of_every_curve_and_bar(vector, scale, eps):
    """At a tiny input with a large eps the marker's label is long and the curve runs along the bottom: a legend
    in a corner of the frame lay over it. Each legend sits above its frame, at page width and on a phone."""
    page_width = figures.explorer_figure(explore(vector, scale, eps))
    for fig in (page_width, page_width.phone()):
        renderer = _drawn(fig)
        for ax in fig.axes:
            legend = ax.get_legend().get_window_extent(renderer)
            frame = ax.get_window_extent(renderer)
            assert legend.y0 >= frame.y1 and not legend.overlaps(frame), (ax.get_ylabel(), legend, frame)
            assert ax.get_legend().get_title().get_text()  # the panel's title heads its legend


def test_the_gradient_figure_shows_both_arrows_the_first_under_the_second():
    first, second = (p for p in backward.gradient_figure(backward.gradient_picture()).axes[0].patches
                     if isinstance(p, FancyArrowPatch))  # fmt: skip
    assert first.get_linewidth() >= 2 * second.get_linewidth()  # the one drawn later lies on top, narrower
    np.testing.assert_allclose(first._posA_posB, second._posA_posB, atol=1e-12)  # the same arrow, as the text says


def test_importing_the_figures_leaves_matplotlib_s_settings_alone():
    """The style is set where a figure is drawn: a notebook that imports the module keeps its own settings."""
    import subprocess
    import sys

    code = (
        "import matplotlib; matplotlib.rcParams['font.size'] = 17; before = dict(matplotlib.rcParams);"
        "from rmsnorm_course.pages import modern_gains as f; assert dict(matplotlib.rcParams) == before;"
        "fig = f.gain_decay_figure(f.gain_decay());"
        "print(fig.axes[0].xaxis.label.get_fontsize(), matplotlib.rcParams['font.size'])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["10.0", "17.0"]  # the figure in its own style, the notebook's left as it was
