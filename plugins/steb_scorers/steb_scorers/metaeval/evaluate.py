"""The meta-evaluation itself: score the rated outputs with each scorer and correlate with humans.

Produces one JSON-ready dict holding the settings (human scale, tau-like threshold and tie policy,
whether REF is included, bootstrap size and seed), human-side statistics (inter-annotator agreement,
inter-aspect correlations, per-system means) and, per scorer x aspect x direction, segment-level
Pearson/Spearman/Kendall, the tau-like τ and system-level Pearson with bootstrap CIs, plus paired
bootstrap comparisons between scorers.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Mapping, Sequence

import numpy as np

from ..result import ScoreResult
from ..lexical import corpus_score_from_stats, stat_matrix
from .correlations import Bootstrap, _rowwise_pearson, bootstrap_rows, pearson, segment_correlations, spearman, system_kendall, tau_like
from .human import ASPECTS, DIRECTIONS, REFERENCE_SYSTEM, HumanJudgements

__all__ = ["MetaEvalConfig", "parse_scorer_spec", "grid", "human_statistics", "meta_evaluate"]

POOLED = "pooled"
STATISTICS = ("segment_pearson", "segment_spearman", "segment_kendall", "tau_like", "system_pearson")


@dataclass
class MetaEvalConfig:
    aspects: tuple[str, ...] = ASPECTS
    human_scale: str = "z"  # scale for the correlations
    tau_scale: str = "raw"  # scale whose differences decide which pairs humans order (threshold is in its units)
    tau_threshold: float = 25.0
    tau_ties: str = "discordant"
    include_ref: bool = False
    n_bootstrap: int = 1000
    confidence: float = 0.95
    seed: int = 0
    kendall_ci: bool = True


def parse_scorer_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``name`` or ``name:key=value,key=value`` (values parsed as JSON when they can be: numbers, true, lists)."""
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"scorer option {part!r} in {spec!r} is not key=value")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value.strip()
    return name.strip(), options


def grid(values: np.ndarray, data: HumanJudgements, systems: Sequence[str], rows: np.ndarray) -> np.ndarray:
    """(len(rows), len(systems)) grid of per-output values: row = source line, column = system."""
    lookup = {(s, int(i)): k for k, (s, i) in enumerate(zip(data.system, data.item))}
    return np.array([[values[lookup[(s, int(r))]] for s in systems] for r in rows], dtype=np.float64)


def _rows(data: HumanJudgements, direction: str) -> np.ndarray:
    items = np.unique(data.item if direction == POOLED else data.item[data.direction == direction])
    return items


def _agreement(data: HumanJudgements, keep: np.ndarray) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for a in ASPECTS:
        r = data.ratings[a]
        out[a] = {
            "overall": pearson(r[keep, 0], r[keep, 1]),
            "by_survey": {int(s): pearson(r[keep & (data.survey == s), 0], r[keep & (data.survey == s), 1]) for s in np.unique(data.survey)},
            "by_direction": {d: pearson(r[keep & (data.direction == d), 0], r[keep & (data.direction == d), 1]) for d in DIRECTIONS},
        }
    return out


def human_statistics(data: HumanJudgements) -> dict[str, Any]:
    """Inter-annotator agreement (Pearson of the two annotators), inter-aspect correlations and system means.

    Agreement is over the system outputs, REF excluded, as Lai et al. (2022, Sec. 3) report it; the same
    statistic with REF's ratings included is given as ``inter_annotator_pearson_with_ref``.
    """
    not_ref = data.system != REFERENCE_SYSTEM
    inter_aspect: dict[str, Any] = {}
    for d in (POOLED, *DIRECTIONS):
        mask = np.ones(len(data), bool) if d == POOLED else data.direction == d
        inter_aspect[d] = {f"{x}-{y}": pearson(data.raw(x)[mask], data.raw(y)[mask]) for x, y in (("style", "content"), ("style", "fluency"), ("fluency", "content"))}
    means = {a: {scale: {s: float(data.human(a, scale)[data.system == s].mean()) for s in data.systems} for scale in ("raw", "z")} for a in ASPECTS}
    return {"inter_annotator_pearson": _agreement(data, not_ref), "inter_annotator_pearson_with_ref": _agreement(data, np.ones(len(data), bool)),
            "inter_annotator_excludes": [REFERENCE_SYSTEM], "inter_aspect_pearson_raw_means": inter_aspect, "system_means": means}


def _interval(values: np.ndarray, confidence: float) -> list[float | None]:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return [None, None]
    tail = (1 - confidence) / 2 * 100
    return [float(np.percentile(finite, tail)), float(np.percentile(finite, 100 - tail))]


def _num(x: Any) -> Any:
    return float(x) if isinstance(x, (float, np.floating)) and np.isfinite(x) else (None if isinstance(x, (float, np.floating)) else x)


def meta_evaluate(
    data: HumanJudgements,
    results: Mapping[str, ScoreResult],
    config: MetaEvalConfig,
    *,
    compare: Sequence[tuple[str, str]] | None = None,
    scorer_info: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Correlate each scorer's per-output scores with human ratings; see the module docstring for the output."""
    _check_config(config)
    started = time.time()
    systems = [s for s in data.systems if config.include_ref or s != REFERENCE_SYSTEM]
    directions = (POOLED, *DIRECTIONS)
    row_sets = {d: _rows(data, d) for d in directions}
    boots = {d: bootstrap_rows(len(row_sets[d]), config.n_bootstrap, config.seed) for d in directions}
    report: dict[str, Any] = {"config": {**asdict(config), "systems": systems,
                                         "reference_included": config.include_ref,
                                         "absolute_for_lower_is_better": True,
                                         "system_level": "per-system corpus score for scorers that define one from summed statistics (BLEU, chrF: multi-bleu style corpus BLEU), else the mean of segment scores",
                                         "system_subsets": "top-N / last-N systems by human score; WMT-style Kendall tau (C-D)/(C+D) over system pairs (metric ties per tau_ties), Pearson as well",
                                         "bootstrap": "resample sources with replacement; each source keeps all its systems' outputs; percentile intervals; the same resamples for every scorer (paired)"},
                              "human": human_statistics(data), "metrics": {}, "comparisons": []}
    replicas: dict[tuple[str, str, str], dict[str, np.ndarray]] = {}
    for label, res in results.items():
        if len(res) != len(data):
            raise ValueError(f"scorer {label!r} returned {len(res)} scores for {len(data)} rated outputs")
        absolute = not res.higher_is_better
        stats = stat_matrix(res)
        corpus_of = (lambda summed, agg=res.details["corpus_aggregate"]: corpus_score_from_stats(agg, summed)) if stats is not None else None
        entry: dict[str, Any] = {**dict((scorer_info or {}).get(label, {})), "higher_is_better": res.higher_is_better, "absolute": absolute,
                                 "corpus": _num(res.corpus), "system_means": {s: _num(float(np.nanmean(res.scores[data.system == s]))) for s in data.systems},
                                 "system_level": "corpus" if stats is not None else "mean", "correlations": {}}
        sys_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # direction -> (system values, bootstrap system values): aspect-independent
        if stats is not None:
            entry["system_corpus"] = {s: corpus_of(stats[data.system == s].sum(axis=0)) for s in data.systems}
        for aspect in config.aspects:
            human_all, tau_all = data.human(aspect, config.human_scale), data.human(aspect, config.tau_scale)
            entry["correlations"][aspect] = {}
            for d in directions:
                rows = row_sets[d]
                m, h, ht = (grid(v, data, systems, rows) for v in (res.scores, human_all, tau_all))
                if not np.isfinite(m).all():
                    raise ValueError(f"scorer {label!r} has undefined (NaN) scores on some rated outputs; meta-evaluation needs a score for every output")
                fix = np.abs if absolute else (lambda x: x)
                seg = segment_correlations(m, h)
                tau = tau_like(m, ht, config.tau_threshold, config.tau_ties)
                if stats is not None and d not in sys_cache:
                    sg = np.stack([grid(stats[:, j], data, systems, rows) for j in range(stats.shape[1])], axis=-1)  # (G, S, k)
                    summed = sg[boots[d]].sum(axis=1)  # (B, S, k)
                    sys_cache[d] = (np.array([corpus_of(sg[:, c].sum(axis=0)) for c in range(len(systems))]),
                                    np.array([[corpus_of(summed[b, c]) for c in range(len(systems))] for b in range(summed.shape[0])]))
                sys_metric = sys_cache[d][0] if stats is not None else m.mean(axis=0)
                sys_human = h.mean(axis=0)
                sysc = {"pearson": pearson(sys_metric, sys_human), "spearman": spearman(sys_metric, sys_human)}
                point = {"segment_pearson": seg["pearson"], "segment_spearman": seg["spearman"], "segment_kendall": seg["kendall"],
                         "tau_like": tau["tau"], "system_pearson": sysc["pearson"]}
                bs = Bootstrap(boots[d], config.tau_threshold, config.tau_ties, config.kendall_ci)
                rep = bs.replicates(m, h)
                rep["tau_like"] = bs.replicates(m, ht)["tau_like"] if config.tau_scale != config.human_scale else rep["tau_like"]
                if stats is not None:  # system level from the corpus statistics of each resample
                    rep["system_pearson"] = _rowwise_pearson(sys_cache[d][1], h[boots[d]].mean(axis=1))
                rep = {k: fix(v) for k, v in rep.items()}
                replicas[(label, aspect, d)] = rep
                sys_order = np.argsort(-sys_human, kind="stable")
                subsets_tau, subsets_pearson = {}, {}
                for k in range(3, len(systems) + 1):
                    for name, cols in (("top", sys_order[:k]), ("last", sys_order[-k:])):
                        if k == len(systems) and name == "last":
                            continue
                        key = f"{name}_{k}" if k < len(systems) else f"all_{k}"
                        subsets_tau[key] = _num(float(fix(system_kendall(sys_metric[cols], sys_human[cols], config.tau_ties))))
                        subsets_pearson[key] = _num(float(fix(pearson(sys_metric[cols], sys_human[cols]))))
                entry["correlations"][aspect][d] = {
                    **{k: {"value": _num(float(fix(v))), "ci": _interval(rep[k], config.confidence) if k in rep else [None, None]} for k, v in point.items()},
                    "system_spearman": _num(float(fix(sysc["spearman"]))),
                    "system_kendall": _num(float(fix(system_kendall(sys_metric, sys_human, config.tau_ties)))),
                    "tau_like_counts": {"concordant": tau["concordant"], "discordant": tau["discordant"]},
                    "system_subsets_kendall": subsets_tau,
                    "system_subsets_pearson": subsets_pearson,
                    "n_outputs": int(m.size), "n_sources": int(len(rows)), "n_systems": len(systems),
                }
        report["metrics"][label] = entry
    pairs = list(compare) if compare is not None else list(combinations(results, 2))
    for a, b in pairs:
        for key in (a, b):
            if key not in results:
                raise ValueError(f"cannot compare {key!r}: not among the scorers {list(results)}")
        for aspect in config.aspects:
            for stat in ("segment_pearson", "tau_like", "system_pearson"):
                ra, rb = replicas[(a, aspect, POOLED)][stat], replicas[(b, aspect, POOLED)][stat]
                delta = ra - rb
                ok = np.isfinite(delta)
                va = report["metrics"][a]["correlations"][aspect][POOLED][stat]["value"]
                vb = report["metrics"][b]["correlations"][aspect][POOLED][stat]["value"]
                report["comparisons"].append({
                    "a": a, "b": b, "aspect": aspect, "direction": POOLED, "statistic": stat,
                    "delta": None if va is None or vb is None else va - vb, "ci": _interval(delta, config.confidence),
                    "p_a_not_better": float((delta[ok] <= 0).mean()) if ok.any() else None,
                    "p_b_not_better": float((delta[ok] >= 0).mean()) if ok.any() else None,
                })
    report["seconds"] = round(time.time() - started, 3)
    return report


def score_judgements(data: HumanJudgements, scorer: Any) -> ScoreResult:
    """Run one scorer over every rated output (REF included), with references and target styles."""
    return scorer.score(data.sources, data.outputs, references=data.references, target_style=data.target_styles)


def _check_config(config: MetaEvalConfig) -> None:
    from .correlations import TIE_POLICIES

    bad = [a for a in config.aspects if a not in ASPECTS]
    if bad:
        raise ValueError(f"unknown aspect(s) {bad}; known: {ASPECTS}")
    for name in ("human_scale", "tau_scale"):
        if getattr(config, name) not in ("z", "raw"):
            raise ValueError(f"{name} must be 'z' or 'raw', not {getattr(config, name)!r}")
    if config.tau_ties not in TIE_POLICIES:
        raise ValueError(f"tau_ties must be one of {TIE_POLICIES}")
    if config.n_bootstrap < 1 or not 0 < config.confidence < 1:
        raise ValueError("n_bootstrap must be >= 1 and confidence in (0, 1)")
