"""The kernel-free explorer on the scale-and-epsilon page agrees with rms_norm as the controls move."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from conftest import page_with_errors
from rmsnorm_course.views.explorer import EPS_CHOICES, VECTORS, explore

SCALE_EXPONENTS = (-4.0, -1.5, 0.0, 1.0, 2.37, 4.0)


def numbers(text: str) -> np.ndarray:
    return np.array([float(n) for n in re.findall(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", text)])


@pytest.fixture(scope="module")
def explorer_page(browser, server):
    context = browser.new_context()
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
    assert page.locator(".rmsnorm-explorer svg").is_visible()
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
    for exponent in (-4.0, 0.0, 4.0):
        set_controls(page, "worked example [3, 4]", exponent, 1e-5)
        marker = page.locator(".rmsnorm-explorer [data-role='marker']")
        positions.append((float(marker.get_attribute("cx")), float(marker.get_attribute("cy"))))
    xs = [x for x, _ in positions]
    assert xs == sorted(xs) and len(set(xs)) == 3
    assert positions[0][1] > positions[2][1]  # mean(x-hat^2) near 0 sits lower than near 1
    assert math.isfinite(positions[1][1])
