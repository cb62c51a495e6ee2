"""Fitting on parquet shards in FineWeb's schema: streaming order, the token budget, bad shards, the CLI."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer

from steb_core import DataValidationError
from steb_models_stylometry.parquet_corpus import ParquetReadStats, iter_parquet_texts, parquet_shards
from steb_models_stylometry.tfidf import TfidfVectoriser

FINEWEB_SCHEMA = pa.schema([
    ("text", pa.string()), ("id", pa.string()), ("dump", pa.string()), ("url", pa.string()), ("date", pa.string()),
    ("file_path", pa.string()), ("language", pa.string()), ("language_score", pa.float64()),
    ("token_count", pa.int64()),
])  # fmt: skip


def _shard(path, texts, counts, row_group_size=2):
    n = len(texts)
    table = pa.table(
        {
            "text": texts, "id": [f"<urn:{i}>" for i in range(n)], "dump": ["CC-MAIN-2024-10"] * n,
            "url": [f"https://example.org/{i}" for i in range(n)], "date": ["2024-02-21T00:00:00Z"] * n,
            "file_path": ["s3://x.warc.gz"] * n, "language": ["en"] * n, "language_score": [0.9] * n,
            "token_count": counts,
        },
        schema=FINEWEB_SCHEMA,
    )  # fmt: skip
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


@pytest.fixture()
def shards(tmp_path):
    folder = tmp_path / "sample" / "10BT"
    folder.mkdir(parents=True)
    # written out of order: reading must follow the sorted file names
    _shard(folder / "001_00000.parquet", ["the delta text here", "epsilon words", "zeta"], [4, 3, 2])
    _shard(folder / "000_00000.parquet", ["the alpha beta", "   ", "the gamma gamma gamma"], [5, 1, 7])
    return folder


def test_reads_sorted_shards_row_group_by_row_group(shards):
    stats = ParquetReadStats()
    texts = list(iter_parquet_texts([shards], stats=stats, batch_rows=1))
    assert texts == [
        "the alpha beta",
        "the gamma gamma gamma",
        "the delta text here",
        "epsilon words",
        "zeta",
    ]  # blank skipped
    assert (stats.documents, stats.tokens, stats.shards) == (5, 5 + 7 + 4 + 3 + 2, 2)
    assert stats.counted_by == "token_count column"
    assert [p.name for p in parquet_shards([shards])] == ["000_00000.parquet", "001_00000.parquet"]


@pytest.mark.parametrize(("budget", "expected"), [(1, 1), (5, 1), (6, 2), (12, 2), (13, 3), (10_000, 5)])
def test_token_budget_stops_after_the_document_that_reaches_it(shards, budget, expected):
    # running totals by token_count: 5, 12, 16, 19, 21
    stats = ParquetReadStats()
    assert len(list(iter_parquet_texts([shards], token_budget=budget, stats=stats))) == expected
    assert stats.tokens == [5, 12, 16, 19, 21][expected - 1]


def test_whitespace_counting_without_a_token_column(tmp_path):
    path = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"text": ["one two three", "four five", "six"]}), path)
    stats = ParquetReadStats()
    assert list(iter_parquet_texts([path], token_budget=4, stats=stats)) == ["one two three", "four five"]
    assert stats.tokens == 5 and stats.counted_by == "whitespace words"
    with pytest.raises(DataValidationError, match="token_count"):
        list(iter_parquet_texts([path], count="column"))


def test_bad_shards_are_reported_with_file_and_field(tmp_path):
    no_text = tmp_path / "no_text.parquet"
    pq.write_table(pa.table({"content": ["x"]}), no_text)
    with pytest.raises(DataValidationError, match="no column 'text'") as err:
        list(iter_parquet_texts([no_text]))
    assert "no_text.parquet" in str(err.value)
    nulls = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"text": ["fine", None]}), nulls)
    with pytest.raises(DataValidationError, match="row 1"):
        list(iter_parquet_texts([nulls]))
    not_parquet = tmp_path / "junk.parquet"
    not_parquet.write_text("not parquet")
    with pytest.raises(DataValidationError, match="cannot read parquet"):
        list(iter_parquet_texts([not_parquet]))
    with pytest.raises(DataValidationError, match="does not exist"):
        parquet_shards([tmp_path / "missing"])


def test_fit_tfidf_on_parquet_shards(shards, tmp_path):
    from typer.testing import CliRunner

    from steb_models_stylometry.cli import add_commands

    app = typer.Typer()
    add_commands(app)

    @app.command("noop")
    def _noop() -> None:  # a second command keeps typer from collapsing the app into one command
        pass

    out = tmp_path / "vec"
    args = [
        "fit-tfidf",
        "--parquet",
        str(shards),
        "--token-budget",
        "12",
        "--out",
        str(out),
        "--block",
        "token_1_2",
        "--settings",
        "steb-0.1",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    loaded = TfidfVectoriser.load(out)
    assert loaded.n_docs == 2 and "12 tokens by token_count column, budget 12" in loaded.corpus
    # steb-0.1 keeps terms in >= 2 documents: of the first two texts only "the" is shared
    assert loaded.blocks["token_1_2"].vocabulary == ["the"]
    result = CliRunner().invoke(app, ["fit-tfidf", "--out", str(tmp_path / "v2")])
    assert result.exit_code != 0 and "--parquet" in result.output
