"""The kernel-free explorer's page fragment: real default values, rms_norm's check values, the script."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
from bs4 import BeautifulSoup

from highprecision import ulps_apart
from rmsnorm_course import rms_norm
from rmsnorm_course.views.explorer import EPS_CHOICES, TINY, VECTORS, explore, readout_rows
from rmsnorm_course.views.static_explorer import CHECK_SETTINGS, SCRIPT, static_explorer_html
from rmsnorm_course.views.widgets import ScaleExplorer


@pytest.fixture(scope="module")
def fragment() -> BeautifulSoup:
    return BeautifulSoup(static_explorer_html(), "html.parser")


def test_default_readouts_are_printed_without_any_script(fragment):
    cells = [c.get_text() for c in fragment.select("[data-readout]")]
    assert cells == [text for _, text in readout_rows(explore())]


def test_the_reference_values_are_rms_norms_own(fragment):
    config = json.loads(fragment.find("script", type="application/json").string)
    assert len(config["checks"]) == len(CHECK_SETTINGS)
    for check in config["checks"]:
        x = np.array(VECTORS[check["vector"]])
        assert ulps_apart(np.array(check["normalized"]), rms_norm(x, eps=check["eps"])) <= 4
        assert ulps_apart(np.array(check["scaled_normalized"]), rms_norm(check["scale"] * x, eps=check["eps"])) <= 4
    assert config["vectors"] == {name: list(values) for name, values in VECTORS.items()}


def test_controls_span_the_range_and_include_eps_zero(fragment):
    scale = fragment.select_one("[data-control='scale']")
    assert float(scale["min"]) <= -4 and float(scale["max"]) >= 4
    eps_values = [float(o["value"]) for o in fragment.select("[data-control='eps'] option")]
    assert eps_values == list(EPS_CHOICES) and 0.0 in eps_values
    assert [o["value"] for o in fragment.select("[data-control='vector'] option")] == list(VECTORS)
    for control in fragment.select("[data-control]"):
        assert control.find_parent("label"), "every control has a label"


def test_static_figure_is_a_real_png_with_alt_text(fragment):
    image = fragment.select_one("img[data-role='static-figure']")
    assert image["alt"].strip()
    data = base64.b64decode(image["src"].removeprefix("data:image/png;base64,"))
    assert data.startswith(b"\x89PNG")


def test_the_fragment_carries_data_not_code_and_explains_the_live_version(fragment):
    (data,) = fragment.find_all("script")  # the script itself is the book's one static file
    assert data["type"] == "application/json"
    assert "Binder" in fragment.get_text() and "Jupyter" in fragment.get_text()
    assert not re.search(r"src=['\"]https?://", str(fragment))


def test_a_starting_state_is_respected():
    state = explore(TINY, 1000.0, 1e-2)
    soup = BeautifulSoup(static_explorer_html(state), "html.parser")
    assert soup.select_one("[data-control='vector'] option[selected]")["value"] == state.vector
    assert float(soup.select_one("[data-control='scale']")["value"]) == pytest.approx(3.0)
    assert [c.get_text() for c in soup.select("[data-readout]")] == [text for _, text in readout_rows(state)]


def test_the_script_holds_the_slider_to_the_range_the_page_gives_it(fragment):
    """The page's script reads the slider's range from the page's data: a value forced past it is held to it."""
    config = json.loads(fragment.find("script", type="application/json").string)
    scale = fragment.select_one("[data-control='scale']")
    assert config["scale_exponents"] == [float(scale["min"]), float(scale["max"])]
    script = SCRIPT.read_text(encoding="utf-8")
    assert "config.scale_exponents" in script


def test_the_widget_offers_both_the_live_widget_and_the_static_page():
    bundle = ScaleExplorer()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "rmsnorm-explorer" in bundle["text/html"]


def test_the_bars_scale_comes_from_python(fragment):
    config = json.loads(fragment.find("script", type="application/json").string)
    for name, values in VECTORS.items():
        x = np.array(values)
        assert config["bar_limits"][name] == pytest.approx(np.max(np.abs(x)) / np.sqrt(np.mean(x**2)), rel=1e-14)
