"""The engine's Sphinx extension: a book of another course gets that course's boxes served, and its answers for print.

The second course is the toy course, registered as an installed course (``toy.register``); its
one page is built by Sphinx itself, in another process, from a tiny project in a temporary folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from toy import TOY, path, register

from predict_check import box
from predict_check.sphinx import WIDGET_STATE, _fix_page, print_answers

CONF = """\
extensions = ["predict_check.sphinx"]
predict_check_course = "toy-course"
templates_path = ["_templates"]
"""
# The book's own layout places the answers for print after the article, as the course's book/_templates does.
LAYOUT = """\
{% extends "!layout.html" %}
{% block document %}{{ super() }}{{ print_answers | default('') }}{% endblock %}
"""


def page_with_boxes(*exercise_ids: str) -> str:
    """A page of the toy course showing these boxes, each as its cell's output puts it on a built page."""
    boxes = "".join(
        f"\n.. raw:: html\n\n{textwrap.indent(box.prediction_html(TOY.get(exercise_id)), '   ')}\n\nAfter the box.\n"
        for exercise_id in exercise_ids
    )
    return f"The toy course\n==============\n{boxes}"


@pytest.fixture(autouse=True)
def nothing_kept(monkeypatch):
    monkeypatch.setenv(TOY.cache_variable, "off")


def test_a_page_s_answers_for_print_are_its_own_boxes_in_its_order():
    printed = print_answers(TOY, box.prediction_html(TOY.get("pair")) + box.prediction_html(TOY.get("double")))
    assert printed.index("A pair, halved") < printed.index("Twice a number")
    assert "<code>[1.5, 2.5]</code>" in printed and "<code>7</code>" in printed and "first letter" not in printed
    assert '<li data-exercise="pair">' in printed  # where the page's script puts what the verdict opens, on paper
    assert print_answers(TOY, "<p>No box here.</p>") == ""


def test_a_page_leaves_out_the_live_code_loader_and_the_widgets_state():
    scripts = [
        SimpleNamespace(filename="_static/sphinx-thebe.js", attributes={}),
        SimpleNamespace(filename=None, attributes={"body": "const THEBE_JS_URL = 'https://example.org'"}),
        SimpleNamespace(filename=None, attributes={"type": WIDGET_STATE, "body": "{}"}),
        SimpleNamespace(filename=box.DATA_SCRIPT, attributes={}),
    ]
    app = SimpleNamespace(config=SimpleNamespace(predict_check_course="toy-course"))
    context = {"script_files": scripts}
    _fix_page(app, "index", "page.html", context, None)
    assert [script.filename for script in context["script_files"]] == [box.DATA_SCRIPT]


def build(project: Path, installed: Path) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=path(installed), TOY_COURSE_CACHE="off")
    line = [sys.executable, "-P", "-m", "sphinx", "-b", "html", "-q", "-W", str(project), str(project / "_build")]
    return subprocess.run(line, capture_output=True, text=True, env=environment, cwd=project, check=False)


def test_a_book_of_the_toy_course_serves_its_boxes_and_prints_its_answers(tmp_path):
    project = tmp_path / "book"
    (project / "_templates").mkdir(parents=True)
    (project / "conf.py").write_text(CONF, encoding="utf-8")
    (project / "_templates" / "layout.html").write_text(LAYOUT, encoding="utf-8")
    (project / "index.rst").write_text(page_with_boxes("double", "pair"), encoding="utf-8")
    run = build(project, register(tmp_path / "installed"))
    assert run.returncode == 0, run.stderr
    page, static = (project / "_build" / "index.html").read_text(encoding="utf-8"), project / "_build" / "_static"
    for script in box.SCRIPTS:
        assert page.count(f'src="_static/{script.name}') == 1
        assert (static / script.name).read_text(encoding="utf-8") == script.read_text(encoding="utf-8")
    assert page.count(f'href="_static/{box.STYLE.name}') == 1
    data = (static / box.DATA_SCRIPT).read_text(encoding="utf-8")
    assert all(f'"{exercise_id}"' in data for exercise_id in ("double", "pair", "letter")) and "mean-square" not in data
    assert '<details class="print-answers">' in page and "<code>7</code>" in page and "The first letter" not in page


def test_a_book_that_names_a_course_not_installed_stops_before_any_page(tmp_path):
    project = tmp_path / "book"
    project.mkdir()
    (project / "conf.py").write_text(CONF.replace("toy-course", "no-such-course"), encoding="utf-8")
    (project / "index.rst").write_text("Nothing\n=======\n", encoding="utf-8")
    run = build(project, register(tmp_path / "installed"))
    assert run.returncode != 0 and not (project / "_build" / "index.html").exists()
    assert "there is no course 'no-such-course'" in run.stderr and "toy-course" in run.stderr
