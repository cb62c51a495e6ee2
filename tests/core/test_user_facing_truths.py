"""Issue 45 item 6: what a steb user reads is true (task descriptions, one draws note, the radar's axes, progress
that moves per batch and names its dataset, ``steb --version``)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from typer.testing import CliRunner

import steb_core
from steb_core import cli as cli_module
from steb_core._executors import EncodeJob, EncoderRef, LocalExecutor
from steb_core._longtext import LongTextProtocol
from steb_core.report import compute_leaderboard
from steb_core.report.provenance import data_fingerprint_notes
from steb_core.report.synthetic import make_record, synthetic_results

pytestmark = pytest.mark.usefixtures("wide_cli_console")  # tests/conftest.py


def invoke(*args):
    app = cli_module.build_app(list(args))
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


# -- steb list tasks -------------------------------------------------------------------------------------------------


def test_list_tasks_describes_the_default_rules():
    rows = {r["name"]: r["description"] for r in json.loads(invoke("list", "tasks", "-f", "json").output)}
    from steb_core.tasks import order_alignment, probing, retrieval

    # probing's default on released bins and splits is the reference's probe, not L2 logistic regression
    assert f"solver={probing.RELEASED_SOLVER}" in rows["probing"] and "Adam" in rows["probing"]
    assert f"solver={probing.STEB_SOLVER}" in rows["probing"]
    # retrieval's default joins each collection and ranks by argsort (the reference), not "exact, blocked"
    assert f"rule={retrieval.DEFAULT_RULE}" in rows["retrieval"] and "joined" in rows["retrieval"]
    assert not rows["retrieval"].startswith(
        "Authorship retrieval: rank all targets by cosine per query (exact, blocked)"
    )
    # order alignment: STEB's datasets by the reference's assignment rule, STEL's rules only for STEL's instances
    assert "linear_sum_assignment" in rows["order_alignment"] and order_alignment.SCORINGS[0] in rows["order_alignment"]
    assert order_alignment.FALLBACK_SCORING in rows["order_alignment"]


def test_the_described_defaults_are_the_ones_the_tasks_use():
    from steb_core.tasks import order_alignment, retrieval

    assert retrieval.joined_texts(type("D", (), {"queries": [], "targets": []})(), {}) == []  # the default rule runs
    assert retrieval.DEFAULT_RULE == "reference" and order_alignment.FALLBACK_SCORING in order_alignment.SCORINGS


# -- one note for --draws results ------------------------------------------------------------------------------------


def test_draws_results_are_noted_once_not_per_dataset():
    records = []
    for i in range(5):
        first = make_record("enc", f"d{i}", "clustering", {"v_measure": 0.5})
        drawn = make_record("enc~random3", f"d{i}", "clustering", {"v_measure": 0.4})
        records.append(dataclasses.replace(first, data_fingerprint=f"first{i}"))
        records.append(
            dataclasses.replace(
                drawn, data_fingerprint=f"drawn{i}", dataset_info={"sampling": "random", "draw_seeds": [1, 2, 3]}
            )
        )
    notes = data_fingerprint_notes(records)
    assert len(notes) == 1, notes
    assert "enc~random3" in notes[0] and "random draws" in notes[0] and "5 (dataset, task) pair(s)" in notes[0]
    # a real data difference among single-sample results is still reported, apart
    other = dataclasses.replace(make_record("other", "d0", "clustering", {"v_measure": 0.3}), data_fingerprint="x")
    notes = data_fingerprint_notes([*records, other])
    assert len(notes) == 2 and any("d0 / clustering: results come from 2 different data sets" in n for n in notes)


# -- the radar's axes are columns of the report ----------------------------------------------------------------------


def test_radar_axes_are_columns_of_the_report():
    pytest.importorskip("matplotlib")
    from steb_core.report.plots import radar_columns

    keep = {"core", "wikipedia_politeness", "STEL_register", "pan14_essays", "fanfiction", "STEL_feature", "StylePTB"}
    records = [r for r in synthetic_results(("a", "b", "c")) if r.dataset in keep]
    board = compute_leaderboard(records, datasets=None)
    assert board.dropped, "this scope must leave an aggregate out of the tables"
    shown = {id(col) for col in board.all_columns()}
    axes = radar_columns(board)
    assert all(id(col) in shown for col in axes), [c.label for c in axes if id(c) not in shown]


# -- progress --------------------------------------------------------------------------------------------------------


class _Batched:
    """An encoder that works in batches of 2 of its own and reports each (as steb's neural encoders do)."""

    name = "batched"

    def encode(self, texts):
        for start in range(0, len(texts), 2):
            steb_core.report_encoded(len(texts[start : start + 2]))
        return np.ones((len(texts), 3), dtype=np.float32)


class _Silent:
    name = "silent"

    def encode(self, texts):
        return np.ones((len(texts), 3), dtype=np.float32)


def _job(encoder, texts, tmp_path, batch_size=1024):
    return EncodeJob(
        EncoderRef(encoder.name, registered=False, instance=encoder),
        texts,
        LongTextProtocol("truncate", None),
        str(tmp_path),
        ("fp", "proto"),
        batch_size,
    )


def test_the_encoding_bar_moves_per_batch_of_the_encoder(tmp_path):
    cache = steb_core.EmbeddingCache(tmp_path, "fp", "proto")
    steps: list[float] = []
    texts = [f"text {i}" for i in range(7)]
    LocalExecutor().encode(_job(_Batched(), texts, tmp_path), cache, steps.append)
    assert steps == [2, 2, 2, 1]  # one step per batch of the encoder, inside one call of the runner
    steps.clear()
    LocalExecutor().encode(_job(_Silent(), [f"other {i}" for i in range(7)], tmp_path), cache, steps.append)
    assert steps == [7]  # an encoder that reports nothing still completes the bar


def test_neural_batches_report_to_the_bar():
    batching = pytest.importorskip("steb_models_neural.batching")
    from steb_core._encoding_progress import reporting_to

    steps: list[float] = []
    with reporting_to(steps.append):
        batching.encode_sorted(["a", "bb", "ccc", "dddd", "e"], 2, lambda b: np.ones((len(b), 2)))
    assert steps == [2, 2, 1]


def test_the_encoding_bar_names_the_dataset(tmp_path, monkeypatch):
    from steb_core.run import engine

    class Recording:
        def __init__(self):
            self.descriptions: list[str] = []

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def add_task(self, description="", total=None, **kwargs):
            self.descriptions.append(description)
            return len(self.descriptions) - 1

        def update(self, task_id, description=None, **kwargs):
            if description is not None:
                self.descriptions.append(description)

        def advance(self, *args, **kwargs):
            return None

    shown = Recording()
    monkeypatch.setattr(engine, "progress_display", lambda enabled: shown)
    steb_core.evaluate(
        _Silent(), steb_core.get_datasets(names=["demo_registers"]), output=tmp_path / "o", cache_dir=tmp_path / "c"
    )
    encoding = [d for d in shown.descriptions if d.startswith("encoding")]
    assert encoding == ["encoding demo_registers with silent"], shown.descriptions


# -- steb --version --------------------------------------------------------------------------------------------------


def test_version_names_steb_core_and_the_protocol():
    result = invoke("--version")
    assert result.exit_code == 0
    assert f"steb-core {steb_core.__version__}" in result.output
    assert steb_core.STEB_PROTOCOL_VERSION in result.output
    assert "benchmark how well text representations" in invoke("--help").output  # the root help is unchanged
