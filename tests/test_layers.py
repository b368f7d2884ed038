"""The package's shape: its folders are its layers, and imports only run downhill.

From the bottom: core (the maths) and cache (where what is computed once is kept) <-
studies (what the chapter measures) <- what an answer is (grading's reading and kinds)
<- questions <- verdicts (grading's check, feedback and answer files) <- views <- the
class (grading's gradebook, report and pages). Course content never imports the class
machinery. A module may import from its own layer or a lower one; no module imports
another's underscore names; the import graph has no cycle; ``import rmsnorm_course``
loads the core only.

The contract is checked here by hand, in a few lines over ``ast``, rather than by a
linter: its layers are modules as well as packages, and a planted import proves it fails.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "rmsnorm_course"
# Bottom to top: each layer's packages or modules, named below rmsnorm_course.
LAYERS = (
    ("core", "cache", "imports"),
    ("studies",),
    ("grading", "grading.reading", "grading.kinds", "grading.errors", "grading.untrusted", "grading.toml_reader"),
    ("questions",),
    ("grading.key", "grading.misconceptions", "grading.feedback", "grading.answers", "grading.saved_answers",
     "grading.withheld"),
    ("views",),
    ("grading.students", "grading.policy", "grading.gradebook", "grading.publish", "grading.class_report",
     "grading.class_figure"),
)  # fmt: skip
CLASS = len(LAYERS) - 1


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str) -> list[tuple[str, list[str]]]:
    """(imported module, names taken from it) for every import of the package in a module, at any depth."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("rmsnorm_course"):
                continue
            names = [alias.name for alias in node.names]
            # "from . import evidence" names a module, not an attribute
            for alias in names:
                if f"{target}.{alias}" in MODULES:
                    found.append((f"{target}.{alias}", []))
            found.append((target, [n for n in names if f"{target}.{n}" not in MODULES]))
        elif isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names if alias.name.startswith("rmsnorm_course")]
    return found


def layer(name: str) -> int | None:
    """The layer of a module: that of the longest name in LAYERS it is, or lies under."""
    relative = name.removeprefix("rmsnorm_course.")
    for length in range(relative.count(".") + 1, 0, -1):
        prefix = ".".join(relative.split(".")[:length])
        for number, names in enumerate(LAYERS):
            if prefix in names:
                return number
    return None


def uphill(name: str, targets: list[str]) -> list[str]:
    """The imports of module ``name`` that reach a layer above its own (or the package's entry points)."""
    return [target for target in targets if layer(target) is None or layer(target) > layer(name)]


def test_every_module_sits_in_a_layer_but_the_package_entry_points():
    outside = [name for name in MODULES if layer(name) is None]
    assert outside == ["rmsnorm_course", "rmsnorm_course.__main__"]


@pytest.mark.parametrize("name", [name for name in MODULES if layer(name) is not None])
def test_imports_run_downhill_only(name):
    assert uphill(name, [target for target, _ in imports(name)]) == []


@pytest.mark.parametrize(
    ("name", "planted"),
    [
        ("rmsnorm_course.views.figures", "rmsnorm_course.grading.gradebook"),  # a view reaching the class
        ("rmsnorm_course.questions.registry", "rmsnorm_course.grading.feedback"),  # a question reaching verdicts
        ("rmsnorm_course.studies.cost", "rmsnorm_course.views.tables"),
        ("rmsnorm_course.grading.kinds", "rmsnorm_course.questions.registry"),
        ("rmsnorm_course.core.rmsnorm", "rmsnorm_course.__main__"),
    ],
)
def test_a_planted_upward_import_is_caught(name, planted):
    assert uphill(name, [target for target, _ in imports(name)] + [planted]) == [planted]


def test_course_content_never_imports_the_class_machinery():
    for name in MODULES:
        if layer(name) is not None and layer(name) < CLASS:
            reached = [target for target, _ in imports(name) if layer(target) == CLASS]
            assert reached == [], f"{name} imports {reached}"


def test_the_core_imports_nothing_outside_the_core():
    for name in MODULES:
        if layer(name) == 0:
            assert all(target.startswith("rmsnorm_course.core") for target, _ in imports(name)), name


@pytest.mark.parametrize("name", list(MODULES))
def test_no_module_imports_another_modules_underscore_names(name):
    for target, names in imports(name):
        private = [n for n in names if n.startswith("_")]
        assert not private, f"{name} imports {private} from {target}"


def test_the_import_graph_has_no_cycle():
    graph = {name: {target for target, _ in imports(name) if target in MODULES and target != name} for name in MODULES}
    # a package's __init__ is imported with any of its modules; only edges between modules count here
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in graph[node]:
            if state.get(nxt) == "open":
                pytest.fail("import cycle: " + " -> ".join([*trail[trail.index(nxt) :], nxt]))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = "done"

    for name in graph:
        if name not in state:
            visit(name, [name])


def test_importing_the_package_loads_the_core_only():
    code = "import sys, rmsnorm_course; print(*sorted(m for m in sys.modules if m.startswith('rmsnorm_course')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert all(name == "rmsnorm_course" or layer(name) == 0 for name in loaded), loaded
    assert "rmsnorm_course.core.rmsnorm" in loaded


def test_check_loads_when_first_used():
    code = "import rmsnorm_course; print(rmsnorm_course.check('mean-square').outcome.value)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "not answered"
