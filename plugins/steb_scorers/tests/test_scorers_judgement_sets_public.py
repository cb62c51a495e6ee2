"""Mir et al. (2019) and Ziegenbein et al. (2024) as judgement sets, on fixtures in their releases' layouts.

``STEB_MIR_RELEASE`` / ``STEB_ZIEGENBEIN_RELEASE`` (clones of passeul/style-transfer-model-evaluation and
timonziegenbein/inappropriateness-mitigation) run the real-release tests; they skip otherwise.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pytest

from steb_core import DataValidationError
from steb_scorers.judgement_sets.mir import ASPECT_FOLDERS, SYSTEMS, load_mir
from steb_scorers.judgement_sets.ziegenbein import PAIRS_FILE, RESULTS_FILE, load_ziegenbein
from steb_scorers.metaeval.krippendorff import krippendorff_alpha


def write_mir_fixture(root: Path, per_direction: int = 3) -> Path:
    rng = np.random.default_rng(0)
    (root / "data").mkdir(parents=True)
    for d in ("0", "1"):
        lines = [f"source {d} number {i} ." for i in range(per_direction)]
        (root / "data" / f"sentiment.test.{d}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for model, (param, values) in SYSTEMS.items():
        for value in values:
            folder = root / "transfer_model_outputs" / model / f"{param}_{value}"
            folder.mkdir(parents=True)
            for d in ("0", "1"):
                lines = [f"output {model} {value} {d} {i} ." for i in range(per_direction)]
                (folder / f"sentiment.test.{d}.tsf").write_text("\n".join(lines) + "\n", encoding="utf-8")
            for aspect_folder in ASPECT_FOLDERS.values():
                out = root / "evaluations" / "human" / aspect_folder
                out.mkdir(parents=True, exist_ok=True)
                ratings = rng.integers(3, 16, size=2 * per_direction) / 3.0  # means of three 1-5 ratings
                np.save(out / f"{model}_{param}_{value}.npy", ratings)
    return root


def test_mir_rows_follow_the_release_layout(tmp_path):
    root = write_mir_fixture(tmp_path / "mir")
    table = load_mir(root)
    assert len(table) == 12 * 6
    assert table.systems()[:3] == ["ARAE_lambda_1", "ARAE_lambda_5", "ARAE_lambda_10"]
    assert table.subsets() == ["negative-to-positive", "positive-to-negative"]
    assert table.source[3] == "source 1 number 0 ." and table.output[3] == "output ARAE 1 1 0 ."
    expected = np.load(root / "evaluations" / "human" / "content_preservation" / "CAAE_rho_0_5.npy")
    rows = np.asarray(table.system) == "CAAE_rho_0_5"
    np.testing.assert_allclose(table.mean("content")[rows], expected)
    assert np.isnan(krippendorff_alpha(table.ratings["content"].values))  # only the means are released


def test_mir_refuses_a_pickled_array_and_a_short_output_file(tmp_path):
    root = write_mir_fixture(tmp_path / "mir")
    bad = root / "evaluations" / "human" / "style_transfer_intensity" / "DAR_gamma_15.npy"
    np.save(bad, np.array([{"a": 1}] * 6, dtype=object), allow_pickle=True)
    with pytest.raises(DataValidationError, match="DAR_gamma_15.npy.*unpickling"):
        load_mir(root)
    root = write_mir_fixture(tmp_path / "mir2")
    tsf = root / "transfer_model_outputs" / "CAAE" / "rho_1" / "sentiment.test.1.tsf"
    tsf.write_text("only one line\n", encoding="utf-8")
    with pytest.raises(DataValidationError, match="sentiment.test.1.tsf.*1 lines for 3 sources"):
        load_mir(root)


def write_ziegenbein_fixture(root: Path, pairs: int = 4, outlier: str | None = None) -> Path:
    rng = np.random.default_rng(1)
    pairs_path, results_path = root / PAIRS_FILE, root / RESULTS_FILE
    pairs_path.parent.mkdir(parents=True)
    results_path.parent.mkdir(parents=True)
    ids = [f"{i}_{model}" for i in range(1, pairs + 1) for model in ("instruct", "human")]
    with pairs_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "source", "rewrite", "issue", "batch"])
        for pid in ids:
            writer.writerow([pid, f"argument {pid} as written", f"argument {pid} rewritten\n", "an issue:", "1"])
    with results_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["a_id", "user_id", "post_id", "post_text", "annotation_date", "result", "issue", "comments"])
        a_id = 0
        for k, pid in enumerate(ids):
            group = (2, 3, 4, 5, 6) if k % 2 == 0 else (7, 8, 9, 10, 11)
            for user in (*group, 1):  # user 1 is dropped by the authors' filter
                a_id += 1
                app, sim, flu = (int(x) for x in rng.integers(1, 6, size=3))
                answers = {
                    "otherErrorQuestion1": f"option{app}",
                    "otherErrorQuestion2": f"option{sim + 5}",
                    "otherErrorQuestion3": outlier if outlier and a_id == 3 else f"option{flu + 10}",
                }
                writer.writerow([a_id, user, pid, "text", "2023-10-09", repr(answers), "an issue:", ""])
        writer.writerow([a_id + 1, 2, "99_instruct", "text", "2023-10-09", "{}", "x", ""])  # rated once: dropped
    return root


def test_ziegenbein_applies_the_authors_filter_and_parsing(tmp_path):
    root = write_ziegenbein_fixture(tmp_path / "z")
    table = load_ziegenbein(root)
    assert len(table) == 8 and table.systems() == ["instruct", "human"]
    assert table.ratings["content"].annotators == tuple(f"user-{u}" for u in range(2, 12))
    assert (np.isfinite(table.ratings["style"].values).sum(axis=1) == 5).all()
    rows = list(csv.DictReader((root / RESULTS_FILE).open(encoding="utf-8")))
    import ast

    first = ast.literal_eval(rows[0]["result"])
    assert table.ratings["content"].values[0, 0] == int(first["otherErrorQuestion2"][-1]) - 5
    assert table.ratings["fluency"].values[0, 0] == int(first["otherErrorQuestion3"][-2:]) - 10
    assert table.output[0] == "argument 1_instruct rewritten"


def test_ziegenbein_names_the_row_of_an_answer_without_an_option(tmp_path):
    root = write_ziegenbein_fixture(tmp_path / "z", outlier="no option")
    with pytest.raises(DataValidationError) as err:
        load_ziegenbein(root)
    assert "study_abs_results.csv" in str(err.value) and "row 3" in str(err.value)
    assert "otherErrorQuestion3" in str(err.value)


@pytest.mark.skipif(not os.environ.get("STEB_MIR_RELEASE"), reason="STEB_MIR_RELEASE (a clone of Mir et al.'s repo)")
def test_mir_real_release():
    table = load_mir(Path(os.environ["STEB_MIR_RELEASE"]))
    assert len(table) == 12 * 244 and len(table.systems()) == 12
    assert set(np.round(table.mean("content") * 3, 6)) <= {float(k) for k in range(3, 16)}


@pytest.mark.skipif(
    not os.environ.get("STEB_ZIEGENBEIN_RELEASE"), reason="STEB_ZIEGENBEIN_RELEASE (a clone with its large files)"
)
def test_ziegenbein_real_release():
    table = load_ziegenbein(Path(os.environ["STEB_ZIEGENBEIN_RELEASE"]))
    assert len(table) > 0 and (np.isfinite(table.ratings["content"].values).sum(axis=1) == 5).all()
