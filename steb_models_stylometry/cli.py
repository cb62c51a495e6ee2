"""``steb fit-tfidf``: fit the TF-IDF n-gram vectoriser on a reference corpus and save it to a folder.

Corpora: text / JSONL files (``--corpus``) and/or parquet shards such as FineWeb's (``--parquet``, streamed
up to ``--token-budget`` tokens, see :mod:`.parquet_corpus`). The STEB paper's vectoriser was fitted on
FineWeb's ``sample-10BT``; to fit on it offline, download shards on a machine with network, e.g.
``hf download HuggingFaceFW/fineweb --repo-type dataset --include "sample/10BT/000_00000.parquet" --local-dir fineweb``,
then ``steb fit-tfidf --parquet fineweb/sample/10BT --token-budget 100000000 --out tfidf-fineweb``.
``--settings`` picks the vectoriser settings (default ``steb``: those of STEB's reference code; ``steb-0.1``:
steb's earlier ones; see :mod:`.tfidf`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import typer

__all__ = ["add_commands", "read_corpus"]

UNITS = ("line", "paragraph", "file")


def read_corpus(paths: list[Path], unit: str = "line", field: str = "text") -> Iterator[str]:
    """Documents from corpus files: ``.jsonl`` -> one per record (``field``); other files split by ``unit``."""
    from steb_core import DataValidationError, iter_jsonl, read_text, require_field

    if unit not in UNITS:
        raise typer.BadParameter(f"--unit must be one of {', '.join(UNITS)}")
    for path in paths:
        if not path.is_file():
            raise DataValidationError("file does not exist", path=path, expected="a corpus file (.txt or .jsonl)")
        if path.suffix == ".jsonl":
            for lineno, obj in iter_jsonl(path):
                value = require_field(obj, field, path=path, record=f"line {lineno}", types=str)
                if value.strip():
                    yield value
            continue
        text = read_text(path)
        if unit == "file":
            pieces = [text]
        elif unit == "paragraph":
            pieces = [" ".join(p.split()) for p in text.split("\n\n")]
        else:
            pieces = text.split("\n")
        yield from (p for p in pieces if p.strip())


def add_commands(cli: typer.Typer) -> None:
    @cli.command("fit-tfidf")
    def fit_tfidf(
        corpus: list[Path] | None = typer.Option(
            None, "--corpus", help="Corpus file(s): .txt (split by --unit) or .jsonl (--field); repeatable."
        ),
        parquet: list[Path] | None = typer.Option(
            None,
            "--parquet",
            help="Parquet shard(s) or folder(s) of them (e.g. FineWeb's sample/10BT), read in sorted order; "
            "repeatable.",
        ),
        token_budget: int | None = typer.Option(
            None,
            "--token-budget",
            help="Stop reading --parquet after this many tokens (FineWeb's token_count column, else whitespace words).",
        ),
        text_column: str = typer.Option("text", "--text-column", help="Text column of the --parquet shards."),
        out: Path = typer.Option(
            ..., "--out", help="Folder to write the fitted vectoriser to (manifest.json + one .json.gz per block)."
        ),
        unit: str = typer.Option("line", "--unit", help="Document unit in text files: line, paragraph or file."),
        field: str = typer.Option("text", "--field", help="Text field of .jsonl records."),
        block: list[str] | None = typer.Option(
            None, "--block", help="Block(s) to fit (default: all): char_3_5, token_1_2, token_1_3, pos_1_2, pos_1_3."
        ),
        settings: str = typer.Option(
            "steb",
            "--settings",
            help="Vectoriser settings: steb (STEB's reference code: 2,000 terms per block, lower-cased, plain tf, "
            "spaCy tokens) or steb-0.1 (steb's earlier settings).",
        ),
        max_features: int | None = typer.Option(
            None, "--max-features", help="Vocabulary size of every block (default: the settings' per-block sizes)."
        ),
        spacy_model: str | None = typer.Option(
            None, "--spacy-model", help="spaCy pipeline name or path for the token (settings steb) and POS blocks."
        ),
        n_process: int = typer.Option(
            1, "--n-process", help="spaCy worker processes for the token (settings steb) and POS blocks."
        ),
    ) -> None:
        """Fit the TF-IDF n-gram vectoriser on a corpus; load it with `steb run -e tfidf-ngrams -O vectoriser=DIR`."""
        from .parquet_corpus import ParquetReadStats, iter_parquet_texts
        from .tfidf import BLOCKS, SETTINGS, fit_vectoriser

        if settings not in SETTINGS:
            raise typer.BadParameter(f"must be one of {', '.join(SETTINGS)}", param_hint="--settings")
        if not corpus and not parquet:
            raise typer.BadParameter("give --corpus FILE and/or --parquet SHARDS", param_hint="--corpus / --parquet")
        if token_budget is not None and not parquet:
            raise typer.BadParameter("--token-budget applies to --parquet shards", param_hint="--token-budget")
        texts = list(read_corpus(corpus, unit, field)) if corpus else []
        parts = [f"{len(texts)} documents from {', '.join(p.name for p in corpus)} (unit {unit})"] if corpus else []
        if parquet:
            stats = ParquetReadStats()
            before = len(texts)
            texts.extend(iter_parquet_texts(parquet, text_column=text_column, token_budget=token_budget, stats=stats))
            budget = f", budget {token_budget}" if token_budget else ""
            parts.append(
                f"{len(texts) - before} documents ({stats.tokens} tokens by {stats.counted_by}{budget}) from "
                f"{stats.shards} parquet "
                f"shard(s) under {', '.join(p.name for p in parquet)}"
            )
        if not texts:
            raise typer.BadParameter("the corpus has no non-empty documents", param_hint="--corpus / --parquet")
        blocks = block or list(BLOCKS)
        limits = {b: max_features for b in blocks} if max_features else None
        description = "; ".join(parts)
        vec = fit_vectoriser(
            texts,
            blocks,
            settings=settings,
            max_features=limits,
            corpus=description,
            spacy_model=spacy_model,
            n_process=n_process,
        )
        vec.save(out)
        sizes = ", ".join(f"{n}: {len(b.vocabulary)}" for n, b in vec.blocks.items())
        typer.echo(
            f"fitted {len(blocks)} block(s) with settings {settings} on {len(texts)} documents -> {out} ({sizes})"
        )
