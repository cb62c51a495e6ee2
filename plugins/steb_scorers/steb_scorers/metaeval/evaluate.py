"""The meta-evaluation itself: score the rated outputs with each scorer and correlate with humans.

Produces one JSON-ready dict holding the settings (the named protocol and any flag that departs from it,
human scale, tau-like threshold, tie policy and averaging, whether REF is included, bootstrap size and
seed), human-side statistics (inter-annotator agreement, inter-aspect correlations, per-system means) and,
per scorer x aspect x direction, segment-level Pearson/Spearman/Kendall, the tau-like τ and system-level
Pearson with bootstrap CIs, the same statistics on the top-N / last-N systems, plus paired bootstrap
comparisons between scorers.

Two named protocols (:data:`PROTOCOLS`): ``wmt17-darr`` (z-scored humans, pooled DARR tau-like over pairs
whose raw scores differ by more than 25, top-N as Kendall over system pairs) and ``lai2022``, what Lai et
al.'s analysis scripts compute (mean raw ratings, tau-like per source over every pair the humans order,
then the mean over sources; top-N as that tau on the N systems' outputs).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np

from ..lexical import corpus_score_from_stats, stat_matrix
from ..result import ScoreResult
from .agreement import agreement_table
from .correlations import (
    Bootstrap,
    _rowwise_pearson,
    bootstrap_rows,
    mean_per_source_tau,
    pearson,
    segment_correlations,
    spearman,
    system_kendall,
    tau_like,
)
from .figures import POOLED
from .human import ASPECTS, DIRECTIONS, REFERENCE_SYSTEM, HumanJudgements

__all__ = [
    "MetaEvalConfig",
    "PROTOCOLS",
    "protocol_config",
    "parse_scorer_spec",
    "grid",
    "human_statistics",
    "meta_evaluate",
    "score_judgements",
]

STATISTICS = ("segment_pearson", "segment_spearman", "segment_kendall", "tau_like", "system_pearson")
SUBSET_MODES = ("system-kendall", "segment")

# The settings each named protocol fixes; every other MetaEvalConfig field (aspects, REF, bootstrap) is free.
PROTOCOLS: dict[str, dict[str, Any]] = {
    "wmt17-darr": {
        "human_scale": "z",
        "tau_scale": "raw",
        "tau_threshold": 25.0,
        "tau_ties": "discordant",
        "tau_average": "pooled",
        "subsets": "system-kendall",
        "corpus_references": None,
    },
    "lai2022": {
        "human_scale": "raw",
        "tau_scale": "raw",
        "tau_threshold": 0.0,
        "tau_ties": "discordant",
        "tau_average": "per-source",
        "subsets": "segment",
        # Table 3's corpus BLEU against the reference: the release's first reference file (score_judgements)
        "corpus_references": "ref0",
    },
}


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
    tau_average: str = "pooled"  # "pooled" (WMT17) or "per-source" (Lai et al.)
    subsets: str = (
        "system-kendall"  # top-N / last-N headline: Kendall over system pairs, or the segment statistics on N systems
    )
    protocol: str = "wmt17-darr"  # the named preset these settings come from
    # correlate over these systems only (e.g. ("REF",) as Pauli et al.'s tables of reference outputs); None = every
    # system, REF per include_ref. A choice naming REF includes it whatever include_ref says.
    systems: tuple[str, ...] | None = None
    # the references a scorer's system-level corpus statistics (BLEU) are computed against, when they differ from
    # the references its segment scores use; None = the same (see score_judgements)
    corpus_references: str | None = None

    @property
    def overrides(self) -> list[str]:
        """``field=value`` for every setting that departs from the named protocol."""
        preset = PROTOCOLS.get(self.protocol, {})
        return [f"{k}={getattr(self, k)}" for k, v in preset.items() if getattr(self, k) != v]

    @property
    def protocol_label(self) -> str:
        """The protocol as printed above every table: its name, plus the settings that depart from it."""
        return self.protocol + (f" (changed: {', '.join(self.overrides)})" if self.overrides else "")


def protocol_config(protocol: str = "wmt17-darr", **settings: Any) -> MetaEvalConfig:
    """A config from a named protocol; ``settings`` that are None keep the preset (departures show in
    ``protocol_label``)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; known: {sorted(PROTOCOLS)}")
    given = {k: v for k, v in settings.items() if v is not None}
    return MetaEvalConfig(**{**PROTOCOLS[protocol], **given, "protocol": protocol})


def _split_top_level(text: str, spec: str) -> list[str]:
    """``text`` split at commas outside brackets, braces and double quotes (JSON values keep their commas)."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if quoted:
            quoted = not (ch == '"' and text[i - 1] != "\\")
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth or quoted:
        raise ValueError(f"scorer spec {spec!r}: unbalanced brackets or quotes in its options")
    parts.append(text[start:])
    return parts


def parse_scorer_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``name`` or ``name:key=value,key=value`` (values parsed as JSON when they can be: numbers, true, lists).

    Options that are dictionaries (two style classifiers' training files, per-style perplexity models) are
    written either as a JSON object, ``style_models={"formal":"A","informal":"B"}`` (commas inside brackets
    or quotes do not split options), or key by key with a dotted name,
    ``style_models.formal=A,style_models.informal=B``.
    A value that starts with ``{`` or ``[`` must be valid JSON (a shell that ate the quotes is an error, not a string).
    """
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in _split_top_level(rest, spec))):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise ValueError(f"scorer option {part!r} in {spec!r} is not key=value")
        try:
            parsed: Any = json.loads(value)
        except json.JSONDecodeError as exc:
            if value[:1] in "[{":
                raise ValueError(
                    f"scorer option {key!r} in {spec!r}: {value!r} is not valid JSON ({exc.msg}); "
                    f"quote the keys and strings, or write {key}.KEY=VALUE per key"
                ) from None
            parsed = value
        head, dot, sub = key.partition(".")
        if not dot:
            if isinstance(options.get(key), dict) and not isinstance(parsed, dict):
                raise ValueError(
                    f"scorer option {key!r} in {spec!r} is given both as a dictionary and as a plain value"
                )
            options[key] = parsed
            continue
        if not head or not sub:
            raise ValueError(f"scorer option {key!r} in {spec!r}: a dotted option is NAME.KEY=VALUE")
        target = options.setdefault(head, {})
        if not isinstance(target, dict):
            raise ValueError(
                f"scorer option {head!r} in {spec!r} is given both as a plain value and key by key ({key})"
            )
        target[sub] = parsed
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
            "by_survey": {
                int(s): pearson(r[keep & (data.survey == s), 0], r[keep & (data.survey == s), 1])
                for s in np.unique(data.survey)
            },
            "by_direction": {
                d: pearson(r[keep & (data.direction == d), 0], r[keep & (data.direction == d), 1]) for d in DIRECTIONS
            },
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
        inter_aspect[d] = {
            f"{x}-{y}": pearson(data.raw(x)[mask], data.raw(y)[mask])
            for x, y in (("style", "content"), ("style", "fluency"), ("fluency", "content"))
        }
    means = {
        a: {
            scale: {s: float(data.human(a, scale)[data.system == s].mean()) for s in data.systems}
            for scale in ("raw", "z")
        }
        for a in ASPECTS
    }
    with_ref, without_ref = agreement_table(data, include_ref=True), agreement_table(data, include_ref=False)
    table1 = {
        "with_ref": with_ref,
        "without_ref": without_ref,
        "paper": {
            "surveys": with_ref["surveys"],
            "overall": without_ref["overall"],
            "note": "Lai et al.'s Table 1 as printed: per-survey rows with REF among the rated outputs, the overall "
            "row without",
        },
    }
    return {
        "inter_annotator_pearson": _agreement(data, not_ref),
        "inter_annotator_pearson_with_ref": _agreement(data, np.ones(len(data), bool)),
        "inter_annotator_excludes": [REFERENCE_SYSTEM],
        "inter_annotator_table": table1,
        "inter_aspect_pearson_raw_means": inter_aspect,
        "system_means": means,
    }


def _interval(values: np.ndarray, confidence: float) -> list[float | None]:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return [None, None]
    tail = (1 - confidence) / 2 * 100
    return [float(np.percentile(finite, tail)), float(np.percentile(finite, 100 - tail))]


def _num(x: Any) -> Any:
    return (
        float(x)
        if isinstance(x, (float, np.floating)) and np.isfinite(x)
        else (None if isinstance(x, (float, np.floating)) else x)
    )


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
    systems = _chosen_systems(data, config)
    directions = (POOLED, *DIRECTIONS)
    row_sets = {d: _rows(data, d) for d in directions}
    boots = {d: bootstrap_rows(len(row_sets[d]), config.n_bootstrap, config.seed) for d in directions}
    report: dict[str, Any] = {
        "config": {
            **asdict(config),
            "protocol_label": config.protocol_label,
            "overrides": config.overrides,
            "systems": systems,
            "systems_restricted": config.systems is not None,
            "reference_included": REFERENCE_SYSTEM in systems,
            "absolute_for_lower_is_better": True,
            "system_level": "per-system corpus score for scorers that define one from summed statistics (BLEU, chrF: "
            "multi-bleu style corpus BLEU), else the mean of segment scores",
            "tau_like_average": "mean over sources of each source's (C-D)/(C+D) (sources with no ordered pair left out)"
            if config.tau_average == "per-source"
            else "(C-D)/(C+D) over the pairs of all sources together",
            "system_subsets": "top-N / last-N systems by human score: 'system_subsets_kendall' = WMT-style Kendall "
            "tau (C-D)/(C+D) over system pairs (metric ties per tau_ties), "
            "'subsets' = the segment-level tau-like, segment Pearson and system Pearson on the outputs of those N "
            "systems only"
            + (" (the headline here, as in Lai et al.'s Figures 3 and 5)" if config.subsets == "segment" else ""),
            "bootstrap": "resample sources with replacement; each source keeps all its systems' outputs; percentile "
            "intervals; the same resamples for every scorer (paired)",
        },
        "human": human_statistics(data),
        "metrics": {},
        "comparisons": [],
    }
    replicas: dict[tuple[str, str, str], dict[str, np.ndarray]] = {}
    for label, res in results.items():
        if len(res) != len(data):
            raise ValueError(f"scorer {label!r} returned {len(res)} scores for {len(data)} rated outputs")
        absolute = not res.higher_is_better
        stats = stat_matrix(res)
        corpus_of = (
            (lambda summed, agg=res.details["corpus_aggregate"]: corpus_score_from_stats(agg, summed))
            if stats is not None
            else None
        )
        entry: dict[str, Any] = {
            **dict((scorer_info or {}).get(label, {})),
            "higher_is_better": res.higher_is_better,
            "absolute": absolute,
            "corpus": _num(res.corpus),
            "system_means": {s: _num(float(np.nanmean(res.scores[data.system == s]))) for s in data.systems},
            "system_level": "corpus" if stats is not None else "mean",
            "correlations": {},
        }
        sys_cache: dict[
            str, tuple[np.ndarray, np.ndarray]
        ] = {}  # direction -> (system values, bootstrap system values): aspect-independent
        if stats is not None and corpus_of is not None:  # (set together)
            entry["system_corpus"] = {s: corpus_of(stats[data.system == s].sum(axis=0)) for s in data.systems}
        for aspect in config.aspects:
            human_all, tau_all = data.human(aspect, config.human_scale), data.human(aspect, config.tau_scale)
            entry["correlations"][aspect] = {}
            for d in directions:
                rows = row_sets[d]
                m, h, ht = (grid(v, data, systems, rows) for v in (res.scores, human_all, tau_all))
                if not np.isfinite(m).all():
                    raise ValueError(
                        f"scorer {label!r} has undefined (NaN) scores on some rated outputs; meta-evaluation needs a "
                        "score for every output"
                    )
                fix = np.abs if absolute else (lambda x: x)
                seg = segment_correlations(m, h)
                tau = _tau(m, ht, config)
                if stats is not None and corpus_of is not None and d not in sys_cache:
                    sg = np.stack(
                        [grid(stats[:, j], data, systems, rows) for j in range(stats.shape[1])], axis=-1
                    )  # (G, S, k)
                    summed = sg[boots[d]].sum(axis=1)  # (B, S, k)
                    sys_cache[d] = (
                        np.array([corpus_of(sg[:, c].sum(axis=0)) for c in range(len(systems))]),
                        np.array(
                            [[corpus_of(summed[b, c]) for c in range(len(systems))] for b in range(summed.shape[0])]
                        ),
                    )
                sys_metric = sys_cache[d][0] if stats is not None else m.mean(axis=0)
                sys_human = h.mean(axis=0)
                sysc = {"pearson": pearson(sys_metric, sys_human), "spearman": spearman(sys_metric, sys_human)}
                point = {
                    "segment_pearson": seg["pearson"],
                    "segment_spearman": seg["spearman"],
                    "segment_kendall": seg["kendall"],
                    "tau_like": tau["tau"],
                    "system_pearson": sysc["pearson"],
                }
                bs = Bootstrap(boots[d], config.tau_threshold, config.tau_ties, config.kendall_ci, config.tau_average)
                rep = bs.replicates(m, h)
                rep["tau_like"] = (
                    bs.replicates(m, ht)["tau_like"] if config.tau_scale != config.human_scale else rep["tau_like"]
                )
                if stats is not None:  # system level from the corpus statistics of each resample
                    rep["system_pearson"] = _rowwise_pearson(sys_cache[d][1], h[boots[d]].mean(axis=1))
                rep = {k: fix(v) for k, v in rep.items()}
                replicas[(label, aspect, d)] = rep
                sys_order = np.argsort(-sys_human, kind="stable")
                subsets_tau, subsets_pearson, subsets_segment = {}, {}, {}
                for key, cols in _subsets(sys_order):
                    subsets_tau[key] = _num(
                        float(fix(system_kendall(sys_metric[cols], sys_human[cols], config.tau_ties)))
                    )
                    subsets_pearson[key] = _num(float(fix(pearson(sys_metric[cols], sys_human[cols]))))
                    sub_tau = _tau(m[:, cols], ht[:, cols], config)
                    subsets_segment[key] = {
                        "systems": [systems[c] for c in cols],
                        "tau_like": _num(float(fix(sub_tau["tau"]))),
                        "segment_pearson": _num(float(fix(pearson(m[:, cols].ravel(), h[:, cols].ravel())))),
                        "system_pearson": _num(float(fix(pearson(sys_metric[cols], sys_human[cols])))),
                    }
                entry["correlations"][aspect][d] = {
                    **{
                        k: {
                            "value": _num(float(fix(v))),
                            "ci": _interval(rep[k], config.confidence) if k in rep else [None, None],
                        }
                        for k, v in point.items()
                    },
                    "system_spearman": _num(float(fix(sysc["spearman"]))),
                    "system_kendall": _num(float(fix(system_kendall(sys_metric, sys_human, config.tau_ties)))),
                    "tau_like_counts": {k: tau[k] for k in ("concordant", "discordant", "sources_used") if k in tau},
                    "system_subsets_kendall": subsets_tau,
                    "system_subsets_pearson": subsets_pearson,
                    "subsets": subsets_segment,
                    "n_outputs": int(m.size),
                    "n_sources": int(len(rows)),
                    "n_systems": len(systems),
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
                report["comparisons"].append(
                    {
                        "a": a,
                        "b": b,
                        "aspect": aspect,
                        "direction": POOLED,
                        "statistic": stat,
                        "delta": None if va is None or vb is None else va - vb,
                        "ci": _interval(delta, config.confidence),
                        "p_a_not_better": float((delta[ok] <= 0).mean()) if ok.any() else None,
                        "p_b_not_better": float((delta[ok] >= 0).mean()) if ok.any() else None,
                    }
                )
    report["seconds"] = round(time.time() - started, 3)
    return report


def _chosen_systems(data: HumanJudgements, config: MetaEvalConfig) -> list[str]:
    """The systems whose outputs enter the correlations, in the data's order; unknown names are an error naming the
    known ones."""
    if config.systems is None:
        return [s for s in data.systems if config.include_ref or s != REFERENCE_SYSTEM]
    chosen = list(dict.fromkeys(config.systems))
    unknown = [s for s in chosen if s not in data.systems]
    if unknown or not chosen:
        raise ValueError(f"systems {unknown or '(none)'} are not in the human judgements; known: {list(data.systems)}")
    return [s for s in data.systems if s in chosen]


def _tau(metric: np.ndarray, human: np.ndarray, config: MetaEvalConfig) -> dict[str, Any]:
    if config.tau_average == "per-source":
        return mean_per_source_tau(metric, human, config.tau_threshold, config.tau_ties)
    return tau_like(metric, human, config.tau_threshold, config.tau_ties)


def _subsets(order: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """(key, columns) of the top-N and last-N systems by human score, N from 3 up; ``all_N`` is every system."""
    n, out = len(order), []
    for k in range(3, n + 1):
        for name, cols in (("top", order[:k]), ("last", order[-k:])):
            if k == n and name == "last":
                continue
            out.append((f"{name}_{k}" if k < n else f"all_{k}", cols))
    return out


def score_judgements(
    data: HumanJudgements, scorer: Any, references: str | int = "1", corpus_references: str | int | None = None
) -> ScoreResult:
    """Run one scorer over every rated output (REF included), with references and target styles.

    ``references``: ``"1"`` (the human files' reference column, the release's first reference), ``"all"``
    (every reference the loader found, e.g. the release's four), ``k`` (the k-th reference alone, 1-based) or
    ``"ref0"`` (the release's first reference file as it is).

    ``corpus_references``: where given and different, a scorer that defines system-level corpus statistics (BLEU)
    and compares with references runs a second time against these, and its corpus statistics (the system values)
    come from that run while its segment scores stay those against ``references``. This is how Lai et al. (2022)
    computed: laihuiyuan/eval-formality-transfer, eval_content.py (commit ac47a08) scores every output against the
    human files' reference column (``line[3]``), which the released per-output columns and so the segment-level
    figures use; Table 3's corpus BLEU against the reference is not in the code (utils/multi-bleu.perl is shipped
    without a caller) but is reproduced only by multi-bleu against ``data/xformal/fr.80.ref0`` alone (HIGH 0.3650,
    printed 0.366; the column gives 0.3764, the four reference files 0.6147), hence the ``lai2022`` protocol's
    ``corpus_references="ref0"``. The details record both choices.
    """
    result: ScoreResult = scorer.score(
        data.sources, data.outputs, references=data.reference_choice(references), target_style=data.target_styles
    )
    if (
        corpus_references is None
        or str(corpus_references) == str(references)
        or getattr(scorer, "against", "reference") != "reference"
        or stat_matrix(result) is None
    ):
        return result
    corpus_run: ScoreResult = scorer.score(
        data.sources,
        data.outputs,
        references=data.reference_choice(corpus_references),
        target_style=data.target_styles,
    )
    stats = {k: v for k, v in corpus_run.components.items() if k.startswith("stat:")}
    result.components = {**{k: v for k, v in result.components.items() if not k.startswith("stat:")}, **stats}
    result.corpus = corpus_run.corpus
    result.details = {
        **result.details,
        "references": str(references),
        "corpus_references": str(corpus_references),
        "system_level_references": "the corpus statistics (system values) are against corpus_references, the segment "
        "scores against references",
    }
    return result


def _check_config(config: MetaEvalConfig) -> None:
    from .correlations import TAU_AVERAGES, TIE_POLICIES

    bad = [a for a in config.aspects if a not in ASPECTS]
    if bad:
        raise ValueError(f"unknown aspect(s) {bad}; known: {ASPECTS}")
    for name in ("human_scale", "tau_scale"):
        if getattr(config, name) not in ("z", "raw"):
            raise ValueError(f"{name} must be 'z' or 'raw', not {getattr(config, name)!r}")
    if config.tau_ties not in TIE_POLICIES:
        raise ValueError(f"tau_ties must be one of {TIE_POLICIES}")
    if config.tau_average not in TAU_AVERAGES:
        raise ValueError(f"tau_average must be one of {TAU_AVERAGES}, not {config.tau_average!r}")
    if config.subsets not in SUBSET_MODES:
        raise ValueError(f"subsets must be one of {SUBSET_MODES}, not {config.subsets!r}")
    if config.protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {config.protocol!r}; known: {sorted(PROTOCOLS)}")
    if config.n_bootstrap < 1 or not 0 < config.confidence < 1:
        raise ValueError("n_bootstrap must be >= 1 and confidence in (0, 1)")


def _table_aspect(report: Mapping[str, Any]) -> str:
    aspects = report["config"]["aspects"]
    return "content" if "content" in aspects else aspects[0]


def _headline(report: Mapping[str, Any], label: str, aspect: str, direction: str = POOLED) -> dict[str, Any]:
    c = report["metrics"][label]["correlations"][aspect][direction]
    return {
        "tau_like": c["tau_like"]["value"],
        "segment_pearson": c["segment_pearson"]["value"],
        "system_pearson": c["system_pearson"]["value"],
    }


def reference_table(
    data: HumanJudgements,
    results: Mapping[str, ScoreResult],
    runs: Mapping[str, tuple[str, Mapping[str, str]]],
    report: Mapping[str, Any],
) -> dict[str, Any]:
    """Table 4 (Lai et al.): per scorer, how its scores against reference 1 agree with its scores against reference
    k (k = 2..4) over the rated system outputs, and each reference choice's correlation with the humans.

    The paper's statistic is Kendall's tau-like, computed as its segment-level one is
    (``kendalltau.compute_kenall`` of the authors' release, per source over the systems' outputs, then the
    mean over sources): the scores against reference 1 take the place of the human scores, so a pair they tie
    is skipped and a pair the reference-k scores tie is discordant; a source with no ordered pair is left
    out. Pearson over all rated outputs is kept beside it (``score_pearson_with_ref1``; steb's earlier figure).
    """
    systems = report["config"]["systems"]
    rated = np.isin(data.system, systems)
    rows_all = _rows(data, POOLED)
    aspect = _table_aspect(report)
    rows: dict[str, Any] = {}
    choices: list[str] = []
    for label, (spec, change) in runs.items():
        ref = change.get("references")
        if ref is None:
            continue
        row = rows.setdefault(
            spec, {"labels": {}, "human": {}, "score_tau_with_ref1": {}, "score_pearson_with_ref1": {}}
        )
        row["labels"][ref] = label
        row["human"][ref] = _headline(report, label, aspect)
        if ref not in choices:
            choices.append(ref)
    for row in rows.values():
        if "1" not in row["labels"]:
            continue
        first = results[row["labels"]["1"]].scores
        first_grid = grid(first, data, systems, rows_all)
        for ref, label in row["labels"].items():
            if ref in ("1", "all"):
                continue
            other = results[label].scores
            tau = mean_per_source_tau(
                grid(other, data, systems, rows_all), first_grid, threshold=0.0, ties="discordant"
            )
            row["score_tau_with_ref1"][ref] = _num(tau["tau"])
            row["score_pearson_with_ref1"][ref] = _num(pearson(first[rated], other[rated]))
    return {
        "aspect": aspect,
        "direction": POOLED,
        "references": choices,
        "rows": rows,
        "statistic": "tau-like per source (reference 1's ties skipped, reference k's ties discordant), mean over "
        "sources; Pearson over the rated outputs beside it",
        "note": "reference 1 = the human files' reference column; 2-4 = the release's ref1-ref3 files; all = the four "
        "together (best match / multi-reference statistics)",
    }


def _strip_against(spec: str) -> str:
    name, _, rest = spec.partition(":")
    kept = [p for p in rest.split(",") if p.strip() and not p.strip().startswith("against=")]
    return name + (":" + ",".join(kept) if kept else "")


def source_reference_table(
    report: Mapping[str, Any], runs: Mapping[str, tuple[str, Mapping[str, str]]], aspect: str
) -> dict[str, Any]:
    """Table A.2 (Lai et al.): each metric against the source and against the reference, side by side.

    Runs expanded by ``--table A.2`` pair up by their spec; specs that fix ``against`` themselves pair up by
    the spec without it (for ``precomputed``, by its ``label`` option when it has one).
    """
    rows: dict[str, dict[str, Any]] = {}
    for label, (spec, change) in runs.items():
        options = report["metrics"][label].get("options", {})
        against = change.get("against") or options.get("against")
        if against not in ("source", "reference"):
            continue
        base = (
            spec if "against" in change else (str(options["label"]) if options.get("label") else _strip_against(spec))
        )
        rows.setdefault(base, {})[against] = _headline(report, label, aspect)
    return {"aspect": aspect, "direction": POOLED, "rows": rows}
