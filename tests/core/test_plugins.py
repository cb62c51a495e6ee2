"""Plugin discovery, local plugins, failure isolation and name collisions."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from steb_core import DuplicateComponentError, UnknownComponentError, get_manager, new_manager
from steb_core.plugins import Registry



def test_builtins_register_through_hooks():
    manager = new_manager(entry_points=False, env=False)
    assert [p.name for p in manager.loaded] == ["steb_core.builtin"]
    demo = [s.name for s in manager.datasets() if "demo" in s.suites]
    assert len(demo) == 6
    assert manager.datasets().provider("demo_registers") == "steb_core.builtin"
    assert "surface" in manager.feature_extractors()
    assert "local" in manager.executors()


def test_entry_points_are_discovered():
    manager = new_manager(env=False)
    sources = {p.name: p.source for p in manager.loaded}
    # the repo's own distributions are installed by `make setup` and found through group "steb"
    assert sources.get("stylometry") == "entry point"
    assert sources.get("pan") == "entry point"


def test_plugin_file_and_module(tmp_path, monkeypatch, toy_plugin):
    manager = new_manager([str(toy_plugin)], entry_points=False, env=False)
    assert "toy0" in manager.datasets()
    assert manager.datasets().provider("toy0") == str(toy_plugin)
    # the same plugin as a module name found on sys.path
    pkg = tmp_path / "mylab"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "encoders.py").write_text(textwrap.dedent('''
        from steb_core import hookimpl, EncoderSpec
        @hookimpl
        def register_encoders(register):
            register(EncoderSpec(name="lab-private", description="private", factory=lambda **o: None))
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    manager = new_manager(["mylab.encoders"], entry_points=False, env=False)
    assert manager.encoders().provider("lab-private") == "mylab.encoders"


def test_steb_plugins_env(monkeypatch, toy_plugin):
    monkeypatch.setenv("STEB_PLUGINS", f" {toy_plugin} , ")
    manager = new_manager(entry_points=False)
    assert "toy1" in manager.datasets()
    assert manager.loaded[-1].source == "STEB_PLUGINS"


def test_broken_plugin_is_reported_and_others_still_load(tmp_path, toy_plugin):
    broken = tmp_path / "broken_plugin.py"
    broken.write_text("import definitely_not_installed_module_xyz\n")
    raising_hook = tmp_path / "raising_hook.py"
    raising_hook.write_text(textwrap.dedent('''
        from steb_core import hookimpl
        @hookimpl
        def register_datasets(register):
            raise RuntimeError("hook exploded")
    '''))
    manager = new_manager([str(broken), str(raising_hook), str(toy_plugin)], entry_points=False, env=False)
    assert "toy0" in manager.datasets()  # the good plugin still works
    errors = {f.name: f.error for f in manager.failures}
    assert "ModuleNotFoundError" in errors[str(broken)] and "definitely_not_installed_module_xyz" in errors[str(broken)]
    assert any("hook exploded" in e for e in errors.values())


def test_missing_plugin_file_is_a_failure_not_a_crash(tmp_path):
    manager = new_manager([str(tmp_path / "nope.py")], entry_points=False, env=False)
    assert manager.failures and "does not exist" in manager.failures[0].error


def test_name_collision_names_both_providers(tmp_path, toy_plugin):
    clash = tmp_path / "clash_plugin.py"
    clash.write_text(toy_plugin.read_text())
    manager = new_manager([str(toy_plugin), str(clash)], entry_points=False, env=False)
    with pytest.raises(DuplicateComponentError) as info:
        manager.datasets()
    message = str(info.value)
    assert "toy0" in message and str(toy_plugin) in message and str(clash) in message


def test_registry_rejects_wrong_spec_type(tmp_path):
    bad = tmp_path / "bad_spec.py"
    bad.write_text(textwrap.dedent('''
        from steb_core import hookimpl
        @hookimpl
        def register_encoders(register):
            register({"name": "not-a-spec"})
    '''))
    manager = new_manager([str(bad)], entry_points=False, env=False)
    manager.encoders()
    assert any("expected EncoderSpec" in f.error for f in manager.failures)


def test_unknown_component_lists_known_names():
    with pytest.raises(UnknownComponentError) as info:
        get_manager().datasets().get("no_such_dataset")
    assert "demo_registers" in str(info.value) and "steb list datasets" in str(info.value)


def test_registry_duplicate_direct():
    reg: Registry = Registry("encoder")

    class Spec:
        name = "x"

    reg.add(Spec(), "a")
    with pytest.raises(DuplicateComponentError, match="'a' and 'b'"):
        reg.add(Spec(), "b")


def test_installed_plugin_from_temp_dir_appears_without_core_change(tmp_path):
    """Build a real distribution in a temp dir, pip-install it into this venv, and list it with the CLI."""
    dist = tmp_path / "steb-datasets-tmpexample"
    pkg = dist / "steb_tmpexample"
    pkg.mkdir(parents=True)
    (dist / "pyproject.toml").write_text(textwrap.dedent('''
        [build-system]
        requires = ["setuptools>=68"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "steb-datasets-tmpexample"
        version = "0.0.1"
        [project.entry-points.steb]
        tmpexample = "steb_tmpexample"
        [tool.setuptools]
        packages = ["steb_tmpexample"]
    '''))
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from steb_core import hookimpl, DatasetSpec, DatasetBundle, LabelledText
        def _load(ctx):
            return DatasetBundle(labelled_texts=[LabelledText("a b", "x"), LabelledText("c d", "y")])
        @hookimpl
        def register_datasets(register):
            register(DatasetSpec(name="tmp_example_dataset", description="installed from a temp dir",
                                 tasks=("clustering",), loader=_load, needs_data=False))
    '''))
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", str(dist)]
    subprocess.run(pip, check=True, capture_output=True)
    try:
        steb = Path(sys.executable).with_name("steb")
        out = subprocess.run([str(steb), "list", "datasets"], capture_output=True, text=True, check=True).stdout
        assert "tmp_example_dataset" in out and "tmpexample" in out
    finally:
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "--quiet", "-y", "steb-datasets-tmpexample"], check=True, capture_output=True)
    out = subprocess.run([str(steb), "list", "datasets"], capture_output=True, text=True, check=True).stdout
    assert "tmp_example_dataset" not in out
