"""STEB's aggregates as the paper defines them (issue 15 §3), on real catalogue names, checked by hand.

Each case is built so that the paper's definition and the naive one (pool every tagged input) give
different numbers; the comments carry the hand computation.
"""

from __future__ import annotations

import json

import pytest

from steb_core import DatasetSpec
from steb_core._errors import StebError
from steb_core.aggregators import ResultTable
from steb_core.aggregators.applications import application_score, applications_average, multilingual_score
from steb_core.aggregators.clusters import ClusterSet, cluster_set_from_details, load_cluster_set
from steb_core.aggregators.definitional import (
    content_independence_score,
    definitional_column,
    definitional_score,
    idiolect_score,
    objects_of_study_score,
)
from steb_core.aggregators.operational import operational_score
from steb_core.report.synthetic import make_record

E = ["a", "b"]


def rec(dataset, task, value, enc="a", *, metric=None, extra=None, **meta):
    key = metric or {
        "clustering": "v_measure",
        "pair_all": "auroc",
        "pair_predefined": "auroc",
        "retrieval": "mrr",
    }.get(task, "accuracy")
    return make_record(enc, dataset, task, {key: value, **(extra or {})}, **meta)


def col(table, key, weighting="table13"):
    return definitional_column(table, key, key, key, weighting)


# --- Table 13 membership -------------------------------------------------------------------------


def test_register_follows_table13_not_the_tags():
    reg = {"categories": ("register",)}
    recs = [
        rec("STEL_register", "order_alignment", 0.6, extra={"distractor_accuracy": 0.3}, **reg),
        rec("wikipedia_politeness", "clustering", 0.2, **reg),
        rec("wikipedia_politeness", "pair_all", 0.8, **reg),
        # tagged register, but no Register row of Table 13:
        rec("enron_spam", "clustering", 0.9, **reg),
        rec("hate_speech", "pair_all", 0.9, **reg),
        # STEL's distractor variant feeds content independence only (its 'accuracy' is distractor accuracy)
        rec(
            "STEL-or-Content_register",
            "order_alignment",
            0.1,
            extra={"distractor_accuracy": 0.1},
            content_independence=True,
            **reg,
        ),
    ]
    table = ResultTable.build(recs)
    register = col(table, "register")
    # rows: STEL register 0.6; Wikipedia politeness mean(0.2, 0.8) = 0.5 -> (0.6 + 0.5) / 2
    assert register.scores["a"] == pytest.approx(0.55)
    assert [r.label for r in register.rows] == ["STEL register", "Wikipedia politeness"]
    assert {d for d, _ in register.inputs} == {"STEL_register", "wikipedia_politeness"}
    ci = content_independence_score(table, weighting="table13")
    # one "STEL register" row holding STEB's construction and STEL-or-Content: mean(0.3, 0.1)
    assert [r.label for r in ci.rows] == ["STEL register"]
    assert {d for d, _ in ci.inputs} == {"STEL_register", "STEL-or-Content_register"}
    assert ci.scores["a"] == pytest.approx(0.2)


def test_genre_row_of_corpus_of_diverse_styles_holds_all_its_tasks():
    genre = {"categories": ("genre",)}
    recs = [
        rec("corpus-of-diverse-styles", "clustering", 0.3, **genre),
        rec("corpus-of-diverse-styles", "order_alignment", 0.7, extra={"distractor_accuracy": 0.1}, **genre),
        rec("core", "clustering", 0.2, **genre),
    ]
    table = ResultTable.build(recs)
    # CDS row mean(0.3, 0.7) = 0.5; CORE row 0.2 -> 0.35 (pooling the three inputs would give 0.4)
    assert col(table, "genre").scores["a"] == pytest.approx(0.35)


def test_demographics_rows_blog_and_pastel():
    demo = {"categories": ("demographics",)}
    values = {
        "blog_age": (0.1, 0.5),
        "blog_gender": (0.3, 0.7),
        "fce_l1": (0.0, 0.2),
        "pastel_age": (0.9, 0.9),
        "pastel_tod": (0.5, 0.5),
    }
    recs = [rec(d, t, v, **demo) for d, (c, p) in values.items() for t, v in (("clustering", c), ("pair_all", p))]
    column = col(ResultTable.build(recs), "demographics")
    # Blog mean(0.1, 0.5, 0.3, 0.7) = 0.4; FCE L1 mean(0.0, 0.2) = 0.1; PASTEL mean(0.9, 0.9, 0.5, 0.5) = 0.7
    assert [(r.label, round(r.scores["a"], 9)) for r in column.rows] == [
        ("Blog", 0.4),
        ("FCE L1", 0.1),
        ("PASTEL", 0.7),
    ]
    assert column.scores["a"] == pytest.approx(0.4)  # pooled over the 10 inputs it would be 0.46


def _idiolect_records():
    """Real catalogue names with the tags their plugins give them (PAN18 SC is tagged AV but is not AV overall)."""
    idio = {"categories": ("idiolect",)}
    return [
        rec("pan23_style_change_easy", "pair_predefined", 0.9, applications=("AV", "AV-easy"), **idio),
        rec("pan23_style_change_medium", "pair_predefined", 0.7, applications=("AV", "AV-medium"), **idio),
        rec("pan23_style_change_hard", "pair_predefined", 0.5, applications=("AV", "AV-hard"), **idio),
        rec("pan18_style_change", "pair_predefined", 0.6, applications=("AV",), **idio),
        rec("pan18_cross_domain_authorship_attribution_english", "retrieval", 0.2, applications=("AR",), **idio),
        rec("enron_authorship_corpus", "pair_predefined", 0.8, applications=("AV",), **idio),
        rec("amazon", "retrieval", 0.4, applications=("AR",), **idio),
        rec(
            "pan13_authorship_verification_greek_test",
            "pair_predefined",
            0.0,
            applications=("multilingual",),
            languages=("el",),
            **idio,
        ),
    ]


def test_idiolect_is_the_mean_of_av_overall_and_ar():
    table = ResultTable.build(_idiolect_records())
    agg = idiolect_score(table, weighting="table13")
    # AV overall = mean(PAN23 0.9, 0.7, 0.5, Enron 0.8) = 2.9 / 4 = 0.725 (PAN18 SC left out, as in Table 4);
    # AR = mean(PAN18 AA 0.2, Amazon 0.4) = 0.3; idiolect = (0.725 + 0.3) / 2 = 0.5125
    assert agg.scores["a"] == pytest.approx(0.5125)
    assert [(r.label, round(r.scores["a"], 9)) for r in agg.rows] == [("AV overall", 0.725), ("AR", 0.3)]
    # the same two columns as the applications table
    av = application_score("AV", "av", "AV", 70, weighting="table13")(table)
    ar = application_score("AR", "ar", "AR", 80, weighting="table13")(table)
    assert agg.scores["a"] == pytest.approx((av.scores["a"] + ar.scores["a"]) / 2)
    assert ("pan18_style_change", "pair_predefined") not in agg.inputs
    assert ("pan13_authorship_verification_greek_test", "pair_predefined") not in agg.inputs
    assert agg.details["idiolect_datasets_in_neither_part"] == ["pan18_style_change"]


def test_idiolect_table13_rows_split_pan18_and_collapse_levels():
    agg = idiolect_score(ResultTable.build(_idiolect_records()), reading="three-groups")
    # rows: Enron 0.8; PAN18 SC 0.6 and PAN18 cross-domain AA 0.2 (two rows of Table 13); PAN23 mean(0.9, 0.7, 0.5) =
    # 0.7;
    # Amazon 0.4 -> 2.7 / 5 = 0.54 (one merged PAN18 row would give 2.3 / 4 = 0.575; a pool of the 7 inputs 4.1 / 7)
    assert [r.label for r in agg.rows] == ["Enron", "PAN18 SC", "PAN18 cross-domain AA", "PAN23", "Amazon"]
    assert agg.scores["a"] == pytest.approx(0.54)
    assert ("pan13_authorship_verification_greek_test", "pair_predefined") not in agg.inputs


def _one_row_per_column(enc, values):
    """genre, register (+ its distractor accuracy), time, demographics, dialect, features, AV, AR: one dataset each."""
    g, r, ci, t, d, dl, f, av, ar = values
    return [
        rec("core", "clustering", g, enc, categories=("genre",)),
        # ASSET is a Register row (plain accuracy) and a content-independence row (distractor accuracy)
        rec("ASSET", "order_alignment", r, enc, extra={"distractor_accuracy": ci}, categories=("register",)),
        rec("bible_versions", "clustering", t, enc, categories=("time",)),
        rec("fce_l1", "clustering", d, enc, categories=("demographics",)),
        rec("eWAVE", "clustering", dl, enc, categories=("dialect",)),
        rec("probing_blog", "probing", f, enc, categories=("linguistic-feature",)),
        rec("enron_authorship_corpus", "pair_predefined", av, enc, categories=("idiolect",), applications=("AV",)),
        rec("amazon", "retrieval", ar, enc, categories=("idiolect",), applications=("AR",)),
    ]


def test_object_of_study_and_overall_definitional_average():
    recs = _one_row_per_column("a", (0.2, 0.4, 0.3, 0.6, 0.8, 1.0, 0.3, 0.9, 0.5)) + _one_row_per_column(
        "b", (0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.7, 0.3, 0.1)
    )
    table = ResultTable.build(recs)
    # idiolect = (AV + AR) / 2: a (0.9 + 0.5) / 2 = 0.7; b (0.3 + 0.1) / 2 = 0.2
    assert idiolect_score(table).scores == pytest.approx({"a": 0.7, "b": 0.2})
    objects = objects_of_study_score(table)
    # six columns: a (0.2 + 0.4 + 0.6 + 0.8 + 1.0 + 0.7) / 6 = 3.7 / 6 = 0.616666...; b (5 * 0.1 + 0.2) / 6 =
    # 0.116666...
    assert objects.scores == pytest.approx({"a": 0.6166666667, "b": 0.1166666667})
    assert content_independence_score(table).scores == pytest.approx({"a": 0.3, "b": 0.1})
    overall = definitional_score(table)
    # mean(objects, features, content independence): a (0.616666... + 0.3 + 0.3) / 3 = 1.216666... / 3 = 0.405555...;
    # b (0.116666... + 0.7 + 0.1) / 3 = 0.916666... / 3 = 0.305555...
    assert overall.scores == pytest.approx({"a": 0.4055555556, "b": 0.3055555556})
    assert [c.name for c in overall.sub_columns] == ["objects-of-study", "linguistic-features", "content-independence"]
    # the steb 0.1 reading: mean(objects of five, features, idiolect rows Enron/Amazon):
    # a (0.6 + 0.3 + 0.7) / 3 = 0.533333...; b (0.1 + 0.7 + 0.2) / 3 = 0.333333...
    assert definitional_score(table, reading="three-groups").scores == pytest.approx(
        {"a": 0.5333333333, "b": 0.3333333333}
    )


def test_unknown_datasets_use_their_tags_as_their_own_rows():  # the table13 weighting
    recs = [
        rec("demo_registers", "clustering", 0.2, categories=("register",)),
        rec("demo_registers", "pair_all", 0.6, categories=("register",)),
        rec("STEL_register", "order_alignment", 1.0, categories=("register",)),
    ]
    register = col(ResultTable.build(recs), "register")
    # rows: STEL register 1.0, demo_registers mean(0.2, 0.6) = 0.4 -> 0.7
    assert [r.label for r in register.rows] == ["STEL register", "demo_registers"]
    assert register.scores["a"] == pytest.approx(0.7)


# --- multilingual, applications -------------------------------------------------------------------


def test_multilingual_is_mean_of_av_mean_and_aa_mean():
    ml = {"applications": ("multilingual",), "categories": ("idiolect",)}
    recs = [
        rec("pan13_authorship_verification_greek_test", "pair_predefined", 0.6, languages=("el",), **ml),
        rec("pan14_authorship_verification_corpus1_dutch_essays_test", "pair_predefined", 0.7, languages=("nl",), **ml),
        rec("pan15_authorship_verification_spanish_test", "pair_predefined", 0.8, languages=("es",), **ml),
        rec("pan18_cross_domain_authorship_attribution_polish", "retrieval", 0.1, languages=("pl",), **ml),
    ]
    agg = multilingual_score(recs)
    # AV mean(0.6, 0.7, 0.8) = 0.7; AA 0.1 -> 0.4 (a pool of the four would be 0.55)
    assert agg.scores["a"] == pytest.approx(0.4)
    subs = {c.name: c.scores["a"] for c in agg.sub_columns}
    assert subs["multilingual/pair_predefined"] == pytest.approx(0.7)
    assert subs["multilingual/retrieval"] == pytest.approx(0.1)
    assert subs["multilingual/es"] == pytest.approx(0.8)


def test_multilingual_missing_one_input_is_incomplete():
    ml = {"applications": ("multilingual",)}
    recs = [
        rec("m1", "pair_predefined", 0.6, "a", languages=("el",), **ml),
        rec("m1", "pair_predefined", 0.6, "b", languages=("el",), **ml),
        rec("m2", "retrieval", 0.2, "a", languages=("pl",), **ml),
    ]
    agg = multilingual_score(recs)
    assert agg.scores["a"] == pytest.approx(0.4) and agg.scores["b"] is None
    assert [(m.dataset, m.reason) for m in agg.missing["b"]] == [("m2", "no result")]


def test_av_overall_leaves_out_pan18_and_applications_average_uses_av_overall_only():
    recs = [
        rec("pan20_authorship_verification_test", "pair_predefined", 0.8, applications=("AV",)),
        rec("pan23_style_change_easy", "pair_predefined", 0.6, applications=("AV", "AV-easy")),
        rec("pan18_style_change", "pair_predefined", 0.0, applications=("AV",)),
        rec("gede_essay_detection", "clustering", 0.5, applications=("ATD",)),
        rec("machine_text_detection_DetectRL_prompt_attacks", "clustering", 0.1, applications=("ATD-adversarial",)),
        rec("fanfiction", "retrieval", 0.3, applications=("AR",)),
    ]
    table = ResultTable.build(recs)
    av = application_score("AV", "av", "AV", 70, (("AV-easy", "AV easy"),), weighting="table13")(table)
    # AV overall mean(0.8, 0.6) = 0.7 (with PAN18 it would be 0.4667)
    assert av.scores["a"] == pytest.approx(0.7)
    assert ("pan18_style_change", "pair_predefined") not in av.inputs
    apps = applications_average(table, weighting="table13")
    # mean(ATD 0.5, ATD adv 0.1, AV overall 0.7, AR 0.3) = 0.4; the AV easy level (0.6) is not a fifth term
    assert apps.scores["a"] == pytest.approx(0.4)
    assert [c.name for c in apps.sub_columns] == ["atd", "atd-adversarial", "av", "ar"]


# --- frozen operational clusters ------------------------------------------------------------------


def _clustering(encoders, columns):
    out = []
    for dataset, values in columns.items():
        out += [rec(dataset, "clustering", v, enc) for enc, v in zip(encoders, values)]
    return out


FOUR = ["e1", "e2", "e3", "e4"]
# d1 and d2 rank the four models alike (rho 1), d3 reverses them (rho -1)
COLUMNS = {"d1": [0.1, 0.2, 0.3, 0.4], "d2": [0.5, 0.6, 0.7, 0.9], "d3": [0.8, 0.6, 0.4, 0.2]}


def test_frozen_clusters_make_a_two_model_folder_score_like_the_full_one(tmp_path):
    full = operational_score(_clustering(FOUR, COLUMNS))
    assert full.details["clusters"]["clustering"]["clusters"] == [["d1", "d2"], ["d3"]]
    frozen = cluster_set_from_details(full.details, name="paper-4")
    path = frozen.write(tmp_path / "clusters.json")
    data = json.loads(path.read_text())
    assert data["schema"] == "steb.clusters/1" and data["n_models"] == 4 and data["models"] == FOUR
    loaded = load_cluster_set(path)

    two = _clustering(["e1", "e2"], {d: v[:2] for d, v in COLUMNS.items()})
    discovered = operational_score(two)
    # below three models every dataset is its own cluster: e1 = mean(0.1, 0.5, 0.8)
    assert discovered.scores["e1"] == pytest.approx(1.4 / 3)
    table = ResultTable.build(two, cluster_set=loaded)
    agg = operational_score(table)
    # frozen {d1, d2}, {d3}: e1 = mean(mean(0.1, 0.5), 0.8) = 0.55, as in the four-model folder
    assert agg.scores["e1"] == pytest.approx(0.55) == pytest.approx(full.scores["e1"])
    assert agg.scores["e2"] == pytest.approx((0.4 + 0.6) / 2)
    assert agg.details["clusters"]["clustering"]["method"] == "frozen: paper-4"
    assert "4 model(s)" in agg.details["cluster_source"] and str(path) in agg.details["cluster_source"]
    assert "discovered from the 2 model(s)" in discovered.details["cluster_source"]


def test_frozen_clusters_restricted_to_scope_and_unlisted_datasets_are_singletons():
    frozen = ClusterSet(tasks={"clustering": [["d1", "d2", "gone"], ["d3"]]}, name="x", n_models=5)
    recs = _clustering(["e1", "e2"], {"d1": [0.1, 0.2], "d2": [0.5, 0.6], "new": [1.0, 0.0]})
    agg = operational_score(ResultTable.build(recs, cluster_set=frozen))
    info = agg.details["clusters"]["clustering"]
    assert info["clusters"] == [["d1", "d2"], ["new"]]
    assert "new" in info["note"]
    # e1 = mean(mean(0.1, 0.5), 1.0) = 0.65
    assert agg.scores["e1"] == pytest.approx(0.65)


def test_bad_cluster_files_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "steb.clusters/1", "tasks": {"clustering": [["a"], ["a", "b"]]}}))
    with pytest.raises(StebError, match="two clusters"):
        load_cluster_set(bad)
    with pytest.raises(StebError, match="not found"):
        load_cluster_set(tmp_path / "none.json")
    (tmp_path / "other.json").write_text("{}")
    with pytest.raises(StebError, match="schema"):
        load_cluster_set(tmp_path / "other.json")


# --- suite scope ------------------------------------------------------------------------------------


def test_suite_scope_uses_the_suite_tasks():
    spec = DatasetSpec(
        name="pan24x",
        description="",
        tasks=("clustering", "pair_all"),
        loader=lambda ctx: None,
        suites=("s",),
        suite_tasks={"s": ("clustering",)},
    )
    table = ResultTable.build([], [spec], suites=["s"])
    assert table.expected == [("pan24x", "clustering")]
