"""Serve the built book on 127.0.0.1 and visit it with headless Chromium.

Every request to any other host is recorded and refused, so a page that would
need the network fails here exactly as it would offline.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the unit tests' helpers (the written forms of an answer) serve here too
HTML = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# What a check waits for arrives late on a loaded 2-core machine (a kernel's reply to a typed answer
# took over 5 s there): every expect waits up to a minute for its condition, never a fixed time.
expect.set_options(timeout=60_000)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="session")
def server() -> str:
    if not (HTML / "index.html").exists():
        pytest.fail("the book is not built: run `make book` first (make test-browser does)")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(HTML)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="session")
def browser() -> Browser:
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail("Chromium is not installed: `apt-get install chromium chromium-driver`")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def show_every_answer(context) -> None:
    """As if the reader had opened every box's answer: the chapter's pages hold nothing back in ``context``."""
    from rmsnorm_course.pages import COURSE

    state = json.dumps({"answers": {}, "shown": list(COURSE.exercises)})
    context.add_init_script(f"window.localStorage.setItem('rmsnorm-course/answers', {json.dumps(state)});")


def page_with_errors(context, url: str) -> tuple[Page, list[str]]:
    """Open ``url`` in ``context``; the list fills with every console error and page error."""
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url, wait_until="networkidle")
    return page, errors


@dataclass
class Visit:
    """One page load and everything that went wrong during it."""

    page: Page
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)


@pytest.fixture
def visit(browser: Browser, server: str):
    """Open a path of the book; returns a Visit once the page and its math have settled."""
    contexts = []

    def open_page(path: str) -> Visit:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        show_every_answer(context)  # the page's checks below are of the whole page
        contexts.append(context)
        page = context.new_page()
        result = Visit(page)
        local = urlsplit(server).netloc

        def route(request_route) -> None:
            url = request_route.request.url
            if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).netloc == local:
                request_route.continue_()
            else:
                result.foreign_requests.append(url)
                request_route.abort()

        context.route("**/*", route)
        page.on("console", lambda message: message.type == "error" and result.console_errors.append(message.text))
        page.on("pageerror", lambda error: result.console_errors.append(str(error)))
        page.on("requestfailed", lambda request: result.failed_requests.append(request.url))
        page.on(
            "response",
            lambda response: (
                response.status >= 400 and result.failed_requests.append(f"{response.status} {response.url}")
            ),
        )
        page.goto(f"{server}/{path}", wait_until="networkidle")
        page.wait_for_function("() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
        page.evaluate("() => window.MathJax ? window.MathJax.startup.promise : null")
        return result

    yield open_page
    for context in contexts:
        context.close()
