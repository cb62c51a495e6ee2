"""Dataset options nothing of the run reads are refused before anything is encoded (steb_core.run.option_use).

``--dataset-option bogus=1`` used to run, recomputing every result under a new run key, without a word; options
that issue 37 removed (``balanced``, ``min_class_size``) were taken silently the same way. Loaders here are plain
functions given to ``evaluate``; the encoder records the texts it is asked to encode, so "before any encoding"
is checked, not assumed.
"""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

import steb_core
from steb_core import DatasetBundle, DatasetNotFoundError, DatasetSpec, LabelledText, StebError
from steb_core.run.option_use import OptionReads


class Counting:
    name = "counting"

    def __init__(self) -> None:
        self.texts: list[str] = []  # besides the datasets' texts, the identity probe's

    @property
    def encoded(self) -> int:
        """How many of the datasets' texts were encoded."""
        return sum(t.split()[0] in ("alpha", "beta", "gamma") for t in self.texts)

    def encode(self, texts):
        self.texts.extend(texts)
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, len(t) % 4] = 1.0 + len(t)
        return out


def _spec(name: str, reads: tuple[str, ...] = (), missing: bool = False) -> DatasetSpec:
    def load(ctx):
        if missing:
            raise DatasetNotFoundError(f"dataset '{name}': no data here")
        for option in reads:
            ctx.options.get(option)
        records = [LabelledText(text=f"{name} text {i} {'x' * (i % 5)}", label=f"c{i % 2}") for i in range(20)]
        return DatasetBundle(labelled_texts=records, info={"loaded_in": os.getpid()})

    return DatasetSpec(name=name, description=name, tasks=("pair_all",), loader=load, needs_data=False)


def _run(tmp_path, specs, options, **kw):
    encoder = Counting()
    summary = steb_core.evaluate(
        encoder,
        specs,
        output=tmp_path / "o",
        cache_dir=tmp_path / "c",
        progress=False,
        dataset_options=options,
        threads=1,
        **{"prefetch": 0, **kw},
    )
    return summary, encoder


def test_an_option_no_loader_reads_is_an_error_before_any_encoding(tmp_path):
    specs = [_spec("alpha", reads=("split", "per_class")), _spec("beta", reads=("split",))]
    encoder = Counting()
    with pytest.raises(StebError) as err:
        steb_core.evaluate(
            encoder,
            specs,
            output=tmp_path / "o",
            cache_dir=tmp_path / "c",
            progress=False,
            dataset_options={"balanced": True, "spilt": "test"},
            prefetch=0,
        )
    text = str(err.value)
    assert "'balanced', 'spilt'" in text and "alpha, beta" in text  # the options, the datasets
    assert "Their loaders read: per_class, split" in text  # what those loaders do read
    assert "did you mean" not in text.split("(datasets")[0]
    with pytest.raises(StebError, match="did you mean 'split'"):
        steb_core.evaluate(
            encoder, specs, output=tmp_path / "o", progress=False, dataset_options={"spilt": 1}, prefetch=0
        )
    assert encoder.encoded == 0 and not list((tmp_path / "o").rglob("*.json"))


def test_an_option_read_by_some_loaders_runs_with_a_note(tmp_path):
    specs = [_spec("alpha", reads=("split",)), _spec("beta")]
    summary, encoder = _run(tmp_path, specs, {"split": "test"})
    assert len(summary.results) == 2 and encoder.encoded > 0
    assert any("'split' was read by the loaders of 1 of 2 datasets (alpha); beta ignore it" in n for n in summary.notes)


@pytest.mark.parametrize("mode", ["process", "thread"])
def test_reads_in_the_prefetch_worker_count(tmp_path, mode):
    """The option is read only by the last dataset's loader, which runs in the prefetch worker."""
    specs = [_spec("alpha"), _spec("beta"), _spec("gamma", reads=("split",))]
    summary, encoder = _run(tmp_path / "ok", specs, {"split": "test"}, prefetch=2, prefetch_mode=mode)
    assert len(summary.results) == 3
    if mode == "process" and os.name == "posix":
        gamma = next(r for r in summary.results if r.dataset == "gamma")
        assert gamma.dataset_info["loaded_in"] != os.getpid()  # it was read in another process
    with pytest.raises(StebError, match="'bogus'"):
        _run(tmp_path / "bad", specs, {"split": "test", "bogus": 1}, prefetch=2, prefetch_mode=mode)


def test_a_dataset_that_did_not_load_may_be_the_reader_a_note_not_an_error(tmp_path):
    specs = [_spec("alpha"), _spec("beta", reads=("split",), missing=True)]
    summary, _ = _run(tmp_path, specs, {"split": "test"})
    assert [r.dataset for r in summary.results] == ["alpha"]
    assert any("'split' were read by no loader that ran; 1 dataset(s) did not load (beta)" in n for n in summary.notes)


def test_sampling_unread_is_a_note(tmp_path):
    summary, _ = _run(tmp_path, [_spec("alpha")], {}, sampling="random")
    assert any("'sampling' was read by no loader" in n for n in summary.notes)


def test_task_options_are_checked_against_what_the_task_reads(tmp_path):
    specs = [_spec("alpha")]
    summary, _ = _run(tmp_path / "a", specs, {"pair_all.scores": "grid", "tasks.device": "cpu"})
    assert summary.results[0].metrics["scores"].startswith("grid")
    summary, _ = _run(tmp_path / "b", specs, {"pair_all": {"scores": "grid"}})  # nested form
    assert summary.results[0].metrics["scores"].startswith("grid")
    with pytest.raises(StebError, match=r"task type 'pair_all' reads no option 'scorse'; did you mean 'scores'\?"):
        _run(tmp_path / "c", specs, {"pair_all.scorse": "grid"})
    with pytest.raises(StebError, match="'probing', which no dataset of this run has"):
        _run(tmp_path / "d", specs, {"probing.solver": "sklearn"})
    with pytest.raises(StebError, match="tasks.devise"):
        _run(tmp_path / "e", specs, {"tasks.devise": "cpu"})


def test_the_recording_mapping():
    options = OptionReads({"a": 1, "b": 2, "c": 3})
    assert options.get("a") == 1 and "b" in options and options["c"] == 3 and options.get("zz") is None
    assert options.asked == {"a", "b", "c", "zz"}
    fresh = OptionReads({"a": 1, "b": 2})
    assert list(fresh) == ["a", "b"] and len(fresh) == 2 and fresh.asked == set()  # listing keys reads nothing
    copied = dict(fresh)  # a loader copying its options counts as reading them all (never a false error)
    assert copied == {"a": 1, "b": 2} and fresh.asked == {"a", "b"}
    other = OptionReads({"a": 1, "b": 2})
    other.copy().get("b")
    assert other.asked == {"b"} and isinstance(other, dict)
    assert type(pickle.loads(pickle.dumps(other))) is dict  # noqa: S301 -- bytes this test made; a bundle travels as a plain dict
