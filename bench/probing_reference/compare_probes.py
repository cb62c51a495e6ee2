"""steb's probe vs. the STEB reference's probe on the same released bins and splits (issue 37, item 4).

The STEB authors' probing files carry, per text and feature, a bin label and a split. steb reads them
(``probing.splits=released``) but trains its own probe (L2 logistic regression on standardised vectors,
strength chosen on validation, ``steb_core.tasks.probing``); the reference trains a torch ``Linear`` +
sigmoid with cross-entropy on the sigmoid outputs, Adam (lr 0.01) with weight decay 1e-5..1e-2, batches of
512 in data order, up to 200 epochs, early stopping after more than 5 non-improving epochs, the weight
decay with the best validation accuracy tested (github.com/rrivera1849/STEB ``steb/tasks/probing.py``
@acb3a009, described in shared/notes/steb-reference-rules.md §9 and re-implemented here from that
description). Its initialisation depends on the process's RNG history, so it is run with several torch
seeds and its spread is shown.

The real probing files are not reachable offline, so a file in their layout is made here the way the
authors' ``split_probing_datasets.py`` makes one (notes §9): texts from
``steb_models_stylometry.corpus.generated_texts``, features from the ``lftk-probing`` extractor, 5
quantile bins per feature (``pandas.qcut``, duplicate edges dropped), every bin balanced to the smallest,
80/10/10 split; the draws are seeded here (the authors' are not).

    .venv/bin/python bench/probing_reference/compare_probes.py [--texts 3000] [--seeds 5] \
        [--encoders function-words ...]

Prints one row per encoder: steb's accuracy (mean over features) and the reference probe's mean ± sd over
the torch seeds, and the largest per-feature difference.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from copy import deepcopy
from pathlib import Path

import numpy as np


def released_file(texts: list[str], path: Path, seed: int) -> list[str]:
    """Write texts with label_<f>/split_<f> made as split_probing_datasets.py does (seeded here); return features."""
    import pandas as pd

    import steb_core

    extractor = steb_core.get_feature_extractor("lftk-probing")
    values = np.asarray(extractor.extract(texts), dtype=np.float64)
    names = [str(n) for n in extractor.feature_names]
    rng = np.random.default_rng(seed)
    rows = [{"text": t} for t in texts]
    kept = []
    for f, name in enumerate(names):
        col = values[:, f]
        if not np.all(np.isfinite(col)):
            continue
        bins = pd.qcut(col, 5, labels=False, duplicates="drop")
        present, counts = np.unique(bins, return_counts=True)
        if len(present) < 2:
            continue
        per_bin = int(min(counts.min(), 38_400 // len(present)))
        labels: list = [None] * len(texts)
        splits: list = [None] * len(texts)
        for b in present:
            members = rng.permutation(np.flatnonzero(bins == b))[:per_bin]
            n_train, n_val = int(0.8 * per_bin), int(0.1 * per_bin)
            for j, i in enumerate(members):
                labels[i] = int(b)
                splits[i] = "train" if j < n_train else "val" if j < n_train + n_val else "test"
        for i in range(len(texts)):
            rows[i][f"label_{name}"] = labels[i]
            rows[i][f"split_{name}"] = splits[i]
        kept.append(name)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return kept


def reference_probe(x: np.ndarray, records: list, name: str, seed: int) -> float:
    """The reference's probe for one feature (module docstring), torch seeded with ``seed``."""
    import torch

    torch.manual_seed(seed)
    parts = {
        s: [i for i, r in enumerate(records) if r.bins[name] is not None and r.splits[name] == s]
        for s in ("train", "val", "test")
    }
    data = {
        s: (torch.FloatTensor(x[idx]), torch.LongTensor([records[i].bins[name] for i in idx]))
        for s, idx in parts.items()
    }
    n_classes = len(np.unique(data["train"][1].numpy()))

    def batches(split):
        xs, ys = data[split]
        return [(xs[i : i + 512], ys[i : i + 512]) for i in range(0, len(xs), 512)]

    def accuracy(model, split):
        with torch.no_grad():
            hits = sum(int(torch.eq(torch.sigmoid(model(xb)).argmax(dim=1), yb).sum()) for xb, yb in batches(split))
        return hits / max(1, len(data[split][1]))

    best_states, best_scores = [], []
    for decay in (1e-5, 1e-4, 1e-3, 1e-2):
        model = torch.nn.Linear(x.shape[1], n_classes)
        opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=decay)
        best, state, stale = float("-inf"), None, 0
        for _ in range(200):
            for xb, yb in batches("train"):
                loss = torch.nn.functional.cross_entropy(torch.sigmoid(model(xb)), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
            acc = accuracy(model, "val")
            if acc > best:
                best, state = acc, deepcopy(model.state_dict())
            else:
                stale += 1
                if stale > 5:
                    break
        best_states.append(state)
        best_scores.append(best)
    model = torch.nn.Linear(x.shape[1], n_classes)
    model.load_state_dict(best_states[int(np.argmax(best_scores))])
    return accuracy(model, "test")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=3000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--encoders", nargs="+", default=["function-words", "stylometric", "all-MiniLM-L6-v2"])
    args = parser.parse_args()

    import torch

    import steb_core
    from steb_core import LoadContext, TaskContext
    from steb_core.tasks.probing import SPEC
    from steb_models_stylometry.corpus import generated_texts

    torch.set_num_threads(1)
    texts = list(dict.fromkeys(generated_texts(args.texts, seed=11, min_words=40, max_words=250)))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "probing"
        root.mkdir()
        t0 = time.perf_counter()
        names = released_file(texts, root / "stackexchange.jsonl", seed=3)
        spec = steb_core.get_datasets(names=["probing_stackexchange"])[0]
        bundle = spec.loader(LoadContext("probing_stackexchange", Path(tmp) / "probing_stackexchange"))
        print(
            f"# {len(bundle.feature_texts)} texts, {len(names)} features with released bins "
            f"({time.perf_counter() - t0:.0f} s)",
            file=sys.stderr,
        )
        records = bundle.feature_texts
        print(
            "| encoder | steb joint probe | steb reference probe (NumPy, default) | "
            "reference probe (torch), mean ± sd "
            "over seeds | joint - torch | NumPy - torch |"
        )
        print("|---|---:|---:|---:|---:|---:|")
        for enc_name in args.encoders:
            enc = steb_core.get_encoder(enc_name)
            x = np.asarray(enc.encode([r.text for r in records]), dtype=np.float32)
            table = dict(zip((r.text for r in records), x))

            def ctx(solver, table=table):
                return TaskContext(
                    dataset=spec,
                    bundle=bundle,
                    data=records,
                    options={"probing.solver": solver},
                    embed_fn=lambda t: np.stack([table[s] for s in t]),
                )

            t1 = time.perf_counter()
            ours = SPEC.run(ctx("joint"))
            t2 = time.perf_counter()
            numpy_ref = SPEC.run(ctx("reference"))
            t3 = time.perf_counter()
            per_seed = [
                {n: reference_probe(x, records, n, seed) for n in ours["accuracy_by_feature"]}
                for seed in range(args.seeds)
            ]
            t4 = time.perf_counter()
            ref = [float(np.mean(list(p.values()))) for p in per_seed]
            print(
                f"| {enc_name} | {ours['accuracy']:.4f} | {numpy_ref['accuracy']:.4f} | {np.mean(ref):.4f} ± "
                f"{np.std(ref, ddof=1):.4f} | {ours['accuracy'] - np.mean(ref):+.4f} | "
                f"{numpy_ref['accuracy'] - np.mean(ref):+.4f} |",
                flush=True,
            )
            print(
                f"# {enc_name}: joint {t2 - t1:.1f} s, NumPy reference {t3 - t2:.1f} s, torch reference "
                f"{(t4 - t3) / args.seeds:.1f} s per seed",
                file=sys.stderr,
                flush=True,
            )


if __name__ == "__main__":
    main()
