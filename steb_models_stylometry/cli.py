"""``steb fit-tfidf``: fit the TF-IDF n-gram vectoriser on a reference corpus and save it to a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, List, Optional

import typer

__all__ = ["add_commands", "read_corpus"]

UNITS = ("line", "paragraph", "file")


def read_corpus(paths: List[Path], unit: str = "line", field: str = "text") -> Iterator[str]:
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
        corpus: List[Path] = typer.Option(..., "--corpus", help="Corpus file(s): .txt (split by --unit) or .jsonl (--field); repeatable."),
        out: Path = typer.Option(..., "--out", help="Folder to write the fitted vectoriser to (manifest.json + one .json.gz per block)."),
        unit: str = typer.Option("line", "--unit", help="Document unit in text files: line, paragraph or file."),
        field: str = typer.Option("text", "--field", help="Text field of .jsonl records."),
        block: Optional[List[str]] = typer.Option(None, "--block", help="Block(s) to fit (default: all): char_3_5, token_1_2, token_1_3, pos_1_2, pos_1_3."),
        max_features: Optional[int] = typer.Option(None, "--max-features", help="Vocabulary size of every block (default: per-block defaults)."),
        spacy_model: Optional[str] = typer.Option(None, "--spacy-model", help="spaCy pipeline name or path for the POS blocks."),
        n_process: int = typer.Option(1, "--n-process", help="spaCy worker processes for the POS blocks."),
    ) -> None:
        """Fit the TF-IDF n-gram vectoriser on a corpus; load it with `steb run -e tfidf-ngrams -O vectoriser=DIR`."""
        from .tfidf import BLOCKS, fit_vectoriser

        texts = list(read_corpus(corpus, unit, field))
        if not texts:
            raise typer.BadParameter("the corpus has no non-empty documents", param_hint="--corpus")
        blocks = block or list(BLOCKS)
        limits = {b: max_features for b in blocks} if max_features else None
        description = f"{len(texts)} documents from {', '.join(p.name for p in corpus)} (unit {unit})"
        vec = fit_vectoriser(texts, blocks, max_features=limits, corpus=description, spacy_model=spacy_model, n_process=n_process)
        vec.save(out)
        sizes = ", ".join(f"{n}: {len(b.vocabulary)}" for n, b in vec.blocks.items())
        typer.echo(f"fitted {len(blocks)} block(s) on {len(texts)} documents -> {out} ({sizes})")
