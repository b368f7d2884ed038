"""The files a module runs, found by its imports: at any depth of its code, within its own package only."""

from __future__ import annotations

from predict_check.imports import imported_files

from rmsnorm_course.pages import COURSE

PACKAGE = {  # a package whose modules reach each other every way an import can be written
    "__init__.py": "",
    "a.py": "import os\nfrom . import b\n\ndef late():\n    from .sub.c import helper\n    return helper\n",
    "b.py": "import numpy\nfrom planted import d\n",
    "d.py": "",
    "sub/__init__.py": "",
    "sub/c.py": "try:\n    import planted.e as e\nexcept ImportError:\n    pass\nfrom ... import nowhere\n",
    "e.py": "",
    "unused.py": "import planted.a\n",
}


def test_every_module_an_import_reaches_is_found_and_no_other(tmp_path, monkeypatch):
    for name, text in PACKAGE.items():
        (tmp_path / "planted" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "planted" / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = imported_files(["planted.a"])
    assert list(found) == [
        "planted",
        "planted.a",
        "planted.b",
        "planted.d",
        "planted.e",
        "planted.sub",
        "planted.sub.c",
    ]
    assert found["planted.sub"] == tmp_path / "planted" / "sub" / "__init__.py"
    assert found["planted.e"] == tmp_path / "planted" / "e.py"


def test_the_answer_key_is_keyed_by_the_modules_its_solvers_import():
    solvers = sorted({exercise.solver.__module__ for exercise in COURSE})
    found = imported_files(solvers)
    for module in ("pages.predict", "pages.training", "studies.training", "studies.example", "core.rmsnorm"):
        assert f"rmsnorm_course.{module}" in found
