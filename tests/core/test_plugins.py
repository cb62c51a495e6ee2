"""Plugin discovery, local plugins, failure isolation and name collisions."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from steb_core import DuplicateComponentError, PluginError, UnknownComponentError, get_manager, new_manager
from steb_core._plugins import Registry


def test_builtins_register_through_hooks():
    manager = new_manager(entry_points=False, env=False)
    # the registered name predates the module's private name (steb_core._builtin) and keys stored records
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
    (pkg / "encoders.py").write_text(
        textwrap.dedent("""
        from steb_core import hookimpl, EncoderSpec
        @hookimpl
        def register_encoders(register):
            register(EncoderSpec(name="lab-private", description="private", factory=lambda **o: None))
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    manager = new_manager(["mylab.encoders"], entry_points=False, env=False)
    assert manager.encoders().provider("lab-private") == "mylab.encoders"


def test_steb_plugins_env(monkeypatch, toy_plugin):
    monkeypatch.setenv("STEB_PLUGINS", f" {toy_plugin} , ")
    manager = new_manager(entry_points=False)
    assert "toy1" in manager.datasets()
    assert manager.loaded[-1].source == "STEB_PLUGINS"


def test_named_plugin_that_fails_to_import_is_an_error_with_the_original_exception(tmp_path):
    broken = tmp_path / "broken_plugin.py"
    broken.write_text("import definitely_not_installed_module_xyz\n")
    with pytest.raises(PluginError, match="definitely_not_installed_module_xyz") as info:
        new_manager([str(broken)], entry_points=False, env=False)
    assert isinstance(info.value.__cause__, ModuleNotFoundError)  # pytest shows the original ImportError


def test_misspelled_plugin_path_is_an_error(tmp_path):
    with pytest.raises(PluginError, match="does not exist"):
        new_manager([str(tmp_path / "nope.py")], entry_points=False, env=False)


def test_steb_plugins_env_is_strict_too(monkeypatch, tmp_path):
    monkeypatch.setenv("STEB_PLUGINS", str(tmp_path / "missing_plugin.py"))
    with pytest.raises(PluginError, match="STEB_PLUGINS"):
        new_manager(entry_points=False)


def test_failing_hook_registers_nothing_and_explains_unknown_names(tmp_path, toy_plugin, monkeypatch):
    """An installed plugin's failing hook is isolated: nothing of it is registered (all or nothing), the missing
    name is explained, the failure listed once. The same plugin named with --plugin is an error (issue 41)."""
    source = textwrap.dedent("""
        from steb_core import hookimpl, EncoderSpec
        @hookimpl
        def register_encoders(register):
            register(EncoderSpec(name="half-registered", description="x", factory=object))
            raise RuntimeError("hook exploded")
    """)
    half = tmp_path / "half_plugin.py"
    half.write_text(source)
    refused = r"half_plugin.py' \(--plugin\) failed in register_encoders: RuntimeError: hook exploded"
    with pytest.raises(PluginError, match=refused):
        new_manager([str(half), str(toy_plugin)], entry_points=False, env=False).encoders()
    module = type(sys)("half_plugin_installed")
    exec(compile(source, str(half), "exec"), module.__dict__)  # noqa: S102 - the test's own plugin source

    class HalfEntryPoint:
        name, value, group, dist = "half", "half_plugin_installed", "steb", None

        def load(self):
            return module

    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group=None: [HalfEntryPoint()] if group == "steb" else []
    )
    manager = new_manager([str(toy_plugin)], env=False)
    assert "toy0" in manager.datasets()  # the good plugin still works
    encoders = manager.encoders()
    assert "half-registered" not in encoders  # all or nothing
    with pytest.raises(UnknownComponentError, match="hook exploded"):
        encoders.get("half-registered")
    assert [f.source for f in manager.failures].count("hook register_encoders") == 1
    manager._registries.clear()
    manager.encoders()
    assert [f.source for f in manager.failures].count("hook register_encoders") == 1  # listed once


def test_installed_plugin_that_exits_at_import_is_isolated(monkeypatch):
    class ExitingEntryPoint:
        name, value, group = "exiting", "exiting_plugin", "steb"
        dist = None

        def load(self):
            raise SystemExit(3)

    real = importlib.metadata.entry_points
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group=None: [*real(group=group), ExitingEntryPoint()]
    )
    manager = new_manager(env=False)
    assert "demo_registers" in manager.datasets()
    assert any(f.name == "exiting" and "SystemExit" in f.error for f in manager.failures)


def test_name_collision_refuses_only_that_name(tmp_path, toy_plugin):
    clash = tmp_path / "clash_plugin.py"
    clash.write_text(
        textwrap.dedent("""
        from steb_core import hookimpl, DatasetSpec
        @hookimpl
        def register_datasets(register):
            for name in ("toy0", "clash_only"):
                register(DatasetSpec(name=name, description="clash", tasks=("clustering",), loader=None,
                    needs_data=False))
    """)
    )
    manager = new_manager([str(toy_plugin), str(clash)], entry_points=False, env=False)
    datasets = manager.datasets()  # does not raise: everything else keeps working
    assert "demo_registers" in datasets and "clash_only" in datasets and "toy1" in datasets
    with pytest.raises(DuplicateComponentError) as info:
        datasets.get("toy0")
    message = str(info.value)
    assert "toy0" in message and str(toy_plugin) in message and str(clash) in message
    assert any("name collision" in f.source and "toy0" in f.error for f in manager.failures)


def test_installed_plugin_can_be_switched_off(monkeypatch):
    assert "pan13_authorship_verification_english_test" in new_manager(env=False).datasets()
    for manager in (
        new_manager(env=False, disabled=["steb-datasets-pan"]),
        new_manager(["no:pan"], env=False),
    ):
        names = manager.datasets().names()
        assert "pan13_authorship_verification_english_test" not in names and "demo_registers" in names
    monkeypatch.setenv("STEB_DISABLE_PLUGINS", "pan")
    assert "pan13_authorship_verification_english_test" not in new_manager().datasets()


def test_registry_rejects_wrong_spec_type(tmp_path):
    bad = tmp_path / "bad_spec.py"
    bad.write_text(
        textwrap.dedent("""
        from steb_core import hookimpl
        @hookimpl
        def register_encoders(register):
            register({"name": "not-a-spec"})
    """)
    )
    manager = new_manager([str(bad)], entry_points=False, env=False)
    with pytest.raises(PluginError, match="expected EncoderSpec"):  # a named plugin's failing hook: an error (issue 41)
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
    reg.add(Spec(), "b")
    assert "x" not in reg
    with pytest.raises(DuplicateComponentError, match="'a' and 'b'"):
        reg.get("x")


def test_installed_plugin_from_temp_dir_appears_without_core_change(tmp_path):
    """Build a real distribution in a temp dir, pip-install it into this venv, and list it with the CLI."""
    dist = tmp_path / "steb-datasets-tmpexample"
    pkg = dist / "steb_tmpexample"
    pkg.mkdir(parents=True)
    (dist / "pyproject.toml").write_text(
        textwrap.dedent("""
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
    """)
    )
    (pkg / "__init__.py").write_text(
        textwrap.dedent("""
        from steb_core import hookimpl, DatasetSpec, DatasetBundle, LabelledText
        def _load(ctx):
            return DatasetBundle(labelled_texts=[LabelledText("a b", "x"), LabelledText("c d", "y")])
        @hookimpl
        def register_datasets(register):
            register(DatasetSpec(name="tmp_example_dataset", description="installed from a temp dir",
                                 tasks=("clustering",), loader=_load, needs_data=False))
    """)
    )
    pip = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        str(dist),
    ]
    subprocess.run(pip, check=True, capture_output=True)
    try:
        steb = Path(sys.executable).with_name("steb")
        out = subprocess.run([str(steb), "list", "datasets"], capture_output=True, text=True, check=True).stdout
        assert "tmp_example_dataset" in out and "tmpexample" in out
    finally:
        subprocess.run(
            [sys.executable, "-m", "pip", "uninstall", "--quiet", "-y", "steb-datasets-tmpexample"],
            check=True,
            capture_output=True,
        )
    out = subprocess.run([str(steb), "list", "datasets"], capture_output=True, text=True, check=True).stdout
    assert "tmp_example_dataset" not in out
