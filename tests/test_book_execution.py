"""The build's kernels: no warning a reader cannot act on, and a cell that runs too long is named."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"

PAGE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
# A page with a slow cell

```{code-cell} ipython3
print("quick")
```

```{code-cell} ipython3
import time
time.sleep(60)
```
"""


@pytest.mark.end_to_end
def test_a_slow_cell_is_named_with_its_page_and_limit_and_no_kernel_warns(tmp_path):
    shutil.copytree(ROOT / "book" / "_ext", tmp_path / "_ext")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: slow\n")
    (tmp_path / "slow.md").write_text(PAGE)
    (tmp_path / "_config.yml").write_text(
        "title: t\nexecute:\n  execute_notebooks: inline\n  timeout: 2\n  raise_on_error: true\n"
        "sphinx:\n  local_extensions:\n    execution: _ext\n"
    )
    run = subprocess.run(
        [str(JUPYTER_BOOK), "build", str(tmp_path), "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"{tmp_path / 'slow.md'}: the cell that starts 'import time' ran past the build's limit of 2 s" in log
    assert "raise 'timeout' under 'execute' in _config.yml" in log
    assert "without encryption" not in log
