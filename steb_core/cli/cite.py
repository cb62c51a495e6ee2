"""``steb cite``: BibTeX for steb/STEB and every encoder and dataset of a results folder, one entry per work."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from .._errors import StebError
from . import common


@common.app.command("cite")
def cite(
    results_dir: Path = typer.Argument(..., help="A results folder written by `steb run`."),
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """Print the BibTeX of steb/STEB and of every encoder and dataset whose results are in RESULTS_DIR."""
    from .._catalogue import STEB_BIBTEX, bibtex
    from .._results import load_results

    manager = common.manager(plugin)
    seen: dict[str, str] = {}
    encoders: dict[str, str] = {}
    registry = manager.encoders()
    for record in load_results(results_dir):
        seen.setdefault(record.dataset, str(record.dataset_meta.get("citation", "")))
        if record.encoder not in encoders:
            encoders[record.encoder] = _encoder_citation(registry, record)
    if not seen:
        raise StebError(f"no results in {results_dir}; run `steb run ... --output {results_dir}` first")
    print(STEB_BIBTEX)
    printed: dict[str, str] = {key: "" for key in re.findall(r"^@\w+\{([^,]+),", STEB_BIBTEX, flags=re.M)}
    # the encoders' works first (the models compared), then the datasets'; a work cited by both prints once
    citations = [citation for _name, citation in sorted(encoders.items())]
    citations += [bibtex(name, citation or f"steb dataset {name}") for name, citation in sorted(seen.items())]
    for citation in citations:
        # one entry per work: a citation may hold several entries (a dataset built on another's), and
        # datasets from one paper share its entry, so an entry is printed once; two works whose keys
        # coincide (keys made from first author, year and title word) both print, the second under a new key
        for entry in re.split(r"\n(?=@\w+\{)", citation.strip()):
            entry = unique_entry(entry, printed)
            if entry is not None:
                print(entry)


_KEY = re.compile(r"^(@\w+\{)([^,]+),")


def unique_entry(entry: str, printed: dict[str, str]) -> str | None:
    """``entry`` to print given the entries ``printed`` so far (key -> entry text, updated): None when the same
    work was printed already (or the key is steb's own, printed first); the entry under ``KEYb``, ``KEYc``, ...
    when another work already holds its key, so no citation is dropped and every key is unique."""
    match = _KEY.match(entry)
    if match is None:
        return None if entry in printed.values() else _remember(entry, entry, printed)
    key, raw = match.group(2), entry[match.end() :]
    body = " ".join(raw.split())  # one work spelled with other line breaks or indentation is the same work
    if key in printed and (printed[key] in ("", body)):
        return None  # steb's own entry, or this very work again
    if any(text == body for k, text in printed.items() if k.startswith(key)):
        return None  # the same work, already printed under a suffixed key
    new, suffix = key, ord("b")
    while new in printed:
        new, suffix = f"{key}{chr(suffix)}", suffix + 1
    return _remember(new, f"{match.group(1)}{new},{raw}", printed, body)


def _remember(key: str, entry: str, printed: dict[str, str], body: str | None = None) -> str:
    printed[key] = entry if body is None else body
    return entry


def _encoder_citation(registry: Any, record: Any) -> str:
    """The installed spec's BibTeX for the encoder of ``record`` (by its name, else the name in its identity); ''
    for encoders without one (a model folder, a plugin that gives none)."""
    for name in (record.encoder, (record.encoder_identity or {}).get("name"), (record.encoder_info or {}).get("name")):
        if isinstance(name, str) and name in registry:
            try:
                return str(getattr(registry.get(name), "citation", "") or "")
            except Exception:  # noqa: BLE001 - a name two plugins registered: no citation rather than no output
                return ""
    return ""
