"""``steb run --executor NAME -X KEY=VALUE`` passes options to a registered executor (issue 46 item 4).

Before, ``--address`` was the only option the CLI passed, so a local Ray run could not be given one worker
(``num_workers``) for the bench's 1-vs-2-workers figure; an option the executor's factory does not take is now
refused before anything runs, naming the executor and what it accepts, and the local executor takes none.
"""

from __future__ import annotations

import json

import pytest

from steb_core.cli import main

PLUGIN = """
from steb_core import ExecutorSpec, LocalExecutor, hookimpl

class CountingExecutor(LocalExecutor):
    def __init__(self, num_workers: int = 2, address: str | None = None) -> None:
        super().__init__()
        with open({seen!r}, "w") as handle:
            handle.write(__import__("json").dumps({{"num_workers": num_workers, "address": address}}))

@hookimpl
def register_executors(register):
    register(ExecutorSpec(name="counting", description="local, noting its options", factory=CountingExecutor))
"""


def _run(tmp_path, capsys, *extra: str) -> tuple[int, str]:
    """The exit status and the printed output of ``steb run`` on one demo dataset with the counting executor."""
    plugin = tmp_path / "counting_executor.py"
    plugin.write_text(PLUGIN.format(seen=str(tmp_path / "seen.json")))
    args = ["run", "-e", "function-words", "--dataset", "demo_formality", "--plugin", str(plugin), "--no-progress"]
    with pytest.raises(SystemExit) as ended:
        main([*args, "-o", str(tmp_path / "out"), *extra])
    captured = capsys.readouterr()
    return int(ended.value.code or 0), " ".join((captured.out + captured.err).split())


def test_executor_options_reach_the_executor(tmp_path, capsys):
    status, output = _run(tmp_path, capsys, "--executor", "counting", "-X", "num_workers=1", "--address", "127.0.0.1:1")
    assert status == 0, output
    assert json.loads((tmp_path / "seen.json").read_text()) == {"num_workers": 1, "address": "127.0.0.1:1"}


def test_an_option_the_executor_does_not_take_is_refused_naming_it(tmp_path, capsys):
    status, output = _run(tmp_path, capsys, "--executor", "counting", "-X", "workers=1")
    assert status == 2
    assert "executor 'counting' does not take option workers; it accepts: num_workers, address" in output
    assert not (tmp_path / "seen.json").exists()


def test_the_local_executor_takes_no_options(tmp_path, capsys):
    status, output = _run(tmp_path, capsys, "-X", "num_workers=1")
    assert status == 2
    assert "the local executor takes no options, got num_workers" in output
