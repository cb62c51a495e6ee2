"""Issue 41 (exit 0 although something was dropped): what the user asked for and did not get fails the command.

Each case exited 0 on main with at most a warning:

- built-in task types that failed to register (a broken ``threadpoolctl`` on the path) skipped every task;
- a dataset or task type registered by two plugins was refused, and a suite run went on without it;
- a plugin the user named (``--plugin``) whose hook raised was a warning, its components silently absent;
- ``steb data check`` with a dataset whose loader fails;
- ``$STEB_DISABLE_PLUGINS=bogus`` was ignored, while ``-p no:bogus`` is an error.

Now each makes the exit status non-zero with a message naming what was dropped and why.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from steb_core import PluginError
from steb_core import _plugins as plugins_module
from steb_core._plugins import new_manager
from steb_core.cli import main

from .conftest import fork_cli, log_tail, steb_env, wait

ROOT = Path(__file__).resolve().parents[2]

SUITE_PLUGIN = """
from steb_core import hookimpl, DatasetSpec, DatasetBundle, LabelledText, TaskSpec

def _quick(ctx):
    texts = [LabelledText(f"a short text number {{i}} of {{ctx.dataset}}", str(i % 2)) for i in range(12)]
    return DatasetBundle(labelled_texts=texts)

@hookimpl
def register_datasets(register):
    register(DatasetSpec(name="{dataset}", description="x", tasks=("clustering",), loader=_quick, suites=("s41",)))
    register(DatasetSpec(name="{tasked}", description="x", tasks=("t41",), loader=_quick, suites=("s41",)))

@hookimpl
def register_tasks(register):
    register(TaskSpec(name="t41", description="x", shape="labelled_texts", run=lambda ctx: {{"x": 1.0}},
                      main_metric="x"))
"""


def _run(tmp_path: Path, argv: list[str]) -> tuple[int, str]:
    """A forked `steb` (``$STEB_DISABLE_PLUGINS`` switching off the plugins these tests do not use): exit status and
    output."""
    log = tmp_path / "log.txt"
    code = wait(fork_cli(argv, log), timeout=180)
    return code, " ".join(log_tail(log, 20000).split())


def _argv(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "-e",
        "function-words",
        "--output",
        str(tmp_path / "out"),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-progress",
        *extra,
    ]


def test_builtin_tasks_that_fail_to_register_fail_the_run(tmp_path):
    """A ``threadpoolctl.py`` that raises, first on the path: the built-in task types cannot register."""
    broken = tmp_path / "site"
    broken.mkdir()
    (broken / "threadpoolctl.py").write_text("raise ImportError('this threadpoolctl is broken')\n")
    env = {**steb_env(), "PYTHONPATH": os.pathsep.join([str(broken), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run(
        [sys.executable, "-m", "steb_core.cli", *_argv(tmp_path, "-d", "demo_registers")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    out = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 1, out
    assert "clustering" in out and "not registered" in out and "this threadpoolctl is broken" in out, out


def test_a_suite_member_refused_for_a_name_clash_fails_the_run(tmp_path, warm_imports):
    first, second = tmp_path / "first_plugin.py", tmp_path / "second_plugin.py"
    first.write_text(SUITE_PLUGIN.format(dataset="shared41", tasked="first_tasked41"))
    second.write_text(SUITE_PLUGIN.format(dataset="shared41", tasked="second_tasked41"))
    code, out = _run(tmp_path, _argv(tmp_path, "--suite", "s41", "-p", str(first), "-p", str(second)))
    assert code == 1, out
    assert "shared41" in out and "first_plugin" in out and "second_plugin" in out, out  # the dataset both register
    assert "t41" in out and "first_tasked41" in out, out  # the task type both register: its datasets fail


def test_a_named_plugin_whose_hook_fails_is_an_error(tmp_path, warm_imports):
    half = tmp_path / "half_plugin.py"
    half.write_text(
        "from steb_core import hookimpl\n@hookimpl\ndef register_datasets(register):\n"
        "    raise RuntimeError('hook exploded')\n"
    )
    with pytest.raises(PluginError, match=r"half_plugin.*register_datasets.*hook exploded"):
        new_manager([str(half)], entry_points=False, env=False).datasets()
    code, out = _run(tmp_path, _argv(tmp_path, "-d", "demo_registers", "-p", str(half)))
    assert code == 2 and "hook exploded" in out and "half_plugin" in out, out


def test_data_check_with_a_failing_dataset_exits_non_zero(tmp_path, warm_imports):
    plugin = tmp_path / "keyerror_plugin.py"
    plugin.write_text(
        "from steb_core import hookimpl, DatasetSpec\n"
        "def _load(ctx):\n    return {}['author']\n"
        "@hookimpl\ndef register_datasets(register):\n"
        "    register(DatasetSpec(name='broken41', description='x', tasks=('clustering',),\n"
        "                         loader=_load))\n"
    )
    code, out = _run(tmp_path, ["data", "check", "-d", "broken41", "-d", "demo_registers", "-p", str(plugin)])
    assert code == 1 and "broken41" in out and "KeyError" in out, out


def test_disabling_a_plugin_that_does_not_exist_through_the_environment_is_an_error(monkeypatch, capsys):
    monkeypatch.setenv("STEB_DISABLE_PLUGINS", "pan,bogus41")
    with pytest.raises(PluginError, match=r"no plugin named 'bogus41'.*STEB_DISABLE_PLUGINS"):
        new_manager([])
    plugins_module.reset_manager()
    with pytest.raises(SystemExit) as info:
        main(["plugins"])
    assert info.value.code == 2 and "bogus41" in capsys.readouterr().err
    plugins_module.reset_manager()
