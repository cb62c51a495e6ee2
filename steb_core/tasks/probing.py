"""Probing: can a linear probe on frozen embeddings recover each linguistic feature's quantile bin?

Bins and splits, two sources (option ``probing.splits``):

* ``released`` (the default whenever the records carry them): the bin label and split of every text
  and feature as the dataset's release gives them (``FeatureText.bins`` / ``.splits``: the STEB authors'
  probing files' ``label_<f>`` / ``split_<f>``). Their ``split_probing_datasets.py`` balanced every bin
  to the smallest and split 80/10/10 with unseeded draws, so only the released labels reproduce their
  numbers. As the reference (github.com/rrivera1849/STEB ``steb/tasks/probing.py`` @acb3a009
  ``ProbingTask.evaluate``): features in the first record's order; per feature the texts whose label
  and split are both set; classes = the distinct training labels; ``accuracy`` = the mean of the
  features' test accuracies (the reference's ``average``). The probe is the reference's too
  (``probing.solver=reference``, :mod:`._reference_probe`: a linear layer + sigmoid trained with Adam
  and early stopping, seeded from the run seed, since the reference's own initialisation depends on the
  process's RNG history): steb's fast probe (step 3, ``probing.solver=joint``) gives materially other
  figures on the same splits (``bench/probing_reference/README.md``: function words 0.32 vs 0.27).
* ``steb``: steb's own rule for corpora without released labels, steps 1-2 below.

Per feature (``steb``) (e.g. LFTK counts from the stylometry plugin, attached to the records by the dataset):

1. Binning: 5 quantile bins with edges at the 0, 20, ..., 100 % quantiles, right-closed intervals,
   lowest value included, duplicate edges dropped (``pandas.qcut(..., duplicates="drop")``). Count
   features with many ties (most texts have 0 interjections) therefore get fewer than 5 bins; that
   count is reported in ``n_bins_by_feature``. A bin with fewer than 10 texts (a stratified
   60/20/20 split needs about 5 to put two in the held-out part; under 10 a bin is noise anyway) is
   merged into its lower neighbour (the first bin into the next).
   A feature left with a single bin carries no signal and is skipped (``skipped_features``).
2. Split: train / validation / test = 60 / 20 / 20 %, stratified by bin, i.e. every split keeps the
   bins' proportions (STEB: "splits balanced across bins"). Each text gets one uniform key drawn from
   the run seed; within each bin of a feature, the texts with the lowest 60 % (rounded) of keys train,
   the next 20 % validate, the rest test. Every feature is stratified by its own bins, and because the
   keys are shared the features' training sets overlap as much as stratification allows, which lets
   the joint solver skip the rows no feature trains on (about 38 % of them at 46 features). Before
   2026-11-23 each feature had its own seeded ``train_test_split``; the splits, and so the per-seed
   numbers, changed then (the task's version is 2).
3. Probe: multinomial logistic regression with an L2 penalty (lbfgs) on standardised embeddings
   (scaler fitted on the training split). Regularisation strength lambda in {1e-5, 1e-4, 1e-3, 1e-2}
   is the weight of 0.5 * ||w||^2 against the *mean* log-loss (intercepts unpenalised). scikit-learn
   minimises C * sum(log-loss) + 0.5 * ||w||^2; dividing by C * n_train gives the mean log-loss +
   ||w||^2 / (2 C n_train), hence ``C = 1 / (lambda * n_train)`` (issue 15 §4; e.g. lambda = 1e-3 with
   6,000 training texts is C = 1/6). ``tests/tasks/test_task_probing.py`` checks the mapping: our
   solution and scikit-learn's with that C reach the same objective value and coefficients. Two-bin
   features are binary logistic regressions (one weight vector), as in scikit-learn.
   Choice of lambda, with a near-tie rule (:func:`select_strength`): validation accuracies are compared
   as counts of correctly predicted validation texts, and every strength within one text of the best
   count (``TIE_TEXTS``) counts as tied with it; of the tied strengths the strongest penalty is kept.
   Why a tolerance: strengths often reach the best count within a text or two, and which of them wins
   then depends on the last bits of the embeddings and on the solver tolerance below. Measured on
   ``demo_probing`` with all-MiniLM-L6-v2, vectors of the same texts batched two ways (68 of 599
   vectors differ, by at most 1.3e-7): with exact ties only, 3 of the 6 features chose another
   strength (accuracy 0.6133 vs 0.6105); with the one-text margin, 1 did (0.6147 vs 0.6133). The
   margin makes the choice less fragile, it cannot make it immune (any threshold has a boundary);
   identical vectors come from the executors' shared batch plan (:mod:`steb_core._executors`).
   Preferring the stronger penalty is the conventional choice when the data cannot tell two
   strengths apart. (Before 2026-11-24 only exact ties went to the stronger penalty; the task's
   version is 3.) The BLAS thread count also moves those last bits (full-scale probing_blog: 3 of 34
   features chose another strength at 1 vs 2 threads), so the probes run on one BLAS thread unless
   ``--threads`` says otherwise, recorded as ``blas_threads``: the same data gives the same record however
   busy the machine is and however many cores it has (version 4).
   Fits run from the strongest penalty down and warm-start from the previous solution, which changes
   results only within the solver tolerance (scikit-learn's: max |gradient| <= 1e-4, at most 300
   iterations).
4. Report: test accuracy of the chosen probe per feature and their mean (``accuracy``).

Solver (issue 17 §2): every feature's probes are trained together as heads of one batched model
(:mod:`._probe_solver`): one centred float32 X, per-head scalers folded into the weights, k-1
Helmert columns per k-class head, one forward and one backward matrix product per L-BFGS step for all
heads over the rows some head trains on (backtracking moves along the direction's product), converged
heads dropped, curvature pairs and the solution's logits carried from one strength to the next. Same
objective and stopping rule as scikit-learn's lbfgs. Measured against the per-feature scikit-learn loop
at its fastest thread setting (one BLAS thread), 10k texts x 46 features x 768 d on the 2-core VM: see
``bench/tasks/README.md`` (14x the fresh-fit loop and 10x scikit-learn's warm-started loop on
isotropic embeddings at steb's thread choice, more on anisotropic ones, where scikit-learn runs into
its iteration cap and the solver's covariance preconditioner keeps the step count low).
``options["probing.solver"] = "sklearn"`` runs the scikit-learn loop (:func:`fit_probe`), which the
tests use as the reference. Sparse embeddings (TF-IDF) stay sparse in the joint solver.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._context import TaskContext
from .._errors import DataValidationError
from .._io import seeded_rng
from .._specs import TaskSpec
from ..reference_tree.task_export import PROBING_EXPORT
from ._common import option, option_choice, unique_index
from ._device import kernel_device
from ._probe_solver import fit_heads
from ._reference_probe import reference_probe
from ._threads import blas_limits

__all__ = [
    "quantile_bins",
    "split_keys",
    "stratified_split",
    "fit_probe",
    "probe_features",
    "select_strength",
    "run_probing",
    "SPEC",
    "STRENGTHS",
]

N_BINS = 5
STRENGTHS = (1e-5, 1e-4, 1e-3, 1e-2)
SPLIT = (0.6, 0.2, 0.2)
#: the probe on a release's bins and splits unless ``probing.solver`` says otherwise: the STEB reference's
RELEASED_SOLVER = "reference"
#: the probe on steb's own bins and splits unless ``probing.solver`` says otherwise
STEB_SOLVER = "joint"
MIN_BIN = 10
MAX_ITER = 300
TOL = 1e-4
#: validation texts by which a strength may trail the best one and still count as tied (module docstring)
TIE_TEXTS = 1


def quantile_bins(values: np.ndarray, n_bins: int = N_BINS, min_bin: int = MIN_BIN) -> np.ndarray:
    """Bin labels 0..b-1 (b <= n_bins) by quantile edges; see the module docstring for ties and merging."""
    values = np.asarray(values, dtype=np.float64)
    edges = np.unique(np.quantile(values, np.linspace(0.0, 1.0, n_bins + 1)))
    labels = np.searchsorted(edges[1:-1], values, side="left")  # (e_i, e_i+1] -> i; values <= e_1 -> 0
    # merge bins too small to be stratified into three splits, then renumber 0..b-1
    while True:
        present, counts = np.unique(labels, return_counts=True)
        labels = np.searchsorted(present, labels)
        small = np.flatnonzero(counts < min_bin)
        if len(present) < 2 or len(small) == 0:
            return labels
        b = int(small[0])
        labels[labels == b] = b - 1 if b > 0 else 1


def split_keys(n: int, seed: int) -> np.ndarray:
    """One uniform random key per text, drawn from the run ``seed``; every feature's split ranks texts by it."""
    return np.random.default_rng(seeded_rng(seed, "probing-split").randrange(2**63)).random(n)


def stratified_split(
    labels: np.ndarray, keys: np.ndarray, fractions: Sequence[float] = SPLIT
) -> tuple[np.ndarray, ...]:
    """Indices of train, validation and test, each with the bins' proportions.

    Within each bin, texts are ranked by their ``keys`` (:func:`split_keys`, shared by all features of a
    run): the first ``round(0.6 m)`` of the bin's m texts train, up to ``round(0.8 m)`` validate, the rest
    test. Each feature's split is stratified by its own bins, and a text with a low key trains for
    nearly every feature, so the features' training sets overlap as much as stratification allows
    (the joint solver skips the rows no feature trains on).
    """
    labels = np.asarray(labels)
    keys = np.asarray(keys, dtype=np.float64)
    if len(keys) != len(labels):
        raise ValueError(f"stratified_split: {len(keys)} keys for {len(labels)} labels")
    cut_train, cut_val = np.cumsum(fractions)[:2] / float(np.sum(fractions))
    parts: tuple[list[np.ndarray], ...] = ([], [], [])
    for b in np.unique(labels):
        members = np.flatnonzero(labels == b)
        members = members[np.argsort(keys[members], kind="stable")]
        m = len(members)
        a, c = int(np.floor(cut_train * m + 0.5)), int(np.floor(cut_val * m + 0.5))
        for part, rows in zip(parts, (members[:a], members[a:c], members[c:])):
            part.append(rows)
    return tuple(np.sort(np.concatenate(p)) for p in parts)


def fit_probe(
    x: np.ndarray,
    y: np.ndarray,
    split: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    strengths: Sequence[float] = STRENGTHS,
    warm_start: bool = True,
    max_iter: int = MAX_ITER,
) -> dict[str, float]:
    """Train on train, choose lambda on validation, return test accuracy and the chosen lambda."""
    train, val, test = split
    from sklearn.exceptions import ConvergenceWarning  # the reference path, imported when used
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x[train])
    x_train, x_val, x_test = (scaler.transform(x[s]) for s in (train, val, test))
    model = LogisticRegression(max_iter=max_iter, warm_start=warm_start)
    val_acc: dict[float, float] = {}
    test_acc: dict[float, float] = {}
    not_converged = 0
    for strength in sorted(strengths, reverse=True):
        model.set_params(C=1.0 / (strength * len(train)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model.fit(x_train, y[train])
        not_converged += any(issubclass(w.category, ConvergenceWarning) for w in caught)
        val_acc[strength] = float(np.mean(model.predict(x_val) == y[val]))
        test_acc[strength] = float(np.mean(model.predict(x_test) == y[test]))
    best = select_strength(val_acc, n_val=len(val))
    return {
        "test_accuracy": test_acc[best],
        "strength": best,
        "validation_accuracy": val_acc[best],
        "not_converged": not_converged,
    }


def _feature_matrix(records: Sequence[Any]) -> tuple[list[str], np.ndarray]:
    names = list(records[0].features)
    expected = set(names)
    for i, rec in enumerate(records):
        if set(rec.features) != expected:
            missing = sorted(expected - set(rec.features))
            extra = sorted(set(rec.features) - expected)
            raise DataValidationError(
                f"feature names differ from the first record's (missing {missing}, extra {extra})",
                record=rec.id or i,
                field="features",
                expected="the same feature names in every record",
            )
    values = np.asarray([[rec.features[n] for n in names] for rec in records], dtype=np.float64)
    return names, values


def select_strength(val_acc: dict[float, float], n_val: int | None = None, tie_texts: int = TIE_TEXTS) -> float:
    """The strongest penalty among the strengths whose validation accuracy is within ``tie_texts``
    validation texts of the best (the near-tie rule of the module docstring).

    ``val_acc`` maps strength -> validation accuracy on ``n_val`` texts; accuracies are turned back
    into counts of correct texts (exact integers, so the rule does not depend on float rounding).
    Without ``n_val`` only exact ties count (the rule before task version 3; kept for callers that
    compare against it).
    """
    if not val_acc:
        raise ValueError("select_strength needs at least one strength")
    if n_val is None:
        return max(val_acc, key=lambda lam: (val_acc[lam], lam))
    correct = {lam: int(round(acc * n_val)) for lam, acc in val_acc.items()}
    best = max(correct.values())
    return max(lam for lam, c in correct.items() if c >= best - tie_texts)


def probe_features(
    x: np.ndarray,
    targets: Sequence[tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]],
    strengths: Sequence[float],
    *,
    max_iter: int = MAX_ITER,
    tol: float = TOL,
    device: Any = None,
) -> list[dict[str, float]]:
    """Joint solver: per (labels, split) target, the chosen strength's test accuracy (as :func:`fit_probe`).

    ``device``: a torch device for the solver's products (``_probe_solver``), None for numpy.
    """
    fits = fit_heads(
        x,
        [y for y, _ in targets],
        [split[0] for _, split in targets],
        strengths,
        max_iter=max_iter,
        tol=tol,
        device=device,
    )
    results = []
    for h, (y, (_, val, test)) in enumerate(targets):
        val_acc = {lam: float(np.mean(fit["pred"][val, h] == y[val])) for lam, fit in fits.items()}
        best = select_strength(val_acc, n_val=len(val))
        results.append(
            {
                "test_accuracy": float(np.mean(fits[best]["pred"][test, h] == y[test])),
                "strength": best,
                "validation_accuracy": val_acc[best],
                "not_converged": int(sum(fit["iterations"][h] >= max_iter for fit in fits.values())),
            }
        )
    return results


def released_targets(records: Sequence[Any]) -> list[tuple[str, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """Per released feature (first record's order): labels coded 0..k-1 over the training labels, and the splits.

    Rows outside the feature's three splits get label 0 and no split; a validation or test label that no
    training text has gets -1 (never predicted, so it counts as wrong, where the reference would fail).
    """
    names = list(records[0].bins)
    for i, rec in enumerate(records):
        if rec.bins is None or list(rec.bins) != names:
            raise DataValidationError(
                "has other released features than the first record"
                if rec.bins is not None
                else "has no released bins while the first record has",
                record=rec.id or i,
                field="bins",
                expected=f"label_/split_ fields for {names}",
            )
    out = []
    for name in names:
        bins = np.asarray([-1 if r.bins[name] is None or r.splits[name] is None else r.bins[name] for r in records])
        split = np.asarray([r.splits[name] or "" for r in records])
        train, val, test = (np.flatnonzero((split == s) & (bins >= 0)) for s in ("train", "val", "test"))
        parts = (train, val, test)
        classes = np.unique(bins[parts[0]])
        if len(classes) < 2:
            continue  # one training class: nothing to probe (the reference would train a one-class layer)
        coded = np.full(len(records), -1, dtype=np.int64)
        used = bins >= 0
        pos = np.searchsorted(classes, bins[used])
        known = (pos < len(classes)) & (classes[np.minimum(pos, len(classes) - 1)] == bins[used])
        coded[np.flatnonzero(used)[known]] = pos[known]
        out.append((name, coded, parts))
    return out


def _share(hits: np.ndarray) -> float:
    """Fraction of true entries; 0.0 for none (the reference's test accuracy of an empty test split)."""
    return float(np.mean(hits)) if len(hits) else 0.0


def run_probing(ctx: TaskContext) -> dict[str, Any]:
    records = ctx.data
    has_released = records[0].bins is not None
    mode = option_choice(ctx, "probing", "splits", ("released", "steb"), "released" if has_released else "steb")
    if mode == "released" and not has_released:
        raise DataValidationError(
            "the records carry no released bins and splits",
            field="probing.splits",
            expected="probing.splits=steb for a corpus without released labels",
        )
    if mode == "released":
        return _run_released(ctx)
    names, values = _feature_matrix(records)
    uniques, index = unique_index(r.text for r in records)
    x = ctx.embed(uniques)[index]
    strengths = tuple(option(ctx, "probing", "strengths", STRENGTHS))
    fractions = tuple(option(ctx, "probing", "split", SPLIT))
    warm = bool(option(ctx, "probing", "warm_start", True))
    solver = str(option(ctx, "probing", "solver", STEB_SOLVER))
    if solver not in ("joint", "sklearn"):
        raise ValueError(f"probing.solver must be 'joint' or 'sklearn', got {solver!r}")
    chosen: dict[str, float] = {}
    n_bins: dict[str, int] = {}
    skipped: dict[str, int] = {}
    targets: list[tuple[str, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]] = []
    keys = split_keys(len(records), ctx.seed)
    for f, name in enumerate(names):
        labels = quantile_bins(values[:, f])
        bins = int(labels.max()) + 1
        if bins < 2:
            skipped[name] = int(len(np.unique(values[:, f])))
            continue
        train, val, test = stratified_split(labels, keys, fractions)  # the three parts the probe uses
        targets.append((name, labels, (train, val, test)))
        n_bins[name] = bins
    if not targets:
        raise DataValidationError(
            "no feature has two or more distinct bins", field="features", expected="features that vary across texts"
        )
    # work: two products of n x d x (5 heads) per step, ~40 steps over the strength path
    work = 2 * 40 * x.shape[0] * x.shape[1] * N_BINS * len(targets) * len(strengths)
    # the thread count changes the float32 products' rounding and so, rarely, a near-tied strength: one
    # thread unless --threads says otherwise (never the load or the CPU count), recorded with the result
    with blas_limits(ctx, work if solver == "joint" else 0, result_sensitive=True) as blas_threads:
        if solver == "joint":
            device = None if sp.issparse(x) else kernel_device(ctx)
            results = probe_features(x, [(y, split) for _, y, split in targets], strengths, device=device)
        else:
            dense = x.toarray() if sp.issparse(x) else x
            results = [fit_probe(dense, y, split, strengths=strengths, warm_start=warm) for _, y, split in targets]
    by_feature = {name: r["test_accuracy"] for (name, _, _), r in zip(targets, results)}
    chosen = {name: r["strength"] for (name, _, _), r in zip(targets, results)}
    return {
        "accuracy": float(np.mean(list(by_feature.values()))),
        "accuracy_by_feature": by_feature,
        "regularisation_by_feature": chosen,
        "n_bins_by_feature": n_bins,
        "skipped_features": skipped,
        "n_features": len(by_feature),
        "n_texts": len(records),
        "n_fits_not_converged": int(sum(r["not_converged"] for r in results)),
        "blas_threads": int(blas_threads),
        "splits": "steb",
    }


def _run_released(ctx: TaskContext) -> dict[str, Any]:
    """``probing.splits=released``: the release's bins and splits (module docstring), steb's probe."""
    records = ctx.data
    targets = released_targets(records)
    if not targets:
        raise DataValidationError(
            "no released feature has two or more training labels",
            field="bins",
            expected="label_<f> values of at least two bins among the train texts",
        )
    uniques, index = unique_index(r.text for r in records)
    x = ctx.embed(uniques)[index]
    strengths = tuple(option(ctx, "probing", "strengths", STRENGTHS))
    solver = str(option(ctx, "probing", "solver", RELEASED_SOLVER))
    if solver not in ("reference", "joint", "sklearn"):
        raise ValueError(f"probing.solver must be 'reference', 'joint' or 'sklearn', got {solver!r}")
    if solver == "reference":
        dense = np.asarray(x.toarray() if sp.issparse(x) else x, dtype=np.float32)
        with blas_limits(ctx, 0, result_sensitive=True) as blas_threads:
            results = [reference_probe(dense, y, split, seed=ctx.seed, name=name) for name, y, split in targets]
        return _released_metrics(records, targets, results, blas_threads, solver)
    work = 2 * 40 * x.shape[0] * x.shape[1] * N_BINS * len(targets) * len(strengths)
    with blas_limits(ctx, work if solver == "joint" else 0, result_sensitive=True) as blas_threads:
        if solver == "joint":
            device = None if sp.issparse(x) else kernel_device(ctx)
            # the solver reads labels of training rows only; -1 (no label / unseen class) elsewhere becomes 0 there
            fits = fit_heads(
                x,
                [np.maximum(y, 0) for _, y, _ in targets],
                [split[0] for _, _, split in targets],
                strengths,
                max_iter=MAX_ITER,
                tol=TOL,
                device=device,
            )
            results = []
            for h, (_, y, (_, val, test)) in enumerate(targets):
                val_acc = {lam: _share(fit["pred"][val, h] == y[val]) for lam, fit in fits.items()}
                best = select_strength(val_acc, n_val=len(val))
                results.append(
                    {
                        "test_accuracy": _share(fits[best]["pred"][test, h] == y[test]),
                        "strength": best,
                        "not_converged": int(sum(fit["iterations"][h] >= MAX_ITER for fit in fits.values())),
                    }
                )
        else:
            dense = x.toarray() if sp.issparse(x) else x
            results = [fit_probe(dense, y, split, strengths=strengths) for _, y, split in targets]
    return _released_metrics(records, targets, results, blas_threads, solver)


def _released_metrics(
    records: Sequence[Any],
    targets: Sequence[tuple[str, np.ndarray, Any]],
    results: Sequence[dict[str, Any]],
    blas_threads: int,
    solver: str,
) -> dict[str, Any]:
    by_feature = {name: r["test_accuracy"] for (name, _, _), r in zip(targets, results)}
    return {
        "accuracy": float(np.mean(list(by_feature.values()))),
        "accuracy_by_feature": by_feature,
        "regularisation_by_feature": {name: r["strength"] for (name, _, _), r in zip(targets, results)},
        "n_bins_by_feature": {name: int(y[split[0]].max()) + 1 for name, y, split in targets},
        "n_texts_by_split": {name: [len(p) for p in split] for name, _, split in targets},
        "n_features": len(by_feature),
        "n_texts": len(records),
        "n_fits_not_converged": int(sum(r["not_converged"] for r in results)),
        "blas_threads": int(blas_threads),
        "splits": "released",
        "probe": solver,
        "reference_metric": {"accuracy": "average"},
    }


SPEC = TaskSpec(
    name="probing",
    description=(
        f"Linear probes per feature, accuracy = the mean over features. On the release's bins and splits (the default "
        f"when the records carry them) the STEB reference's probe (solver={RELEASED_SOLVER}: a linear layer + sigmoid, "
        f"Adam, early stopping); otherwise {N_BINS} quantile bins, {'/'.join(str(round(100 * f)) for f in SPLIT)} "
        f"splits and L2 logistic regression (solver={STEB_SOLVER}, lambda chosen on validation)."
    ),
    shape="feature_texts",
    main_metric="accuracy",
    run=run_probing,
    accepts_sparse=True,
    warm_imports=("sklearn.linear_model", "sklearn.preprocessing"),
    # 2: 2026-11-23, splits from keys shared by all features (step 2); 3: 2026-11-24, the near-tie rule (step 3);
    # 4: 2026-11-24, one BLAS thread unless --threads (recorded as blas_threads), not the load;
    # 5: issue 37, released bins and splits used when the records carry them (probing.splits)
    version="5",
    options=("splits", "strengths", "split", "warm_start", "solver"),
    default_for_shape=True,
    tree_export=PROBING_EXPORT,
)
