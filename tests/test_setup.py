"""The install: what `make` puts in .venv, what Binder would build, and on which Python."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parent.parent
VIEWER = "Jupytext Notebook"
SETTING = "@jupyterlab/docmanager-extension:plugin"


def pins(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-e"):
            name, _, version = line.partition("==")
            assert version, f"{line!r} is not pinned exactly"
            found[name.lower().replace("_", "-")] = version
    return found


def test_jupyterlab_and_what_renders_the_pages_in_it_are_pinned():
    pinned = pins(ROOT / "requirements.txt")
    for package in ("jupyterlab", "jupyterlab-myst", "jupytext", "ipykernel", "ipywidgets"):
        assert package in pinned


def test_the_readme_run_command_exists_in_the_environment():
    assert "`.venv/bin/jupyter lab`" in (ROOT / "README.md").read_text()
    assert (Path(sys.executable).parent / "jupyter-lab").is_file()


def fake_python(tmp_path: Path, prints: str) -> Path:
    """A stand-in interpreter that answers every question with one line."""
    path = tmp_path / "python"
    path.write_text(f"#!/bin/sh\necho {prints}\n")
    path.chmod(0o755)
    return path


def test_post_build_writes_only_its_own_setting_and_extension_into_the_environment(tmp_path):
    prefix = tmp_path / "env"
    overrides = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
    overrides.mkdir(parents=True)
    extensions = prefix / "share" / "jupyter" / "labextensions"
    (extensions / "other-extension").mkdir(parents=True)
    stale = extensions / EXTENSION / "static" / "remoteEntry.0.js"  # an earlier install's script
    stale.parent.mkdir(parents=True)
    theirs = {
        overrides / "other-package.json": '{"x": 1}',
        overrides.parent / "overrides.json": '{"mine": true}',
        extensions / "other-extension" / "package.json": '{"name": "other-extension"}',
    }
    for path, text in theirs.items():
        path.write_text(text)
    stale.write_text("old")

    subprocess.run([str(ROOT / "postBuild"), str(fake_python(tmp_path, prefix))], check=True, capture_output=True)

    setting = json.loads((overrides / "rmsnorm-course.json").read_text())
    assert setting[SETTING]["defaultViewers"]["markdown"] == VIEWER
    for path, text in theirs.items():
        assert path.read_text() == text
    assert installed_script(prefix).read_text() == extension_script()
    assert not stale.exists()


ENGINE = "packages/predict-check/src/predict_check"
EXTENSION = "predict-check"  # the engine's JupyterLab extension, as its lab/package.json names it


def extension_script() -> str:
    """What the extension's one script is: the figure-drawing script the page uses, then the plugin."""
    parts = (ROOT / ENGINE / "static/prediction-picture.js", ROOT / ENGINE / "lab/extension.js")
    return "".join(path.read_text() for path in parts)


def installed_script(prefix: Path) -> Path:
    """The script JupyterLab loads for the extension installed in ``prefix``: the one its package.json names."""
    folder = prefix / "share" / "jupyter" / "labextensions" / EXTENSION
    package = json.loads((folder / "package.json").read_text())
    assert package["name"] == EXTENSION and package["jupyterlab"]["_build"]["extension"] == "./extension"
    script = folder / package["jupyterlab"]["_build"]["load"]
    assert sorted(path.name for path in (folder / "static").iterdir()) == [script.name]
    return script


def test_the_extension_s_script_is_named_by_its_contents(tmp_path):
    """JupyterLab lets a browser keep an extension's static files for good: a changed script needs a new name."""
    names = []
    for version in ("one", "two"):
        copy = tmp_path / version
        for relative in ("postBuild", f"{ENGINE}/lab/package.json", f"{ENGINE}/lab/extension.js",
                         f"{ENGINE}/static/prediction-picture.js"):  # fmt: skip
            (copy / relative).parent.mkdir(parents=True, exist_ok=True)
            (copy / relative).write_text((ROOT / relative).read_text())
        (copy / "postBuild").chmod(0o755)
        with (copy / ENGINE / "lab/extension.js").open("a") as script:
            script.write(f"// {version}\n")
        prefix = tmp_path / f"env-{version}"
        subprocess.run([str(copy / "postBuild"), str(fake_python(tmp_path, prefix))], check=True, capture_output=True)
        names.append(installed_script(prefix).name)
    assert names[0] != names[1]


def test_the_environment_holds_the_extension_as_the_sources_make_it():
    """The JupyterLab tests and `make lab` run what is installed: the sources' extension, not an older one."""
    assert installed_script(Path(sys.prefix)).read_text() == extension_script(), "run make .venv/.installed again"


def test_the_environment_opens_markdown_with_a_viewer_jupytext_provides():
    installed = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "rmsnorm-course.json"
    assert json.loads(installed.read_text())[SETTING]["defaultViewers"]["markdown"] == VIEWER
    bundle = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-jupytext" / "static"
    assert any(VIEWER in script.read_text(errors="ignore") for script in bundle.glob("*.js"))


def test_binder_and_the_package_ask_for_the_python_the_pins_are_for():
    runtime = (ROOT / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.\d+", runtime)
    required = SpecifierSet(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"])
    assert runtime.removeprefix("python-") in required
    assert "3.10" not in required
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in required  # the pins installed on this one
    assert all(version in required for version in ("3.11", "3.12", "3.13"))
    assert "Python 3.11, 3.12 and 3.13" in (ROOT / "README.md").read_text()  # the range make test passes on


@pytest.mark.parametrize(("version", "accepted"), [("3.10", False), ("3.9", False), ("3.11", True), ("3.13", True)])
def test_make_stops_at_once_on_a_python_older_than_the_pins(tmp_path, version, accepted):
    env = {key: value for key, value in os.environ.items() if not key.startswith("MAKE")}
    python = fake_python(tmp_path, version)
    command = ["make", "-s", "--no-print-directory", "-C", str(ROOT), "check-python", f"PYTHON={python}"]
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    assert (run.returncode == 0) == accepted
    if not accepted:
        assert f"needs Python 3.11 or newer; {tmp_path / 'python'} is Python {version}" in run.stderr
