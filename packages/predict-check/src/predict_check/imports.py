"""The source files a module runs, found by reading its imports rather than by listing folders.

A cache of what some functions compute is stale once any code they run changes, and
that code is wherever their modules' imports lead, not in folders someone named. The
imports are read with ``ast``, not run: every ``import`` statement anywhere in a module
(inside a function too) counts, and so does every package ``__init__`` on the way.
Only the modules' own top-level packages are followed; the Python, NumPy and platform
a cache was made with are the cache's to name.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable
from pathlib import Path


def imported_files(modules: Iterable[str]) -> dict[str, Path]:
    """Every module of their own packages that the named modules run, with its file, in the order of their names."""
    waiting = list(modules)
    roots = {name: _root(name) for name in {module.partition(".")[0] for module in waiting}}
    found: dict[str, Path] = {}
    while waiting:
        name = waiting.pop()
        path = _file(name, roots)
        if name in found or path is None:
            continue
        found[name] = path
        waiting += _packages(name) + _imports(name, path)
    return dict(sorted(found.items()))


def _root(package: str) -> Path | None:
    """The folder of a top-level package, found without running it; None for a lone module or none at all."""
    spec = importlib.util.find_spec(package)
    locations = spec.submodule_search_locations if spec is not None else None
    return Path(next(iter(locations))) if locations else None


def _file(name: str, roots: dict[str, Path | None]) -> Path | None:
    """The file that defines module ``name`` inside one of ``roots``; None for a name that is no such module."""
    top, *parts = name.split(".")
    root = roots.get(top)
    if root is None:
        return None
    where = root.joinpath(*parts)
    candidates = [where.with_suffix(".py")] if parts else []  # a module, or a package's __init__
    return next((path for path in [*candidates, where / "__init__.py"] if path.is_file()), None)


def _packages(name: str) -> list[str]:
    """The packages whose ``__init__`` runs before ``name`` does: ``a`` and ``a.b`` for ``a.b.c``."""
    parts = name.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


def _imports(name: str, path: Path) -> list[str]:
    """Every name an import in the module may load: ``from p import x`` may load ``p`` or the module ``p.x``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            named += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if base is not None:
                named += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return named


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    """The module an ``import from`` names, its dots resolved against ``package``; None past the top."""
    if not node.level:
        return node.module
    parts = package.split(".")
    if node.level > len(parts):
        return None
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base
