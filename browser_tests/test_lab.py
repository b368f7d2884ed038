"""Every chapter page in a real JupyterLab, opened by the address the launch button uses.

The project's own JupyterLab runs on 127.0.0.1 with throwaway settings, data, runtime
and workspace folders, so only what the project installs into its environment
(the default-viewer setting, jupytext, the MyST renderer) is in play. Each page must
open as a notebook, run clean, read like the book (no MyST source markup left in the
rendered text), and save back to exactly the bytes it was opened from.

As in the book, what follows a box waits: opened, a page shows nothing of the cells
after a box up to the next box until the learner opens the section under the box's
heading; Run All runs every cell and opens none. The boxes answer through ``check()``,
keep the first try, and save the answers file that the grader scores.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import jupytext
import numpy as np
import pytest
from book_pages import CHAPTER
from playwright.sync_api import Page, expect

from conftest import ROOT, SCREENSHOTS
from predict_check.box import GO_ON
from predict_check.sheets import AnswerSheet
from rmsnorm_course import check
from rmsnorm_course.core.format import fmt
from rmsnorm_course.questions import COURSE
from rmsnorm_course.studies import example
from rmsnorm_course.views.explorer import START_VECTOR, explore, readout_rows

PAGES = ["book/index", *CHAPTER]
BOX = re.compile(r'^Prediction\("([a-z0-9-]+)"\)$')  # a chapter box's cell (the review page's boxes hold nothing)
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

# Whether each cell of the notebook is drawn: a cell under a collapsed heading is not.
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

# Settings for this throwaway user only: no news or update checks (they would ask
# another host), and every cell kept in the page so its text can be read.
TEST_USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> str:
    """Start the project's JupyterLab; yield its address; stop it by its process id."""
    home = tmp_path_factory.mktemp("lab")
    env = {**os.environ, "HOME": str(home)}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        env[name] = str(home / name.lower())
    env["JUPYTERLAB_SETTINGS_DIR"] = str(home / "settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(home / "workspaces")
    for relative, values in TEST_USER_SETTINGS.items():
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
    """A fresh browser page that refuses every request to a host other than the lab's."""
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
    shown = cells_shown(lab_page)  # every cell ran; what follows each box still waits
    assert [i for held in waiting(path) for i in held if shown[i]] == [], "Run All showed what a box holds back"
    assert shown[-1], "the page's last cell is in sight"
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
    assert f"x = {fmt(example.INPUT)}" in prose


def test_the_explorer_widget_answers_its_slider_with_rms_norm(lab_page, lab):
    open_as_notebook(lab_page, lab, "book/scale-and-epsilon")
    run_all(lab_page)
    open_every_section(lab_page, "book/scale-and-epsilon")  # the explorer follows the page's box
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


# --- what follows a box waits ------------------------------------------------------------------


def boxes(path: str) -> list[int]:
    """The positions of the page's chapter boxes among its cells, read from its source."""
    cells = jupytext.read(ROOT / f"{path}.md").cells
    return [i for i, cell in enumerate(cells) if cell.cell_type == "code" and BOX.match(cell.source.strip())]


def waiting(path: str) -> list[range]:
    """For each box, the cells after it and its heading, up to and including the next box (or the closing heading)."""
    found = boxes(path)
    last = len(jupytext.read(ROOT / f"{path}.md").cells) - 1  # the closing heading, in no section
    ends = [following + 1 for following in found[1:]] + [last]
    return [range(box + 2, end) for box, end in zip(found, ends)]


def open_every_section(page: Page, path: str) -> None:
    """Go on past every box, as a learner who has answered them all: open each box's section in turn."""
    cells = page.locator(".jp-Notebook .jp-Cell")
    for box in boxes(path):
        cells.nth(box + 1).locator(".jp-showHiddenCellsButton").click()
        expect(cells.nth(box + 2)).to_be_visible()


def cells_shown(page: Page) -> list[bool]:
    return page.evaluate(CELLS_SHOWN)


def wait_for_sections_collapsed(page: Page, path: str) -> None:
    """JupyterLab collapses a heading's section once it has read the heading: wait for the first box's to close."""
    first = waiting(path)[0]
    page.wait_for_function(
        f"() => !window.jupyterapp.shell.currentWidget.content.widgets[{first.start}].node.checkVisibility()",
        timeout=60_000,
    )


GATED_PAGES = [path for path in CHAPTER if boxes(path)]


def test_every_chapter_box_is_found():
    assert sum(len(boxes(path)) for path in CHAPTER) == len(COURSE.exercises)  # the review page asks them again


@pytest.mark.parametrize("path", GATED_PAGES)
def test_what_follows_each_box_waits_until_its_section_is_opened_and_run_all_runs_every_cell(lab_page, lab, path):
    before = (ROOT / f"{path}.md").read_bytes()
    open_as_notebook(lab_page, lab, path)
    wait_for_sections_collapsed(lab_page, path)
    found, sections = boxes(path), waiting(path)
    shown = cells_shown(lab_page)
    assert len(shown) == len(jupytext.read(ROOT / f"{path}.md").cells)
    for box, held in zip(found, sections):
        assert [i for i in held if shown[i]] == [], f"cells after the box in cell {box} are shown before it is answered"
    assert all(shown[: found[0] + 2]), "the page up to its first box and the heading under it is shown"
    assert shown[-1], "the closing heading, which ends the last box's section, is shown"
    cells = lab_page.locator(".jp-Notebook .jp-Cell")
    for number, (box, held) in enumerate(zip(found, sections)):
        heading = cells.nth(box + 1)
        expect(heading.locator("h1")).to_contain_text(GO_ON)  # the heading says how to go on
        heading.locator(".jp-showHiddenCellsButton").click()  # the learner goes on
        expect(cells.nth(held[-1])).to_be_visible()
        shown = cells_shown(lab_page)
        assert all(shown[i] for i in held), f"section {number + 1} opened, but not all of its cells are shown"
        if number + 1 < len(sections):
            after = sections[number + 1]
            assert [i for i in after if shown[i]] == [], "opening one section opened the next one too"
    run_all(lab_page)
    assert all(lab_page.evaluate(CELLS_RAN))
    errors = lab_page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()
    assert (ROOT / f"{path}.md").read_bytes() == before  # nothing was saved


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
    wait_for_sections_collapsed(lab_page, path)
    SHOTS.mkdir(parents=True, exist_ok=True)
    lab_page.screenshot(path=str(SHOTS / "1-opened.png"))
    run_all(lab_page)
    # the kernel saves next to the notebook; here, into a folder of the test's own, never into book/
    assert lab_page.evaluate(IN_KERNEL, f"import os; os.chdir({str(tmp_path)!r})") == "ok"

    cells = lab_page.locator(".jp-Notebook .jp-Cell")
    ids = {BOX.match(cell.source.strip()).group(1): i for i, cell in enumerate(jupytext.read(ROOT / f"{path}.md").cells)
           if cell.cell_type == "code" and BOX.match(cell.source.strip())}  # fmt: skip
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
    expect(cells.nth(ids["reciprocal-rms"])).to_be_hidden()  # answered, and yet the page waits for the learner
    first_box.scroll_into_view_if_needed()
    lab_page.screenshot(path=str(SHOTS / "2-answered.png"))

    heading = cells.nth(ids["mean-square"] + 1)  # the learner goes on: the next box is there to answer
    heading.locator(".jp-showHiddenCellsButton").click()
    expect(cells.nth(ids["reciprocal-rms"])).to_be_visible()
    expect(cells.nth(ids["normalized"])).to_be_hidden()
    heading.scroll_into_view_if_needed()
    lab_page.screenshot(path=str(SHOTS / "3-gone-on.png"))
    second_box = cells.nth(ids["reciprocal-rms"])
    second_box.locator(".widget-text input").fill("0.28")  # half typed, then the learner clicks elsewhere:
    heading.click()  # not a first try (the grader's "reciprocal-rms: right" below says so)
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
