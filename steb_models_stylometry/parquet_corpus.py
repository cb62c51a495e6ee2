"""Streaming a fitting corpus out of parquet shards (FineWeb), up to a token budget.

The STEB paper fitted its TF-IDF vectoriser on "a 10B-token web sample"; its reference code names the
file ``tfidfngrams_fineweb_sample10bt_1-2grams.pkl``, i.e. FineWeb's ``sample-10BT`` subset
(``HuggingFaceFW/fineweb``, folder ``sample/10BT/``: parquet shards ``000_00000.parquet``, ...,
about 2.15 GB each, ODC-By licence). Neither says how much of it went into the fit, so steb lets the
user choose a budget.

FineWeb's shards have the columns ``text`` (string), ``id``, ``dump``, ``url``, ``date``,
``file_path``, ``language``, ``language_score`` and ``token_count`` (int64: the document's GPT-2 token
count). :func:`iter_parquet_texts` reads only the text column (and ``token_count`` when counting by
it) one row group at a time with pyarrow, in sorted shard order, and stops after the document that
brings the running token total to the budget, so a budget of 100M tokens reads about 100M tokens'
worth of text, never whole shards into memory. Tokens are counted by the ``token_count`` column when
the shard has it (``count="column"``, FineWeb's GPT-2 counts), else by whitespace-separated words
(``count="whitespace"``, also the fallback of ``count="auto"``). Empty or whitespace-only texts are
skipped (and not counted); a null or non-string text is an error naming the shard and row.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["parquet_shards", "iter_parquet_texts", "ParquetReadStats", "COUNTS"]

COUNTS = ("auto", "column", "whitespace")
_TOKEN_COLUMN = "token_count"


@dataclass
class ParquetReadStats:
    """What a read consumed: documents yielded, tokens counted, shards opened (filled while iterating)."""

    documents: int = 0
    tokens: int = 0
    shards: int = 0
    counted_by: str = ""


def parquet_shards(paths: Iterable[str | Path]) -> list[Path]:
    """The parquet files named by ``paths`` (files, or folders searched recursively), sorted within each folder."""
    from steb_core import DataValidationError

    shards: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(path.rglob("*.parquet"))
            if not found:
                raise DataValidationError(
                    "folder has no .parquet files", path=path, expected="parquet shards (e.g. FineWeb's sample/10BT)"
                )
            shards.extend(found)
        elif path.is_file():
            shards.append(path)
        else:
            raise DataValidationError("file does not exist", path=path, expected="a parquet shard or a folder of them")
    return shards


def iter_parquet_texts(
    paths: Sequence[str | Path],
    *,
    text_column: str = "text",
    token_budget: int | None = None,
    count: str = "auto",
    batch_rows: int = 1024,
    stats: ParquetReadStats | None = None,
) -> Iterator[str]:
    """Texts of the shards in order, until ``token_budget`` tokens have been yielded (see module docstring)."""
    import pyarrow.parquet as pq

    from steb_core import DataValidationError

    if count not in COUNTS:
        raise ValueError(f"count must be one of {', '.join(COUNTS)}, not {count!r}")
    if token_budget is not None and token_budget < 1:
        raise ValueError(f"token_budget must be positive, not {token_budget}")
    stats = stats if stats is not None else ParquetReadStats()
    for shard in parquet_shards(paths):
        try:
            handle = pq.ParquetFile(shard)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a file that is not parquet
            raise DataValidationError(
                f"cannot read parquet ({type(exc).__name__}: {exc})", path=shard, expected="a parquet file"
            ) from None
        names = handle.schema_arrow.names
        if text_column not in names:
            raise DataValidationError(
                f"no column {text_column!r} (columns: {', '.join(names)})",
                path=shard,
                field=text_column,
                expected="a string column of documents",
            )
        by_column = count == "column" or (count == "auto" and _TOKEN_COLUMN in names)
        if by_column and _TOKEN_COLUMN not in names:
            raise DataValidationError(
                f"no column {_TOKEN_COLUMN!r} to count tokens by",
                path=shard,
                field=_TOKEN_COLUMN,
                expected="FineWeb's int64 token counts (or count='whitespace')",
            )
        stats.shards += 1
        stats.counted_by = f"{_TOKEN_COLUMN} column" if by_column else "whitespace words"
        columns = [text_column, _TOKEN_COLUMN] if by_column else [text_column]
        row = 0
        for batch in handle.iter_batches(batch_size=batch_rows, columns=columns):
            texts = batch.column(0).to_pylist()
            counts = batch.column(1).to_pylist() if by_column else None
            for i, text in enumerate(texts):
                if not isinstance(text, str):
                    raise DataValidationError(
                        f"text is {type(text).__name__}",
                        path=shard,
                        record=f"row {row + i}",
                        field=text_column,
                        expected="a string",
                    )
                if not text.strip():
                    continue
                n = int(counts[i]) if counts is not None and counts[i] is not None else len(text.split())
                stats.documents += 1
                stats.tokens += n
                yield text
                if token_budget is not None and stats.tokens >= token_budget:
                    return
            row += len(texts)
