"""Grading one student with the answer key kept pays for judging, not for drawing: the exercises load without the
plotting, notebook-display and widget libraries, and the engine without the box's page machinery. Nothing is timed
here: what is loaded is counted, in a fresh interpreter, so no earlier import in this session can hide it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

DRAWING = ("matplotlib", "IPython", "ipywidgets")  # a figure, a notebook's display, a widget: none is needed to judge
PAGE_MACHINERY = ("jinja2", "asyncio")  # the box's HTML template and its widget's wait: none is needed to judge


def loaded(statement: str) -> set[str]:
    """The top-level packages a fresh interpreter has loaded once it has run ``statement``."""
    probe = (
        f"import json, sys\n{statement}\nprint(json.dumps(sorted({{name.partition('.')[0] for name in sys.modules}})))"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=os.environ, check=True)
    return set(json.loads(run.stdout.splitlines()[-1]))


def test_the_courses_exercises_load_without_drawing_or_page_machinery():
    found = loaded("from rmsnorm_course.pages import COURSE\nassert len(COURSE.exercises) > 40")
    assert found.isdisjoint(DRAWING + PAGE_MACHINERY), sorted(found & set(DRAWING + PAGE_MACHINERY))


def test_the_engine_loads_without_the_boxs_page_machinery():
    found = loaded("import predict_check")
    assert found.isdisjoint(PAGE_MACHINERY + DRAWING), sorted(found & set(PAGE_MACHINERY + DRAWING))


def test_a_figure_and_a_box_load_what_they_need_once_asked():
    found = loaded(
        "from matplotlib.figure import Figure\n"
        "from predict_check.box import prediction_html\n"
        "from rmsnorm_course.pages import COURSE\n"
        "from rmsnorm_course.views.figures import for_phones, new_axes\n"
        "def drawn():\n"
        "    'A figure of one panel.'\n"
        "    return new_axes(2.0, 2.0)[0]\n"
        "fig = for_phones(drawn)()\n"
        "assert isinstance(fig, Figure) and isinstance(fig.phone(), Figure)\n"
        "assert 'data-exercise=\"mean-square\"' in prediction_html(COURSE.exercises['mean-square'])"
    )
    assert {"matplotlib", "jinja2"} <= found


def test_the_partial_rms_box_computes_only_the_width_and_share_it_asks_about(monkeypatch):
    """Its answer is the median error at d = 4096 and p = 6.25%: the page's other widths and shares are not drawn."""
    import numpy as np

    from rmsnorm_course.pages import COURSE
    from rmsnorm_course.studies import partial

    asked = []
    study = partial.partial_rms

    def recorded(widths=partial.LLAMA_WIDTHS, shares=partial.SHARES, **rest):
        asked.append((tuple(widths), tuple(shares)))
        return study(widths, shares, **rest)

    monkeypatch.setattr(partial, "partial_rms", recorded)
    solved = COURSE.exercises["partial-rms-error"].solve()
    assert asked == [((4096,), (0.0625,))]
    rows = np.random.default_rng(0).standard_normal((500, 4096))  # the study's seeded rows, drawn here
    whole, part = (np.sqrt(np.mean(rows[:, :read] ** 2, axis=1)) for read in (4096, 256))
    assert f"the median error is {np.median(np.abs(part / whole - 1)):.1%}" in solved.explanation
