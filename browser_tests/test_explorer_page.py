"""The kernel-free explorer on the scale-and-epsilon page agrees with rms_norm as the controls move."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from conftest import page_with_errors, show_every_answer
from rmsnorm_course.views.explorer import EPS_CHOICES, TINY, VECTORS, WORKED, explore

SCALE_EXPONENTS = (-4.0, -1.5, 0.0, 1.0, 2.37, 4.0)


def numbers(text: str) -> np.ndarray:
    return np.array([float(n) for n in re.findall(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", text)])


@pytest.fixture(scope="module")
def explorer_page(browser, server):
    context = browser.new_context()
    show_every_answer(context)  # the explorer comes after the page's prediction, which holds it back
    page, errors = page_with_errors(context, f"{server}/book/scale-and-epsilon.html")
    page.wait_for_selector(".rmsnorm-explorer[data-ready='true']")
    yield page, errors
    context.close()


def set_controls(page, vector: str, exponent: float, eps: float) -> None:
    root = page.locator(".rmsnorm-explorer")
    root.locator("[data-control='vector']").select_option(value=vector)
    root.locator("[data-control='eps']").select_option(value=repr(eps))
    root.locator("[data-control='scale']").evaluate(
        "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }", str(exponent)
    )


def readouts(page) -> list[str]:
    return page.locator(".rmsnorm-explorer [data-readout]").all_inner_texts()


def test_the_page_checked_itself_against_rms_norm_on_load(explorer_page):
    page, errors = explorer_page
    assert errors == []
    figures = page.locator(".rmsnorm-explorer svg")
    assert figures.count() == 2 and all(figures.nth(i).is_visible() for i in range(2))
    assert not page.locator("[data-role='static-figure']").is_visible()


@pytest.mark.parametrize("vector", list(VECTORS))
@pytest.mark.parametrize("eps", EPS_CHOICES)
def test_readouts_and_marker_agree_with_rms_norm(explorer_page, vector, eps):
    page, errors = explorer_page
    for exponent in SCALE_EXPONENTS:
        set_controls(page, vector, exponent, eps)
        state = explore(vector, 10**exponent, eps)
        scale, normalized, scaled, difference, rms, mean_square = (numbers(t) for t in readouts(page))
        assert scale[0] == pytest.approx(10**exponent, rel=1e-5)
        np.testing.assert_allclose(normalized, state.normalized, atol=1e-6)
        np.testing.assert_allclose(scaled, state.scaled_normalized, atol=1e-6)
        assert difference[0] == pytest.approx(state.max_difference, abs=1e-6)
        assert rms[0] == pytest.approx(state.scaled_rms, rel=1e-5)
        assert mean_square[0] == pytest.approx(state.scaled_normalized_mean_square, abs=1e-6)
        marker = page.locator(".rmsnorm-explorer [data-role='marker']")
        assert float(marker.get_attribute("data-rms")) == pytest.approx(state.scaled_rms, rel=1e-9)
        assert float(marker.get_attribute("data-mean-square")) == pytest.approx(
            state.scaled_normalized_mean_square, abs=1e-9
        )
    assert errors == []


def test_the_marker_moves_with_the_scale(explorer_page):
    page, _ = explorer_page
    positions = []
    for exponent in (-4.0, 0.0, 2.0):
        set_controls(page, WORKED, exponent, 1e-5)
        box = page.locator(".rmsnorm-explorer [data-role='marker']").bounding_box()
        positions.append((box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))
    xs = [x for x, _ in positions]
    assert xs == sorted(xs) and len(set(xs)) == 3
    assert positions[0][1] > positions[2][1]  # mean(x-hat^2) near 0 sits lower than near 1
    assert math.isfinite(positions[1][1])


def bars(page, series: str):
    return page.locator(f".rmsnorm-explorer [data-role='bar'][data-series='{series}']")


@pytest.mark.parametrize("vector", list(VECTORS))
def test_the_bars_are_x_hat_of_x_and_of_a_x_coordinate_by_coordinate(explorer_page, vector):
    page, errors = explorer_page
    pixels_per_unit = []  # one vertical scale per vector, whatever the controls say
    for exponent, eps in ((-4.0, 1e-2), (0.5, 1e-5), (4.0, 0.0)):
        set_controls(page, vector, exponent, eps)
        state = explore(vector, 10**exponent, eps)
        for series, expected in (("x", state.normalized), ("ax", state.scaled_normalized)):
            locator = bars(page, series)
            assert locator.count() == state.x.size
            values = np.array([float(v) for v in locator.evaluate_all("els => els.map(e => e.dataset.value)")])
            np.testing.assert_allclose(values, expected, rtol=1e-9, atol=1e-15)
            heights = np.array(locator.evaluate_all("els => els.map(e => e.getBBox().height)"))
            # one vertical scale for every bar: pixels per unit of x-hat is the same for all of them
            pixels_per_unit.extend(heights[np.abs(expected) > 0.05] / np.abs(expected[np.abs(expected) > 0.05]))
            assert np.all(heights[np.abs(expected) < 1e-3] < 1)  # a vanishing x-hat draws (almost) nothing
    np.testing.assert_allclose(pixels_per_unit, pixels_per_unit[0], rtol=1e-3)
    assert errors == []


def test_the_bars_of_a_x_shrink_as_a_x_falls_below_sqrt_eps(explorer_page):
    page, _ = explorer_page
    heights = []
    for exponent in (0.0, -2.0, -4.0):
        set_controls(page, WORKED, exponent, 1e-2)
        heights.append(bars(page, "ax").evaluate_all("els => els.map(e => e.getBBox().height)"))
    unchanged = bars(page, "x").evaluate_all("els => els.map(e => e.getBBox().height)")
    assert heights[0][1] > heights[1][1] > heights[2][1]
    assert unchanged == pytest.approx(heights[0], rel=0.02)  # a = 1: x-hat(a·x) is x-hat(x)


@pytest.mark.parametrize(
    ("vector", "exponent", "side"),
    [
        (WORKED, 4.0, "right"),
        (TINY, -4.0, "left"),
        (WORKED, 0.0, ""),
    ],
)
def test_a_marker_past_the_axis_says_so(explorer_page, vector, exponent, side):
    page, _ = explorer_page
    set_controls(page, vector, exponent, 1e-5)
    state = explore(vector, 10**exponent, 1e-5)
    assert (state.off_axis or "") == side
    marker = page.locator(".rmsnorm-explorer [data-role='marker']")
    assert marker.get_attribute("data-off-axis") == side
    legend = page.locator(".rmsnorm-explorer svg").nth(1).text_content()
    assert (f"off the axis to the {side}" in legend) == bool(side)
    if side:
        frame = page.locator(".rmsnorm-explorer svg").nth(1).locator("rect").first.bounding_box()
        box = marker.bounding_box()
        left, right = frame["x"], frame["x"] + frame["width"]
        assert left - 1 <= box["x"] and box["x"] + box["width"] <= right + 1  # inside the frame, over no tick label
        gap = box["x"] - left if side == "left" else right - (box["x"] + box["width"])
        assert gap <= 16  # against that edge, not lost


def format_cases(count: int = 12_000, seed: int = 21) -> list[float]:
    """Values from 1e-12 to 1e12 of both signs, and the hard ones: ties, powers of ten and just below them."""
    rng = np.random.default_rng(seed)
    values = list(10.0 ** rng.uniform(-12, 12, count) * rng.choice([-1.0, 1.0], count))
    values += [k / 2**n for n in range(1, 30) for k in (1, 3, 5, 7, 9, 11, 13)]  # exact binary ties
    values += [10.0**p * m for p in range(-12, 13) for m in (1.0, 0.9999995, 0.99999995, 0.999999949, 9.9999996)]
    values += [999999.7, 9.9999996e-5, 0.0, -0.0, 1e-300, 5e-324, 1.7976931348623157e308]
    return values


def test_the_explorer_writes_numbers_as_python_does_from_1e_12_to_1e12(explorer_page):
    page, _ = explorer_page
    values = format_cases()
    specs = [".6f", ".6g", ".7g", ".3g", ".2g"]
    shown = page.evaluate(
        "([values, specs]) => values.map(v => specs.map(s => window.rmsnormFormat(v, s)))", [values, specs]
    )
    expected = [[format(v, spec) for spec in specs] for v in values]
    mismatches = [(v, got, want) for v, got, want in zip(values, shown, expected) if got != want]
    assert len(values) >= 10_000 and mismatches == []


@pytest.mark.parametrize(("forced", "held"), [("1e308", 4.0), ("-1e308", -4.0)])
def test_a_slider_forced_past_its_range_is_held_to_it(explorer_page, forced, held):
    """The control made to say 10**±1e308 (its type changed, so it holds any number): no inf, nan or SVG error."""
    page, errors = explorer_page
    set_controls(page, WORKED, 0.0, 1e-5)
    page.locator(".rmsnorm-explorer [data-control='scale']").evaluate(
        "(el, v) => { el.type = 'number'; el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }",
        forced,
    )
    shown = readouts(page)
    state = explore(WORKED, 10**held, 1e-5)
    assert numbers(shown[0])[0] == pytest.approx(10**held, rel=1e-5)
    np.testing.assert_allclose(numbers(shown[2]), state.scaled_normalized, atol=1e-6)
    assert not any(word in text for text in shown for word in ("inf", "nan"))
    page.locator(".rmsnorm-explorer [data-control='scale']").evaluate("el => { el.type = 'range'; }")
    assert errors == []
