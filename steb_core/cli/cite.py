"""``steb cite``: BibTeX for steb/STEB and every encoder and dataset of a results folder, one entry per work."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from ..errors import StebError
from . import common


@common.app.command("cite")
def cite(
    results_dir: Path = typer.Argument(..., help="A results folder written by `steb run`."),
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """Print the BibTeX of steb/STEB and of every encoder and dataset whose results are in RESULTS_DIR."""
    from ..catalogue import STEB_BIBTEX, bibtex
    from ..results import load_results

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
    keys: set[str] = set(re.findall(r"^@\w+\{([^,]+),", STEB_BIBTEX, flags=re.M))
    # the encoders' works first (the models compared), then the datasets'; a work cited by both prints once
    for _name, citation in sorted(encoders.items()):
        for entry in re.split(r"\n(?=@\w+\{)", citation.strip()):
            key = re.match(r"@\w+\{([^,]+),", entry)
            if key is not None and key.group(1) not in keys:
                keys.add(key.group(1))
                print(entry)
    for name, citation in sorted(seen.items()):
        # one entry per work: a citation may hold several entries (a dataset built on another's), and
        # datasets from one paper share its key, so each key is printed once
        for entry in re.split(r"\n(?=@\w+\{)", bibtex(name, citation or f"steb dataset {name}").strip()):
            key = re.match(r"@\w+\{([^,]+),", entry)
            if key is None or key.group(1) not in keys:
                keys.add(key.group(1) if key else entry)
                print(entry)


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
