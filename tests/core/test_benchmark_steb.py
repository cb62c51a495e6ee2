"""The STEB benchmark object holds exactly what the core's and the plugins' own lists held (issue 48 item 4).

Written while those lists still existed (``REFERENCE_DATASETS`` and ``REFERENCE_CLUSTERS`` as literal tables, the
``steb`` tags of four plugins, ``STEB_ROWS``); the core's two tables are now read from the object, so what stays is
a regression check against hand-listed counts and a digest of the content taken from the old tables, the plugins'
tags and rows checked against the object, and the export's and aggregators' views checked to be the object's.
"""

from __future__ import annotations

from collections import Counter

from steb_core._benchmarks import STEB_BENCHMARK, STEB_MULTILINGUAL_BENCHMARK
from steb_core._plugins import new_manager
from steb_core.aggregators.reference_clusters import REFERENCE_CLUSTERS, parse_entry
from steb_core.reference_tree.names import REFERENCE_DATASETS, reference_dataset, steb_dataset
from steb_core.run.selection import resolve_selection


def _tagged_pairs(suite: str) -> set[tuple[str, str]]:
    """The (dataset, task) pairs of the datasets the installed plugins tag with ``suite``."""
    manager = new_manager(env=False)
    tagged = [spec for spec in manager.datasets() if suite in spec.suites]
    return {(spec.name, task) for spec in tagged for task in spec.tasks_for_suite(suite)}


def test_steb_pairs_are_the_plugins_suite_rows():
    assert set(STEB_BENCHMARK.pairs) == _tagged_pairs("steb")
    assert set(STEB_MULTILINGUAL_BENCHMARK.pairs) == _tagged_pairs("steb-multilingual")


def test_suite_steb_runs_what_the_tags_ran_in_the_same_order():
    """``--suite steb`` now reads the benchmark; the datasets, their tasks and the run order are the tag suite's."""
    manager = new_manager(env=False)
    for suite in ("steb", "steb-multilingual"):
        tagged = [(spec.name, spec.tasks_for_suite(suite)) for spec in manager.datasets() if suite in spec.suites]
        assert [(spec.name, tasks) for spec, tasks in resolve_selection(manager, None, suite)] == tagged


def test_the_reference_tree_names_are_the_benchmarks_datasets():
    assert set(STEB_BENCHMARK.datasets) | set(STEB_MULTILINGUAL_BENCHMARK.datasets) == set(REFERENCE_DATASETS)
    assert len(REFERENCE_DATASETS) == 113 and not set(STEB_BENCHMARK.datasets) & set(
        STEB_MULTILINGUAL_BENCHMARK.datasets
    )
    assert all(reference_dataset(d) == d for d in (*STEB_BENCHMARK.datasets, *STEB_MULTILINGUAL_BENCHMARK.datasets))
    assert reference_dataset("demo_registers") is None and steb_dataset("fce_11") == "fce_l1"


def test_the_aggregators_clusters_are_the_benchmarks():
    parsed = {name: tuple(parse_entry(e) for e in entries) for name, entries in STEB_BENCHMARK.clusters.items()}
    assert parsed == REFERENCE_CLUSTERS
    assert list(parsed) == list(REFERENCE_CLUSTERS)  # the YAML's order


def test_steb_style_rows_are_benchmark_pairs():
    from steb_datasets_style.suite import STEB_ROWS

    rows = {(name, task) for name, task, *_ in STEB_ROWS}
    assert rows <= set(STEB_BENCHMARK.pairs) and len(rows) == len(STEB_ROWS) == 77


def test_hand_listed_counts():
    assert len(STEB_BENCHMARK.datasets) == 96 and len(STEB_BENCHMARK.pairs) == 121
    assert Counter(t for _, t in STEB_BENCHMARK.pairs) == {
        "clustering": 53,
        "pair_all": 24,
        "pair_predefined": 25,
        "order_alignment": 11,
        "retrieval": 4,
        "probing": 4,
    }
    assert len(STEB_MULTILINGUAL_BENCHMARK.datasets) == 17
    assert Counter(t for _, t in STEB_MULTILINGUAL_BENCHMARK.pairs) == {"pair_predefined": 13, "retrieval": 4}
    assert {k: len(v) for k, v in STEB_BENCHMARK.clusters.items()} == {
        "machine_text_detection": 26,
        "machine_text_detection_adversarial": 3,
        "authorship_verification": 25,
        "authorship_retrieval": 4,
        "speaker_attribution": 7,
        "genre": 4,
        "register": 8,
        "style_vs_content": 10,
        "time": 3,
        "demographics": 8,
        "feature_probing": 4,
        "predefined_features": 7,
        "dialect": 3,
        "idiolect": 29,
    }


def test_content_digest_is_the_old_lists():
    """sha256 of the sorted pairs and the clusters (in order), taken while the old lists still existed: a changed
    pair, entry or cluster order fails here even where every count above still holds."""
    import hashlib
    import json

    def digest(pairs, clusters):
        return hashlib.sha256(json.dumps([sorted(pairs), list(clusters.items())]).encode()).hexdigest()[:16]

    assert digest(STEB_BENCHMARK.pairs, STEB_BENCHMARK.clusters) == "58611e707485c779"
    assert digest(STEB_MULTILINGUAL_BENCHMARK.pairs, STEB_MULTILINGUAL_BENCHMARK.clusters) == "3ac3f556e55573f1"
