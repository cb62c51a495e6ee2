"""No import circle in steb_core, the ``steb`` alias or any plugin package of the repository (issue 40).

The graph is read from the source with ``ast`` (``tests/support/import_graph.py``), function-level imports
included: the one circle there was (``tasks._common`` -> ``_device`` / ``_torch_kernels`` -> ``_common``) was
closed by deferred imports, which only hid it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.import_graph import REPO, Package, find_cycles, import_graph, plugin_packages

PACKAGES = [Package("steb_core", REPO / "steb_core"), Package("steb", REPO / "steb"), *plugin_packages()]


def test_the_plugin_packages_are_found() -> None:
    names = {p.name for p in PACKAGES}
    assert {
        "steb_datasets_pan",
        "steb_models_stylometry",
        "steb_scorers",
        "steb_models_neural",
        "steb_datasets_example",
    } <= names
    assert all(len(p.modules()) >= 1 for p in PACKAGES)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_no_import_circle(package: Package) -> None:
    cycles = find_cycles(import_graph(package))
    assert not cycles, "import circles (each a group of modules that import one another):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def _package(tmp_path: Path, files: dict[str, str]) -> Package:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Package("pkg", tmp_path / "pkg")


def test_a_circle_through_a_deferred_import_is_found(tmp_path: Path) -> None:
    """The checker itself: the shape of the old tasks circle (relative imports, one inside a function)."""
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "sub/__init__.py": "",
            "sub/common.py": "def f():\n    from ._device import g\n    return g\n",
            "sub/_device.py": "from .common import f\n",
            "sub/kernels.py": "from . import common\nfrom ..sub import _device\n",
            "other.py": "from .sub.common import f\nfrom pkg.sub import kernels\n",
        },
    )
    graph = import_graph(package)
    assert graph["pkg.sub.kernels"] == {"pkg.sub.common", "pkg.sub._device"}
    assert graph["pkg.other"] == {"pkg.sub.common", "pkg.sub.kernels"}
    assert find_cycles(graph) == [["pkg.sub._device", "pkg.sub.common"]]


def test_type_checking_imports_do_not_count(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .b import B\nelse:\n    from .c import C\n"
            ),
            "b.py": "from .a import A\n",
            "c.py": "",
        },
    )
    assert import_graph(package)["pkg.a"] == {"pkg.c"}
    assert find_cycles(import_graph(package)) == []


def test_no_module_reaches_into_another_package_s_private_names() -> None:
    # issue 48 item 6: reference_tree imported tasks._roc, report imported aggregators.table._as_spec_map; a private
    # module or name (one leading underscore) is imported only from inside the package that holds it
    from tests.support.import_graph import REPO, imports_in, python_files

    found = []
    for path in python_files(REPO / "steb_core"):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for statement in imports_in(path, module):
            target = statement.module + (f".{statement.name}" if statement.name else "")
            parts = target.split(".")
            private = next((i for i, p in enumerate(parts) if p.startswith("_") and not p.startswith("__")), None)
            if private is None:
                continue
            owner = ".".join(parts[:private])
            if module != owner and not module.startswith(owner + "."):
                found.append(f"{path.relative_to(REPO)}:{statement.line} imports {target}")
    assert not found, "\n".join(found)
