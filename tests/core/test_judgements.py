"""steb_core.judgement_table: the checks every judgement-set loader gets (issue 49), and the spec's registration."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from steb_core import (
    AspectRatings,
    DataValidationError,
    JudgementSetSpec,
    RatingScale,
    RowOrigin,
    judgement_table,
)

SCALE = RatingScale(1, 5)


def _table(values, subsets=("a", "a", "b", "b"), **kwargs):
    n = len(subsets)
    block = AspectRatings("content", SCALE, ("r1", "r2"), np.asarray(values, float), fields=("c1", "c2"))
    return judgement_table(
        name="t",
        item_id=[str(i) for i in range(n)],
        source=["s"] * n,
        output=["o"] * n,
        subset=list(subsets),
        ratings={"content": block},
        origins=[RowOrigin("ratings.csv", i + 1) for i in range(n)],
        **kwargs,
    )


def test_a_valid_table_gives_means_subsets_and_no_systems():
    table = _table([[1, 3], [2, np.nan], [5, 5], [4, 2]])
    np.testing.assert_allclose(table.mean("content"), [2, 2, 5, 3])
    assert table.subsets() == ["a", "b"] and table.system is None and table.systems() == []


@pytest.mark.parametrize(
    ("values", "subsets", "words"),
    [
        ([[1, 3], [2, 6], [5, 5], [4, 2]], ("a", "a", "b", "b"), ["row 2", "'c2'", "outside the scale", "1-5"]),
        ([[1, 3], [np.nan, np.nan], [5, 5], [4, 2]], ("a", "a", "b", "b"), ["row 2", "no annotator rated"]),
        ([[1, 3], [2, 2], [5, 5], [4, 2]], ("a", "a", "a", "b"), ["row 4", "subset 'b' has 1 row", "'subset'"]),
    ],
)
def test_bad_tables_name_file_row_and_field(values, subsets, words):
    with pytest.raises(DataValidationError) as err:
        _table(values, subsets)
    assert "ratings.csv" in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_misaligned_columns_are_refused():
    with pytest.raises(DataValidationError, match="3 values in column 'system' for 4 outputs"):
        _table([[1, 3], [2, 2], [5, 5], [4, 2]], system=["x", "y", "z"])


def test_a_scale_must_be_ordered():
    with pytest.raises(ValueError, match="low < high"):
        RatingScale(5, 1)


def test_a_registered_set_is_listed_with_its_facts(tmp_path):
    from steb_core import hookimpl, register_object, reset_manager
    from steb_core.cli import build_app

    class Plugin:
        @hookimpl
        def register_judgement_sets(self, register):
            register(
                JudgementSetSpec(
                    "my-set", "my ratings", lambda folder: _table([[1, 2]] * 4), aspects=("content",), license="MIT"
                )
            )

    reset_manager()
    unregister = register_object(Plugin(), "my-plugin")
    try:
        result = CliRunner().invoke(build_app([]), ["list", "judgement-sets", "--format", "json"])
        assert result.exit_code == 0, result.output
        row = next(r for r in json.loads(result.output) if r["name"] == "my-set")
        assert row["provider"] == "my-plugin" and row["aspects"] == "content" and row["license"] == "MIT"
    finally:
        unregister()
        reset_manager()
    spec = JudgementSetSpec("my-set", "my ratings", lambda folder: _table([[1, 2]] * 4))
    assert spec.data_folder(tmp_path) == tmp_path / "my-set"


def test_data_get_knows_a_judgement_sets_sources():
    from steb_core import DataSource, hookimpl, register_object, reset_manager
    from steb_core.cli import build_app

    source = DataSource("git", "https://github.com/owner/ratings", revision="a" * 40, files=("data/*.csv",))

    class Plugin:
        @hookimpl
        def register_judgement_sets(self, register):
            register(JudgementSetSpec("my-set", "my ratings", lambda folder: _table([[1, 2]] * 4), sources=(source,)))

    reset_manager()
    unregister = register_object(Plugin(), "my-plugin")
    try:
        args = ["data", "get", "--judgement-set", "my-set", "--dry-run", "--format", "json"]
        result = CliRunner().invoke(build_app(args), args)
        assert result.exit_code == 0, result.output
        assert "my-set" in result.output and "github.com/owner/ratings" in result.output
    finally:
        unregister()
        reset_manager()
