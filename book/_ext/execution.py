"""How the build runs the pages: kernels that have nothing to warn about, slow cells named, times kept.

1. Every kernel used to warn at start that it is "running over TCP without
   encryption": a warning on every page that a reader of the build log cannot act
   on. The kernel manager can give each kernel CurveZMQ keys when its kernelspec
   declares support (ipykernel's does); the build asks it to, so the sockets are
   encrypted and the kernel has nothing to warn about.
2. A cell that runs past ``execute.timeout`` stops the build with a traceback whose
   point is easy to miss. The build then says, in one line, which page, which cell,
   the limit, and where to raise it.
3. A build writes each page's execution time to ``_build/page-times.json``
   (``make bench`` reports the slowest), so a page that grows slow is seen before
   it reaches the limit.
"""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_client.manager import KernelManager
from nbclient.exceptions import CellTimeoutError
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
PREVIEW_RULE = "-------------------"  # nbclient puts the cell's first lines between two of these


def _timeout_in(exception: BaseException | None) -> CellTimeoutError | None:
    while exception is not None and not isinstance(exception, CellTimeoutError):
        exception = exception.__cause__
    return exception


def _report_timeout(app, exception) -> None:
    timeout = _timeout_in(exception)
    if timeout is None:
        return
    page = exception.args[0] if exception.args else "a page"
    preview = str(timeout).split(PREVIEW_RULE)
    first_line = preview[1].strip().splitlines()[0] if len(preview) > 2 and preview[1].strip() else "(not shown)"
    LOGGER.error(
        f"{page}: the cell that starts {first_line!r} ran past the build's limit of "
        f"{app.config.nb_execution_timeout} s per cell. On a slow or busy machine, raise "
        "'timeout' under 'execute' in _config.yml and build again."
    )


def _write_page_times(app, exception) -> None:
    if exception is not None:
        return
    metadata = getattr(app.env, "nb_metadata", {})
    times = {page: data["exec_data"]["runtime"] for page, data in metadata.items() if data.get("exec_data")}
    if times:
        target = Path(app.outdir).parent / "page-times.json"
        target.write_text(json.dumps(dict(sorted(times.items())), indent=1) + "\n")


def setup(app):
    KernelManager.transport_encryption.default_value = "auto"  # keys for every kernel whose spec supports them
    app.connect("build-finished", _report_timeout)
    app.connect("build-finished", _write_page_times)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
