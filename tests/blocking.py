"""A call that might wait on a FIFO, run with a deadline: a regression fails its test in seconds, never hangs."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

Result = TypeVar("Result")


def within(seconds: float, call: Callable[[], Result], fifo: Path) -> Result:
    """``call()``'s result, or an ``AssertionError`` once it has waited ``seconds`` (the FIFO is then let go)."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = call()
        except BaseException as error:  # handed to the test's own thread
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # a writer come and gone: the reader sees the end
        worker.join(seconds)
        raise AssertionError(f"still waiting on the FIFO {fifo} after {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]
