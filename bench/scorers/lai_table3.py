"""Lai et al. (2022) Table 3's lexical columns (per system, against the source and against the reference) with steb's
lai2022 variants, beside the release's per-output columns and the paper figures known to the project.

Usage (RELEASE = a checkout of github.com/laihuiyuan/eval-formality-transfer, outside the repository):

    .venv/bin/python bench/scorers/lai_table3.py RELEASE

Per system (80 rated outputs each): BLEU = multi-bleu corpus BLEU of the nltk-tokenised outputs (``bleu:variant=
lai2022``'s system value; 0-1 here), against the human files' reference column and, beside it, against the release's
``data/xformal/fr.80.ref0`` (the file a multi-bleu run reads; it differs from the column on 7 lines); ROUGE-L =
mean sentence ``rougeL:variant=lai2022``; chrF = mean sentence chrF (0-1); METEOR = nltk METEOR without WordNet
(exact + stem matches: WordNet's data is not installed here; the release's column used WordNet). "released" = the
mean of the release's per-output column. Prints Markdown.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from steb_scorers.lexical import BleuScorer, ChrfScorer, MeteorScorer, RougeScorer

SYSTEMS = ["BART", "HIGH", "IBT", "LUO", "NIU", "RAO", "YI", "ZHOU", "REF"]
RELEASED = {"METEOR": 20, "chrF": 21, "BLEU": 23, "ROUGE-L": 26}  # columns of SYSTEM.content.{src,ref}.txt
#: Table 3 figures the project has (shared/data/meta-eval-targets: HIGH; the issue that asked for this: NIU's BLEU)
PAPER = {
    ("HIGH", "source", "BLEU"): (0.608, "targets file"),
    ("HIGH", "reference", "BLEU"): (0.366, "targets file"),
    ("HIGH", "source", "ROUGE-L"): (0.758, "targets file"),
    ("HIGH", "reference", "ROUGE-L"): (0.582, "targets file"),
    ("NIU", "source", "BLEU"): (0.637, "issue 49"),
    ("NIU", "reference", "BLEU"): (0.376, "issue 49"),
}


def _rows(release: Path, system: str, kind: str) -> list[list[str]]:
    path = release / "data" / "outputs" / f"{system}.content.{kind}.txt"
    return [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _corpus_bleu(outputs: list[str], compared: list[str]) -> float:
    result = BleuScorer(against="reference", variant="lai2022").score(compared, outputs, compared)
    assert result.corpus is not None
    return result.corpus / 100.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path)
    args = parser.parse_args()
    ref0 = (args.release / "data" / "xformal" / "fr.80.ref0").read_text(encoding="utf-8").splitlines()
    print(
        "| system | against | BLEU (column ref) | BLEU (fr.80.ref0) | released BLEU mean | paper BLEU | ROUGE-L | "
        "released ROUGE-L | paper ROUGE-L | chrF | released chrF | METEOR (no WordNet) | released METEOR |"
    )
    print("|---|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|")
    for system in SYSTEMS:
        for against, kind, col in (("source", "src", 1), ("reference", "ref", 3)):
            if system == "REF" and against == "reference":
                continue  # REF's outputs are the references: every figure is 1
            rows = _rows(args.release, system, kind)
            outputs, compared = [r[2] for r in rows], [r[col] for r in rows]
            released = {k: float(np.mean([float(r[c]) for r in rows])) for k, c in RELEASED.items()}
            bleu = _corpus_bleu(outputs, compared)
            bleu0 = _corpus_bleu(outputs, ref0) if against == "reference" else None
            rouge = float(
                RougeScorer("rougeL", against="reference", variant="lai2022")
                .score(compared, outputs, compared)
                .scores.mean()
            )
            chrf = (
                float(
                    ChrfScorer(against="reference", system_level="mean")
                    .score(compared, outputs, compared)
                    .scores.mean()
                )
                / 100.0
            )
            meteor = float(
                MeteorScorer(against="reference", synonyms=False).score(compared, outputs, compared).scores.mean()
            )

            def paper(metric: str, s: str = system, a: str = against) -> str:
                got = PAPER.get((s, a, metric))
                return f"{got[0]:.3f} ({got[1]})" if got else "–"

            print(
                f"| {system} | {against} | {bleu:.4f} | {'' if bleu0 is None else f'{bleu0:.4f}'} | "
                f"{released['BLEU']:.4f} | {paper('BLEU')} | {rouge:.4f} | {released['ROUGE-L']:.4f} | "
                f"{paper('ROUGE-L')} | {chrf:.4f} | {released['chrF']:.4f} | {meteor:.4f} | "
                f"{released['METEOR']:.4f} |"
            )


if __name__ == "__main__":
    main()
