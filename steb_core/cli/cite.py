"""``steb cite``: BibTeX for steb/STEB and every dataset of a results folder, one entry per work."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import typer

from ..errors import StebError
from . import common


@common.app.command("cite")
def cite(
    results_dir: Path = typer.Argument(..., help="A results folder written by `steb run`."),
    plugin: Optional[list[str]] = common.PluginOpt,
) -> None:
    """Print the BibTeX of steb/STEB and of every dataset whose results are in RESULTS_DIR."""
    from ..catalogue import STEB_BIBTEX, bibtex
    from ..results import load_results

    common.manager(plugin)
    seen: dict[str, str] = {}
    for record in load_results(results_dir):
        seen.setdefault(record.dataset, str(record.dataset_meta.get("citation", "")))
    if not seen:
        raise StebError(f"no results in {results_dir}; run `steb run ... --output {results_dir}` first")
    print(STEB_BIBTEX)
    keys: set[str] = set(re.findall(r"^@\w+\{([^,]+),", STEB_BIBTEX, flags=re.M))
    for name, citation in sorted(seen.items()):
        # one entry per work: a citation may hold several entries (a dataset built on another's), and
        # datasets from one paper share its key, so each key is printed once
        for entry in re.split(r"\n(?=@\w+\{)", bibtex(name, citation or f"steb dataset {name}").strip()):
            key = re.match(r"@\w+\{([^,]+),", entry)
            if key is None or key.group(1) not in keys:
                keys.add(key.group(1) if key else entry)
                print(entry)
