"""The package's shape: its folders are its layers, and imports only run downhill.

core (the maths) <- studies (what the chapter measures) <- exercises <- views.
A module may import from its own layer or a lower one; no module imports another's
underscore names; the import graph has no cycle; ``import rmsnorm_course`` loads the core only.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "rmsnorm_course"
LAYERS = ("core", "studies", "exercises", "views")


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
    parts = name.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_module_sits_in_a_layer_but_the_package_entry_points():
    outside = [name for name in MODULES if layer(name) is None]
    assert outside == ["rmsnorm_course", "rmsnorm_course.__main__"]


@pytest.mark.parametrize("name", [name for name in MODULES if layer(name) is not None])
def test_imports_run_downhill_only(name):
    for target, _ in imports(name):
        assert layer(target) is not None, f"{name} imports the package's entry point {target}"
        assert layer(target) <= layer(name), f"{name} ({LAYERS[layer(name)]}) imports {target} from a layer above"


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
