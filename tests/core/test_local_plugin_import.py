"""Issue 41, items 1-2: how a local plugin named by module is imported.

1. The working directory used to be inserted at ``sys.path[0]`` and left there, so a ``threadpoolctl.py``
   or ``sklearn.py`` lying beside the plugin (files of a downloaded release) replaced the real library
   when steb imported it later. Only the plugin itself is now loaded from the working directory.
2. ``--plugin pan`` beside a local ``pan.py`` imported it and then dropped its hooks silently (the
   installed plugin 'pan' had the name): now an error naming both.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from steb_core._errors import PluginError
from steb_core._plugins import new_manager

PLUGIN = textwrap.dedent("""
    import numpy as np
    from steb_core import hookimpl, EncoderSpec

    class Const:
        name = "cwd-const"
        def encode(self, texts):
            return np.ones((len(texts), 2), dtype=np.float32)

    @hookimpl
    def register_encoders(register):
        register(EncoderSpec(name="cwd-const", description="constant", factory=lambda **o: Const()))
""")

#: what the steb console script does: no '' on sys.path (python -P), plugin named by module, then a lazy import
SCRIPT = textwrap.dedent("""
    import json, sys
    from steb_core._plugins import new_manager
    manager = new_manager(["mylab_enc"], entry_points=False, env=False)
    import threadpoolctl
    print(json.dumps({"encoders": manager.encoders().names(), "threadpoolctl": threadpoolctl.__file__,
                      "path": sys.path}))
""")


def test_module_plugin_from_the_working_directory_does_not_put_it_on_sys_path(tmp_path):
    (tmp_path / "mylab_enc.py").write_text(PLUGIN)
    (tmp_path / "threadpoolctl.py").write_text("raise SystemExit('the working directory was imported from')\n")
    done = subprocess.run(
        [sys.executable, "-P", "-c", SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "cwd-const" in out["encoders"]  # the plugin was found in the working directory ...
    assert not out["threadpoolctl"].startswith(str(tmp_path))  # ... but nothing else is imported from there
    assert str(tmp_path) not in out["path"] and "" not in out["path"]


def test_a_module_in_a_folder_without_init_loads_as_the_guide_runs_it(tmp_path, monkeypatch):
    """CONTRIBUTING's worked example 2 keeps ``mylab/encoders.py`` and runs ``steb run --plugin mylab.encoders``
    with no ``mylab/__init__.py``: the folder is a namespace package from the working directory (issue 48)."""
    folder = tmp_path / "mylab_ns48"
    folder.mkdir()
    (folder / "encoders.py").write_text(PLUGIN.replace("cwd-const", "cwd-ns"))
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    try:
        manager = new_manager(["mylab_ns48.encoders"], entry_points=False, env=False)
        assert manager.encoders().provider("cwd-ns") == "mylab_ns48.encoders"
        assert sys.path == before
        assert manager.provider_version("mylab_ns48.encoders")[1]  # a local plugin (versioned by its source)
    finally:
        for name in ("mylab_ns48", "mylab_ns48.encoders"):
            sys.modules.pop(name, None)


def test_package_plugin_from_the_working_directory_imports_its_submodules(tmp_path, monkeypatch):
    pkg = tmp_path / "mylab_pkg41"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "encoders.py").write_text(PLUGIN.replace("cwd-const", "cwd-pkg"))
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    try:
        manager = new_manager(["mylab_pkg41.encoders"], entry_points=False, env=False)
        assert manager.encoders().provider("cwd-pkg") == "mylab_pkg41.encoders"
        assert sys.path == before
    finally:
        for name in ("mylab_pkg41", "mylab_pkg41.encoders"):
            sys.modules.pop(name, None)


def test_local_module_named_like_an_installed_plugin_is_refused_naming_both(tmp_path, monkeypatch):
    (tmp_path / "pan.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    try:
        with pytest.raises(PluginError) as info:
            new_manager(["pan"], env=False, installed=["pan"])
    finally:
        sys.modules.pop("pan", None)
    message = str(info.value)
    assert "pan.py" in message and "entry point plugin 'pan'" in message and "steb-datasets-pan" in message
    assert "-p no:pan" in message
