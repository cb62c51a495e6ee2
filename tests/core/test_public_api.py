"""steb's public API has a line around it (issue 40): ``steb_core.__all__`` written out, every plugin importing only
from it, and the repository's own test support kept out of the installed core.

The rule (CONTRIBUTING, "The public API"): a plugin imports ``from steb_core import NAME`` with ``NAME`` in
``steb_core.__all__``, and nothing from ``steb_core``'s modules, so the core's modules can be split and renamed
without breaking a plugin. A plugin's tests may also use ``steb_core.testing`` (the pytest plugin for plugin
authors) and ``steb_core.cli`` (the ``steb`` command); the few white-box tests that reach further are listed in
``WHITE_BOX`` with the reason.
"""

from __future__ import annotations
import __future__

import ast
import importlib.util
import re
import types
from pathlib import Path

import pytest

import steb
import steb_core
from steb_core import _apidoc as apidoc
from tests.support.import_graph import REPO, Package, imports_in, plugin_packages, python_files

PLUGINS = plugin_packages()
#: what a plugin's tests may import besides steb_core's public names
TEST_MODULES = {"steb_core.testing", "steb_core.cli"}
#: (test file, module) white-box imports of core internals by plugin tests, with the reason
WHITE_BOX = {
    (
        "plugins/steb_models_neural/tests/test_neural_protocols.py",
        "steb_core._longtext",
    ): "monkeypatches the sentence splitter's private window search to test the neural tokenizer path",
    (
        "steb_datasets_pan/tests/test_pan_sources_and_citations.py",
        "steb_core._catalogue",
    ): "checks each PAN citation is printed by `steb cite` as given (catalogue.bibtex is what the command uses)",
}


def _all_literal() -> list[str]:
    """``__all__`` as written in steb_core/__init__.py: one list of string literals, assigned once."""
    tree = ast.parse((REPO / "steb_core" / "__init__.py").read_text(encoding="utf-8"))
    assigned = [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        )
    ]
    assert len(assigned) == 1 and isinstance(assigned[0], ast.Assign), "__all__ must be assigned once"
    value = assigned[0].value
    assert isinstance(value, ast.List) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
    ), "__all__ must be a list of string literals"
    return [e.value for e in value.elts]  # type: ignore[attr-defined]


def test_all_is_written_out_and_is_the_whole_public_surface() -> None:
    names = _all_literal()
    assert names == steb_core.__all__
    assert len(names) == len(set(names)), "a name listed twice"
    assert not [n for n in names if isinstance(getattr(steb_core, n), types.ModuleType)], "no submodules in __all__"
    side_effects = (__future__._Feature,)
    public = {
        n
        for n, v in vars(steb_core).items()
        if not n.startswith("_")
        and not isinstance(v, (types.ModuleType, *side_effects))
        and getattr(v, "__module__", None) != "typing"
    }
    assert public == set(names), f"public but not listed: {sorted(public - set(names))}"


def test_steb_is_the_same_api() -> None:
    assert steb.__all__ == steb_core.__all__
    assert all(getattr(steb, n) is getattr(steb_core, n) for n in steb_core.__all__)
    assert steb.__version__ == steb_core.__version__


def test_the_api_reference_documents_every_public_name_in_its_group() -> None:
    documented = [name for _, names in apidoc.SECTIONS for name in names]
    assert documented == steb_core.__all__  # same names, same order: the groups of __all__ are the reference's
    constants = [n for n in documented if not callable(getattr(steb_core, n))]
    assert sorted(constants) == sorted(apidoc.CONSTANTS)


def test_contributing_lists_the_same_groups() -> None:
    """CONTRIBUTING's table of the public API names exactly ``__all__`` (a name added in one place only fails)."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## The public API", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| group")]
    listed = [name for row in rows for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", row.split("|")[2])]
    assert listed == steb_core.__all__


def _steb_core_imports(path: Path, module: str) -> list[tuple[int, str, str | None]]:
    return [
        (s.line, s.module, s.name)
        for s in imports_in(path, module)
        if s.module == "steb_core" or s.module.startswith("steb_core.")
    ]


def _module_name(package: Package, path: Path) -> str:
    return next(name for name, file in package.modules().items() if file == path)


@pytest.mark.parametrize("package", PLUGINS, ids=lambda p: p.name)
def test_plugins_import_only_public_names(package: Package) -> None:
    public = set(steb_core.__all__)
    wrong = [
        f"{path.relative_to(REPO)}:{line}: {module}" + (f" import {name}" if name else "")
        for module_name, path in package.modules().items()
        for line, module, name in _steb_core_imports(path, module_name)
        if module != "steb_core" or (name is not None and name not in public)
    ]
    rule = "plugins import only `from steb_core import NAME`, NAME in steb_core.__all__:\n"
    assert not wrong, rule + "\n".join(wrong)


@pytest.mark.parametrize("package", [p for p in PLUGINS if p.tests], ids=lambda p: p.name)
def test_plugin_tests_import_public_names_the_test_helpers_and_the_cli(package: Package) -> None:
    public = set(steb_core.__all__)
    wrong = []
    assert package.tests is not None
    for path in python_files(package.tests):
        relative = path.relative_to(REPO).as_posix()
        for line, module, name in _steb_core_imports(path, f"{package.name}_tests.{path.stem}"):
            if module == "steb_core" and (name is None or name in public):  # `import steb_core` or a public name
                continue
            if module in TEST_MODULES or module.rpartition(".")[0] in TEST_MODULES or (relative, module) in WHITE_BOX:
                continue
            wrong.append(f"{relative}:{line}: {module}" + (f" import {name}" if name else ""))
    assert not wrong, "\n".join(wrong)


def test_white_box_exceptions_are_still_needed() -> None:
    for (relative, module), _reason in WHITE_BOX.items():
        path = REPO / relative
        assert any(s.module == module for s in imports_in(path, "x")), f"{relative} no longer imports {module}"


#: steb_core's top-level modules a user or a plugin author imports by name; every other is the core's
#: implementation and says so with a leading underscore (issue 48 item 6), as pluggy's and pytest's modules do
PUBLIC_MODULES = {"__init__", "hookspecs", "testing"}


def test_the_cores_implementation_modules_are_private_by_name() -> None:
    top = sorted(p.stem for p in (REPO / "steb_core").glob("*.py"))
    public_looking = [m for m in top if not m.startswith("_") and m not in PUBLIC_MODULES]
    assert not public_looking, f"name these steb_core modules privately (_NAME.py): {public_looking}"
    assert all((REPO / "steb_core" / f"{m}.py").is_file() for m in PUBLIC_MODULES)


@pytest.mark.parametrize("old", ["steb_core.io", "steb_core.hub", "steb_core.specs", "steb_core.builtin"])
def test_an_implementation_modules_old_public_path_does_not_import(old: str) -> None:
    assert importlib.util.find_spec(old) is None
    assert importlib.util.find_spec(old.replace("steb_core.", "steb_core._")) is not None


def test_the_checker_sees_submodule_and_private_imports(tmp_path: Path) -> None:
    folder = tmp_path / "fake_plugin"
    folder.mkdir()
    (folder / "__init__.py").write_text("from steb_core import hookimpl\n")
    (folder / "loader.py").write_text(
        "from steb_core._io import read_bytes\n\n\ndef f():\n    from steb_core import _moved\n"
    )
    package = Package("fake_plugin", folder)
    found = [
        (module, name) for mod, path in package.modules().items() for _, module, name in _steb_core_imports(path, mod)
    ]
    assert found == [("steb_core", "hookimpl"), ("steb_core._io", "read_bytes"), ("steb_core", "_moved")]


def test_the_repositorys_test_support_is_not_in_the_installed_core() -> None:
    assert importlib.util.find_spec("steb_core.testing_http") is None
    assert (REPO / "tests" / "support" / "fake_http.py").is_file()
    import steb_core.testing as testing

    fixtures = sorted(
        n
        for n, v in vars(testing).items()
        if hasattr(v, "_pytestfixturefunction") or type(v).__name__ == "FixtureFunctionDefinition"
    )
    assert fixtures == ["steb_isolated"]
    assert not any(
        "shared" in line and "data" in line
        for line in (REPO / "steb_core" / "testing.py").read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith(("#", '"', "``"))
    )
