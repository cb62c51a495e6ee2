#!/usr/bin/env python
"""Recompute the published STEB leaderboard's composite columns with steb's aggregators (issue 38 closing note).

``docs/leaderboard.md`` of github.com/rrivera1849/STEB publishes, per model, the operational task columns with their
``STEB_score (avg)`` and the definitional cluster columns (Genre, Register, Time, Demographics, Dialect, Idiolect,
Linguistic Features, Content Independence) with ``Object of Study`` and ``Definitional score``. The page holds no
per-dataset number, so what can be recomputed from it is how the published columns combine: this script turns
each model's published inputs into steb result records -- one dataset per cluster (ASSET's order alignment carries
Register as plain accuracy and Content Independence as distractor accuracy, as its two YAML entries read it; one
dataset per task type for the operational score) -- runs steb's own ``objects_of_study_score``,
``definitional_score`` and ``operational_score`` on them, and prints the largest difference to the published
composites (in points: the page shows x100, two decimals, so rounding alone allows up to about 0.01).

Usage: ``python tools/recompute_leaderboard.py LEADERBOARD.md [...]`` with copies of the page (not kept in this
repository: it is the STEB authors' text). Exit status 1 when a difference exceeds ``--tolerance`` (default 0.011).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

OPERATIONAL = (
    "clustering",
    "all_to_all_pair_classification",
    "pre_defined_pair_classification",
    "order_alignment",
    "retrieval",
    "probing",
)


def parse_tables(text: str) -> list[tuple[list[str], dict[str, dict[str, float]]]]:
    """Every Markdown table of the page: (header, model -> column -> value); bold/italic marks dropped."""
    tables, header, rows = [], None, {}
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            elif not set("".join(cells)) <= set("-: "):
                rows[cells[0]] = {
                    h: float(c.strip("*_")) for h, c in zip(header[1:], cells[1:]) if c.strip("*_") not in ("", "—")
                }
            continue
        if header is not None:
            tables.append((header, rows))
        header, rows = None, {}
    return tables


def _records(model: str, values: dict[str, float]):
    from steb_core.report.synthetic import make_record

    v = {k: x / 100 for k, x in values.items()}
    return [
        make_record(model, "core", "clustering", {"v_measure": v["Genre"]}),
        make_record(
            model,
            "ASSET",
            "order_alignment",
            {"accuracy": v["Register"], "distractor_accuracy": v["Content Independence"]},
        ),
        make_record(model, "bible_versions", "clustering", {"v_measure": v["Time"]}),
        make_record(model, "blog_age", "clustering", {"v_measure": v["Demographics"]}),
        make_record(model, "endive", "clustering", {"v_measure": v["Dialect"]}),
        make_record(model, "amazon", "retrieval", {"mrr": v["Idiolect"]}),
        make_record(model, "probing_blog", "probing", {"accuracy": v["Linguistic Features"]}),
    ]


def _operational_records(model: str, values: dict[str, float]):
    from steb_core.report.synthetic import make_record

    columns = {h.split(" (")[0]: x / 100 for h, x in values.items()}
    return [
        make_record(model, "core", "clustering", {"v_measure": columns["clustering"]}),
        make_record(model, "core", "pair_all", {"auroc": columns["all_to_all_pair_classification"]}),
        make_record(
            model, "enron_authorship_corpus", "pair_predefined", {"auroc": columns["pre_defined_pair_classification"]}
        ),
        make_record(
            model, "ASSET", "order_alignment", {"distractor_accuracy": columns["order_alignment"], "accuracy": 0.0}
        ),
        make_record(model, "amazon", "retrieval", {"mrr": columns["retrieval"]}),
        make_record(model, "probing_blog", "probing", {"accuracy": columns["probing"]}),
    ]


def recompute(text: str) -> list[tuple[str, str, float, float]]:
    """(model, column, published, recomputed) for every composite column of every table of the page."""
    from steb_core.aggregators.definitional import definitional_score, objects_of_study_score
    from steb_core.aggregators.operational import operational_score

    out = []
    for header, rows in parse_tables(text):
        if "Definitional score" in header:
            records = [r for model, values in rows.items() for r in _records(model, values)]
            objects = objects_of_study_score(records).scores
            overall = definitional_score(records).scores
            for model, values in rows.items():
                out.append((model, "Object of Study", values["Object of Study"], 100 * objects[model]))
                out.append((model, "Definitional score", values["Definitional score"], 100 * overall[model]))
        elif "STEB_score (avg)" in header:
            records = [
                r
                for model, values in rows.items()
                for r in _operational_records(
                    model, {h: x for h, x in values.items() if h.split(" (")[0] in OPERATIONAL}
                )
            ]
            scores = operational_score(records).scores
            for model, values in rows.items():
                out.append((model, "STEB_score (avg)", values["STEB_score (avg)"], 100 * scores[model]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument(
        "--tolerance", type=float, default=0.011, help="largest accepted |published - recomputed| in points"
    )
    args = parser.parse_args(argv)
    worst_all = 0.0
    for page in args.pages:
        rows = recompute(page.read_text(encoding="utf-8"))
        models = len({m for m, *_ in rows})
        print(f"{page}: {models} models, {len(rows)} composite cells recomputed")
        for column in ("Object of Study", "Definitional score", "STEB_score (avg)"):
            cells = [(m, p, r) for m, c, p, r in rows if c == column]
            if not cells:
                continue
            worst = max(cells, key=lambda x: abs(x[1] - x[2]))
            print(
                f"  {column:20s} max |published - recomputed| = {abs(worst[1] - worst[2]):.4f} points "
                f"({worst[0]}: published {worst[1]:.2f}, steb {worst[2]:.4f})"
            )
            for m, p, r in cells:
                if abs(p - r) > args.tolerance:
                    print(f"    over tolerance: {m}: published {p:.2f}, steb {r:.4f}")
            worst_all = max(worst_all, abs(worst[1] - worst[2]))
    return 1 if worst_all > args.tolerance else 0


if __name__ == "__main__":
    sys.exit(main())
