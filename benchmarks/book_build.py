"""How long a clean build of the book takes, and its slowest pages: ``make bench``.

The build runs into a fresh folder, so nothing is cached. Each page's execution time
comes from the build itself (``book/_ext/execution.py`` writes ``page-times.json``),
and is printed beside the limit per cell, so a page that grows slow is seen before it
becomes a timeout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"


def main() -> int:
    limit = yaml.safe_load((ROOT / "_config.yml").read_text())["execute"]["timeout"]
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        build = subprocess.run(
            [str(JUPYTER_BOOK), "build", str(ROOT), "--all", "--path-output", folder, "-n", "-W", "--keep-going"],
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
        if build.returncode != 0:
            print(build.stdout[-4000:], build.stderr[-4000:], sep="\n")
            print(f"\nThe clean build failed after {seconds:.1f} s.")
            return 1
        pages = json.loads((Path(folder) / "_build" / "page-times.json").read_text())
    print(f"\nClean build of the book: {seconds:.1f} s, {len(pages)} pages executing for {sum(pages.values()):.1f} s")
    print(f"The slowest pages (the limit is {limit} s per cell):")
    for page, runtime in sorted(pages.items(), key=lambda item: -item[1])[:3]:
        print(f"  {page:32} {runtime:6.1f} s  ({runtime / limit:.0%} of the limit, were it all one cell)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
