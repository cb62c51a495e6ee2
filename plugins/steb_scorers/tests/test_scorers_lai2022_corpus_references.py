"""`--protocol lai2022`'s corpus BLEU against the release's first reference file (``ref0``), as Table 3 prints it.

Lai et al.'s eval_content.py scores every output against the human files' reference column, so the segment scores
(and a system's mean of them) stay against the column; Table 3's corpus BLEU against the reference is multi-bleu
against ``data/xformal/fr.80.ref0`` alone, which differs from the column on a few lines. The fixture is the release's
layout (``outputs/SYSTEM.human.txt`` beside ``xformal/fr.80.ref0..ref3``) with texts of plain lower-case words, so
that nltk's tokenizer is white-space splitting and nltk's own ``corpus_bleu`` / ``sentence_bleu`` are an independent
reference. ``STEB_LAI_RELEASE`` (a clone of laihuiyuan/eval-formality-transfer) runs the real-release check of
Table 3's HIGH row; it skips otherwise.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, sentence_bleu
from typer.testing import CliRunner

from steb_scorers.lexical import BleuScorer, ChrfScorer
from steb_scorers.metaeval.evaluate import score_judgements
from steb_scorers.metaeval.human import load_human_judgements

SOURCES = [
    "the small cat sat on the old mat near the door",
    "we will go to the big park this sunny afternoon",
    "you should call your mother before the long trip",
    "he said the food at that place was really good",
]
COLUMN = [  # the human files' reference column
    "the little cat sat on the old mat near the door",
    "we are going to the big park this afternoon",
    "you should call your mother before your long trip",
    "he said that the food at that place was very good",
]
REF0 = list(COLUMN)  # the first reference file: the column's lines but two, as in the release
REF0[1] = "we will be going to a large park in the afternoon"
REF0[3] = "he told me the food in that place was really good"
OUTPUTS = {
    "A": [
        "the little cat sat on the old mat near the door",
        "we will go to the big park this afternoon",
        "you should call your mother before the trip",
        "he said the food at that place was good",
    ],
    "B": [
        "a small cat sat on a mat near the door",
        "we will be going to a large park this afternoon",
        "call your mother before the long trip",
        "he told me the food in that place was really good",
    ],
    "C": [
        "the small cat sat on the old mat",
        "we go to the park in the afternoon",
        "you should call your mother before your long trip",
        "the food at that place was really very good",
    ],
}


def write_release(root: Path, with_reference_files: bool = True) -> Path:
    """``root/outputs/SYSTEM.human.txt`` (survey, source, output, column reference, six ratings) and
    ``root/xformal/fr.80.ref0..ref3``; two sources per direction, content ratings varying by system and source."""
    out = root / "outputs"
    out.mkdir(parents=True)
    for k, (system, outputs) in enumerate(OUTPUTS.items()):
        lines = []
        for i, (src, hyp, ref) in enumerate(zip(SOURCES, outputs, COLUMN)):
            c = 30 + 20 * k + 5 * i
            ratings = [c - 5, 50, 60, c + 5, 55, 65]
            lines.append("\t".join([str(1 + i % 2), src, hyp, ref, *(str(r) for r in ratings)]))
        (out / f"{system}.human.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if with_reference_files:
        refs = root / "xformal"
        refs.mkdir()
        (refs / "fr.80.ref0").write_text("\n".join(REF0) + "\n", encoding="utf-8")
        for j in (1, 2, 3):
            (refs / f"fr.80.ref{j}").write_text(
                "\n".join(f"another reference {j} of line {i}" for i in range(len(SOURCES))) + "\n", encoding="utf-8"
            )
    return out


def _multi_bleu(outputs: list[str], references: list[str]) -> float:
    """nltk's corpus BLEU without smoothing on white-space tokens (multi-bleu's figure for one reference), 0-100."""
    return 100 * corpus_bleu([[r.split()] for r in references], [o.split() for o in outputs])


def _sentence_mean(outputs: list[str], references: list[str]) -> float:
    smooth = SmoothingFunction().method1
    return float(
        np.mean([sentence_bleu([r.split()], o.split(), smoothing_function=smooth) for o, r in zip(outputs, references)])
    )


def _run(app, folder: Path, out: Path, *extra: str):
    return CliRunner().invoke(
        app,
        [
            "meta-eval",
            "--data",
            str(folder),
            "--protocol",
            "lai2022",
            "--aspect",
            "content",
            "-s",
            "bleu:against=reference,variant=lai2022",
            "--bootstrap",
            "5",
            "-o",
            str(out),
            *extra,
        ],
        env={"COLUMNS": "250"},
    )


def test_fixture_tells_the_two_references_apart():
    for system, outputs in OUTPUTS.items():  # else the test below could not fail on a column-based corpus BLEU
        assert abs(_multi_bleu(outputs, REF0) - _multi_bleu(outputs, COLUMN)) > 1, system
        assert _multi_bleu(outputs, REF0) > 0


def test_loader_offers_the_first_reference_file_as_it_is(tmp_path):
    data = load_human_judgements(write_release(tmp_path))
    assert data.reference_column_differs == [2, 4]
    row = int(np.flatnonzero((data.system == "B") & (data.item == 1))[0])
    assert data.reference_choice("ref0")[row] == REF0[1] and data.reference_choice("1")[row] == COLUMN[1]
    plain = load_human_judgements(write_release(tmp_path / "plain", with_reference_files=False))
    with pytest.raises(ValueError, match=r"ref0.*\*\.ref0"):
        plain.reference_choice("ref0")


def test_lai2022_corpus_bleu_against_ref0_segments_against_the_column(scorers_app, tmp_path):
    folder = write_release(tmp_path)
    out = tmp_path / "r.json"
    result = _run(scorers_app, folder, out)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["config"]["corpus_references"] == "ref0" and report["config"]["overrides"] == []
    entry = report["metrics"]["bleu:against=reference,variant=lai2022"]
    assert entry["references"] == "1" and entry["corpus_references"] == "ref0"
    for system, outputs in OUTPUTS.items():
        # the system value (Table 3): corpus BLEU against the first reference file
        assert entry["system_corpus"][system] == pytest.approx(_multi_bleu(outputs, REF0), abs=1e-9)
        # the segment scores (the release's per-output column): nltk sentence BLEU against the column
        assert entry["system_means"][system] == pytest.approx(_sentence_mean(outputs, COLUMN), abs=1e-12)
    # steb's earlier choice, the column for the corpus too, stays an option and is recorded as a departure
    result = _run(scorers_app, folder, out, "--corpus-references", "1")
    assert result.exit_code == 0, result.output
    assert "protocol: lai2022 (changed: corpus_references=1)" in result.output
    entry = json.loads(out.read_text())["metrics"]["bleu:against=reference,variant=lai2022"]
    for system, outputs in OUTPUTS.items():
        assert entry["system_corpus"][system] == pytest.approx(_multi_bleu(outputs, COLUMN), abs=1e-9)


def test_without_reference_files_the_column_is_used_and_said(scorers_app, tmp_path):
    folder = write_release(tmp_path, with_reference_files=False)
    out = tmp_path / "r.json"
    result = _run(scorers_app, folder, out)
    assert result.exit_code == 0, result.output
    assert "not lai2022's ref0" in result.output and "changed: corpus_references=1" in result.output
    entry = json.loads(out.read_text())["metrics"]["bleu:against=reference,variant=lai2022"]
    assert entry["system_corpus"]["A"] == pytest.approx(_multi_bleu(OUTPUTS["A"], COLUMN), abs=1e-9)
    bad = _run(scorers_app, folder, out, "--corpus-references", "ref0")  # asked for explicitly: an error
    assert bad.exit_code != 0 and "ref0" in bad.output


def test_other_references_and_scorers_are_unaffected(scorers_app, tmp_path):
    data = load_human_judgements(write_release(tmp_path))
    # a scorer against the source, and one without corpus statistics, run once and keep their own values
    src = score_judgements(data, BleuScorer(against="source", variant="lai2022"), corpus_references="ref0")
    assert "corpus_references" not in src.details
    chrf = score_judgements(data, ChrfScorer(against="reference", system_level="mean"), corpus_references="ref0")
    assert "corpus_references" not in chrf.details
    # --references other than the column: the corpus follows them unless --corpus-references says otherwise
    out = tmp_path / "r.json"
    result = _run(scorers_app, tmp_path / "outputs", out, "--references", "ref0")
    assert result.exit_code == 0, result.output
    entry = json.loads(out.read_text())["metrics"]["bleu:against=reference,variant=lai2022"]
    assert entry["references"] == "ref0"
    assert entry["system_means"]["B"] == pytest.approx(_sentence_mean(OUTPUTS["B"], REF0), abs=1e-12)
    assert entry["system_corpus"]["B"] == pytest.approx(_multi_bleu(OUTPUTS["B"], REF0), abs=1e-9)


@pytest.mark.skipif(
    not os.environ.get("STEB_LAI_RELEASE"), reason="STEB_LAI_RELEASE (a clone of laihuiyuan/eval-formality-transfer)"
)
def test_table3_high_row_on_the_release(scorers_app, tmp_path):
    """Table 3's HIGH row (shared/data/meta-eval-targets): BLEU 0.608 / 0.366, ROUGE-L 0.758 / 0.582, within 0.002."""
    pytest.importorskip("rouge")
    outputs = Path(os.environ["STEB_LAI_RELEASE"]) / "data" / "outputs"
    paper = {("bleu", "source"): 0.608, ("bleu", "reference"): 0.366, ("rougeL", "source"): 0.758}
    paper[("rougeL", "reference")] = 0.582
    for against in ("source", "reference"):
        out = tmp_path / f"{against}.json"
        args = ["meta-eval", "--data", str(outputs), "--protocol", "lai2022", "--aspect", "content", "--include-ref"]
        for name in ("bleu", "rougeL"):
            args += ["-s", f"{name}:against={against},variant=lai2022"]
        result = CliRunner().invoke(scorers_app, [*args, "--bootstrap", "5", "-o", str(out)])
        assert result.exit_code == 0, result.output
        metrics = json.loads(out.read_text())["metrics"]
        bleu = metrics[f"bleu:against={against},variant=lai2022"]["system_corpus"]["HIGH"] / 100
        rouge = metrics[f"rougeL:against={against},variant=lai2022"]["system_means"]["HIGH"]
        assert bleu == pytest.approx(paper[("bleu", against)], abs=0.002)
        assert rouge == pytest.approx(paper[("rougeL", against)], abs=0.002)
