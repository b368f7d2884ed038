"""Every chapter page in a real JupyterLab, opened by the address the launch button uses.

The project's own JupyterLab runs on 127.0.0.1 with throwaway settings, data, runtime
and workspace folders, so only what the project installs into its environment
(the default-viewer setting, jupytext, the MyST renderer) is in play. Each page must
open as a notebook, run clean, read like the book (no MyST source markup left in the
rendered text), and save back to exactly the bytes it was opened from.

As in the book, what follows a box waits, however the learner runs the page: the
engine's extension draws none of the cells after a box until the box is answered right
or its answer shown, cell by cell (Shift+Enter stays on the box) or under Run All (which
runs every cell), and an autosave with cells shown leaves the page's source as it was.
Every listing of the package's code shows, and a picture box draws its figure. The boxes
answer through ``check()``, keep the first try, and save the answers file that the grader
scores.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import jupytext
import numpy as np
import pytest
from playwright.sync_api import Page, expect

from book_pages import CHAPTER
from conftest import ROOT, SCREENSHOTS
from predict_check import listings
from predict_check.box import LAB_HOLD, LAB_WAITING, SHOW_ANSWER
from predict_check.kinds import Place
from predict_check.sheet_reader import AnswerSheet
from rmsnorm_course import check
from rmsnorm_course.core.format import given
from rmsnorm_course.pages import COURSE
from rmsnorm_course.studies import example
from rmsnorm_course.views.explorer import START_VECTOR, explore, readout_rows

PAGES = ["book/index", *CHAPTER]
BOX = re.compile(r'^Prediction\("([a-z0-9-]+)"\)$')  # a chapter box's cell (the review page's boxes hold nothing)
AUTOSAVE_SECONDS = 2  # short, so that a test sees an autosave come
SHOTS = SCREENSHOTS / "lab"
LAB_READY_SECONDS = 180
RUN_ALL_MS = 240_000
TIMINGS = ROOT / "_build" / "lab-timings.json"

# Conditions read from the notebook's model (the app is exposed to the page for tests):
# the page's text cannot say when a file has loaded, and cells whose source is hidden
# show no prompt to say whether they ran.
NOTEBOOK_READY = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    return Boolean(panel && panel.content && panel.context && panel.context.isReady && panel.sessionContext
        && panel.sessionContext.isReady && panel.sessionContext.session?.kernel?.status === 'idle');
}"""
ALL_CELLS_RAN = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cells = [...panel.content.model.cells];
    const idle = panel.sessionContext.session?.kernel?.status === 'idle';
    return idle && cells.every(cell => cell.type !== 'code' || cell.executionCount !== null);
}"""

# Whether each cell of the notebook is drawn: a cell the extension holds back is not.
CELLS_SHOWN = """() => [...window.jupyterapp.shell.currentWidget.content.widgets].map(
    cell => cell.node.checkVisibility())"""
# Run code in the page's kernel, as a cell would, without adding one to the notebook.
IN_KERNEL = """async (code) => {
    const future = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.requestExecute({code});
    const reply = await future.done;
    return reply.content.status;
}"""
CELLS_RAN = """() => [...window.jupyterapp.shell.currentWidget.content.model.cells].map(
    cell => cell.type !== 'code' || cell.executionCount !== null)"""

# Source markup that must not survive rendering: roles, directive fences, unevaluated expressions.
MARKUP = re.compile(r"\{[a-z:-]+\}`|```|^:::|prose\.\w+|answers\.(?!toml)\w+", re.MULTILINE)

# Settings for this throwaway user only: no news or update checks (they would ask another host), every
# cell kept in the page so its text can be read, and no autosave, which could rewrite a page as a test reads
# it (a page read while it is written reads empty).
DOCUMENTS = "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings"
NEWS = "@jupyterlab/apputils-extension/notification.jupyterlab-settings"
QUIET = {NEWS: {"fetchNews": "false", "checkForUpdates": False}}
TEST_USER_SETTINGS = {
    **QUIET,
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    DOCUMENTS: {"autosave": False},
}
# A learner's settings (cells windowed as JupyterLab does by default), but for an autosave every few seconds.
LEARNER_SETTINGS = {**QUIET, DOCUMENTS: {"autosaveInterval": AUTOSAVE_SECONDS}}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> str:
    yield from started_lab(tmp_path_factory.mktemp("lab"), TEST_USER_SETTINGS)


@pytest.fixture(scope="module")
def learner_lab(tmp_path_factory) -> str:
    yield from started_lab(tmp_path_factory.mktemp("learner"), LEARNER_SETTINGS)


def started_lab(home: Path, settings: dict[str, dict]) -> Iterator[str]:
    """Start the project's JupyterLab for a user with ``settings``; yield its address; stop it by its process id."""
    env = {**os.environ, "HOME": str(home)}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        env[name] = str(home / name.lower())
    env["JUPYTERLAB_SETTINGS_DIR"] = str(home / "settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(home / "workspaces")
    for relative, values in settings.items():
        path = home / "settings" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port = free_port()
    jupyter = Path(sys.executable).parent / "jupyter"
    log = (home / "lab.log").open("w")
    process = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         "--ServerApp.port_retries=0", f"--ServerApp.root_dir={ROOT}", "--IdentityProvider.token=",
         "--ServerApp.password=", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.expose_app_in_browser=True",
         f"--FileCheckpoints.root_dir={home / 'checkpoints'}"],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
    )  # fmt: skip
    address = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + LAB_READY_SECONDS
    while True:
        if process.poll() is not None:
            pytest.fail(f"JupyterLab exited with {process.returncode}:\n{(home / 'lab.log').read_text()}")
        try:
            urllib.request.urlopen(f"{address}/api/status", timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not answer within {LAB_READY_SECONDS} s")
            time.sleep(0.25)  # polling a condition, with a deadline
    yield address
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    log.close()


@pytest.fixture
def lab_page(browser, lab):
    yield from browser_page(browser, lab)


@pytest.fixture
def learner_page(browser, learner_lab):
    yield from browser_page(browser, learner_lab)


def browser_page(browser, lab: str) -> Iterator[Page]:
    """A fresh browser page that refuses every request to a host other than the lab's; each test's kernels its own.

    A page opened again finds its kernel still running, and that kernel remembers the boxes
    answered in it, as a learner's would: so every kernel a test started is shut down after it.
    """
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    foreign: list[str] = []

    def route(request_route) -> None:
        url = request_route.request.url
        if url.startswith((lab, "data:", "blob:", "ws://127.0.0.1")):
            request_route.continue_()
        else:
            foreign.append(url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.foreign_requests = foreign
    yield page
    if page.url.startswith(lab):
        page.evaluate("() => window.jupyterapp && window.jupyterapp.serviceManager.sessions.shutdownAll()")
    context.close()


def open_as_notebook(page: Page, lab: str, path: str) -> float:
    """Open a page by the launch button's address; seconds until its kernel is idle."""
    start = time.monotonic()
    page.goto(f"{lab}/lab/tree/{path}.md?reset")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=LAB_READY_SECONDS * 1000)
    page.wait_for_function(NOTEBOOK_READY, timeout=LAB_READY_SECONDS * 1000)
    return time.monotonic() - start


def run_all(page: Page) -> float:
    """Run All Cells (the Run menu's command); seconds until every code cell has run and the kernel is idle."""
    start = time.monotonic()
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(ALL_CELLS_RAN, timeout=RUN_ALL_MS)
    return time.monotonic() - start


def save(page: Page) -> None:
    """File > Save (the command Ctrl+S runs); a click into the page could expand a hidden cell."""
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    expect(page.locator(".jp-mod-current.jp-mod-dirty")).to_have_count(0, timeout=60_000)


def rendered_prose(page: Page) -> str:
    """The text of every markdown cell as rendered, whichever renderer drew it (not its editor)."""
    rendered = ".jp-MarkdownCell .jp-InputArea > :not(.jp-InputPrompt):not(.jp-InputArea-editor):not(.jp-Toolbar)"
    return "\n".join(page.locator(rendered).all_inner_texts())


def record_timing(path: str, opened: float, ran: float) -> None:
    timings = json.loads(TIMINGS.read_text()) if TIMINGS.exists() else {}
    timings[path] = {"open_s": round(opened, 2), "run_all_s": round(ran, 2)}
    TIMINGS.parent.mkdir(parents=True, exist_ok=True)
    TIMINGS.write_text(json.dumps(timings, indent=2, sort_keys=True))


@pytest.mark.parametrize("path", PAGES)
def test_page_opens_as_a_notebook_runs_clean_reads_like_the_book_and_saves_unchanged(lab_page, lab, path):
    source = ROOT / f"{path}.md"
    before = source.read_bytes()
    opened = open_as_notebook(lab_page, lab, path)
    assert lab_page.locator(".jp-FileEditor").count() == 0, "opened in the text editor, not as a notebook"

    ran = run_all(lab_page)
    record_timing(path, opened, ran)
    assert drawn_after_first_box(lab_page, path) == [], "Run All showed what a box holds back"
    if not boxes(path):
        assert_every_listing_shows(lab_page, path)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    lab_page.screenshot(path=str(SCREENSHOTS / f"lab-{path.replace('/', '-')}.png"))

    errors = lab_page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()
    prose = rendered_prose(lab_page)
    assert prose.strip(), "no rendered prose"
    assert MARKUP.findall(prose) == [], "MyST source markup left in the rendered text"
    assert lab_page.foreign_requests == []

    save(lab_page)
    assert source.read_bytes() == before, "saving the notebook changed its source"


def test_prose_numbers_come_from_the_kernel(lab_page, lab):
    open_as_notebook(lab_page, lab, "book/predict")
    run_all(lab_page)
    prose = rendered_prose(lab_page)
    assert f"x = {given(example.INPUT)}" in prose and "page.x" not in prose  # filled in by the kernel, as typed


def test_the_explorer_widget_answers_its_slider_with_rms_norm(lab_page, lab):
    open_as_notebook(lab_page, lab, "book/scale-and-epsilon")
    run_all(lab_page)
    show_every_answer(lab_page)  # the explorer follows the page's box
    slider = lab_page.locator(".widget-slider", has_text="scale a").first
    slider.scroll_into_view_if_needed()
    table = lab_page.locator("table[aria-label='explorer readouts']").first
    for scale in (0.001, 250.0):
        readout = slider.locator(".widget-readout")
        readout.click()
        readout.press("Control+a")
        readout.type(f"{scale:g}")
        readout.press("Enter")
        expected = readout_rows(explore(START_VECTOR, scale, example.EPS))
        expect(table.locator("code").first).to_have_text(expected[0][1])
        shown = list(zip(table.locator("th").all_inner_texts(), table.locator("code").all_inner_texts()))
        assert shown == expected


def test_check_verdicts_render_on_the_exercises_page(lab_page, lab):
    open_as_notebook(lab_page, lab, "book/exercises")
    run_all(lab_page)
    outputs = "\n".join(lab_page.locator(".jp-OutputArea-output").all_inner_texts())
    first_try = check("mean-square", sum(v**2 for v in example.INPUT))
    assert first_try.title in outputs and f"✗ Not yet, you said {first_try.answer}:" in outputs
    assert outputs.count("Predict: ") == len(COURSE.exercises)  # every box, as a widget
    prose = rendered_prose(lab_page)
    assert "Save my answers" in prose and "book/answers.toml" in prose  # the route's own button, and its file
    expect(lab_page.get_by_role("button", name="Save my answers")).to_have_count(len(COURSE.exercises))


# --- what follows a box waits ------------------------------------------------------------------


def boxes(path: str) -> list[int]:
    """The positions of the page's chapter boxes among its cells, read from its source."""
    cells = jupytext.read(ROOT / f"{path}.md").cells
    return [i for i, cell in enumerate(cells) if cell.cell_type == "code" and BOX.match(cell.source.strip())]


def box_ids(path: str) -> dict[str, int]:
    """Each chapter box's exercise id, and its cell's position."""
    cells = jupytext.read(ROOT / f"{path}.md").cells
    return {BOX.match(cells[i].source.strip()).group(1): i for i in boxes(path)}


def cells_shown(page: Page) -> list[bool]:
    return page.evaluate(CELLS_SHOWN)


def drawn_after_first_box(page: Page, path: str) -> list[int]:
    """The cells after the page's first box that are drawn: none, while it waits."""
    found, shown = boxes(path), cells_shown(page)
    return [i for i in range(found[0] + 1, len(shown)) if shown[i]] if found else []


def show_every_answer(page: Page) -> None:
    """Go on past every box, as a learner who showed each answer in turn (a box shows once what holds it is open)."""
    widgets = page.locator(".jp-Notebook .jp-Cell .predict-check-box")
    for number in range(widgets.count()):
        widgets.nth(number).get_by_role("button", name=SHOW_ANSWER).click()
    expect(page.locator(".jp-Notebook .jp-Cell.lm-mod-hidden")).to_have_count(0)


# What the extension writes under a cell (its note on a box not yet run: how to draw it), as the page draws it.
UNDER_CELL = """(index) => getComputedStyle(
    window.jupyterapp.shell.currentWidget.content.widgets[index].node, '::after').content"""
# The position of the active cell, its kind, and how many times it ran.
ACTIVE = """() => {
    const notebook = window.jupyterapp.shell.currentWidget.content, cell = notebook.activeCell.model;
    return {index: notebook.activeCellIndex, code: cell.type === 'code', count: cell.executionCount ?? null};
}"""
ACTIVE_INDEX = "window.jupyterapp.shell.currentWidget.content.activeCellIndex"
MODEL = "window.jupyterapp.shell.currentWidget.context.model"
# Count the saves of the notebook that start from now on: the test saves nothing, so each is an autosave.
COUNT_SAVES = """() => {
    window.saves = {started: 0, completed: 0};
    window.jupyterapp.shell.currentWidget.context.saveState.connect((_, state) => {
        if (state === 'started') window.saves.started += 1;
        if (state === 'completed' && window.saves.started) window.saves.completed += 1;
    });
}"""
# An autosave came, and none is under way, nor due: the page on disk is the one the last save wrote.
SAVED_AND_SETTLED = f"""() => window.saves.completed > 0 && window.saves.completed === window.saves.started
    && !{MODEL}.dirty"""
# Whether the code cell at an index has run again since its count was `before`, and the kernel is idle.
RAN_AGAIN = """([index, before]) => {
    const panel = window.jupyterapp.shell.currentWidget, count = panel.content.widgets[index].model.executionCount;
    return count !== null && count !== before && panel.sessionContext.session?.kernel?.status === 'idle';
}"""


def shift_enter(page: Page) -> int:
    """Press Shift+Enter on the active cell, wait until it has run, and give the position of the active cell then."""
    before = page.evaluate(ACTIVE)
    page.keyboard.press("Shift+Enter")
    if before["code"]:
        page.wait_for_function(RAN_AGAIN, arg=[before["index"], before["count"]], timeout=RUN_ALL_MS)
    else:
        page.wait_for_function(f"() => {ACTIVE_INDEX} !== {before['index']}")
    return page.evaluate(ACTIVE)["index"]


def run_cell_by_cell(page: Page, stop: int) -> int:
    """Shift+Enter from the active cell on, until it stays on the box at ``stop`` twice; checked at every press."""
    stays = 0
    for _ in range(len(cells_shown(page)) + 2):
        active = shift_enter(page)
        assert active <= stop, f"the active cell moved past the box in cell {stop}"
        shown = cells_shown(page)
        assert [i for i in range(stop + 1, len(shown)) if shown[i]] == [], f"a cell after the box in cell {stop} drawn"
        stays = stays + 1 if active == stop else 0
        if stays == 2:
            return active
    pytest.fail(f"Shift+Enter never reached the box in cell {stop}")


def test_run_cell_by_cell_from_the_top_no_cell_after_an_unanswered_box_is_drawn_until_it_is_answered(
    learner_page, learner_lab
):
    lab_page, path = learner_page, "book/predict"  # as a learner has JupyterLab
    open_as_notebook(lab_page, learner_lab, path)
    ids, cells = box_ids(path), lab_page.locator(".jp-Notebook .jp-Cell")
    first, second = ids["mean-square"], ids["reciprocal-rms"]
    lab_page.wait_for_function(f"(index) => ({UNDER_CELL})(index).includes('Shift+Enter')", arg=first)  # says how
    cells.nth(0).locator(".jp-InputPrompt").click()  # the page's title: the learner starts at the top
    assert run_cell_by_cell(lab_page, first) == first
    box = cells.nth(first)
    expect(box.locator(f".{LAB_HOLD}")).to_be_visible()  # the box says why the page stops
    expect(box.locator(f".{LAB_HOLD}")).to_have_text(LAB_WAITING)
    assert not lab_page.evaluate(CELLS_RAN)[first + 1], "the cell after the box ran"

    answer(box, [f"{float(np.mean(np.square(example.INPUT))):g}"])  # the learner answers, right
    expect(cells.nth(second)).to_be_visible()
    shown = cells_shown(lab_page)
    assert all(shown[: second + 1]) and not any(shown[second + 1 :]), "the cells up to the next box show, and no more"
    cells.nth(first + 1).locator(".jp-InputPrompt").click()  # and goes on from the cell after the box
    assert run_cell_by_cell(lab_page, second) == second
    expect(cells.nth(first + 1).locator(".jp-OutputArea-output")).to_contain_text("12.5")


def test_after_an_autosave_with_cells_shown_the_source_is_unchanged_and_a_page_opened_again_waits(
    learner_page, learner_lab
):
    lab_page, path = learner_page, "book/predict"
    source = ROOT / f"{path}.md"
    before = source.read_bytes()
    open_as_notebook(lab_page, learner_lab, path)
    run_all(lab_page)
    first = box_ids(path)["mean-square"]
    cells = lab_page.locator(".jp-Notebook .jp-Cell")
    cells.nth(first).get_by_role("button", name=SHOW_ANSWER).click()
    expect(cells.nth(first + 1)).to_be_visible()
    written = source.stat().st_mtime_ns  # before the count starts, so any save it counts writes after this
    lab_page.evaluate(COUNT_SAVES)
    cells.nth(first + 1).locator(".jp-InputPrompt").click()
    shift_enter(lab_page)  # a change to the notebook (a cell run again), for the autosave to write
    lab_page.wait_for_function(SAVED_AND_SETTLED, timeout=60_000 * AUTOSAVE_SECONDS)
    assert source.stat().st_mtime_ns != written, "the autosave wrote the page"
    assert source.read_bytes() == before, "an autosave changed the page's source"

    open_as_notebook(lab_page, learner_lab, path)  # a revisit: the page waits again
    expect(cells.nth(first)).to_be_visible()
    assert drawn_after_first_box(lab_page, path) == []


GATED_PAGES = [path for path in CHAPTER if boxes(path)]


def test_every_chapter_box_is_found():
    assert sum(len(boxes(path)) for path in CHAPTER) == len(COURSE.exercises)  # the review page asks them again


@pytest.mark.parametrize("path", GATED_PAGES)
def test_what_follows_each_box_waits_until_it_is_opened_and_run_all_runs_every_cell(lab_page, lab, path):
    """Before anything runs, under Run All, and as each box opens in turn; then every listing and figure shows."""
    before = (ROOT / f"{path}.md").read_bytes()
    open_as_notebook(lab_page, lab, path)
    found, count = boxes(path), len(jupytext.read(ROOT / f"{path}.md").cells)
    assert len(cells_shown(lab_page)) == count
    lab_page.wait_for_function(f"() => ({CELLS_SHOWN})().slice(0, {found[0] + 1}).every(Boolean)")  # drawn by now
    assert drawn_after_first_box(lab_page, path) == [], "before anything runs"
    run_all(lab_page)
    assert all(lab_page.evaluate(CELLS_RAN)), "Run All ran every cell"
    assert drawn_after_first_box(lab_page, path) == [], "Run All showed what a box holds back"
    cells = lab_page.locator(".jp-Notebook .jp-Cell")
    for number, box in enumerate(found):
        cells.nth(box).get_by_role("button", name=SHOW_ANSWER).click()  # the learner goes on
        following = found[number + 1] if number + 1 < len(found) else count - 1
        expect(cells.nth(following)).to_be_visible()
        shown = cells_shown(lab_page)
        assert all(shown[: following + 1]), f"box {number + 1} opened, but not all the cells up to the next show"
        assert not any(shown[following + 1 :]), "opening one box opened the next one too"
    errors = lab_page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()
    assert_every_listing_shows(lab_page, path)
    pictures = [i for exercise_id, i in box_ids(path).items() if isinstance(COURSE.exercises[exercise_id].kind, Place)]
    for box in pictures:
        expect(cells.nth(box).locator(".predict-check-figure svg .prediction-marker")).to_have_count(1)
    assert (ROOT / f"{path}.md").read_bytes() == before  # nothing was saved


def listed(path: str) -> list[str]:
    """The source of every object the page lists, read from the package by its module, not from the page."""
    sources = []
    for found in listings.LISTING.finditer((ROOT / f"{path}.md").read_text(encoding="utf-8")):
        module = Path(found["path"]).relative_to("../src").with_suffix("").as_posix().replace("/", ".")
        listed_object = importlib.import_module(module)
        for part in found["name"].split("."):
            listed_object = getattr(listed_object, part)
        sources.append(inspect.cleandoc(inspect.getsource(listed_object)))
    return sources


def assert_every_listing_shows(page: Page, path: str) -> None:
    """Every listing of the package's code is drawn as that code, a dropdown's once it is opened."""
    for fold in page.locator(".jp-MarkdownCell details").all():
        if not fold.evaluate("(details) => details.open"):
            fold.locator("summary").first.click()
    expected = listed(path)
    code = page.locator(".jp-MarkdownCell pre")
    drawn = [inspect.cleandoc(text) for text in code.all_inner_texts()]
    assert [source for source in expected if source not in drawn] == [], "a listing is not drawn, or not as its code"
    assert [block for block in code.all() if not block.is_visible()] == []


def answer(box, typed: list[str]) -> None:
    """Type each answer in the box's widget and press Enter; wait for its verdict each time."""
    field = box.locator(".widget-text input")
    for text in typed:
        field.fill(text)
        field.press("Enter")
        expect(box.locator(".predict-check-verdict")).to_contain_text(f"you said {text}")


def test_two_boxes_answered_in_jupyterlab_save_the_answers_file_the_grader_scores(lab_page, lab, tmp_path):
    path = "book/predict"
    open_as_notebook(lab_page, lab, path)
    SHOTS.mkdir(parents=True, exist_ok=True)
    lab_page.screenshot(path=str(SHOTS / "1-opened.png"))
    run_all(lab_page)
    # the kernel saves next to the notebook; here, into a folder of the test's own, never into book/
    assert lab_page.evaluate(IN_KERNEL, f"import os; os.chdir({str(tmp_path)!r})") == "ok"

    cells = lab_page.locator(".jp-Notebook .jp-Cell")
    ids = box_ids(path)
    mean_square = float(np.mean(np.square(example.INPUT)))
    reciprocal = 1 / np.sqrt(mean_square + example.EPS)
    tries = {
        "mean-square": ["25", f"{mean_square:g}"],  # the sum of squares first, then the mean
        "reciprocal-rms": [f"{reciprocal:.6f}"],
    }
    first_box = cells.nth(ids["mean-square"])
    answer(first_box, tries["mean-square"])
    expect(first_box.locator(".predict-check-verdict")).to_contain_text("✓ Correct")
    expect(first_box).to_contain_text("Your first try, kept for the grader: ✗ Not yet, you said 25")
    first_box.scroll_into_view_if_needed()
    lab_page.screenshot(path=str(SHOTS / "2-answered.png"))

    expect(cells.nth(ids["reciprocal-rms"])).to_be_visible()  # answered right: the next box is there to answer
    expect(cells.nth(ids["normalized"])).to_be_hidden()
    cells.nth(ids["mean-square"] + 1).scroll_into_view_if_needed()
    lab_page.screenshot(path=str(SHOTS / "3-gone-on.png"))
    second_box = cells.nth(ids["reciprocal-rms"])
    second_box.locator(".widget-text input").fill("0.28")  # half typed, then the learner clicks elsewhere:
    first_box.locator(
        ".widget-html"
    ).first.click()  # not a first try (the grader's "reciprocal-rms: right" below says so)
    answer(second_box, tries["reciprocal-rms"])
    expect(second_box.locator(".predict-check-verdict")).to_contain_text("✓ Correct")

    second_box.get_by_role("button", name="Save my answers").click()
    saved = tmp_path / "answers.toml"
    expect(second_box).to_contain_text(f"Saved 2 of {len(COURSE.exercises)} predictions to {saved}")
    sheet = AnswerSheet.read(COURSE, saved)
    assert sheet.answers["mean-square"] == "12.5" and sheet.first_try("mean-square").word == "not right"
    assert sheet.answers["reciprocal-rms"] == f"{reciprocal:.6f}"
    command = [sys.executable, "-m", "pytest", "exercises", "--answers", str(saved), "-q", "-p", "no:cacheprovider"]
    grader = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert grader.stdout.strip().splitlines()[-1] == f"score: 2/{len(COURSE.exercises)}", grader.stdout[-2000:]
    assert "first tries, your own record: 1 of 2 right" in grader.stdout
    assert "mean-square: not right" in grader.stdout and "reciprocal-rms: right" in grader.stdout
    assert lab_page.foreign_requests == []


def test_a_picture_box_draws_its_figure_whose_marker_answers_as_a_typed_number_would(lab_page, lab):
    path = "book/scale-and-epsilon"
    open_as_notebook(lab_page, lab, path)
    run_all(lab_page)
    box = lab_page.locator(".jp-Notebook .jp-Cell").nth(box_ids(path)["crossover-rms"])
    figure = box.locator(".predict-check-figure svg")
    expect(figure).to_be_visible()
    field = box.locator(".widget-text input")
    marker = figure.locator(".prediction-marker")
    around = figure.bounding_box()
    lab_page.mouse.click(around["x"] + around["width"] * 0.2, around["y"] + around["height"] * 0.7)  # on the axis
    placed = marker.get_attribute("aria-valuenow")
    expect(field).to_have_value(placed)
    marker.press("End")  # and by keys, to the axis's end
    expect(field).to_have_value(f"{COURSE.exercises['crossover-rms'].kind.axis.high:g}")
    placed = field.input_value()
    box.get_by_role("button", name="Check").click()
    expect(box.locator(".predict-check-verdict")).to_contain_text(f"you said {placed}")
    assert figure.locator(".prediction-picture-truth > *").count() == 0, "the truth is drawn before it is earned"
    box.get_by_role("button", name=SHOW_ANSWER).click()
    expect(figure.locator(".prediction-picture-truth > *").first).to_be_attached()
    expect(lab_page.locator(".jp-Notebook .jp-Cell").nth(box_ids(path)["crossover-rms"] + 1)).to_be_visible()
