"""Two run settings reach the code that uses them (issue 28 §3, §4).

- ``steb run --batch-tokens N`` reaches the encoding plan: the encoder is called with the batches that
  a budget of N padded tokens cuts (``plan_batches``), measured by its own ``count_tokens``; without the
  option the same encoder gets batches that break that budget (so the check can fail).
- A task's :class:`TaskContext` carries the device the encoder runs on (``encoder_device``): a
  sentence-transformers-like object exposing a ``torch.device``, steb's neural encoders' ``device_name``,
  and None for an encoder that says nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from steb_core import cli as cli_module
from steb_core import evaluate
from steb_core._encoders import PROBE_TEXTS
from steb_core._executors import plan_batches

BUDGET = 40


def _logging_encoder_plugin(folder: Path) -> Path:
    """A registered encoder that appends each call's texts to the file $BATCH_LOG names (one plugin file
    for the whole test: the CLI's plugin manager keeps a local plugin once loaded) and counts a token
    per 10 characters."""
    path = folder / "batch_log_plugin.py"
    path.write_text(
        "import json, os\n"
        "import numpy as np\n"
        "from steb_core import hookimpl, EncoderSpec\n"
        "class E:\n"
        "    name = 'batch-log'\n"
        "    def count_tokens(self, texts):\n"
        "        return [len(t) // 10 + 1 for t in texts]\n"
        "    def encode(self, texts):\n"
        "        with open(os.environ['BATCH_LOG'], 'a') as f:\n"
        "            f.write(json.dumps(list(texts)) + '\\n')\n"
        "        return np.array([[len(t) + 1.0, t.count('e') + 1.0] for t in texts], dtype=np.float32)\n"
        "@hookimpl\n"
        "def register_encoders(register):\n"
        "    register(EncoderSpec(name='batch-log', description='logs its batches', factory=lambda **o: E()))\n"
    )
    return path


def _calls(tmp_path: Path, plugin: Path, label: str, monkeypatch, *extra: str) -> list[list[str]]:
    log = tmp_path / f"calls-{label}.jsonl"
    monkeypatch.setenv("BATCH_LOG", str(log))
    args = [
        "run",
        "-e",
        "batch-log",
        "-d",
        "demo_formality",
        "-p",
        str(plugin),
        "-o",
        str(tmp_path / f"out-{label}"),
        "--cache-dir",
        str(tmp_path / f"cache-{label}"),
        "--protocol",
        "truncate",
        "--no-progress",
        "--batch-size",
        "500",
        *extra,
    ]
    result = CliRunner().invoke(cli_module.build_app(args), args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return [call for call in calls if call != list(PROBE_TEXTS)]  # a local plugin's encoder is probed for its identity


def _tokens(text: str) -> int:
    return len(text) // 10 + 1


def test_batch_tokens_option_reaches_the_encoding_plan(tmp_path, monkeypatch):
    plugin = _logging_encoder_plugin(tmp_path)
    calls = _calls(tmp_path, plugin, "budget", monkeypatch, "--batch-tokens", str(BUDGET))
    texts = [t for call in calls for t in call]
    assert len(texts) == len(set(texts)) > 20  # each distinct text encoded once
    # exactly the batches plan_batches cuts for these texts with the encoder's own counts
    want = plan_batches(texts, 500, BUDGET, count_tokens=lambda ts: [_tokens(t) for t in ts])
    assert sorted(map(sorted, calls)) == sorted(map(sorted, want))
    for call in calls:
        assert len(call) == 1 or len(call) * max(map(_tokens, call)) <= BUDGET
    assert any(len(call) > 1 for call in calls)
    # without the option the same texts go in batches of up to 500, far over the budget
    plain = _calls(tmp_path, plugin, "plain", monkeypatch)
    assert sorted(t for call in plain for t in call) == sorted(texts)
    assert len(plain) < len(calls) and any(len(call) * max(map(_tokens, call)) > BUDGET for call in plain)


def test_bad_batch_tokens_is_refused(tmp_path):
    from steb_core._errors import StebError

    with pytest.raises(StebError, match="batch_tokens=0"):
        evaluate("function-words", suite="demo", output=tmp_path / "o", progress=False, batch_tokens=0)


_DEVICE_PLUGIN = """
import json, os
from steb_core import hookimpl, DatasetBundle, DatasetSpec, LabelledText, TaskSpec
def _load(ctx):
    return DatasetBundle(labelled_texts=[LabelledText(f'text {i} of the device check', str(i % 2)) for i in range(6)])
def _run(ctx):
    ctx.embed([r.text for r in ctx.data])
    with open(os.environ['DEVICE_LOG'], 'a') as f:
        f.write(json.dumps(ctx.device) + '\\n')
    return {'seen': 1.0}
@hookimpl
def register_tasks(register):
    register(TaskSpec(name='device_seen', description='records ctx.device', shape='labelled_texts',
        main_metric='seen', run=_run))
@hookimpl
def register_datasets(register):
    register(DatasetSpec(name='device_check', description='x', tasks=('device_seen',), loader=_load))
"""


class _Encoder:
    def __init__(self, **device) -> None:
        self.__dict__.update(device)
        self.name = f"device-{sorted(device.values())}"

    def encode(self, texts):
        import numpy as np

        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def _device_seen(tmp_path: Path, monkeypatch, encoder, label: str):
    log = tmp_path / f"{label}.jsonl"
    monkeypatch.setenv("DEVICE_LOG", str(log))
    plugin = tmp_path / "device_plugin.py"  # one file: the plugin manager keeps a local plugin once loaded
    plugin.write_text(_DEVICE_PLUGIN)
    evaluate(
        encoder,
        ["device_check"],
        plugins=(str(plugin),),
        output=tmp_path / f"out-{label}",
        cache_dir=tmp_path / "cache",
        progress=False,
        errors="raise",
    )
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_task_context_gets_the_encoders_device(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    assert _device_seen(tmp_path, monkeypatch, _Encoder(device=torch.device("cpu")), "torch") == [
        "cpu"
    ]  # sentence-transformers style
    assert _device_seen(tmp_path, monkeypatch, _Encoder(device_name="cuda:1"), "neural") == [
        "cuda:1"
    ]  # steb's neural encoders
    assert _device_seen(tmp_path, monkeypatch, _Encoder(), "none") == [None]  # nothing known: the tasks stay on numpy
