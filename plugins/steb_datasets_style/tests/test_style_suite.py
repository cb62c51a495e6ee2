"""The style plugin's ``steb`` membership is the core's STEB benchmark object's (issue 48 item 4), its sizes the
catalogue's: a size row and a benchmark pair that disagree are refused, not silently tagged."""

from __future__ import annotations

import dataclasses

import pytest

from steb_core import STEB_BENCHMARK
from steb_datasets_style import suite


def test_suite_fields_read_the_benchmark_pairs():
    fields = suite.suite_fields("bible_versions", ("pair_all", "retrieval", "clustering"))
    assert fields["suites"] == ("steb",)
    assert fields["suite_tasks"] == {"steb": ("pair_all", "clustering")}  # the benchmark's, in the spec's order
    assert fields["expected"]["clustering"] == {"classes": 8, "per_class": 200, "texts": 1600}
    assert suite.suite_fields("reddit", ("retrieval",)) == {}  # outside the benchmark, no size row: outside


def test_a_size_row_the_benchmark_does_not_hold_is_refused(monkeypatch):
    without = dataclasses.replace(STEB_BENCHMARK, pairs=tuple(p for p in STEB_BENCHMARK.pairs if p[0] != "blog_age"))
    monkeypatch.setattr(suite, "STEB_BENCHMARK", without)
    with pytest.raises(ValueError, match=r"dataset 'blog_age': the STEB benchmark scores it on \[\] .*STEB_ROWS"):
        suite.suite_fields("blog_age", ("clustering", "pair_all"))


def test_a_benchmark_pair_without_a_size_row_is_refused(monkeypatch):
    extra = dataclasses.replace(STEB_BENCHMARK, pairs=(*STEB_BENCHMARK.pairs, ("reddit", "retrieval")))
    monkeypatch.setattr(suite, "STEB_BENCHMARK", extra)
    with pytest.raises(ValueError, match=r"dataset 'reddit': the STEB benchmark scores it on \['retrieval'\]"):
        suite.suite_fields("reddit", ("retrieval",))
