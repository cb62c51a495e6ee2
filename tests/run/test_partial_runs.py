"""Honest partial runs, runner side (issue 30): missing data is skipped and reported, not a failure.

A dataset whose loader raises :class:`DatasetNotFoundError` (its folder or a file is not on this
machine) is listed in ``summary.missing`` with a note naming the ``steb data get`` command that fetches
it; the other datasets run, ``errors="raise"`` does not raise for it and ``steb run`` exits 0.
``strict=True`` / ``--strict`` make it a failure (exit 1); ``fail_fast`` stops at failures only, so
without ``strict`` it skips missing data and goes on, with ``strict`` it stops at the missing dataset.
"""

from __future__ import annotations

import re
import warnings

import pytest
from typer.testing import CliRunner

from steb_core import RunFailed, evaluate
from steb_core import cli as cli_module
from steb_core._errors import DatasetNotFoundError
from tests.support.toy_components import CountingEncoder

MISSING = (
    "from steb_core import hookimpl, DatasetSpec\n"
    "def _load(ctx):\n"
    "    ctx.require_dir('download it from example.org', 'ROOT/{name}/data.tsv')\n"
    "@hookimpl\n"
    "def register_datasets(register):\n"
    "    register(DatasetSpec(name='{name}', description='x', tasks=('toy_task',), loader=_load, suites=('toy',)))\n"
)


@pytest.fixture
def plugins(tmp_path, toy_plugin):
    """The toy suite (3 datasets with data) plus 'absent' and 'gone', whose data is not here."""
    paths = [str(toy_plugin)]
    for name in ("absent", "gone"):
        path = tmp_path / f"{name}_plugin.py"
        path.write_text(MISSING.format(name=name))
        paths.append(str(path))
    return paths


def run(tmp_path, plugins, **kwargs):
    kwargs.setdefault("errors", "raise")
    return evaluate(
        CountingEncoder(),
        suite="toy",
        plugins=plugins,
        progress=False,
        output=tmp_path / "o",
        cache_dir=tmp_path / "c",
        data_dir=tmp_path / "data",
        **kwargs,
    )


@pytest.mark.parametrize("prefetch", [0, 1])
def test_missing_data_is_skipped_and_says_how_to_get_it(tmp_path, plugins, prefetch):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # errors="warn" would warn about failures: there must be none
        summary = run(tmp_path, plugins, prefetch=prefetch, errors="warn")
    assert len(summary.results) == 6 and not summary.failures
    assert sorted((m.dataset, m.tasks) for m in summary.missing) == [("absent", ["toy_task"]), ("gone", ["toy_task"])]
    assert all("example.org" in m.error for m in summary.missing)
    names = " ".join(f"--dataset {m.dataset}" for m in summary.missing)  # in plan order
    command = f"steb data get {names} --data-dir {tmp_path / 'data'}"
    assert summary.get_data_command() == command
    assert any(command in note and "missing data" in note for note in summary.notes), summary.notes
    assert "missing=2" in repr(summary)


def test_errors_raise_does_not_raise_for_missing_data_but_strict_does(tmp_path, plugins):
    assert len(run(tmp_path, plugins, errors="raise").missing) == 2
    with pytest.raises(RunFailed) as info:
        run(tmp_path, plugins, errors="raise", strict=True)
    summary = info.value.summary
    assert sorted(f.dataset for f in summary.failures) == ["absent", "gone"] and not summary.missing
    assert len(summary.reused) == 6  # everything else still ran (reused from the first run)


def test_fail_fast_keeps_its_meaning(tmp_path, plugins):
    summary = run(tmp_path, plugins, fail_fast=True)  # missing data is no failure: nothing stops
    assert len(summary.results) == 6 and len(summary.missing) == 2
    with pytest.raises(DatasetNotFoundError, match="example.org"):
        run(tmp_path / "strict", plugins, fail_fast=True, strict=True)


def test_cli_exits_0_with_missing_data_and_1_with_strict(tmp_path, plugins, monkeypatch):
    from rich.console import Console

    monkeypatch.setattr(cli_module.common, "console", Console(width=300))
    monkeypatch.setattr(cli_module.common, "err_console", Console(width=300, stderr=True))
    monkeypatch.setenv("STEB_DISABLE_PLUGINS", "pan,parallel,ray,neural,datasets_style,scorers,stel,example_datasets")
    args = [
        "run",
        "-e",
        "function-words",
        "--suite",
        "toy",
        "--output",
        str(tmp_path / "o"),
        "--cache-dir",
        str(tmp_path / "c"),
        "--data-dir",
        str(tmp_path / "data"),
        "--no-progress",
    ]
    for path in plugins:
        args += ["--plugin", path]

    def invoke(*extra):
        return CliRunner().invoke(cli_module.build_app(args), [*args, *extra], catch_exceptions=False)

    result = invoke()
    assert result.exit_code == 0, result.output
    assert re.search(r"absent\W+toy_task.*missing data", result.output), result.output
    assert "2 datasets with missing data" in result.output
    assert re.search(r"steb data get --dataset (absent|gone) --dataset (absent|gone) --data-dir", result.output), (
        result.output
    )
    strict = invoke("--strict")
    assert strict.exit_code == 1, strict.output
    assert re.search(r"absent.*failed", strict.output)
