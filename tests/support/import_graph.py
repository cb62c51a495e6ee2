"""The import statements of a source tree, read with ``ast`` (nothing is imported), and the graph they form.

Used by the tests that keep the layout honest: no import circle inside a package
(``tests/core/test_import_graph.py``) and plugins importing only steb's public API
(``tests/core/test_public_api.py``). Every import counts, the ones inside functions too: a circle closed by a
deferred import is still a circle (it only moves the failure to whichever module is imported first). Imports
under ``if TYPE_CHECKING:`` are left out, since they never run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ImportStatement", "Package", "find_cycles", "import_graph", "imports_in", "plugin_packages", "python_files"]

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ImportStatement:
    """One imported name: ``from <module> import <name>`` (``name`` None for ``import <module>``)."""

    file: Path
    line: int
    module: str
    name: str | None


@dataclass(frozen=True)
class Package:
    """A top-level package: its import name, its folder, and the test folder of its distribution (if any)."""

    name: str
    folder: Path
    tests: Path | None = None

    def modules(self) -> dict[str, Path]:
        """Module name -> file, for every ``.py`` file of the package (its ``tests`` folder left out)."""
        out: dict[str, Path] = {}
        for path in python_files(self.folder, skip=("tests",)):
            parts = [self.name, *path.relative_to(self.folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
        return out


def python_files(folder: Path, skip: tuple[str, ...] = ()) -> list[Path]:
    """The ``.py`` files under ``folder`` in sorted order, without virtual environments, caches and ``skip``."""
    return sorted(
        p
        for p in folder.rglob("*.py")
        if not {".venv", "__pycache__", "build", *skip} & set(p.relative_to(folder).parts[:-1])
    )


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(nodes: list[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in nodes:
        if isinstance(node, ast.If) and _type_checking(node):
            yield from _statements(list(node.orelse))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        else:
            yield from _statements(list(ast.iter_child_nodes(node)))


def imports_in(path: Path, module: str) -> list[ImportStatement]:
    """Every import in the file of ``module`` (function-level ones included), relative imports made absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out: list[ImportStatement] = []
    for node in _statements(list(tree.body)):
        if isinstance(node, ast.Import):
            out.extend(ImportStatement(path, node.lineno, alias.name, None) for alias in node.names)
            continue
        if node.level:
            base = package[: len(package) - (node.level - 1)]
            target = ".".join([*base, *([node.module] if node.module else [])])
        else:
            target = node.module or ""
        out.extend(ImportStatement(path, node.lineno, target, alias.name) for alias in node.names)
    return out


def import_graph(package: Package) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (``from pkg import sub`` counts as importing ``sub``)."""
    modules = package.modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for statement in imports_in(path, name):
            target = statement.module
            if statement.name is not None and f"{target}.{statement.name}" in modules:
                target = f"{target}.{statement.name}"
            while target and target not in modules:  # ``pkg.mod.attr`` names the module ``pkg.mod``
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than one module, each sorted.

    Tarjan's algorithm, written iteratively so that a deep package cannot hit the recursion limit.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in graph:
                    continue
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return sorted(cycles)


def plugin_packages(repo: Path = REPO) -> list[Package]:
    """The plugin packages of this repository: every distribution (a ``pyproject.toml`` other than the root's)
    with an entry point in group ``steb``, as the package that entry point names."""
    found: dict[str, Package] = {}
    for pyproject in sorted(repo.rglob("pyproject.toml")):
        if pyproject.parent == repo or ".venv" in pyproject.parts:
            continue
        for target in _steb_entry_points(pyproject.read_text(encoding="utf-8")):
            name = target.split(":")[0].split(".")[0]
            dist = pyproject.parent
            folder = dist / name if (dist / name / "__init__.py").is_file() else dist
            tests = dist / "tests"
            found[name] = Package(name, folder, tests if tests.is_dir() else None)
    return [found[name] for name in sorted(found)]


def _steb_entry_points(pyproject: str) -> list[str]:
    """The targets (``package.module``) of a pyproject's ``[project.entry-points.steb]`` table (tomllib is 3.11+)."""
    table = re.search(r"^\[project\.entry-points\.steb\]\s*$(.*?)(?=^\[|\Z)", pyproject, flags=re.M | re.S)
    return re.findall(r"^\s*[\w.-]+\s*=\s*[\"']([^\"']+)[\"']", table.group(1), flags=re.M) if table else []
