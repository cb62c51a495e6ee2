"""``steb compare A B``: a paired test per dataset between two encoders of one results folder.

Paired means on the same instances: both results must come from the same data (equal data fingerprints), and
the tests read the per-instance scores kept beside each record (:mod:`steb_core._instances`; results written
before those existed have none, and are re-run with ``--overwrite`` to get them).

* order alignment: McNemar's test on the instances each encoder gets fully right (credit 1), as STEL's paper
  compares models: with ``b`` instances only A gets right and ``c`` only B, the exact two-sided binomial test
  of ``b`` out of ``b + c`` at 1/2 when ``b + c < MCNEMAR_EXACT_BELOW``, else the chi-square statistic
  ``(|b - c| - 1)^2 / (b + c)`` with continuity correction, one degree of freedom. (A tie that STEL's rule scores
  1/t, or a partly right 3-style instance, is not "right" here; the bootstrap below uses the credits as they are.)
* every task with per-instance scores: a paired bootstrap of the difference of the metric (A - B), the same
  resampled instances for both, ``resamples`` replicates, percentile interval at ``level``, and a two-sided
  p-value (twice the smaller share of replicates on either side of 0, at most 1). The metric of a replicate is
  recomputed from the resampled instances: AUROC (``roc_auc_score`` of the trials' labels and scores),
  V-measure (``v_measure_score`` of the texts' gold classes and their clusters: the clustering is not refitted,
  so the interval is over the texts scored, not over k-means runs), MRR (mean of the queries' reciprocal ranks),
  order-alignment accuracy (mean credit), probing accuracy (mean over features of the stored per-feature
  accuracies).
* ``--draws`` results (``NAME~randomK``) with the same draw seeds: the bootstrap resamples the K paired draws
  (each an independent random sample of the dataset's instances).
* all-to-all pair classification keeps no per-instance scores (they are the n(n-1)/2 pair similarities): it is
  compared only through ``--draws`` results, and says so.

The p-values are per dataset and not corrected for the number of datasets compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import StebError
from .._results import ResultRecord

__all__ = ["PairedTest", "mcnemar", "paired_bootstrap", "compare_encoders", "MCNEMAR_EXACT_BELOW"]

#: discordant counts below this use the exact binomial test (the usual rule: the chi-square approximation needs
#: about 25 discordant instances)
MCNEMAR_EXACT_BELOW = 25


@dataclass(frozen=True)
class PairedTest:
    """One dataset's comparison of encoders A and B."""

    dataset: str
    task: str
    metric: str
    a: float | None
    b: float | None
    #: A - B of the stored metric
    difference: float | None
    #: the bootstrap's percentile interval of A - B (None: not bootstrapped)
    low: float | None = None
    high: float | None = None
    #: "mcnemar-exact", "mcnemar-chi2", "bootstrap", "bootstrap-draws" or "" (no test: ``note`` says why)
    test: str = ""
    p_value: float | None = None
    #: instances (or draws, or features) the test pairs
    n: int = 0
    #: McNemar: (instances only A gets right, only B gets right)
    discordant: tuple[int, int] | None = None
    #: the bootstrap's p-value beside McNemar's (order alignment), else None
    bootstrap_p: float | None = None
    note: str = ""

    def row(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "task": self.task,
            "metric": self.metric,
            "a": self.a,
            "b": self.b,
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "test": self.test,
            "p_value": self.p_value,
            "bootstrap_p": self.bootstrap_p,
            "n": self.n,
            "only_a_right": None if self.discordant is None else self.discordant[0],
            "only_b_right": None if self.discordant is None else self.discordant[1],
            "note": self.note,
        }


def mcnemar(a_right: Sequence[bool], b_right: Sequence[bool]) -> tuple[int, int, float, float, str]:
    """McNemar's test of two paired 0/1 outcomes: (only A right, only B right, statistic, p-value, test name).

    Exact (binomial, two-sided) below :data:`MCNEMAR_EXACT_BELOW` discordant pairs, the statistic then being the
    smaller count; else chi-square with continuity correction."""
    from scipy.stats import binomtest, chi2

    if len(a_right) != len(b_right):
        raise ValueError(f"{len(a_right)} outcomes of A, {len(b_right)} of B: not paired")
    only_a = sum(1 for x, y in zip(a_right, b_right) if x and not y)
    only_b = sum(1 for x, y in zip(a_right, b_right) if y and not x)
    n = only_a + only_b
    if n == 0:
        return only_a, only_b, 0.0, 1.0, "mcnemar-exact"
    if n < MCNEMAR_EXACT_BELOW:
        return only_a, only_b, float(min(only_a, only_b)), float(binomtest(only_a, n, 0.5).pvalue), "mcnemar-exact"
    statistic = (abs(only_a - only_b) - 1) ** 2 / n
    return only_a, only_b, float(statistic), float(chi2.sf(statistic, 1)), "mcnemar-chi2"


def paired_bootstrap(
    metric: Callable[[Any], float],
    n: int,
    *,
    resamples: int,
    level: float,
    seed: int,
    other: Callable[[Any], float],
) -> tuple[float, float, float, int]:
    """(low, high, two-sided p, replicates used) of ``metric(idx) - other(idx)`` over ``resamples`` draws of ``n``
    instance indices with replacement (the same indices for both); a replicate where either metric is undefined
    (NaN: e.g. one class only) is left out."""
    import numpy as np

    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(resamples):
        idx = rng.integers(0, n, size=n)
        d = metric(idx) - other(idx)
        if np.isfinite(d):
            diffs.append(d)
    if not diffs:
        return float("nan"), float("nan"), float("nan"), 0
    arr = np.asarray(diffs)
    alpha = (1 - level) / 2
    p = min(1.0, 2 * min(float(np.mean(arr <= 0)), float(np.mean(arr >= 0))))
    return float(np.quantile(arr, alpha)), float(np.quantile(arr, 1 - alpha)), p, len(diffs)


def _auroc(labels: Any, scores: Any) -> float:
    from sklearn.metrics import roc_auc_score

    if labels.min() == labels.max():
        return float("nan")
    return float(roc_auc_score(labels, scores))


def _v_measure(labels: Any, clusters: Any) -> float:
    from sklearn.metrics import v_measure_score

    return float(v_measure_score(labels, clusters))


def _metric_of(task: str, metric: str, values: dict[str, list[float]]) -> tuple[Callable[[Any], float], int] | None:
    """The metric recomputed on resampled instances ``idx`` and the number of instances; None when the stored
    per-instance scores cannot give ``metric``."""
    import numpy as np

    arrays = {k: np.asarray(v, dtype=np.float64) for k, v in values.items()}
    if task == "order_alignment" and metric in arrays:
        credit = arrays[metric]
        return (lambda idx: float(credit[idx].mean())), len(credit)
    if metric in ("auroc", "roc_auc") and {"label", "score"} <= set(arrays):
        labels, scores = arrays["label"], arrays["score"]
        return (lambda idx: _auroc(labels[idx], scores[idx])), len(labels)
    if metric == "v_measure" and {"label", "cluster"} <= set(arrays):
        gold, clusters = arrays["label"].astype(np.int64), arrays["cluster"].astype(np.int64)
        return (lambda idx: _v_measure(gold[idx], clusters[idx])), len(gold)
    if metric == "mrr" and "reciprocal_rank" in arrays:
        rr = arrays["reciprocal_rank"]
        return (lambda idx: float(rr[idx].mean())), len(rr)
    return None


def _same_instances(task: str, a: dict[str, list[float]], b: dict[str, list[float]]) -> str:
    """'' when A's and B's per-instance scores are of the same instances, else why not."""
    for key in ("label",):  # the gold side must be identical: same data in the same order
        if key in a and key in b and a[key] != b[key]:
            return f"the stored '{key}' columns differ: not the same instances"
    lengths = {k: len(v) for k, v in a.items()} | {f"b:{k}": len(v) for k, v in b.items()}
    if len({n for n in lengths.values()}) > 1 and task != "order_alignment":
        return "the stored per-instance columns differ in length"
    return ""


def _draw_values(rec: ResultRecord, metric: str) -> tuple[tuple[int, ...], list[float]]:
    draws = rec.metrics.get("draws")
    if not isinstance(draws, dict):
        return (), []
    values = draws.get("values", {}).get(metric)
    seeds = draws.get("seeds")
    if not isinstance(values, list) or not isinstance(seeds, list):
        return (), []
    return tuple(int(s) for s in seeds), [float(v) for v in values]


def _number(rec: ResultRecord, metric: str) -> float | None:
    value = rec.metrics.get(metric, rec.main_score if metric == rec.main_metric else None)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def compare_pair(
    rec_a: ResultRecord,
    rec_b: ResultRecord,
    inst_a: dict[str, list[float]] | None,
    inst_b: dict[str, list[float]] | None,
    *,
    resamples: int,
    level: float,
    seed: int,
) -> PairedTest:
    """The paired test of one dataset (module docstring)."""
    import numpy as np

    task, dataset = rec_a.task, rec_a.dataset
    metric = rec_a.main_metric if rec_a.main_metric == rec_b.main_metric else rec_a.main_metric
    a, b = _number(rec_a, metric), _number(rec_b, metric)
    base: dict[str, Any] = dict(
        dataset=dataset, task=task, metric=metric, a=a, b=b, difference=None if a is None or b is None else a - b
    )
    if rec_a.data_fingerprint and rec_b.data_fingerprint and rec_a.data_fingerprint != rec_b.data_fingerprint:
        return PairedTest(**base, note="computed on different data (data fingerprints differ): no paired test")
    seeds_a, draws_a = _draw_values(rec_a, metric)
    seeds_b, draws_b = _draw_values(rec_b, metric)
    if seeds_a or seeds_b:
        if seeds_a != seeds_b or len(draws_a) != len(draws_b) or len(draws_a) < 2:
            return PairedTest(**base, note="--draws results of different draws (seeds): not paired")
        da, db = np.asarray(draws_a), np.asarray(draws_b)
        low, high, p, _ = paired_bootstrap(
            lambda idx: float(da[idx].mean()),
            len(da),
            resamples=resamples,
            level=level,
            seed=seed,
            other=lambda idx: float(db[idx].mean()),
        )
        return PairedTest(**base, low=low, high=high, test="bootstrap-draws", p_value=p, n=len(da))
    if task == "probing":
        fa, fb = rec_a.metrics.get("accuracy_by_feature"), rec_b.metrics.get("accuracy_by_feature")
        if isinstance(fa, dict) and isinstance(fb, dict) and set(fa) == set(fb) and fa:
            names = sorted(fa)
            va, vb = np.asarray([fa[k] for k in names], float), np.asarray([fb[k] for k in names], float)
            low, high, p, _ = paired_bootstrap(
                lambda idx: float(va[idx].mean()),
                len(names),
                resamples=resamples,
                level=level,
                seed=seed,
                other=lambda idx: float(vb[idx].mean()),
            )
            return PairedTest(
                **base, low=low, high=high, test="bootstrap", p_value=p, n=len(names), note="over probed features"
            )
        return PairedTest(**base, note="no per-feature accuracies of the same features stored for both")
    if inst_a is None or inst_b is None:
        why = (
            "all-to-all pair classification keeps no per-instance scores (n(n-1)/2 pair similarities); compare "
            "--draws results"
            if task == "pair_all"
            else "no per-instance scores stored for "
            + " and ".join(r.encoder for r, i in ((rec_a, inst_a), (rec_b, inst_b)) if i is None)
            + " (a result written before they were kept: re-run it with --overwrite)"
        )
        return PairedTest(**base, note=why)
    different = _same_instances(task, inst_a, inst_b)
    if different:
        return PairedTest(**base, note=different)
    fa_ = _metric_of(task, metric, inst_a)
    fb_ = _metric_of(task, metric, inst_b)
    if fa_ is None or fb_ is None or fa_[1] != fb_[1]:
        return PairedTest(**base, note=f"the stored per-instance scores do not give '{metric}' for both")
    (metric_a, n), (metric_b, _) = fa_, fb_
    low, high, p, _ = paired_bootstrap(metric_a, n, resamples=resamples, level=level, seed=seed, other=metric_b)
    if task == "order_alignment":
        right_a = [v == 1.0 for v in inst_a[metric]]
        right_b = [v == 1.0 for v in inst_b[metric]]
        only_a, only_b, _, p_mcnemar, name = mcnemar(right_a, right_b)
        return PairedTest(
            **base,
            low=low,
            high=high,
            test=name,
            p_value=p_mcnemar,
            n=n,
            discordant=(only_a, only_b),
            bootstrap_p=p,
        )
    return PairedTest(**base, low=low, high=high, test="bootstrap", p_value=p, n=n)


def compare_encoders(
    results_dir: str | Path,
    encoder_a: str,
    encoder_b: str,
    *,
    resamples: int = 1000,
    level: float = 0.95,
    seed: int = 42,
    only_datasets: Sequence[str] | None = None,
) -> list[PairedTest]:
    """One :class:`PairedTest` per (dataset, task) both encoders have in ``results_dir`` (sorted)."""
    from .._choices import check_values
    from .._instances import read_instances
    from .._results import load_results

    records = list(load_results(results_dir))
    encoders = {r.encoder for r in records}
    check_values("encoder", [encoder_a, encoder_b], encoders, hint=f"the encoders with results in {results_dir}")
    if encoder_a == encoder_b:
        raise StebError(f"compare two different encoders, not '{encoder_a}' with itself")
    of_a = {(r.dataset, r.task): r for r in records if r.encoder == encoder_a}
    of_b = {(r.dataset, r.task): r for r in records if r.encoder == encoder_b}
    common = sorted(set(of_a) & set(of_b))
    if only_datasets:
        check_values("dataset", list(only_datasets), {d for d, _ in common}, hint="datasets both encoders have")
        common = [k for k in common if k[0] in set(only_datasets)]
    if not common:
        raise StebError(f"'{encoder_a}' and '{encoder_b}' have no (dataset, task) in common in {results_dir}")
    return [
        compare_pair(
            of_a[key],
            of_b[key],
            read_instances(results_dir, of_a[key]),
            read_instances(results_dir, of_b[key]),
            resamples=resamples,
            level=level,
            seed=seed,
        )
        for key in common
    ]
