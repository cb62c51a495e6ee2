"""Lai et al. (2022) Tables 1, 2, 4, 5 and A.2 from `--protocol lai2022` on the released scores, beside the authors'
scripts.

Usage (RELEASE = a checkout of github.com/laihuiyuan/eval-formality-transfer, outside the repository):

    .venv/bin/python bench/scorers/lai_tables.py RELEASE [--authors] [--python PYTHON]

steb's side reads ``RELEASE/data/outputs`` (human files, released metric columns through the ``precomputed``
scorer) and ``RELEASE/data/xformal`` (the four references) and computes each statistic with the lai2022
protocol. ``--authors`` also runs the release's own ``cal_corr_content.py``, ``cal_corr_style.py``,
``cal_corr_fluency.py`` and ``cal_iaa.py`` (copies with the metric column, score file or direction edited,
in a temporary folder; needs numpy, scipy and pandas in PYTHON) and prints their values beside steb's.
Prints Markdown tables (the figures in plugins/steb_scorers/README.md).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from steb_scorers.lexical import BleuScorer, ChrfScorer, MeteorScorer, RougeScorer
from steb_scorers.metaeval.agreement import agreement_table
from steb_scorers.metaeval.correlations import mean_per_source_tau
from steb_scorers.metaeval.evaluate import grid, meta_evaluate, protocol_config, score_judgements
from steb_scorers.metaeval.human import load_human_judgements
from steb_scorers.precomputed import PrecomputedScorer

SYSTEMS = ["BART", "HIGH", "IBT", "LUO", "NIU", "RAO", "REF", "YI", "ZHOU"]
CONTENT_COLUMNS = {
    16: "COMET",
    17: "COMET-w",
    18: "BLEURT",
    19: "BERTScore",
    20: "METEOR",
    21: "chrF",
    22: "WMD",
    23: "BLEU",
    24: "ROUGE-1",
    25: "ROUGE-2",
    26: "ROUGE-L",
}  # 21/22: chrF then WMD (the values say so; the README's header swaps them)
LOWER_IS_BETTER = {"WMD"}
STYLE_FILES = {
    "reg.pt16": ("regressor (PT16)", False),
    "cls.pt16": ("classifier (PT16)", True),
    "cls.xformal": ("classifier (GYAFC)", True),
}


def steb_stats(data, result, aspect: str, direction: str = "pooled") -> dict[str, Any]:
    report = meta_evaluate(
        data, {"m": result}, protocol_config("lai2022", aspects=(aspect,), n_bootstrap=1, kendall_ci=False)
    )
    c = report["metrics"]["m"]["correlations"][aspect][direction]
    return {
        "tau": c["tau_like"]["value"],
        "seg_r": c["segment_pearson"]["value"],
        "sys_r": c["system_pearson"]["value"],
        "subsets": {k: v["tau_like"] for k, v in c["subsets"].items()},
    }


def released(outputs: Path, suffix: str, column: int, lower: bool = False, complement: bool = False):
    return PrecomputedScorer(
        files=str(outputs / f"*.{suffix}.txt"),
        column=column,
        higher_is_better=not lower,
        complement_for="informal" if complement else None,
    )


# ---- the authors' scripts -------------------------------------------------------------------------------------

NUMBER = r"(-?\d+(?:\.\d+)?(?:e-?\d+)?)"


def _parse_corr(text: str) -> list[dict[str, float]]:
    """Blocks of 'Kendalltau (Segment): x / Pearson (Segment): ...(statistic=x / Pearson (System): ...(statistic=x'
    in order."""
    taus = [float(x) for x in re.findall(r"Kendalltau \(Segment\): " + NUMBER, text)]
    seg = [float(x) for x in re.findall(r"Pearson \(Segment\): \S*?\(statistic=(?:np\.float64\()?" + NUMBER, text)]
    sys_ = [float(x) for x in re.findall(r"Pearson \(System\): \S*?\(statistic=(?:np\.float64\()?" + NUMBER, text)]
    return [{"tau": t, "seg_r": s, "sys_r": y} for t, s, y in zip(taus, seg, sys_)]


def run_script(release: Path, work: Path, script: str, edits: list[tuple[str, str]], python: str) -> str:
    text = (release / script).read_text(encoding="utf-8")
    for old, new in edits:
        if old not in text:
            raise ValueError(f"{script}: {old!r} not found; the release changed")
        text = text.replace(old, new)
    (work / script).write_text(text, encoding="utf-8")
    done = subprocess.run([python, script], cwd=work, capture_output=True, text=True, check=True)
    return done.stdout


def authors_content(release: Path, work: Path, python: str, suffix: str, column: int) -> list[dict[str, float]]:
    return _parse_corr(
        run_script(
            release,
            work,
            "cal_corr_content.py",
            [("content.ref.txt", f"{suffix}.txt"), ("line[-11]", f"line[{column}]")],
            python,
        )
    )


def authors_style(release: Path, work: Path, python: str, suffix: str, use_cls: bool) -> list[dict[str, float]]:
    return _parse_corr(
        run_script(
            release,
            work,
            "cal_corr_style.py",
            [("reg.pt16.txt", f"{suffix}.txt"), ("use_cls = False", f"use_cls = {use_cls}")],
            python,
        )
    )


def authors_fluency(release: Path, work: Path, python: str, to_formal: bool) -> dict[str, float]:
    edits = [("inf2for = True", f"inf2for = {to_formal}"), ("for2inf = False", f"for2inf = {not to_formal}")]
    return _parse_corr(run_script(release, work, "cal_corr_fluency.py", edits, python))[0]


def authors_iaa(release: Path, work: Path, python: str) -> str:
    return run_script(release, work, "cal_iaa.py", [], python)


# ---- printing ---------------------------------------------------------------------------------------------------


def f4(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4f}"


def same(a: float | None, b: float | None) -> str:
    if a is None or b is None:
        return "–"
    d = abs(a - b)
    return "=" if d == 0 else (f"= (Δ {d:.0e})" if d < 1e-9 else f"Δ {a - b:+.4f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("release", type=Path)
    ap.add_argument("--authors", action="store_true", help="also run the release's scripts and compare")
    ap.add_argument("--python", default="python3", help="interpreter for the authors' scripts (numpy, scipy, pandas)")
    args = ap.parse_args()
    outputs = args.release / "data" / "outputs"
    data = load_human_judgements(outputs, systems=SYSTEMS)
    work = Path(tempfile.mkdtemp(prefix="lai-scripts-"))
    if args.authors:
        shutil.copy(args.release / "kendalltau.py", work)
        (work / "data").symlink_to((args.release / "data").resolve())

    # Table 1
    print("### Table 1: inter-annotator agreement (Pearson, annotator 1 vs 2)\n")
    with_ref, without = agreement_table(data, True), agreement_table(data, False)
    print("| survey | content | style | fluency | overall (pooled) | content | style | fluency | overall (pooled) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("| | *REF included* | | | | *REF excluded* | | | |")
    for s in with_ref["surveys"]:
        print(
            f"| {s} | "
            + " | ".join(
                f4(t["surveys"][s][a]) for t in (with_ref, without) for a in ("content", "style", "fluency", "overall")
            )
            + " |"
        )
    print(
        "| all | "
        + " | ".join(
            f4(t["overall"][a]) for t in (with_ref, without) for a in ("content", "style", "fluency", "overall")
        )
        + " |"
    )
    if args.authors:
        print(
            "\n`cal_iaa.py` prints (its labels 'style, content, fluency' name columns 4, 5, 6, which hold content, "
            "style, fluency):\n"
        )
        print("```\n" + authors_iaa(args.release, work, args.python).strip() + "\n```")

    # Table 2: style
    print("\n### Table 2: style metrics (released scores; tau per source, averaged; Pearson on mean raw ratings)\n")
    print("| metric | steb tau | steb seg r | steb sys r | script tau | script seg r | script sys r |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for suffix, (name, is_cls) in STYLE_FILES.items():
        ours = steb_stats(data, score_judgements(data, released(outputs, suffix, -1, complement=is_cls)), "style")
        theirs = authors_style(args.release, work, args.python, suffix, is_cls)[0] if args.authors else {}
        print(
            f"| {name}{' (1 − p for formal→informal)' if is_cls else ''} | {f4(ours['tau'])} | {f4(ours['seg_r'])} | "
            f"{f4(ours['sys_r'])} | "
            f"{f4(theirs.get('tau'))} {same(ours['tau'], theirs.get('tau'))} | {f4(theirs.get('seg_r'))} "
            f"{same(ours['seg_r'], theirs.get('seg_r'))} | "
            f"{f4(theirs.get('sys_r'))} {same(ours['sys_r'], theirs.get('sys_r'))} |"
        )

    # Table 5: fluency per direction
    print("\n### Table 5: fluency, perplexity (released scores, absolute values) per direction\n")
    print("| direction | steb tau | steb seg r | steb sys r | script tau | script seg r | script sys r |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    ppl = score_judgements(data, released(outputs, "ppl", -1, lower=True))
    for direction, to_formal in (("informal-to-formal", True), ("formal-to-informal", False)):
        ours = steb_stats(data, ppl, "fluency", direction)
        theirs = (
            {k: abs(v) for k, v in authors_fluency(args.release, work, args.python, to_formal).items()}
            if args.authors
            else {}
        )
        print(
            f"| {direction} | {f4(ours['tau'])} | {f4(ours['seg_r'])} | {f4(ours['sys_r'])} | "
            + " | ".join(f"{f4(theirs.get(k))} {same(ours[k], theirs.get(k))}" for k in ("tau", "seg_r", "sys_r"))
            + " |"
        )

    # Table A.2: content metrics against source and reference, plus top-N / last-N
    print("\n### Table A.2: content metrics against the source and the reference (released scores)\n")
    print("| metric | src tau | src sys r | ref tau | ref sys r | script (src tau, src sys r, ref tau, ref sys r) |")
    print("|---|---:|---:|---:|---:|---|")
    subsets_rows = []
    for column, name in CONTENT_COLUMNS.items():
        cells, script_cells = [], []
        for suffix in ("content.src", "content.ref"):
            ours = steb_stats(
                data,
                score_judgements(data, released(outputs, suffix, column, lower=name in LOWER_IS_BETTER)),
                "content",
            )
            cells += [ours["tau"], ours["sys_r"]]
            if args.authors:
                theirs = authors_content(args.release, work, args.python, suffix, column)
                script_cells += [
                    (ours["tau"], abs(theirs[0]["tau"]) if name in LOWER_IS_BETTER else theirs[0]["tau"]),
                    (ours["sys_r"], abs(theirs[0]["sys_r"]) if name in LOWER_IS_BETTER else theirs[0]["sys_r"]),
                ]
                if suffix == "content.ref" and column == 16:  # the script's top-N loop, for the printed column
                    tops = [("all_8" if k == 8 else f"top_{k}") for k in (8, 7, 6, 5, 4, 3)]
                    subsets_rows.append(
                        (f"{name} vs reference", [(ours["subsets"][t], b["tau"]) for t, b in zip(tops, theirs)])
                    )
        script = ", ".join(f"{f4(b)} {same(a, b)}" for a, b in script_cells) if script_cells else "–"
        print(
            f"| {name}{' (abs)' if name in LOWER_IS_BETTER else ''} | "
            + " | ".join(f4(x) for x in cells)
            + f" | {script} |"
        )
    if subsets_rows:
        print(
            "\nTop-N (Figure 3 statistic: per-source tau on the N best systems by human content score), steb / "
            "script:\n"
        )
        print("| metric | all_8 | top_7 | top_6 | top_5 | top_4 | top_3 |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, pairs in subsets_rows:
            print(f"| {name} | " + " | ".join(f"{f4(a)} / {f4(b)} {same(a, b)}" for a, b in pairs) + " |")

    # steb's own lexical metrics next to the released columns of the same metric (content, against the source)
    print(
        "\n### steb's lexical metrics (as Lai et al. configured them) next to the released columns (content vs "
        "source)\n"
    )
    print("| metric | steb tau | steb sys r | released-column tau | released-column sys r |")
    print("|---|---:|---:|---:|---:|")
    for name, scorer, column in (
        ("chrF (sentence mean per system)", ChrfScorer(against="source", system_level="mean"), 21),
        ("BLEU (nltk method 1; multi-bleu per system)", BleuScorer(against="source", variant="lai2022"), 23),
        ("ROUGE-L (rouge-score, stemmed)", RougeScorer("rougeL", against="source"), 26),
    ):
        ours = steb_stats(data, score_judgements(data, scorer), "content")
        rel = steb_stats(data, score_judgements(data, released(outputs, "content.src", column)), "content")
        print(f"| {name} | {f4(ours['tau'])} | {f4(ours['sys_r'])} | {f4(rel['tau'])} | {f4(rel['sys_r'])} |")

    # Table 4: references (offline metrics only)
    if data.n_references > 1:
        print("\n### Table 4: reference 1 against references 2-4 (steb's offline metrics; content)\n")
        print(
            "| metric | tau(ref1, ref2) | tau(ref1, ref3) | tau(ref1, ref4) | r(ref1, ref2) | r(ref1, ref3) | "
            "r(ref1, ref4) | tau ref1 | tau ref2 | tau ref3 | tau ref4 | tau all | sys r ref1 | sys r ref2 | "
            "sys r ref3 | sys r ref4 | sys r all |"
        )
        print("|---|" + "---:|" * 16)
        rated = data.system != "REF"
        systems = sorted(set(data.system[rated].tolist()))
        sources = np.unique(data.item)
        for name, make in (
            ("chrF", lambda: ChrfScorer(against="reference", system_level="mean")),
            ("BLEU (lai2022)", lambda: BleuScorer(against="reference", variant="lai2022")),
            ("ROUGE-L (rouge-score)", lambda: RougeScorer("rougeL", against="reference")),
            ("METEOR (no WordNet)", lambda: MeteorScorer(against="reference", synonyms=False)),
        ):
            res = {k: score_judgements(data, make(), references=k) for k in ("1", "2", "3", "4", "all")}
            st = {k: steb_stats(data, r, "content") for k, r in res.items()}
            corr = [np.corrcoef(res["1"].scores[rated], res[k].scores[rated])[0, 1] for k in ("2", "3", "4")]
            # the paper's statistic: Kendall's tau-like per source, reference 1's scores in the human scores' place
            first = grid(res["1"].scores, data, systems, sources)
            taus = [mean_per_source_tau(grid(res[k].scores, data, systems, sources), first)["tau"] for k in "234"]
            print(
                f"| {name} | "
                + " | ".join(f4(x) for x in taus)
                + " | "
                + " | ".join(f4(x) for x in corr)
                + " | "
                + " | ".join(f4(st[k]["tau"]) for k in st)
                + " | "
                + " | ".join(f4(st[k]["sys_r"]) for k in st)
                + " |"
            )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
