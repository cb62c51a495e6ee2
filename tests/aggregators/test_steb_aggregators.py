"""Aggregators on hand-made result tables, checked against values worked out by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import spearmanr

from steb_core import DatasetSpec, new_manager
from steb_core.aggregators import ResultTable, builtin_aggregators
from steb_core.aggregators.applications import application_specs
from steb_core.aggregators.definitional import (
    content_independence_score,
    definitional_score,
    idiolect_score,
    objects_of_study_score,
    three_groups_specs,
)
from steb_core.aggregators.operational import operational_score
from steb_core.aggregators.redundancy import average_ranks, spearman_matrix, ward_clusters
from steb_core.report.synthetic import make_record

ENCODERS = ["e1", "e2", "e3", "e4"]


def _rows(dataset, task, key, values, encoders=ENCODERS, extra=None, **meta):
    """One record per encoder with metric ``key`` = values[i] (plus constant ``extra`` metrics)."""
    return [make_record(enc, dataset, task, {key: v, **(extra or {})}, **meta) for enc, v in zip(encoders, values)]


def _operational_table(encoders=ENCODERS):
    n = len(encoders)
    recs = []
    # d1 and d2 rank the four models identically (rho = 1); d3 reverses them (rho = -1).
    recs += _rows("d1", "clustering", "v_measure", [0.1, 0.2, 0.3, 0.4][:n], encoders)
    recs += _rows("d2", "clustering", "v_measure", [0.5, 0.6, 0.7, 0.9][:n], encoders)
    recs += _rows("d3", "clustering", "v_measure", [0.8, 0.6, 0.4, 0.2][:n], encoders)
    recs += _rows("r1", "retrieval", "mrr", [0.3, 0.2, 0.1, 0.4][:n], encoders)
    # order alignment: operational uses distractor accuracy (0.5 ...), not plain accuracy (0.9)
    recs += [
        make_record(enc, "o1", "order_alignment", {"accuracy": 0.9, "distractor_accuracy": d})
        for enc, d in zip(encoders, [0.5, 0.4, 0.3, 0.2][:n])
    ]
    return recs


# --- rank correlation and Ward clustering -----------------------------------------------------


def test_average_ranks_share_ties():
    assert average_ranks(np.array([0.3, 0.1, 0.3, 0.2])).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_spearman_hand_value_and_scipy_reference():
    # ranks 1,2,3,4 vs 1,2,4,3: sum d^2 = 2, rho = 1 - 6*2 / (4*15) = 0.8
    rho = spearman_matrix(np.array([[1, 1], [2, 2], [3, 4], [4, 3]], dtype=float))
    assert rho[0, 1] == pytest.approx(0.8)
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 4, size=(7, 5)).astype(float)  # many ties
    ours = spearman_matrix(scores)
    ref = spearmanr(scores).statistic
    mask = ~np.isnan(ref)
    assert np.allclose(ours[mask], ref[mask])


def test_spearman_constant_dataset_is_nan():
    rho = spearman_matrix(np.array([[0.5, 0.1], [0.5, 0.2], [0.5, 0.3]]))
    assert math.isnan(rho[0, 1]) and math.isnan(rho[0, 0])


def test_ward_not_single_linkage():
    # A-B at 0.2 merge. Ward height of {A,B} to C (Lance-Williams):
    # sqrt(((1+1)*0.45^2 + (1+1)*0.45^2 - 1*0.2^2) / 3) = sqrt(0.77/3) = 0.5066 > 0.5 -> C stays apart,
    # although single or average linkage would merge C at 0.45.
    d = np.array([[0, 0.2, 0.45], [0.2, 0, 0.45], [0.45, 0.45, 0]])
    assert ward_clusters(d, ["A", "B", "C"]) == [["A", "B"], ["C"]]
    # with 0.43: sqrt((4*0.1849 - 0.04)/3) = 0.4829 < 0.5 -> one cluster
    d2 = np.array([[0, 0.2, 0.43], [0.2, 0, 0.43], [0.43, 0.43, 0]])
    assert ward_clusters(d2, ["A", "B", "C"]) == [["A", "B", "C"]]


# --- operational score ------------------------------------------------------------------------


def test_operational_merges_identically_ranking_datasets():
    agg = operational_score(_operational_table())
    clusters = agg.details["clusters"]
    assert clusters["clustering"]["clusters"] == [["d1", "d2"], ["d3"]]
    assert clusters["clustering"]["correlations"]["d1"]["d2"] == pytest.approx(1.0)
    assert clusters["clustering"]["correlations"]["d1"]["d3"] == pytest.approx(-1.0)
    sub = {c.name: c for c in agg.sub_columns}
    # e1: clustering = mean(mean(0.1, 0.5), 0.8) = mean(0.3, 0.8) = 0.55; retrieval 0.3; order alignment 0.5
    assert sub["operational/clustering"].scores["e1"] == pytest.approx(0.55)
    assert sub["operational/retrieval"].scores["e1"] == pytest.approx(0.3)
    assert sub["operational/order_alignment"].scores["e1"] == pytest.approx(0.5)
    assert agg.scores["e1"] == pytest.approx((0.55 + 0.3 + 0.5) / 3)
    # e4: clustering = mean(mean(0.4, 0.9), 0.2) = 0.425; retrieval 0.4; order alignment 0.2
    assert agg.scores["e4"] == pytest.approx((0.425 + 0.4 + 0.2) / 3)
    assert all(agg.complete.values())
    # the task types come in canonical order
    assert [c.name for c in agg.sub_columns] == [
        "operational/clustering",
        "operational/order_alignment",
        "operational/retrieval",
    ]


def test_operational_below_three_models_every_dataset_is_its_own_cluster():
    agg = operational_score(_operational_table(["e1", "e2"]))
    info = agg.details["clusters"]["clustering"]
    assert info["clusters"] == [["d1"], ["d2"], ["d3"]]
    assert "at least 3" in info["note"]
    # e1 clustering = mean(0.1, 0.5, 0.8) = 0.4666...
    assert agg.sub_columns[0].scores["e1"] == pytest.approx((0.1 + 0.5 + 0.8) / 3)


def test_operational_incomplete_encoder_is_listed_not_averaged():
    recs = [r for r in _operational_table() if not (r.encoder == "e4" and r.dataset == "d3")]
    agg = operational_score(recs)
    assert agg.scores["e4"] is None and not agg.is_complete("e4")
    assert [(m.dataset, m.task, m.reason) for m in agg.missing["e4"]] == [("d3", "clustering", "no result")]
    clustering = agg.sub_columns[0]
    assert clustering.scores["e4"] is None
    # e4's other task types are still complete, and the others' clusters come from e1..e3 (still 3 models)
    assert agg.sub_columns[2].scores["e4"] == pytest.approx(0.4)
    assert agg.details["clusters"]["clustering"]["models"] == ["e1", "e2", "e3"]
    assert agg.details["clusters"]["clustering"]["clusters"] == [["d1", "d2"], ["d3"]]
    assert agg.scores["e1"] == pytest.approx((0.55 + 0.3 + 0.5) / 3)


def test_missing_metric_and_null_score_are_reasons():
    recs = _operational_table()
    recs = [r for r in recs if not (r.encoder == "e2" and r.dataset in ("o1", "r1"))]
    recs.append(make_record("e2", "o1", "order_alignment", {"instances": 5}))  # neither accuracy metric
    recs.append(make_record("e2", "r1", "retrieval", {"mrr": float("nan"), "error": "encoder crashed"}))
    agg = operational_score(recs)
    reasons = {(m.dataset, m.task): m.reason for m in agg.missing["e2"]}
    assert "no metric 'distractor_accuracy'" in reasons[("o1", "order_alignment")]
    assert "not a finite number" in reasons[("r1", "retrieval")] and "encoder crashed" in reasons[("r1", "retrieval")]
    assert agg.scores["e2"] is None


def test_order_alignment_without_distractors_counts_its_plain_accuracy():
    # STEL quadruples carry no distractor: their alternatives share one content, so plain accuracy is
    # already content-independent and stands in for distractor accuracy (o1: e1 0.5 -> 0.9).
    recs = [r for r in _operational_table() if not (r.dataset == "o1" and r.encoder == "e1")]
    recs.append(make_record("e1", "o1", "order_alignment", {"accuracy": 0.9}))
    full = operational_score(_operational_table())
    agg = operational_score(recs)
    assert agg.scores["e1"] is not None and "e1" not in agg.missing
    # e1's order-alignment column moves from 0.5 to 0.9; three task types are averaged
    assert agg.scores["e1"] == pytest.approx(full.scores["e1"] + (0.9 - 0.5) / 3)


def test_content_independence_stays_distractor_only():
    # the operational fallback to plain accuracy must not leak into the content-independence column
    recs = [make_record(enc, "o1", "order_alignment", {"accuracy": 0.9}, content_independence=True) for enc in ENCODERS]
    agg = content_independence_score(recs)
    assert all(agg.scores[enc] is None for enc in ENCODERS)
    assert "no metric 'distractor_accuracy'" in agg.missing["e1"][0].reason


def test_multilingual_datasets_stay_out_of_operational():
    recs = _operational_table() + _rows(
        "m1", "retrieval", "mrr", [0.9, 0.9, 0.9, 0.9], applications=("multilingual",), languages=("pl",)
    )
    agg = operational_score(recs)
    assert ("m1", "retrieval") not in agg.inputs
    assert agg.scores["e1"] == pytest.approx((0.55 + 0.3 + 0.5) / 3)


# --- definitional ------------------------------------------------------------------------------


def _definitional_table(with_dialect=True):
    recs = []
    recs += _rows("g1", "clustering", "v_measure", [0.4, 0.1], ["a", "b"], categories=("genre",))
    recs += _rows("g1", "pair_all", "auroc", [0.8, 0.7], ["a", "b"], categories=("genre",))
    recs += [
        make_record(
            enc,
            "r1",
            "order_alignment",
            {"accuracy": acc, "distractor_accuracy": dis},
            categories=("register",),
            content_independence=True,
        )
        for enc, acc, dis in (("a", 0.7, 0.3), ("b", 0.6, 0.1))
    ]
    recs += _rows("t1", "pair_all", "auroc", [0.9, 0.5], ["a", "b"], categories=("time",))
    recs += _rows("dm1", "clustering", "v_measure", [0.2, 0.3], ["a", "b"], categories=("demographics",))
    if with_dialect:
        # not marked content_independence: its distractor accuracy must not reach that column
        recs += [
            make_record(
                enc, "dl1", "order_alignment", {"accuracy": 0.5, "distractor_accuracy": 0.99}, categories=("dialect",)
            )
            for enc in ("a", "b")
        ]
    recs += _rows("id1", "retrieval", "mrr", [0.25, 0.05], ["a", "b"], categories=("idiolect",), applications=("AR",))
    recs += _rows(
        "id2", "pair_predefined", "auroc", [0.75, 0.55], ["a", "b"], categories=("idiolect",), applications=("AV",)
    )
    recs += _rows(
        "id3", "pair_predefined", "auroc", [0.95, 0.35], ["a", "b"], categories=("idiolect",), applications=("AV",)
    )
    recs += _rows("p1", "probing", "accuracy", [0.35, 0.3], ["a", "b"], categories=("linguistic-feature",))
    recs += [
        make_record(
            enc,
            "f1",
            "order_alignment",
            {"accuracy": acc, "distractor_accuracy": 0.0},
            categories=("linguistic-feature",),
        )
        for enc, acc in (("a", 0.65), ("b", 0.5))
    ]
    return recs


def _by_name(aggregates):
    return {a.name: a for a in aggregates}


def test_definitional_columns_by_hand():
    table = ResultTable.build(_definitional_table())
    aggs = _by_name(spec.aggregate(table, None) for spec in builtin_aggregators())
    # idiolect (STEB Table 9) = mean(AV overall, AR): AV overall pools id2 and id3 -> a mean(0.75, 0.95) = 0.85,
    # b mean(0.55, 0.35) = 0.45; AR = id1 -> a 0.25, b 0.05; idiolect a (0.85 + 0.25) / 2 = 0.55, b (0.45 + 0.05) / 2 =
    # 0.25
    # (one row per dataset, the steb 0.1 reading, would give a 1.95 / 3 = 0.65)
    assert aggs["idiolect"].scores == pytest.approx({"a": 0.55, "b": 0.25})
    # the reference weighting: the idiolect cluster's (task, metric) columns, which are AV overall and AR here
    assert [r.label for r in aggs["idiolect"].rows] == ["pair_predefined (auroc)", "retrieval (mrr)"]
    assert [r.label for r in idiolect_score(table, weighting="table13").rows] == ["AV overall", "AR"]
    objects = aggs["objects-of-study"]
    sub = {c.name.split("/")[1]: c.scores["a"] for c in objects.sub_columns}
    # genre mean(0.4, 0.8); register: plain OA accuracy 0.7; idiolect is the sixth column
    assert sub == pytest.approx(
        {"genre": 0.6, "register": 0.7, "time": 0.9, "demographics": 0.2, "dialect": 0.5, "idiolect": 0.55}
    )
    # a: (0.6 + 0.7 + 0.9 + 0.2 + 0.5 + 0.55) / 6 = 3.45 / 6 = 0.575
    assert objects.scores["a"] == pytest.approx(0.575)
    # b: genre 0.4, register 0.6, time 0.5, demographics 0.3, dialect 0.5, idiolect 0.25 -> 2.55 / 6 = 0.425
    assert objects.scores["b"] == pytest.approx(0.425)
    assert aggs["linguistic-features"].scores == pytest.approx({"a": 0.5, "b": 0.4})
    # only r1 is marked: distractor accuracy 0.3 / 0.1 (dl1's 0.99 stays out)
    assert aggs["content-independence"].scores == pytest.approx({"a": 0.3, "b": 0.1})
    assert aggs["content-independence"].inputs == [("r1", "order_alignment")]
    # definitional = mean(objects, features, content independence):
    # a (0.575 + 0.5 + 0.3) / 3 = 1.375 / 3 = 0.458333..., b (0.425 + 0.4 + 0.1) / 3 = 0.925 / 3 = 0.308333...
    assert aggs["definitional"].scores == pytest.approx({"a": 0.4583333333, "b": 0.3083333333})
    assert [c.name for c in aggs["definitional"].sub_columns] == [
        "objects-of-study",
        "linguistic-features",
        "content-independence",
    ]
    assert aggs["definitional"].details == {"reading": "table9", "weighting": "reference"}


def test_three_groups_reading_by_hand():
    """steb's steb 0.1 reading stays available under its own names (same table as above)."""
    table = ResultTable.build(_definitional_table())
    aggs = _by_name(spec.aggregate(table, None) for spec in three_groups_specs())
    # five columns: a (0.6 + 0.7 + 0.9 + 0.2 + 0.5) / 5 = 0.58, b (0.4 + 0.6 + 0.5 + 0.3 + 0.5) / 5 = 0.46
    assert aggs["objects-of-study-five"].scores == pytest.approx({"a": 0.58, "b": 0.46})
    # id1..id3 are not STEB datasets: one row each -> a mean(0.25, 0.75, 0.95) = 0.65, b mean(0.05, 0.55, 0.35) =
    # 0.316666...
    assert aggs["idiolect-table13-rows"].scores == pytest.approx({"a": 0.65, "b": 0.3166666667})
    # mean(objects five, features, idiolect rows): a (0.58 + 0.5 + 0.65) / 3 = 0.576666..., b (0.46 + 0.4 + 0.316666...)
    # / 3 = 0.392222...
    agg = aggs["definitional-three-groups"]
    assert agg.scores == pytest.approx({"a": 0.5766666667, "b": 0.3922222222})
    assert [c.name for c in agg.sub_columns] == [
        "objects-of-study-five",
        "linguistic-features",
        "idiolect-table13-rows",
    ]
    assert agg.details["reading"] == "three-groups"
    with pytest.raises(ValueError, match="table9, three-groups"):
        definitional_score(table, reading="table-9")


def test_three_groups_plugin_adds_columns_beside_the_builtin_ones():
    manager = new_manager(["steb_core.aggregators.three_groups"], entry_points=False, env=False)
    names = manager.aggregators().names()
    assert {"definitional", "objects-of-study", "idiolect"} <= set(names)
    assert {"definitional-three-groups", "objects-of-study-five", "idiolect-table13-rows"} <= set(names)
    assert "definitional-three-groups" not in new_manager(entry_points=False, env=False).aggregators().names()


def test_multilingual_datasets_stay_out_of_definitional_columns():
    recs = _definitional_table() + _rows(
        "pan15_greek",
        "pair_predefined",
        "auroc",
        [0.1, 0.1],
        ["a", "b"],
        categories=("idiolect",),
        applications=("multilingual",),
        languages=("el",),
    )
    for agg in (idiolect_score(recs), idiolect_score(recs, reading="three-groups")):
        assert ("pan15_greek", "pair_predefined") not in agg.inputs
    assert idiolect_score(recs).scores["a"] == pytest.approx(0.55)


def test_idiolect_with_one_part_in_scope_is_that_part():
    # only AR datasets in scope: the AV part is left out as an empty Table 13 row is -> a mean(0.25) = 0.25
    recs = [r for r in _definitional_table() if r.dataset == "id1"]
    agg = idiolect_score(recs, weighting="table13")
    assert agg.scores == pytest.approx({"a": 0.25, "b": 0.05})
    assert [r.label for r in agg.rows] == ["AR"]
    # the reference weighting: one (task, metric) column, the same number
    assert idiolect_score(recs).scores == pytest.approx({"a": 0.25, "b": 0.05})
    # table13: an idiolect dataset tagged neither AV nor AR feeds no part: no column, and the report says why
    id9 = _rows("id9", "retrieval", "mrr", [0.5, 0.5], ["a", "b"], categories=("idiolect",))
    # the reference weighting reads the category tag of a dataset STEB does not know: it joins the cluster
    assert idiolect_score(id9).scores == pytest.approx({"a": 0.5, "b": 0.5})
    none = idiolect_score(id9, weighting="table13")
    assert none.scores == {"a": None, "b": None} and "'AV' or 'AR'" in none.structural_gap
    assert none.details["idiolect_datasets_in_neither_part"] == ["id9"]


def test_objects_of_study_needs_every_column():
    agg = objects_of_study_score(_definitional_table(with_dialect=False))
    assert agg.scores == {"a": None, "b": None}
    assert [m.reason for m in agg.missing["a"]] == ["no 'dialect' dataset in scope (the 'dialect' cluster or tags)"]
    table13 = objects_of_study_score(_definitional_table(with_dialect=False), weighting="table13")
    assert [m.reason for m in table13.missing["a"]] == ["no 'dialect' dataset in scope (STEB Table 13 rows or tags)"]
    assert agg.structural_gap
    dialect = next(c for c in agg.sub_columns if c.name.endswith("dialect"))
    assert dialect.note and dialect.inputs == []
    genre = next(c for c in agg.sub_columns if c.name.endswith("genre"))
    assert genre.scores["a"] == pytest.approx(0.6)


def test_registered_spec_overrides_stored_meta():
    # the stored record says genre; the installed spec says register: the spec wins (column map is spec data)
    recs = _rows("g1", "clustering", "v_measure", [0.4, 0.1], ["a", "b"], categories=("genre",))
    spec = DatasetSpec(
        name="g1", description="", tasks=("clustering",), loader=lambda ctx: None, categories=("register",)
    )
    agg = objects_of_study_score(ResultTable.build(recs, [spec]))
    cols = {c.name.split("/")[1]: c for c in agg.sub_columns}
    assert cols["register"].scores["a"] == pytest.approx(0.4)
    assert cols["genre"].inputs == []


def test_suite_scope_makes_unrun_datasets_missing():
    recs = _rows("g1", "clustering", "v_measure", [0.4, 0.1], ["a", "b"], categories=("genre",))
    specs = [
        DatasetSpec(
            name="g1",
            description="",
            tasks=("clustering",),
            loader=lambda ctx: None,
            categories=("genre",),
            suites=("s",),
        ),
        DatasetSpec(
            name="g2",
            description="",
            tasks=("clustering", "pair_all"),
            loader=lambda ctx: None,
            categories=("genre",),
            suites=("s",),
        ),
    ]
    table = ResultTable.build(recs, specs, suites=["s"])
    agg = objects_of_study_score(table)
    genre = next(c for c in agg.sub_columns if c.name.endswith("genre"))
    assert genre.scores["a"] is None
    assert {(m.dataset, m.task) for m in genre.missing["a"]} == {("g2", "clustering"), ("g2", "pair_all")}
    # without the suite, only what was run is in scope
    assert next(c for c in objects_of_study_score(recs).sub_columns if c.name.endswith("genre")).scores[
        "a"
    ] == pytest.approx(0.4)


def test_content_independence_without_marked_datasets():
    recs = _rows("g1", "clustering", "v_measure", [0.4, 0.1], ["a", "b"], categories=("genre",))
    agg = content_independence_score(recs)
    assert agg.scores == {"a": None, "b": None} and "content independence" in agg.note
    assert agg.structural_gap


# --- applications and multilingual ------------------------------------------------------------


def test_application_and_multilingual_columns_by_hand():
    recs = []
    recs += _rows("a1", "clustering", "v_measure", [0.3, 0.2], ["x", "y"], applications=("ATD",))
    recs += _rows("a2", "clustering", "v_measure", [0.5, 0.4], ["x", "y"], applications=("ATD",))
    recs += _rows("adv", "clustering", "v_measure", [0.1, 0.6], ["x", "y"], applications=("ATD-adversarial",))
    recs += _rows("av1", "pair_predefined", "auroc", [0.6, 0.5], ["x", "y"], applications=("AV",))
    recs += _rows("av_easy", "pair_predefined", "auroc", [0.8, 0.7], ["x", "y"], applications=("AV", "AV-easy"))
    recs += _rows("av_hard", "pair_predefined", "auroc", [0.7, 0.6], ["x", "y"], applications=("AV", "AV-hard"))
    recs += _rows("ar1", "retrieval", "mrr", [0.2, 0.3], ["x", "y"], applications=("AR",))
    recs += _rows(
        "m_el", "pair_predefined", "auroc", [0.6, 0.9], ["x", "y"], applications=("multilingual",), languages=("el",)
    )
    recs += _rows("m_pl", "retrieval", "mrr", [0.3, 0.1], ["x", "y"], applications=("multilingual",), languages=("pl",))
    table = ResultTable.build(recs)
    aggs = _by_name(spec.aggregate(table, None) for spec in application_specs())
    assert aggs["atd"].scores == pytest.approx({"x": 0.4, "y": 0.3})
    assert aggs["atd-adversarial"].scores == pytest.approx({"x": 0.1, "y": 0.6})
    assert aggs["av"].scores == pytest.approx({"x": 0.7, "y": 0.6})
    levels = {c.name: c for c in aggs["av"].sub_columns}
    assert levels["av/AV-easy"].scores["x"] == pytest.approx(0.8)
    assert levels["av/AV-hard"].scores["y"] == pytest.approx(0.6)
    assert levels["av/AV-medium"].scores["x"] is None and "AV-medium" in levels["av/AV-medium"].note
    assert aggs["ar"].scores == pytest.approx({"x": 0.2, "y": 0.3})
    assert aggs["multilingual"].scores == pytest.approx({"x": 0.45, "y": 0.5})
    subs = {c.name: c.scores["x"] for c in aggs["multilingual"].sub_columns}
    assert subs == pytest.approx(
        {
            "multilingual/pair_predefined": 0.6,
            "multilingual/retrieval": 0.3,
            "multilingual/el": 0.6,
            "multilingual/pl": 0.3,
        }
    )


def test_builtin_aggregators_are_registered_through_the_hook():
    names = new_manager(entry_points=False, env=False).aggregators().names()
    expected = {
        "operational",
        "definitional",
        "objects-of-study",
        "linguistic-features",
        "idiolect",
        "content-independence",
        "atd",
        "atd-adversarial",
        "av",
        "ar",
        "applications",
        "multilingual",
    }
    assert expected <= set(names)


def test_plain_record_list_and_stored_json_agree(tmp_path):
    from steb_core._results import load_results

    recs = _operational_table()
    for rec in recs:
        rec.write(tmp_path)
    loaded = list(load_results(tmp_path))
    assert operational_score(loaded).scores == pytest.approx(operational_score(recs).scores)
