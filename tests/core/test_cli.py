"""The command line: listings with filters, runs with local plugins, plugin report, readable errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from steb_core import cli as cli_module

STEB = Path(sys.executable).with_name("steb")


pytestmark = pytest.mark.usefixtures("wide_cli_console")  # tests/conftest.py


def invoke(*args):
    app = cli_module.build_app(list(args))
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_help_explains_every_command():
    for command in ([], ["run"], ["list"], ["report"], ["plugins"]):
        result = invoke(*command, "--help")
        assert result.exit_code == 0, result.output
    assert "resumes" in invoke("run", "--help").output
    assert "--suite" in invoke("run", "--help").output


def test_list_datasets_filters():
    out = invoke("list", "datasets", "--suite", "demo", "--category", "register").output
    assert "demo_formality" in out and "demo_registers" in out and "demo_authors_retrieval" not in out
    assert "2 datasets" in out
    out = invoke("list", "datasets", "--suite", "demo", "--task", "retrieval").output
    assert "demo_authors_retrieval" in out and "1 datasets" in out


def test_run_with_plugin_file_then_resume(tmp_path, toy_plugin):
    args = [
        "run",
        "--encoder",
        "toy-enc",
        "--suite",
        "toy",
        "--plugin",
        str(toy_plugin),
        "--plugin",
        str(_encoder_plugin(tmp_path)),
        "--output",
        str(tmp_path / "out"),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-progress",
    ]
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    assert "6 new, 0 reused" in first.output
    second = invoke(*args)
    assert "0 new, 6 reused" in second.output and "0 encoded" in second.output


def _encoder_plugin(tmp_path: Path) -> Path:
    path = tmp_path / "enc_plugin.py"
    path.write_text(
        "import numpy as np\n"
        "from steb_core import hookimpl, EncoderSpec\n"
        "class E:\n"
        "    name = 'toy-enc'\n"
        "    def encode(self, texts):\n"
        "        return np.array([[len(t), t.count('a') + 1.0] for t in texts], dtype=np.float32)\n"
        "@hookimpl\n"
        "def register_encoders(register):\n"
        "    register(EncoderSpec(name='toy-enc', description='length and a-count', factory=lambda **o: E()))\n"
    )
    return path


def test_plugins_command_shows_sources_and_failures(monkeypatch):
    """An *installed* plugin whose hook fails is listed under the failures (a named one is an error, issue 41:
    tests/robustness/test_dropped_exit_status.py)."""
    import importlib.metadata
    import types

    from steb_core import _plugins as plugins_module
    from steb_core import hookimpl

    failing = types.ModuleType("failing_hook_plugin")

    @hookimpl
    def register_encoders(register):
        raise ImportError("needs libfoo")

    failing.register_encoders = register_encoders

    class FailingHookEntryPoint:
        name, value, group, dist = "failing_hook", "failing_hook_plugin", "steb", None

        def load(self):
            return failing

    real = importlib.metadata.entry_points
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group=None: [*real(group=group), FailingHookEntryPoint()]
    )
    plugins_module.reset_manager()
    try:
        out = invoke("plugins").output
    finally:
        plugins_module.reset_manager()
    assert "steb_core.builtin" in out and "6 datasets" in out
    assert "failed plugins" in out and "needs libfoo" in out


def test_named_plugin_that_fails_is_an_error_shown_once(tmp_path):
    broken = tmp_path / "broken_cli_plugin.py"
    broken.write_text("raise ImportError('needs libfoo')\n")
    for args in (
        ["plugins", "--plugin", str(broken)],
        ["run", "-e", "function-words", "--suite", "demo", "-o", str(tmp_path / "r"), "-p", str(tmp_path / "typo.py")],
    ):
        proc = subprocess.run([str(STEB), *args], capture_output=True, text=True)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
        message = "needs libfoo" if args[0] == "plugins" else "does not exist"
        assert (proc.stdout + proc.stderr).count(message) == 1


def test_unknown_encoder_option_is_one_line(tmp_path):
    proc = subprocess.run(
        [str(STEB), "run", "-e", "function-words", "--suite", "demo", "-o", str(tmp_path), "-O", "no_such_option=1"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "encoder 'function-words' does not take option no_such_option" in " ".join(proc.stderr.split())
    assert len(proc.stderr.strip().splitlines()) <= 3


def test_user_errors_are_one_line_without_traceback(tmp_path):
    proc = subprocess.run(
        [str(STEB), "run", "--encoder", "no-such-encoder", "--suite", "demo", "--output", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "unknown encoder 'no-such-encoder'" in proc.stderr and "Traceback" not in proc.stderr
    proc = subprocess.run([str(STEB), "list", "widgets"], capture_output=True, text=True)
    assert proc.returncode == 2 and "choose one of" in proc.stderr


def _steb(*args, **kw):
    return subprocess.run([str(STEB), *args], capture_output=True, text=True, **kw)


def test_piped_listing_is_one_line_per_component_and_formats_for_scripts():
    proc = _steb("list", "encoders")
    lines = proc.stdout.strip().splitlines()
    n = int(lines[-1].split()[0])
    assert len(lines) == n + 1 and all("\t" in line for line in lines[:-1])
    as_json = json.loads(_steb("list", "encoders", "--format", "json").stdout)
    assert len(as_json) == n and {"name", "family", "provider", "description"} <= set(as_json[0])
    csv_lines = _steb("list", "datasets", "--suite", "demo", "--format", "csv").stdout.strip().splitlines()
    assert csv_lines[0].startswith("name,tasks,") and len(csv_lines) == 7


def test_unknown_names_suggest_and_count_what_is_cut():
    proc = _steb("run", "-e", "stel-upercase", "--suite", "demo", "-o", "/tmp/never-written")
    assert proc.returncode == 2 and "did you mean 'stel-uppercase'" in proc.stderr
    assert "more" in proc.stderr  # the list of known encoders says how many are not shown
    proc = _steb("list", "datasets", "--suite", "no-such-suite")
    assert proc.returncode == 2 and "known suites" in proc.stderr and "demo" in proc.stderr


def test_run_shows_main_score_and_companion_and_cite_and_data_check(tmp_path):
    out = tmp_path / "res"
    proc = _steb("run", "-e", "function-words", "--suite", "demo", "-o", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if "demo_formality" in ln)
    assert "distractor_accuracy" in line and "accuracy" in line.split("distractor_accuracy", 1)[1]
    cite = _steb("cite", str(out)).stdout
    assert "STEB" in cite and cite.count("\n@") >= 6  # steb's entries and one per demo dataset
    assert "@misc{demo_formality" in cite
    check = _steb("data", "check", "--suite", "demo", "--format", "json")
    rows = json.loads(check.stdout)
    assert {r["dataset"] for r in rows} == {
        "demo_style_features",
        "demo_formality",
        "demo_registers",
        "demo_authors_verification",
        "demo_authors_retrieval",
        "demo_probing",
    }
    assert all(r["status"] == "builtin" and r["loaded"] for r in rows)


def test_one_progress_display_no_third_party_bars(tmp_path):
    pytest.importorskip("sentence_transformers")
    proc = _steb(
        "run",
        "-e",
        "all-MiniLM-L6-v2",
        "-d",
        "demo_formality",
        "-o",
        str(tmp_path / "o"),
        "--cache-dir",
        str(tmp_path / "c"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "Loading weights" not in proc.stderr and "it/s]" not in proc.stderr  # transformers/hub tqdm bars are off
