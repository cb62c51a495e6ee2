"""AI-text detection loaders: the real PAN26 smoke test, PAN24/PAN25 layouts, budgets, bad fixtures."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from steb_core import DataValidationError, LoadContext
from steb_datasets_pan.catalogue import pan_datasets

SPECS = {s.name: s for s in pan_datasets()}


def load(name: str, data_dir: Path, seed: int = 0, **options):
    return SPECS[name].loader(LoadContext(name, data_dir, seed=seed, options=options))


@pytest.mark.realdata
def test_pan26_smoke_test_labels_follow_truth_file(pan_data: Path) -> None:
    folder = pan_data / "pan26-generative-ai-detection-smoketest"
    truth = {}
    for line in (folder / "test-truth.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            truth[obj["id"]] = "machine" if obj["label"] == 1 else "human"
    bundle = load("pan26_generative_ai_detection_smoketest", folder)
    assert len(bundle.labelled_texts) == len(truth) == 34
    assert {t.id: t.label for t in bundle.labelled_texts} == truth
    first = json.loads((folder / "dataset.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["text"] in {t.text for t in bundle.labelled_texts}  # not stripped (issue 37)


def _pan25(folder: Path, write_jsonl, **enc) -> None:
    rows = []
    models = {"essays": ["human", "gpt-4o", "llama-3.1-8b"], "news": ["human", "gemini-pro"]}
    for genre, ms in models.items():
        for m in ms:
            for k in range(6 if m == "human" else 3):
                rows.append(
                    {
                        "id": f"{genre}-{m}-{k}",
                        "text": f"A {genre} text by {m}, number {k}.",
                        "model": m,
                        "label": 0 if m == "human" else 1,
                        "genre": genre,
                    }
                )
    write_jsonl(folder / "train.jsonl", rows[:3])  # the validation file is preferred
    write_jsonl(folder / "val.jsonl", rows, **enc)


def test_pan25_genre_split_model_labels_and_budget(tmp_path: Path, write_jsonl) -> None:
    _pan25(tmp_path, write_jsonl, bom=True, crlf=True)
    full = load("machine_text_detection_PAN25_26_essays", tmp_path, per_class=None)
    assert Counter(t.label for t in full.labelled_texts) == {"human": 6, "gpt-4o": 3, "llama-3.1-8b": 3}
    # the first 2 of each, file order
    capped = load("machine_text_detection_PAN25_26_essays", tmp_path, per_class=2, seed=5)
    assert [t.id for t in capped.labelled_texts] == [
        "essays-human-0",
        "essays-human-1",
        "essays-gpt-4o-0",
        "essays-gpt-4o-1",
        "essays-llama-3.1-8b-0",
        "essays-llama-3.1-8b-1",
    ]
    for t in capped.labelled_texts:  # texts belong to their ids
        genre, model, k = t.id.split("-", 1)[0], t.label, t.id.rsplit("-", 1)[1]
        assert t.text == f"A {genre} text by {model}, number {k}."
    assert capped.info["files"][0].endswith("val.jsonl") and capped.info["class_counts_available"]["human"] == 6
    drawn = load("machine_text_detection_PAN25_26_essays", tmp_path, per_class=2, sampling="random", seed=5)
    assert Counter(t.label for t in drawn.labelled_texts) == {"human": 2, "gpt-4o": 2, "llama-3.1-8b": 2}
    with pytest.raises(DataValidationError, match="fewer than 25"):  # the reference's N: max(25, smallest class)
        load("machine_text_detection_PAN25_26_essays", tmp_path)
    news = load("machine_text_detection_PAN25_26_news", tmp_path, per_class="all")
    assert {t.label for t in news.labelled_texts} == {"human", "gemini-pro"}


def test_pan24_one_file_per_source(tmp_path: Path, write_jsonl) -> None:
    write_jsonl(tmp_path / "human.jsonl", [{"id": f"articles/h{i}", "text": f"Human article {i}."} for i in range(3)])
    for model in ("alpaca-7b", "gpt-4-turbo"):
        write_jsonl(
            tmp_path / "machines" / f"{model}.jsonl",
            [{"id": f"{model}/a{i}", "text": f"{model} article {i}."} for i in range(2)],
        )
    write_jsonl(
        tmp_path / "machines" / "zephyr.jsonl",
        [{"id": "z/a0", "text": " \n"}, {"id": "z/a1", "text": " Zephyr article. "}],
    )
    bundle = load("machine_text_detection_PAN24_news", tmp_path, per_class="all")
    assert Counter(t.label for t in bundle.labelled_texts) == {
        "human": 3,
        "alpaca-7b": 2,
        "gpt-4-turbo": 2,
        "zephyr": 1,
    }
    # human, then the machines sorted
    assert [t.label for t in bundle.labelled_texts][::3] == ["human", "alpaca-7b", "gpt-4-turbo"]
    assert bundle.labelled_texts[-1].text == " Zephyr article. " and bundle.info["blank_texts_skipped"] == 1
    assert SPECS["machine_text_detection_PAN24_news"].extra["per_class"] == 200


def test_pan25_collaborative_categories(tmp_path: Path, write_jsonl) -> None:
    cats = ["fully human-written", "human-written, machine-polished", "deeply-mixed text"]
    write_jsonl(
        tmp_path / "dev.jsonl",
        [
            {"id": str(i), "text": f"text {i}", "label": i % 3, "label_text": cats[i % 3], "model": "x"}
            for i in range(9)
        ],
    )
    write_jsonl(
        tmp_path / "train.jsonl", [{"id": "x", "text": "train text", "label": 0, "label_text": cats[0], "model": "x"}]
    )
    # dev.jsonl, as the reference reads it
    bundle = load("machine_text_detection_PAN25_collaborative", tmp_path, per_class="all")
    assert Counter(t.label for t in bundle.labelled_texts) == {c: 3 for c in cats}


# --- bad fixtures ------------------------------------------------------------------------------------


def _texts_and_truth(folder: Path, write_jsonl, n: int = 4) -> None:
    write_jsonl(folder / "dataset.jsonl", [{"id": f"t{i}", "text": f"text {i}"} for i in range(n)])
    write_jsonl(folder / "test-truth.jsonl", [{"id": f"t{i}", "label": i % 2} for i in range(n)])


def test_missing_truth_for_an_id(tmp_path: Path, write_jsonl) -> None:
    _texts_and_truth(tmp_path, write_jsonl)
    write_jsonl(tmp_path / "test-truth.jsonl", [{"id": f"t{i}", "label": 1} for i in (0, 1, 3)])
    with pytest.raises(DataValidationError, match="no truth record") as err:
        load("pan26_generative_ai_detection_smoketest", tmp_path)
    assert err.value.path.endswith("test-truth.jsonl") and err.value.record == "t2"


def test_truth_for_an_unknown_id(tmp_path: Path, write_jsonl) -> None:
    _texts_and_truth(tmp_path, write_jsonl)
    write_jsonl(tmp_path / "test-truth.jsonl", [{"id": f"t{i}", "label": 1} for i in range(5)])
    with pytest.raises(DataValidationError, match="has no text") as err:
        load("pan26_generative_ai_detection_smoketest", tmp_path)
    assert err.value.record == "t4"


def test_empty_text_and_bad_label(tmp_path: Path, write_jsonl) -> None:
    _texts_and_truth(tmp_path, write_jsonl)
    write_jsonl(tmp_path / "dataset.jsonl", [{"id": "t0", "text": "ok"}, {"id": "t1", "text": " \n"}])
    with pytest.raises(DataValidationError, match="is empty") as err:
        load("pan26_generative_ai_detection_smoketest", tmp_path)
    assert err.value.path.endswith("dataset.jsonl") and err.value.record == "t1" and err.value.field == "text"
    _texts_and_truth(tmp_path, write_jsonl, n=2)
    write_jsonl(tmp_path / "test-truth.jsonl", [{"id": "t0", "label": 0}, {"id": "t1", "label": 7}])
    with pytest.raises(DataValidationError, match="is 7") as err:
        load("pan26_generative_ai_detection_smoketest", tmp_path)
    assert err.value.field == "label" and err.value.record == "t1"


def test_genre_dataset_needs_genre_field(tmp_path: Path, write_jsonl) -> None:
    _texts_and_truth(tmp_path, write_jsonl)
    with pytest.raises(DataValidationError, match="genre") as err:
        load("machine_text_detection_PAN25_26_fiction", tmp_path)
    assert err.value.record == "t0"


def test_duplicate_truth_line_with_flipped_label_is_refused(tmp_path: Path, write_jsonl) -> None:
    """Issue 20 (1): the second truth line for an id used to overwrite the first (classes and score changed, exit 0)."""
    _texts_and_truth(tmp_path, write_jsonl)
    write_jsonl(
        tmp_path / "test-truth.jsonl", [{"id": f"t{i}", "label": i % 2} for i in range(4)] + [{"id": "t1", "label": 0}]
    )
    with pytest.raises(DataValidationError, match="conflicting id 't1'") as err:
        load("pan26_generative_ai_detection_smoketest", tmp_path)
    assert err.value.path.endswith("test-truth.jsonl") and err.value.record == "line 5" and err.value.field == "id"
    write_jsonl(
        tmp_path / "test-truth.jsonl", [{"id": f"t{i}", "label": i % 2} for i in range(4)] + [{"id": "t1", "label": 1}]
    )
    with pytest.raises(DataValidationError, match="duplicate id 't1'"):
        load("pan26_generative_ai_detection_smoketest", tmp_path)


def test_file_options_cannot_leave_the_release(tmp_path: Path, write_jsonl) -> None:
    _texts_and_truth(tmp_path / "data", write_jsonl)
    write_jsonl(tmp_path / "secret.jsonl", [{"id": "t0", "text": "secret"}])
    with pytest.raises(DataValidationError, match="outside the release folder") as err:
        load("pan26_generative_ai_detection_smoketest", tmp_path / "data", texts_file="../secret.jsonl")
    assert err.value.field == "texts_file"


def test_smoke_test_loader_reads_only_what_data_get_fetches(tmp_path: Path, write_jsonl) -> None:
    """Issue 45: a clone of pan-webis-de/pan-code kept as ROOT/pan-code, cut to the smoke-test folder its source
    declares (``steb data get`` fetches nothing else): the loader loads it and reads nothing else."""
    from steb_core.testing import check_declared_reads, cut_to_declared

    spec = SPECS["pan26_generative_ai_detection_smoketest"]
    task = tmp_path / "pan-code" / "clef26" / "generative-authorship-verification"
    _texts_and_truth(task / "pan26-generative-ai-detection-smoke-test", write_jsonl)
    (task / "README.md").write_text("# the task\n", encoding="utf-8")
    write_jsonl(task / "baseline" / "predictions.jsonl", [{"id": "t0", "label": 1}])
    assert cut_to_declared(spec, tmp_path) == [
        "pan-code/clef26/generative-authorship-verification/README.md",
        "pan-code/clef26/generative-authorship-verification/baseline/predictions.jsonl",
    ]
    reads = check_declared_reads(spec, tmp_path)
    assert {r.rsplit("/", 1)[-1] for r in reads.opened} == {"dataset.jsonl", "test-truth.jsonl"}
