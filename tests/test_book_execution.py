"""The build's kernels: no warning a reader cannot act on, and a cell that runs too long is named.

A real kernel runs a real slow cell under the build's extension (``book/_ext/execution.py``);
the error reaches the extension as the book's build hands it over (the page's path, caused
by the kernel's timeout), with no nested book build.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from myst_nb.core.execute.base import ExecutionError
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("execution", ROOT / "book" / "_ext" / "execution.py")
execution = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(execution)
LIMIT = 2  # seconds per cell


def slow_page_timeout() -> CellTimeoutError:
    """Run a page whose second cell sleeps past the limit in a kernel started as the build starts them."""
    execution.setup(SimpleNamespace(connect=lambda *_: None))
    page = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell('print("quick")'), nbformat.v4.new_code_cell("import time\ntime.sleep(60)")]
    )
    page.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    with pytest.raises(CellTimeoutError) as raised:
        NotebookClient(page, timeout=LIMIT, kernel_name="python3").execute()
    return raised.value


def test_a_slow_cell_is_named_with_its_page_and_limit_and_no_kernel_warns(tmp_path, caplog, capfd):
    timeout = slow_page_timeout()
    page = str(tmp_path / "slow.md")
    try:
        raise ExecutionError(page) from timeout  # as the build raises it, and hands it to build-finished
    except ExecutionError as error:
        build_error = error
    app = SimpleNamespace(config=SimpleNamespace(nb_execution_timeout=LIMIT))
    with caplog.at_level(logging.ERROR):
        execution._report_timeout(app, build_error)
    said = " ".join(record.getMessage() for record in caplog.records)
    assert f"{page}: the cell that starts 'import time' ran past the build's limit of {LIMIT} s per cell" in said
    assert "raise 'timeout' under 'execute' in _config.yml" in said
    assert "without encryption" not in capfd.readouterr().err


def test_any_other_failure_is_left_to_the_build_s_own_words(caplog):
    with caplog.at_level(logging.ERROR):
        execution._report_timeout(SimpleNamespace(config=SimpleNamespace(nb_execution_timeout=LIMIT)), ValueError("x"))
        execution._report_timeout(SimpleNamespace(config=SimpleNamespace(nb_execution_timeout=LIMIT)), None)
    assert caplog.records == []
